#!/usr/bin/env bash
# Scheduling at cluster scale on the real control plane (docs/benchmarks.md, "kube-scheduler at cluster scale"): N fake
# GPU nodes with bookings, then in one run a stream of pods without GPU through kube-scheduler alone, as many GPU pods
# through kube-scheduler + the extender, and the no-GPU stream through kube-scheduler's adaptive percentageOfNodesToScore.
# Needs the e2e/k8s binaries (e2e/k8s/README.md) and etcd; take the e2e lock on a shared machine:
#   flock /tmp/mpshare-e2e.lock bench/run-k8s-scale.sh --nodes=500
# Pinning: the generator (this JVM) on LOAD_CPUS, every server (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, the extender) on SERVER_CPUS. Defaults: on fewer than 4 CPUs the generator on CPU 0 and the servers on
# the others; else the first quarter of the CPUs for the generator and the rest for the servers.
# Arguments go to ScaleBench: --nodes=500 --pods=1000 --warmup=300 --fill=0.5 --seed=42 --threads=16 --rate=0 (0: at once)
#   --default-stream=true --gpu-first=false (true: the GPU stream is measured before the no-GPU one) --gpu-alone=false (true: the
#   same GPU pods again through a second kube-scheduler with no extender, which checks node totals only) --jfr=FILE (the extender during the GPU stream) --qps=5000 --timeout-s=120 --extender-heap=1g
#   --scheduler-pprof=DIR (kube-scheduler's CPU profile over the first 4 s of each stream, DIR/KIND.pprof) --extender-arg=ARG (repeatable). MPSHARE_NO_BUILD=1 skips the build; MPSHARE_JAR runs another extender jar.
# JAVA and CP (both set) run ScaleBench with that java and classpath, unbuilt: a host without a JDK or Maven
# (bench/run-scale-quiet.sh stages them).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$root"
command -v taskset >/dev/null || { echo "run-k8s-scale: taskset is missing (util-linux): apt-get install -y util-linux" >&2; exit 2; }
if [ -z "${JAVA:-}" ] || [ -z "${CP:-}" ]; then
  . "$root/bin/jdk.sh"
  mpshare_find_jdk || exit 2
  if [ -z "${MPSHARE_NO_BUILD:-}" ]; then
    mpshare_require_maven || exit 2
    mvn -B -q -DskipTests -pl cli,e2e/k8s -am package >&2
  fi
  JAVA=$JAVA_HOME/bin/java
  CP="e2e/k8s/target/classes:$(cat e2e/k8s/target/classpath.txt)"
fi
n=$(nproc)
if [ "$n" -lt 2 ]; then echo "run-k8s-scale: needs 2 CPUs or more to pin the generator and the servers apart" >&2; exit 2; fi
if [ "$n" -lt 4 ]; then load_default=0; server_default="1-$((n - 1))"
else q=$((n / 4)); load_default="0-$((q - 1))"; server_default="$q-$((n - 1))"; fi
L=${LOAD_CPUS:-$load_default}; S=${SERVER_CPUS:-$server_default}
. bench/cpu-topology.sh
echo "machine: $n CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg); generator on CPUs $L ($(cores_in "$L") physical cores), servers on CPUs $S ($(cores_in "$S") physical cores)"
shared=$(topology_known "$S" && shared_cores "$S" "$L" || true)
[ -z "$shared" ] || echo "run-k8s-scale: warning: the generator's CPUs $L share physical cores ($shared, package:core) with the servers' $S: pin them to other cores (LOAD_CPUS, SERVER_CPUS)" >&2
exec taskset -c "$L" "$JAVA" -Xmx3g -cp "$CP" \
  io.mpshare.e2e.k8s.scale.ScaleBench --server-cpus="$S" "$@"
