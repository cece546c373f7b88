#!/usr/bin/env bash
# The cluster-scale bench (bench/run-k8s-scale.sh, docs/benchmarks.md "kube-scheduler at cluster scale") on a host
# without Java, Maven or network: the GPU machine used as a quiet many-core host (no GPU is used), from the parts
# bench/scale-quiet-stage.sh builds. Run from the repository root, as root or not:
#   bash bench/run-scale-quiet.sh stage 1|2   e2e/gpu/node-tier.sh's stage of the node tier's part 1 or 2 (etcd and the
#                                             Java runtime; the kube-* binaries) into $NODE_TIER_STAGE
#                                             (default /var/tmp/mpshare-node-tier, which lives as long as the machine)
#   bash bench/run-scale-quiet.sh stage 3     .device/scale/p3 (e2e/k8s's classes and jars, the extender's jars) into
#                                             $NODE_TIER_STAGE/scale; refused unless parts 1 and 2 of its build are staged
#   bash bench/run-scale-quiet.sh run ARGS    ScaleBench through bench/run-k8s-scale.sh (which decides the pinning:
#                                             LOAD_CPUS, SERVER_CPUS; on 16 CPUs the generator on 0-3, the servers on
#                                             4-15) with the staged runtime, classes and binaries; ARGS go to ScaleBench.
# The bench's output goes to $OUT/scale-bench.log (default /tmp/scale-quiet-out), its process logs to
# $OUT/scale-bench-logs.tgz. The bench is stopped after SCALE_BUDGET_S (540) seconds, so that stage 3 and the run fit
# one device call of 600. e2e/gpu/README.md ("The cluster-scale bench") gives the device calls.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
STAGE=${NODE_TIER_STAGE:-/var/tmp/mpshare-node-tier}
export NODE_TIER_STAGE=$STAGE
PART=.device/scale/p3
say() { echo "run-scale-quiet: $*"; }
die() { echo "run-scale-quiet: $*" >&2; exit 2; }

stage_scale() {
  [ -f "$PART/BUILD" ] || die "no $PART: run bench/scale-quiet-stage.sh where Java is, then carry $PART"
  (cd "$PART" && sha256sum -c --quiet SHA256SUMS) || die "$PART does not match its SHA256SUMS: carried whole?"
  local build; build=$(cat "$PART/BUILD")
  for k in 1 2; do
    [ "$(cat "$STAGE/parts/p$k" 2>/dev/null)" = "$build" ] || die "part $k of build $build is not staged in $STAGE: stage 1 and 2 first (bash $0 stage 1, carrying .device/node-tier/p1)"
  done
  local t0=$SECONDS
  rm -rf "$STAGE/scale" "$STAGE/parts/scale"
  bash e2e/gpu/node-tier.sh unpack "$PART/scale.tar.xz" "$STAGE"
  echo "$build" > "$STAGE/parts/scale"
  say "part 3 of build $build unpacked into $STAGE/scale in $((SECONDS - t0)) s"
}

staged() { # parts 1, 2 and 3 of one build
  local build k
  build=$(cat "$STAGE/BUILD" 2>/dev/null) || die "nothing staged in $STAGE: stage 1, 2 and 3 first"
  for k in p1 p2 scale; do
    [ "$(cat "$STAGE/parts/$k" 2>/dev/null)" = "$build" ] || die "part ${k#p} (scale: 3) of build $build is not staged: its stage call is missing"
  done
}

run() {
  staged
  command -v taskset >/dev/null || die "taskset is missing (util-linux)"
  # the bench needs a writable home only for what the JDK and fabric8 look up there; the control plane's binaries
  # come from the stage (KUBEBUILDER_ASSETS), so nothing is unpacked into ~/.cache
  if [ -z "${HOME:-}" ] || [ ! -d "$HOME" ] || [ ! -w "$HOME" ]; then export HOME=$STAGE/home; mkdir -p "$HOME"; fi
  local out=${OUT:-/tmp/scale-quiet-out} logs
  mkdir -p "$out"
  export JAVA=$STAGE/jre/bin/java
  CP="$STAGE/scale/classes:$(sed "s#^#$STAGE/scale/#" "$STAGE/scale/classpath" | paste -sd:)"
  export CP
  export MPSHARE_JAR=$STAGE/scale/mpshare-launch.jar KUBEBUILDER_ASSETS=$STAGE/bin MPSHARE_NO_BUILD=1
  say "build $(cat "$STAGE/BUILD"); $("$JAVA" -version 2>&1 | head -1); output also in $out/scale-bench.log"
  local rc=0 budget=${SCALE_BUDGET_S:-540} left
  # ended before the device call's 600 s, so that the logs still come back; ScaleBench stops its servers when it ends,
  # but not on a signal (helm-java's native library takes SIGTERM over): what the stage's binaries left running is
  # ended below
  timeout -k 10 "$budget" bash bench/run-k8s-scale.sh "$@" 2>&1 | tee "$out/scale-bench.log" || rc=$?
  [ "$rc" = 124 ] && say "stopped after SCALE_BUDGET_S=$budget s"
  left=$(pgrep -f "^$STAGE/" || true)   # taskset execs the servers: their command lines start with the stage
  if [ -n "$left" ]; then say "ending what the bench left running: $(echo $left)"; kill -KILL $left 2>/dev/null || true; fi
  logs=$(ls -d e2e/k8s/target/scale-bench/logs-* 2>/dev/null | tail -1)
  if [ -n "$logs" ]; then
    tar -C "$(dirname "$logs")" -czf "$out/scale-bench-logs.tgz" "$(basename "$logs")"
    say "the processes' logs: $out/scale-bench-logs.tgz ($(du -h "$out/scale-bench-logs.tgz" | cut -f1))"
  fi
  return "$rc"
}

case "${1:-}" in
  stage)
    case "${2:-}" in
      1 | 2) bash e2e/gpu/node-tier.sh stage "$2" ;;
      3) stage_scale ;;
      *) die "usage: $0 stage 1|2|3" ;;
    esac ;;
  run) shift; run "$@" ;;
  *) die "usage: $0 stage 1|2|3 | run [ScaleBench's arguments, e.g. --nodes=500 --pods=1000 --warmup=300]" ;;
esac
