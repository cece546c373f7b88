#!/usr/bin/env bash
# The real-GPU suite for host mode (docs/gpu-results.md), run in one device call after e2e/gpu/build-runtime.sh here (carry [".device"]):
#   0. throughput baselines without mpshare: 8 processes time-sliced, 8 under a raw MPS daemon (256² and 1024² fp32 matmul)
#   1. `mpshare host` (real NVML, in-process supervisor, policer) + `mpshare ps`
#   2. caps: three concurrent `mpshare run` jobs of 2, 5, 10 GiB allocate within and fail beyond
#   3. throughput: the same 8 processes under `mpshare run --gpu-mem 2`
#   4. policing: env-tampering job, a no-MPS process, a 4-process group over its share; neighbour keeps running;
#      a 20 GiB no-MPS process as python3 and through a link named nvidia-cuda-mps-server (renamed-rogue.sh, <= 1 min)
#   5. daemon killed: GPUs DOWN, new run refused, recovery, a run after it is capped
# Changes no GPU setting. Logs under $OUT; a short table last.
set -u
OUT=${OUT:-/tmp/suite-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/suite.log") 2>&1
export PYTHONUNBUFFERED=1
E=/tmp/mpshare-e2e
SOCK=$E/host.sock
RUN=$E/run
PIPE=$RUN/blue/pipe
rm -rf "$E" /tmp/e2e-*.t; mkdir -p "$E"
step() { echo; echo "=== $(date -u +%T) $*"; }
tar -C .device -xzf .device/jre.tgz
MJ=(.device/jre/bin/java --enable-native-access=ALL-UNNAMED -Xshare:auto -XX:TieredStopAtLevel=1 -cp '.device/lib/*:.device/e2e-check.jar' io.mpshare.e2e.HostMain)
M() { "${MJ[@]}" "$@"; }
JOB=e2e/gpu/gpu_job.py
declare -A R   # results for the table
MEASURE=${MEASURE:-6}

step "machine"
nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv
MPSCTL=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control); echo "mps control: $MPSCTL"

tput() { # tput LABEL N ENVPREFIX...: 8 processes, aggregate iterations/s
  local label=$1 n=$2; shift 2
  local start=$(python3 -c "import time; print(time.time() + ${LEAD:-9})")
  local pids=()
  for i in 1 2 3 4 5 6 7 8; do "$@" python3 $JOB matmul "$n" "$start" "$MEASURE" > "$E/tp-$label-$n-$i.log" 2>&1 & pids+=($!); done
  wait "${pids[@]}"
  cat "$E"/tp-$label-$n-*.log | grep -v '^$' | sed "s/^/  $label: /" | tail -8
  local sum=$(cat "$E"/tp-$label-$n-*.log | sed -n 's/.*it_per_s=\([0-9.]*\).*/\1/p' | awk '{s+=$1} END {printf "%.0f", s}')
  local late=$(cat "$E"/tp-$label-$n-*.log | sed -n 's/.*late_s=\([0-9.]*\).*/\1/p' | sort -n | tail -1)
  local cnt=$(grep -c it_per_s "$E"/tp-$label-$n-*.log | awk -F: '{s+=$2} END {print s}')
  echo "THROUGHPUT $label n=$n: $sum it/s over $cnt processes (latest start $late s late)"
  R[tp_${label}_$n]=$sum
}

step "0a. baseline: 8 processes time-sliced (no MPS)"
for n in 256 1024; do tput timesliced $n env; done

step "0b. baseline: 8 processes under a raw MPS daemon (no mpshare)"
RAW=$E/raw; mkdir -p $RAW/pipe $RAW/log
CUDA_MPS_PIPE_DIRECTORY=$RAW/pipe CUDA_MPS_LOG_DIRECTORY=$RAW/log $MPSCTL -d
sleep 1
for lim in 0=2560M 0=2G 0=3G; do CUDA_MPS_PIPE_DIRECTORY=$RAW/pipe CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=$lim python3 $JOB sees "env-$lim"; done
for n in 256 1024; do tput rawmps $n env CUDA_MPS_PIPE_DIRECTORY=$RAW/pipe; done
echo quit | CUDA_MPS_PIPE_DIRECTORY=$RAW/pipe $MPSCTL; sleep 1

step "1. mpshare host"
"${MJ[@]}" host --socket $SOCK --run-dir $RUN --state-file $E/state.json --backoff-initial-ms 5000 --policer-period-ms 500 --reap-interval-ms 300 > "$OUT/host.log" 2>&1 &
HOST=$!
for i in $(seq 1 60); do M ps --socket $SOCK --json 2>/dev/null | grep -q '"ready" : true' && break; sleep 0.5; done
M ps --socket $SOCK; ls -la $SOCK
M run --socket $SOCK --gpu-mem 200 -- true; echo "too large: exit $?"
M run --socket $SOCK --gpu-mem 2 -- sh -c 'exit 3'; rc=$?; echo "exit passthrough: exit $rc"; R[exit3]=$rc

step "2. caps: 2, 5, 10 GiB jobs at once"
for g in 2 5 10; do M run --socket $SOCK --gpu-mem $g -- python3 $JOB cap cap$g $g 6 > "$E/cap$g.log" 2>&1 & eval "CAP$g=\$!"; done
sleep 4; M ps --socket $SOCK
for g in 2 5 10; do eval "wait \$CAP$g"; rc=$?; cat "$E/cap$g.log"; R[cap$g]="exit $rc; $(grep -o 'sees free [0-9.]* GiB' $E/cap$g.log); within $(grep -c 'WITHIN.*ok' $E/cap$g.log)/1, beyond refused $(grep -c 'failed as expected' $E/cap$g.log)/1"; done

step "3. throughput under mpshare run --gpu-mem 2"
for n in 256 1024; do LEAD=14 tput mpshare $n M run --socket $SOCK --gpu-mem 2 --; done

step "4. policing"
M run --socket $SOCK --gpu-mem 4 -- python3 $JOB hold neighbour 2 60 > "$E/neighbour.log" 2>&1 & NB=$!
sleep 5
watch_end() { # watch_end NAME PID: seconds from /tmp/e2e-NAME.t (memory held) to the process's end
  local t0="" end=$((SECONDS + 25))
  while [ $SECONDS -lt $end ]; do [ -f /tmp/e2e-$1.t ] && t0=$(cat /tmp/e2e-$1.t) && break; kill -0 $2 2>/dev/null || break; sleep 0.05; done
  while kill -0 $2 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.05; done
  [ -n "$t0" ] && python3 -c "import time; print(f'{time.time() - $t0:.2f}')" || echo "never-allocated"
}
# a) env tamper: asks 2 GiB, raises its own env cap to 8G, grabs 3.5 GiB (the server ceiling is the neighbour's 4.5G)
M run --socket $SOCK --gpu-mem 2 -- sh -c "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8G exec python3 $JOB grab tamper 3.5 20" > "$E/tamper.log" 2>&1 & P=$!
R[tamper]="ended $(watch_end tamper $P) s after allocating"; wait $P; R[tamper]="${R[tamper]}, exit $?"; cat "$E/tamper.log"
# b) a process with no MPS env on the shared GPU
python3 $JOB hold rogue 1 20 > "$E/rogue.log" 2>&1 & P=$!
R[rogue]="ended $(watch_end rogue $P) s after allocating"; wait $P; R[rogue]="${R[rogue]}, exit $?"; cat "$E/rogue.log"
# c) a job of 4 processes, each 1.5 GiB (+ context) under its 4.5G cap, together over its 4 GiB
M run --socket $SOCK --gpu-mem 4 -- python3 $JOB group grp 4 1.5 20 > "$E/group.log" 2>&1 & P=$!
R[group]="ended $(watch_end grp $P) s after all 4 allocated"; wait $P; R[group]="${R[group]}, exit $?"; cat "$E/group.log"
# d) 20 GiB outside MPS, as python3 (baseline) and through a link named nvidia-cuda-mps-server: killed alike; a 2 GiB job keeps its server
timeout 90 bash e2e/gpu/renamed-rogue.sh "$RUN" "$OUT/host.log" -- "${MJ[@]}" run --socket $SOCK --gpu-mem 2 -- > "$E/renamed.log" 2>&1
cat "$E/renamed.log"
rr() { sed -n "s/^RESULT $1 | [^|]*| //p" "$E/renamed.log" | head -1; }
R[rr_python3]=$(rr python3); R[rr_renamed]=$(rr renamed); R[rr_server]=$(grep -E '^RESULT real server' "$E/renamed.log" | cut -d'|' -f2 | tr -d ' ' | tr '\n' ' ')
R[rr_nb]=$(rr 'neighbour MPS job'); R[rr_parent]=$(sed -n 's/^before: //p' "$E/renamed.log")
M ps --socket $SOCK
M ps --socket $SOCK --json > "$OUT/ps-policing.json"
python3 e2e/gpu/events.py "$OUT/ps-policing.json" tamper rogue grp | tee "$E/policed.txt"
for n in tamper rogue grp; do R[ev_$n]=$(sed -n "s/^POLICED $n: //p" "$E/policed.txt"); done
wait $NB; rc=$?; cat "$E/neighbour.log"; R[neighbour]="exit $rc, $(grep -c 'DONE usable' $E/neighbour.log) DONE usable"
grep -E "GpuMemoryOverLimit|RogueGpuProcess|MpsClientTerminated|GpuProcessKilled|UnknownGpuProcess" "$OUT/host.log" | head -30

step "5. daemon killed"
DPID=$(cat $RUN/blue/ready 2>/dev/null); echo "daemon pid $DPID"
T0=$(date +%s.%N); kill -9 "$DPID"; sleep 0.3
M ps --socket $SOCK | head -4
M run --socket $SOCK --gpu-mem 1 -- python3 -c 'print("SHOULD NOT RUN")'; rc=$?; R[down_run]="exit $rc"; echo "run while down: exit $rc"
for i in $(seq 1 80); do M ps --socket $SOCK --json 2>/dev/null | grep -q '"ready" : true' && break; sleep 0.25; done
T1=$(date +%s.%N); R[recovery]=$(python3 -c "print(f'{$T1 - $T0:.1f} s (backoff 5 s)')"); echo "ready again after ${R[recovery]}"
M run --socket $SOCK --gpu-mem 2 -- python3 $JOB cap after 2 1 > "$E/after.log" 2>&1; rc=$?; cat "$E/after.log"; R[after]="exit $rc; $(grep -o 'sees free [0-9.]* GiB' $E/after.log)"
M ps --socket $SOCK

step "6. stop the host"
kill -TERM $HOST; wait $HOST; echo "host exit $? (143 = ended by SIGTERM after its shutdown hook)"; sleep 1
cp $E/state.json "$OUT/state.json" 2>/dev/null
tar -C $E -czf "$OUT/job-logs.tgz" $(cd $E && ls *.log)

if [ "${ISSUE4:-1}" = 1 ]; then
  step "7. nvml/mps check (nvml-mps-check.sh: FfmNvml vs nvidia-smi, supervisor, caps, live ceiling, daemon kill)"
  mkdir -p "$E/nvmlmps"; OUT="$E/nvmlmps" timeout 150 bash e2e/gpu/nvml-mps-check.sh > /dev/null 2>&1
  R[nvmlmps]="$(grep -c 'CHECK ok' "$E/nvmlmps/check.log" 2>/dev/null) CHECK ok, $(grep -c '^CHECK FAIL' "$E/nvmlmps/check.log" 2>/dev/null) CHECK FAIL"
  grep "CHECK" "$E/nvmlmps/check.log"; tar -C "$E" -czf "$OUT/nvmlmps-logs.tgz" nvmlmps
fi

step "RESULTS"
pct() { python3 -c "a, b = ${1:-0}, ${2:-0}; print(f'{100 * a / b:.1f}%' if b else 'n/a')"; }
x() { python3 -c "a, b = ${1:-0}, ${2:-0}; print(f'{a / b:.2f}x' if b else 'n/a')"; }
printf '%-34s | %s\n' "check" "result"
printf '%-34s | %s\n' "exit code passthrough (exit 3)" "${R[exit3]}"
for g in 2 5 10; do printf '%-34s | %s\n' "cap $g GiB job" "${R[cap$g]}"; done
printf '%-34s | %s\n' "env-tampering job" "${R[ev_tamper]}; ${R[tamper]}"
printf '%-34s | %s\n' "no-MPS process" "${R[ev_rogue]}; ${R[rogue]}"
printf '%-34s | %s\n' "4-process group over its share" "${R[ev_grp]}; ${R[group]}"
printf '%-34s | %s\n' "well-behaved neighbour" "${R[neighbour]}"
printf '%-34s | %s\n' "20 GiB no-MPS process, python3" "${R[rr_python3]:-not run}"
printf '%-34s | %s\n' "same as nvidia-cuda-mps-server" "${R[rr_renamed]:-not run}"
printf '%-34s | %s\n' "real MPS server(s) after both" "${R[rr_server]:-?}; ${R[rr_parent]:-?}; its job: ${R[rr_nb]:-?}"
printf '%-34s | %s\n' "run while daemon down" "${R[down_run]}"
printf '%-34s | %s\n' "daemon recovery" "${R[recovery]}"
printf '%-34s | %s\n' "run after recovery" "${R[after]}"
printf '%-34s | %s\n' "nvml/mps check" "${R[nvmlmps]:-not run}"
for n in 256 1024; do
  printf '%-34s | time-sliced %s, raw MPS %s, mpshare %s it/s; mpshare/raw %s, raw/time-sliced %s\n' "throughput ${n}x${n} fp32 (8 procs)" \
    "${R[tp_timesliced_$n]:-?}" "${R[tp_rawmps_$n]:-?}" "${R[tp_mpshare_$n]:-?}" "$(pct ${R[tp_mpshare_$n]:-0} ${R[tp_rawmps_$n]:-0})" "$(x ${R[tp_rawmps_$n]:-0} ${R[tp_timesliced_$n]:-0})"
done
