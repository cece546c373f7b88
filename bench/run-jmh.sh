#!/usr/bin/env bash
# Builds bench/target/benchmarks.jar (profile jmh) and runs JMH from it with JDK 25.
# Arguments go to JMH, e.g.:  bench/run-jmh.sh FilterBenchmark -p nodes=5000 -wi 2 -i 3
# Default: every benchmark with the settings in its annotations. Needs core (and the modules bench
# depends on) installed in the local Maven repository, or pass BUILD_DEPS=1 to build them first.
# SKIP_BUILD=1 reuses bench/target/benchmarks.jar. On a shared machine add
#   -prof io.mpshare.bench.CpuTimeProfiler
# for CPU time per op beside wall time (docs/benchmarks.md, "core filter", says why).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/bin/jdk.sh"
mpshare_find_jdk || exit 2
mpshare_require_maven || exit 2
cd "$root"
if [ "${BUILD_DEPS:-0}" = 1 ]; then
  mvn -B -ntp -q -pl bench -am install -DskipTests
fi
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -B -ntp -q -pl bench -Pjmh package -DskipTests
fi
echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); CPUs: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec "$JAVA_HOME/bin/java" -jar bench/target/benchmarks.jar "$@"
