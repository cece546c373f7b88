#!/usr/bin/env bash
# The GPU check of the zero-downtime MPS daemon upgrade (docs/upgrade.md), in one device call after
# e2e/gpu/build-runtime.sh here (carry [".device"]). What upgrade-node does on a node, done by hand with the
# real supervisor (`mpshare mps-control`) and real CUDA clients:
#   1. blue supervisor up; two clients on blue (each capped, each holding memory and computing for 40 s)
#   2. green supervisor up beside it (the "new version"); the node's active colour switches to green:
#      two new clients take green's pipe directory
#   3. both daemons serve at once: each colour's status.json lists its own clients; caps hold on both
#   4. blue's clients finish normally (none failed through the switch); blue's supervisor then stops on
#      SIGTERM without force (no clients left), green keeps serving: one more client after blue is gone
# Changes no GPU setting. Logs under $OUT; a short table last.
set -u
OUT=${OUT:-/tmp/bluegreen-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/bluegreen.log") 2>&1
export PYTHONUNBUFFERED=1
E=/tmp/mpshare-bg
RUN=$E/run
rm -rf "$E" /tmp/e2e-bg*.t; mkdir -p "$E"
step() { echo; echo "=== $(date -u +%T) $*"; }
[ -d .device/jre ] || tar -C .device -xzf .device/jre.tgz
# build-runtime.sh --deviceplugin ships lib/ as one xz stream: unpack it when that is what came
[ -d .device/lib ] || python3 -c "import tarfile; tarfile.open('.device/lib.tar.xz').extractall('.device')"
M() { .device/jre/bin/java --enable-native-access=ALL-UNNAMED -Xshare:auto -XX:TieredStopAtLevel=1 -cp '.device/lib/*:.device/e2e-check.jar' io.mpshare.e2e.HostMain "$@"; }
JOB=e2e/gpu/gpu_job.py
declare -A R
wait_ready() { for i in $(seq 1 80); do [ -f "$RUN/$1/ready" ] && return 0; sleep 0.25; done; return 1; }
client() { # client COLOUR NAME GIB SECONDS CAP: a capped MPS client of COLOUR's daemon
  CUDA_MPS_PIPE_DIRECTORY=$RUN/$1/pipe CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=$5 python3 $JOB hold "$2" "$3" "$4" > "$E/$2.log" 2>&1
}
clients_of() { python3 -c "
import json,sys
s=json.load(open('$RUN/$1/status.json'))
print(sum(len(x.get('clients',[])) for x in s.get('servers',[])))" 2>/dev/null || echo "?"; }

step "machine"
nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv

step "1. blue supervisor and two clients on blue"
M mps-control --colour blue --run-dir $RUN --status-port 0 --health-interval-seconds 1 > "$OUT/blue.log" 2>&1 &
BLUE=$!
wait_ready blue && echo "blue ready" || echo "blue NOT ready"
client blue bg-blue1 2 40 3G & B1=$!
client blue bg-blue2 2 40 3G & B2=$!
for i in $(seq 1 60); do [ -f /tmp/e2e-bg-blue1.t ] && [ -f /tmp/e2e-bg-blue2.t ] && break; sleep 0.5; done
echo "blue clients hold their memory"

step "2. green supervisor beside it; switch: new clients on green"
M mps-control --colour green --run-dir $RUN --status-port 0 --health-interval-seconds 1 > "$OUT/green.log" 2>&1 &
GREEN=$!
wait_ready green && echo "green ready" || echo "green NOT ready"
R[green_ready]=$([ -f $RUN/green/ready ] && echo yes || echo no)
client green bg-green1 2 20 4G & G1=$!
client green bg-green2 3 20 4G & G2=$!
for i in $(seq 1 60); do [ -f /tmp/e2e-bg-green1.t ] && [ -f /tmp/e2e-bg-green2.t ] && break; sleep 0.5; done
sleep 2

step "3. both daemons serve at once"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
R[both]="blue $(clients_of blue) clients, green $(clients_of green) clients"
echo "status: ${R[both]}"
cat $RUN/blue/status.json; echo; cat $RUN/green/status.json; echo

step "4. blue's clients finish; blue stops without force; green keeps serving"
wait $B1; rb1=$?; wait $B2; rb2=$?; wait $G1; rg1=$?; wait $G2; rg2=$?
for n in bg-blue1 bg-blue2 bg-green1 bg-green2; do cat "$E/$n.log"; done
R[blue_clients]="exit $rb1 / $rb2, $(cat $E/bg-blue1.log $E/bg-blue2.log | grep -c 'DONE usable')/2 DONE usable"
R[green_clients]="exit $rg1 / $rg2, $(cat $E/bg-green1.log $E/bg-green2.log | grep -c 'DONE usable')/2 DONE usable"
R[caps]="blue: $(grep -ho 'sees free [0-9.]* GiB' $E/bg-blue1.log) (cap 3G); green: $(grep -ho 'sees free [0-9.]* GiB' $E/bg-green1.log) (cap 4G)"
kill -TERM $BLUE; T0=$SECONDS; wait $BLUE; rbq=$?
R[blue_quit]="supervisor exit $rbq after $((SECONDS - T0)) s"
tail -5 "$OUT/blue.log"
client green bg-after 1 3 2G; ra=$?; cat "$E/bg-after.log"
R[after]="exit $ra; $(grep -ho 'sees free [0-9.]* GiB' $E/bg-after.log); $(grep -c 'DONE usable' $E/bg-after.log)/1 DONE usable"
kill -TERM $GREEN; wait $GREEN
tar -C $E -czf "$OUT/bluegreen-job-logs.tgz" $(cd $E && ls *.log)

step "RESULTS"
printf '%-34s | %s\n' "check" "result"
printf '%-34s | %s\n' "green ready beside blue" "${R[green_ready]}"
printf '%-34s | %s\n' "both serving (status.json)" "${R[both]}"
printf '%-34s | %s\n' "caps on both colours" "${R[caps]}"
printf '%-34s | %s\n' "blue clients through the switch" "${R[blue_clients]}"
printf '%-34s | %s\n' "green clients" "${R[green_clients]}"
printf '%-34s | %s\n' "blue stops when drained" "${R[blue_quit]}"
printf '%-34s | %s\n' "new client after blue is gone" "${R[after]}"

# ---- multi-GPU ordinals (host mode), only where the machine has two GPUs (nvidia-h200-x2) ----
NG=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
if [ "$NG" -ge 2 ]; then
  step "5. two GPUs: mpshare run --gpu-count 2 gets each GPU's cap at the right ordinal"
  SOCK=$E/host.sock
  M host --socket $SOCK --run-dir $E/hostrun --state-file $E/state.json --policer-period-ms 500 > "$OUT/host2.log" 2>&1 &
  HOST=$!
  for i in $(seq 1 60); do M ps --socket $SOCK --json 2>/dev/null | grep -q '"ready" : true' && break; sleep 0.5; done
  M ps --socket $SOCK
  PY='import os, torch
for i in range(torch.cuda.device_count()):
    torch.cuda.set_device(i); f, t = torch.cuda.mem_get_info()
    print(f"ordinal {i} ({torch.cuda.get_device_properties(i).name}) sees free {f / 2**30:.2f} GiB", flush=True)
print("env", os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("NVIDIA_VISIBLE_DEVICES"), os.environ.get("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"), flush=True)'
  # a first job takes 20 GiB so that binpack's choice is visible, then a 2-GPU job of 6 GiB (3 GiB on each)
  M run --socket $SOCK --gpu-mem 20 -- python3 $JOB hold big 18 25 > "$E/big.log" 2>&1 & BIG=$!
  sleep 8
  M run --socket $SOCK --gpu-mem 6 --gpu-count 2 -- python3 -c "$PY" > "$E/two.log" 2>&1; r2=$?
  M run --socket $SOCK --gpu-mem 5 -- python3 -c "$PY" > "$E/one.log" 2>&1; r1=$?
  M ps --socket $SOCK
  cat "$E/big.log" "$E/two.log" "$E/one.log"
  wait $BIG
  R[two]="exit $r2; $(grep -o 'ordinal [0-9] ([^)]*) sees free [0-9.]* GiB' $E/two.log | sed 's/ (NVIDIA H200)//' | paste -sd';' -); $(grep '^env' $E/two.log)"
  R[one]="exit $r1; $(grep -o 'ordinal [0-9] ([^)]*) sees free [0-9.]* GiB' $E/one.log | sed 's/ (NVIDIA H200)//' | paste -sd';' -); $(grep '^env' $E/one.log)"
  kill -TERM $HOST; wait $HOST
  printf '%-34s | %s\n' "2-GPU job, 6 GiB over 2 GPUs" "${R[two]}"
  printf '%-34s | %s\n' "1-GPU job beside a 20 GiB job" "${R[one]}"
else
  echo "one GPU: multi-GPU ordinal check skipped"
fi
