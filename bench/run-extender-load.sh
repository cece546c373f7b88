#!/usr/bin/env bash
# Filter load against the scheduler extender and, in the same run, against a bare JDK HTTP server
# that reads the same request and answers the same bytes (the floor). Results go to stdout as a
# Markdown table; docs/benchmarks.md ("extender") records runs.
# Arguments: [nodes=5000] [pods=40000] [clients=16] [warmup-s=30] [measure-s=15] [server-threads=CPUs] [gpu-core-%=30, 0 = memory only]
#            [policy=fragmentation (the extender's default) | binpack | spread]
# CPUS=0,1 pins the whole run (server and load generator) to those CPUs with taskset.
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
pin=()
if [ -n "${CPUS:-}" ]; then pin=(taskset -c "$CPUS"); fi
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec "${pin[@]}" "$JAVA_HOME/bin/java" -Xms2g -Xmx2g -Djava.util.logging.config.file=/dev/null \
  -cp "$cp" io.mpshare.bench.extender.ExtenderLoad "$@"
