#!/usr/bin/env bash
# The extender filter load and the device plugin Allocate benchmarks from prebuilt classes, for a machine without
# Maven (the GPU machine used as a quiet many-core host; no GPU is used). Servers pinned to SERVER_CPUS (default 0,1:
# two cores, as the 2-vCPU VM gives), load generators to LOAD_CPUS (default 2-5), so a generator never takes a
# server's core.
#
# Runtime and classes: JAVA and CP when set; else .device/jre/bin/java and .device/bench/{classes,lib}, unpacked
# here from .device/jre.tgz (e2e/gpu/build-runtime.sh) and .device/bench.tar.xz (bench/build-quiet.sh) on first use.
#
# Usage: bash bench/run-quiet.sh [extender|allocate|both]   (from the repository root; default both)
# extender: for each mix in MIXES (default "none uid tenant") and each GC in GCS (default "default"), a fresh server process
# with 5,000 nodes x 8 GPUs and 40k pods preloaded, the floor (bare JDK server, same bytes), the extender, the floor
# again, 16 clients, WARMUP (20) s warm-up and MEASURE (10) s measured; then one summary table.
#   The extender runs with its own defaults (the UID rule as ExtenderConfig.defaults() has it: on today), so the mixes
#   below are what the product runs by default; the server's first line says which rule that was.
#   mix none: no pod runs as a known UID (the filter's index path);
#   mix uid:  half the preloaded pods and half the clients' pods run as one of 4 UIDs (1000-1003), so with the rule on a
#             UID pod is refused on about 3 nodes in 4 (left out without reasons, since other nodes are kept);
#   mix tenant: the uid mix in tenant fault domains (the extender's default domain kind): the preloaded pods in 16
#             tenant domains, the asked pod in another, so the UID rule judges no pod and every booked GPU weighs a new
#             daemon (DomainCost) in the shortlist's scores.
#   GCs: default (the JVM's choice: G1 on 2 CPUs), g1, parallel, serial, zgc; the server's heap is SERVER_HEAP (2g).
#   SERVER_JAVA_OPTS: more flags for the server JVM (e.g. -Dbench.pickInFilter=false: pods without preferences get the
#   shortlist too, not the one node the product's default picks).
#   SHORTLISTS (default "32 0"): the filter's shortlist, the product's default (32: a filter keeps the policy's 32 best
#   nodes, scoring every node that fits to choose them) and 0 (every node that fits kept, unscored), in the same run.
#   BASELINE_CP: another build's server classpath (e.g. ".device/old-core.jar:.device/bench/classes:.device/bench/lib/*",
#   a jar of the classes that changed ahead of this build's): each mix then runs four servers in the order this build,
#   baseline, baseline, this build, and ends with their means' ratio. Back-to-back runs on one machine drift (the
#   first of two was faster in five of seven pairs, docs/benchmarks.md), and that order weighs the drift on both alike.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
if [ -z "${JAVA:-}" ] || [ -z "${CP:-}" ]; then
  D=.device
  untar() { # $1 archive, $2 what it makes: unpacked again when the archive is newer than the last unpacking
    local mark="$D/.$1.unpacked"
    if [ ! -f "$D/$1" ]; then
      [ -e "$D/$2" ] && return 0
      echo "run-quiet: neither $D/$2 nor $D/$1: set JAVA and CP, or build them (bench/build-quiet.sh, e2e/gpu/build-runtime.sh)" >&2; exit 2
    fi
    [ -e "$D/$2" ] && [ "$mark" -nt "$D/$1" ] && return 0
    rm -rf "${D:?}/${2%%/*}"
    tar -C "$D" -xf "$D/$1" 2>/dev/null || python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$D/$1" "$D"
    touch "$mark"
  }
  untar jre.tgz jre/bin/java
  untar bench.tar.xz bench/classes
  JAVA=${JAVA:-$D/jre/bin/java}
  CP=${CP:-$D/bench/classes:$D/bench/lib/*}
fi
S=${SERVER_CPUS:-0,1}; L=${LOAD_CPUS:-2-5}
. bench/cpu-topology.sh
# one HTTP worker per server CPU, as the extender's default (--http-threads 0) gives (two on the default 0,1);
# SERVER_THREADS overrides
T=${SERVER_THREADS:-$(cpu_list "$S" | wc -l)}
j=("$JAVA" -Djava.util.logging.config.file=/dev/null -cp "$CP")
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg); servers on CPUs $S ($T HTTP workers; $(cores_in "$S") physical cores), load on $L ($(cores_in "$L") physical cores)"
warn_topology run-quiet "$S" "$L"
what=${1:-both}
out_dir=$(mktemp -d /tmp/run-quiet.XXXX)

gc_flags() {
  case "$1" in
    default) ;; g1) echo -XX:+UseG1GC ;; parallel) echo -XX:+UseParallelGC ;; serial) echo -XX:+UseSerialGC ;; zgc) echo -XX:+UseZGC ;;
    *) echo "run-quiet: unknown GC $1 (default, g1, parallel, serial, zgc)" >&2; exit 2 ;;
  esac
}
mix_args() { # serve's [uid-rule] [uid-pods-%] [uid-requests-%] [uids], then load's [uid-requests-%] [uids], then the server's JVM flags
  case "$1" in
    none) echo "default 0 0 4|0 4|" ;; uid) echo "default 50 50 4|50 4|" ;;
    tenant) echo "default 50 50 4|50 4|-Dbench.faultDomain=tenant" ;;
    *) echo "run-quiet: unknown mix $1 (none, uid, tenant)" >&2; exit 2 ;;
  esac
}
# GC pauses in the measured window of a server's -Xlog:gc,gc+phases file (ZGC logs its pauses as phases): count, total ms, longest ms
pauses() { awk -v from="$2" -v to="$3" '/Pause/ { t = $1; gsub(/[\[\]s]/, "", t); ms = $NF; sub(/ms/, "", ms);
  if (t + 0 >= from && t + 0 <= to) { n++; sum += ms; if (ms > max) max = ms } }
  END { printf "%d|%.1f|%.2f", n, sum, max }' "$1"; }

if [ "$what" != allocate ]; then
  summary=(); ab=()
  builds=current; [ -z "${BASELINE_CP:-}" ] || builds="current baseline baseline current"
  for mix in ${MIXES:-none uid tenant}; do
    IFS='|' read -r smix lmix sflags <<< "$(mix_args "$mix")"
    for sl in ${SHORTLISTS:-32 0}; do
    for gc in ${GCS:-default}; do
    declare -A rates=()
    k=0
    for build in $builds; do
      k=$((k + 1)); tag="$mix-s$sl-$gc-$k-$build"; out="$out_dir/$tag.server.out"; gclog="$out_dir/$tag.gc.log"
      echo; echo "== mix $mix, shortlist $sl, GC $gc${BASELINE_CP:+, build $build}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
      sj=("${j[@]}"); if [ "$build" = baseline ]; then sj[${#sj[@]}-1]=$BASELINE_CP; fi # the classpath is j's last word
      t_srv=$(date +%s.%N)
      # shellcheck disable=SC2046
      taskset -c "$S" "${sj[@]::1}" -Xms"${SERVER_HEAP:-2g}" -Xmx"${SERVER_HEAP:-2g}" $(gc_flags "$gc") -Xlog:gc,gc+phases:file="$gclog":uptime -Dbench.shortlist="$sl" $sflags ${SERVER_JAVA_OPTS:-} \
        "${sj[@]:1}" io.mpshare.bench.extender.ExtenderLoad serve 5000 40000 "$T" 30 fragmentation $smix > "$out" 2>&1 &
      srv=$!
      for _ in $(seq 600); do grep -q '^ports ' "$out" && break; kill -0 $srv 2>/dev/null || { cat "$out"; exit 1; }; sleep 0.5; done
      read -r _ ext floor < <(grep -m1 '^ports ' "$out"); grep -v '^ports ' "$out" || true
      start=$(awk -v a="$(date +%s.%N)" -v b="$t_srv" 'BEGIN { print a - b }') # the server's uptime when the load starts
      # shellcheck disable=SC2086
      taskset -c "$L" "${j[@]::1}" -Xms1g -Xmx1g "${j[@]:1}" io.mpshare.bench.extender.ExtenderLoad load "$ext" "$floor" 5000 16 \
        "${WARMUP:-20}" "${MEASURE:-10}" 30 $lmix | tee "$out_dir/$tag.load.out"
      kill $srv 2>/dev/null || true; wait $srv 2>/dev/null || true
      # the extender's measured window in server uptime (to about half a second): after the first floor's warm-up and
      # measurement and the extender's own warm-up
      w=${WARMUP:-20}; m=${MEASURE:-10}
      from=$(awk -v s="$start" -v w="$w" -v m="$m" 'BEGIN { print s + 2 * w + m }'); to=$(awk -v f="$from" -v m="$m" 'BEGIN { print f + m }')
      gcs=$(pauses "$gclog" "$from" "$to")
      while IFS= read -r row; do
        IFS='|' read -r _ name rate p50 p99 p999 _ <<< "$row"
        summary+=("| $mix | $sl | $gc |${BASELINE_CP:+ $build:}$name|$rate|$p50|$p99|$p999| ${gcs//|/ | } |")
        [ "$(echo $name)" = extender ] && rates[$build]="${rates[$build]:-} $(echo $rate)"
      done < <(grep '^| extender' "$out_dir/$tag.load.out" | sort -u)
    done
    if [ -n "${BASELINE_CP:-}" ]; then # ABBA: a drift over the four runs weighs on both builds alike
      ab+=("| $mix | $sl | $gc |${rates[current]} |${rates[baseline]} | $(awk -v c="${rates[current]}" -v b="${rates[baseline]}" 'BEGIN {
        n = split(c, x, " "); m = split(b, y, " "); for (i = 1; i <= n; i++) sc += x[i]; for (i = 1; i <= m; i++) sb += y[i]
        printf "%.2f", (sc / n) / (sb / m) }') |")
    fi
    unset rates
    done
    done
  done
  echo; echo "## summary ($(nproc) CPUs; servers on $S, load on $L; load average now $(cut -d' ' -f1-3 /proc/loadavg); logs in $out_dir)"
  echo "| mix | shortlist | GC | server | filters/s | p50 ms | p99 ms | p99.9 ms | GC pauses (measured window) | total ms | longest ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${summary[@]}"
  echo "goal: >= 3000 filters/s and p99 <= 5 ms (docs/benchmarks.md)"
  if [ -n "${BASELINE_CP:-}" ]; then
    echo; echo "## this build against BASELINE_CP (runs in the order current, baseline, baseline, current)"
    echo "| mix | shortlist | GC | current filters/s | baseline filters/s | current / baseline (means) |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${ab[@]}"
  fi
fi
if [ "$what" != extender ]; then
  sock=$(mktemp -u /tmp/alloc.XXXX.sock)
  taskset -c "$S" "${j[@]::1}" "${j[@]:1}" io.mpshare.bench.deviceplugin.AllocateOverSocket serve "$sock" 110 > "$out_dir/alloc-serve.log" 2>&1 &
  srv=$!
  for _ in $(seq 120); do [ -S "$sock" ] && break; sleep 0.5; done
  taskset -c "$L" "${j[@]::1}" "${j[@]:1}" io.mpshare.bench.deviceplugin.AllocateOverSocket drive "$sock" 40 110
  kill $srv 2>/dev/null || true
fi
