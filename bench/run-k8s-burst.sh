#!/usr/bin/env bash
# Burst benchmark under the real kube-scheduler (docs/benchmarks.md): kube-scheduler alone binding 120 pods that ask no GPU vs
# the 120-pod GPU burst through the extender, one run, same machine. Needs the e2e/k8s binaries (e2e/k8s/README.md).
# Usage: bench/run-k8s-burst.sh   (builds e2e/k8s and the mpshare jar first unless MPSHARE_NO_BUILD is set)
# MPSHARE_JAR=/path/to/mpshare.jar runs another extender (e.g. an older build, to compare back to back).
# Prints both rates and their ratio, the CPU seconds per process in each measured burst, the extender's time per verb.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/bin/jdk.sh"
mpshare_find_jdk || exit 2
cd "$root"
if [ -z "${MPSHARE_NO_BUILD:-}" ]; then
  mpshare_require_maven || exit 2
  mvn -B -q -Dmaven.test.skip=true -pl cli,e2e/k8s -am package >&2
fi
echo "machine: $(nproc) CPUs, $(uptime | sed 's/.*load average/load average/')"
exec "$JAVA_HOME/bin/java" -Xmx512m -cp "e2e/k8s/target/classes:$(cat e2e/k8s/target/classpath.txt)" io.mpshare.e2e.k8s.BurstBench
