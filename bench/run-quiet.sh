#!/usr/bin/env bash
# The extender filter load and the device plugin Allocate benchmarks from prebuilt classes, for a machine without
# Maven (the GPU machine used as a quiet many-core host; no GPU is used): JAVA and CP name the runtime and the
# classpath (bench classes + their dependencies). Servers pinned to SERVER_CPUS (default 0,1: two cores, as the
# 2-vCPU VM gives), load generators to LOAD_CPUS (default 2-5), so a generator never takes a server's core.
# Usage: JAVA=... CP=... bench/run-quiet.sh [extender|allocate|both]
set -euo pipefail
: "${JAVA:?set JAVA}" "${CP:?set CP}"
S=${SERVER_CPUS:-0,1}; L=${LOAD_CPUS:-2-5}
j=("$JAVA" -Djava.util.logging.config.file=/dev/null -cp "$CP")
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg); servers on CPUs $S, load on $L"
what=${1:-both}
if [ "$what" != allocate ]; then
  out=$(mktemp)
  taskset -c "$S" "${j[@]::1}" -Xms2g -Xmx2g "${j[@]:1}" io.mpshare.bench.extender.ExtenderLoad serve 5000 40000 2 30 fragmentation > "$out" 2>&1 &
  srv=$!
  for _ in $(seq 600); do grep -q '^ports ' "$out" && break; kill -0 $srv 2>/dev/null || { cat "$out"; exit 1; }; sleep 0.5; done
  read -r _ ext floor < <(grep -m1 '^ports ' "$out"); grep -v '^ports ' "$out" || true
  taskset -c "$L" "${j[@]::1}" -Xms1g -Xmx1g "${j[@]:1}" io.mpshare.bench.extender.ExtenderLoad load "$ext" "$floor" 5000 16 20 10 30
  kill $srv 2>/dev/null || true
fi
if [ "$what" != extender ]; then
  sock=$(mktemp -u /tmp/alloc.XXXX.sock)
  taskset -c "$S" "${j[@]::1}" "${j[@]:1}" io.mpshare.bench.deviceplugin.AllocateOverSocket serve "$sock" 110 > /tmp/alloc-serve.log 2>&1 &
  srv=$!
  for _ in $(seq 120); do [ -S "$sock" ] && break; sleep 0.5; done
  taskset -c "$L" "${j[@]::1}" "${j[@]:1}" io.mpshare.bench.deviceplugin.AllocateOverSocket drive "$sock" 40 110
  kill $srv 2>/dev/null || true
fi
