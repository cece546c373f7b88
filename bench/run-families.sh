#!/usr/bin/env bash
# The openb trace families benchmark (docs/benchmarks.md, "trace replay"): mpshare's default and the paper's
# six policies over the 3 published openb traces and the 15 generated members of the paper's table
# (io.mpshare.sim.openb.variants), 10 arrival seeds each; prints per trace each policy's mean, default - FGD
# (mean and worst seed), then wall and process CPU time and the load average.
#   bench/run-families.sh DIR [FamiliesMain options]     DIR: the openb CSV files (clusterdata,
#   cluster-trace-gpu-v2023/csv); defaults: --threads 2 --variant-seeds 1 --seeds 42-51 --policies all
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
dir=${1:?usage: bench/run-families.sh DIR_WITH_OPENB_CSV [options]}; shift
. "$root/bin/jdk.sh"
mpshare_find_jdk || exit 2
cd "$root"
if [ ! -f bench/target/classes/io/mpshare/bench/openb/FamiliesMain.class ]; then
  mpshare_require_maven || exit 2
  mvn -B -ntp -q -pl bench -am compile
fi
echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); CPUs: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec "$JAVA_HOME/bin/java" -cp core/target/classes:simulator/target/classes:bench/target/classes io.mpshare.bench.openb.FamiliesMain \
  --nodes "$dir/openb_node_list_gpu_node.csv" --base "$dir/openb_pod_list_default.csv" \
  --pods "$dir/openb_pod_list_gpushare100.csv" --pods "$dir/openb_pod_list_multigpu50.csv" \
  --threads 2 --variant-seeds 1 --seeds 42-51 --policies all "$@"
