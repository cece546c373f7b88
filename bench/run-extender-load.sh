#!/usr/bin/env bash
# Filter load against the scheduler extender and, in the same run, against a bare JDK HTTP server
# that reads the same request and answers the same bytes (the floor). Results go to stdout as a
# Markdown table; docs/benchmarks.md ("extender") records runs.
# Arguments: [nodes=5000] [pods=40000] [clients=16] [warmup-s=30] [measure-s=15] [server-threads=CPUs] [gpu-core-%=30, 0 = memory only]
#            [policy=fragmentation (the extender's default) | binpack | spread]
#            [uid-rule=default|on|off] [uid-pods-%=0] [uid-requests-%=0] [uids=4] (the share of preloaded pods and of the clients'
#            pods that run as one of that many UIDs; the rule on as in the product; SPLIT=1 only)
# SPLIT=1 (the default on 2 or more CPUs) runs the servers and the load generator as two processes, pinned with
# taskset to SERVER_CPUS (default 0) and LOAD_CPUS (default 1): the generator never takes the server's CPU.
# SPLIT=0 runs both in one process; then CPUS=0,1 pins that process.
# Needs the modules bench depends on installed (BUILD_DEPS=1 builds them first).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/bin/jdk.sh"
mpshare_find_jdk || exit 2
mpshare_require_maven || exit 2
cd "$root"
if [ "${BUILD_DEPS:-0}" = 1 ]; then
  mvn -B -ntp -q -pl bench -am install -DskipTests
fi
mkdir -p bench/target
if ! mvn -B -ntp -q -pl bench compile dependency:build-classpath -Dmdep.outputFile=target/extender-load.classpath >bench/target/extender-load-build.log 2>&1; then
  cat bench/target/extender-load-build.log >&2; echo "build failed" >&2; exit 1
fi
# private copies of the jars: other builds may reinstall snapshots in ~/.m2 while the run goes on
lib=bench/target/extender-load-lib
rm -rf "$lib" && mkdir -p "$lib"
cp="bench/target/classes"
IFS=: read -r -a jars < bench/target/extender-load.classpath || true  # no trailing newline
for j in "${jars[@]}"; do
  dest="$lib/$(basename "$j")"
  cp "$j" "$dest"
  unzip -tq "$dest" >/dev/null 2>&1 || { sleep 2; cp "$j" "$dest"; }
  cp="$cp:$dest"
done
java=("$JAVA_HOME/bin/java" -Djava.util.logging.config.file=/dev/null -cp "$cp")
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
split=${SPLIT:-$([ "$(nproc)" -ge 2 ] && echo 1 || echo 0)}
if [ "$split" != 1 ]; then
  pin=()
  if [ -n "${CPUS:-}" ]; then pin=(taskset -c "$CPUS"); fi
  exec "${pin[@]}" "${java[@]::1}" -Xms2g -Xmx2g "${java[@]:1}" io.mpshare.bench.extender.ExtenderLoad "$@"
fi
command -v taskset >/dev/null || { echo "taskset is missing (util-linux): apt-get install -y util-linux, or SPLIT=0" >&2; exit 2; }
nodes=${1:-5000} pods=${2:-40000} clients=${3:-16} warmup=${4:-30} measure=${5:-15} threads=${6:-0} core=${7:-30} policy=${8:-fragmentation}
uid_rule=${9:-default} uid_pods=${10:-0} uid_requests=${11:-0} uids=${12:-4}
out=bench/target/extender-server.out
taskset -c "${SERVER_CPUS:-0}" "${java[@]::1}" -Xms2g -Xmx2g "${java[@]:1}" io.mpshare.bench.extender.ExtenderLoad serve \
  "$nodes" "$pods" "$([ "$threads" = 0 ] && echo 1 || echo "$threads")" "$core" "$policy" "$uid_rule" "$uid_pods" "$uid_requests" "$uids" >"$out" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 600); do grep -q '^ports ' "$out" && break; kill -0 "$server" 2>/dev/null || { cat "$out" >&2; exit 1; }; sleep 0.5; done
read -r _ ext floor < <(grep -m1 '^ports ' "$out")
grep -v '^ports ' "$out"
echo "server pinned to CPU ${SERVER_CPUS:-0}, load generator to CPU ${LOAD_CPUS:-1}; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
taskset -c "${LOAD_CPUS:-1}" "${java[@]::1}" -Xms1g -Xmx1g "${java[@]:1}" io.mpshare.bench.extender.ExtenderLoad load \
  "$ext" "$floor" "$nodes" "$clients" "$warmup" "$measure" "$core" "$uid_requests" "$uids"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
