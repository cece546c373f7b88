#!/usr/bin/env bash
# MPS fault domains on the GPU (docs/gpu-results.md, docs/security.md): the supervisor (`mpshare mps-control`, real
# nvidia-cuda-mps-control) runs one daemon per domain on one GPU; every client is a real runc container (e2e/gpu/ctr.py)
# with exactly what the device plugin answers for a domain: its pipe directory mounted read-only, CUDA_MPS_PIPE_DIRECTORY,
# the memory cap and thread share in the env, the pod's UID. The device plugin's domain side is not driven here: the
# script creates and deletes the domains through the supervisor's API (PUT/DELETE /domains/{id}) as the device plugin does.
#   1. two tenant domains (UIDs 1000 and 1001, 50 % share each) serving on one GPU
#   2. compute share: a client that sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100 still sees its domain's share of the SMs;
#      a lowered share reaches the running server
#   3. fault: a tenant-A pod writes to an illegal address. Tenant B's pods run to the end; which detector fires first and
#      when; tenant A's faulted clients are killed; a new tenant-A pod computes (target <= 3 s after the fault)
#   4. stall: a process (UID 65534) in tenant A's pod holds 130 connections on A's control socket: only A is STALLED,
#      the holder is named, no client dies, B serves; A serves again when the holder is gone
#   5. throughput, 8 clients of 256x256 matmuls: one daemon vs 2 tenants x 4 (two daemons) vs time-sliced (no MPS)
# One command, at most 8 minutes (a watchdog stops it at 470 s). PASS/FAIL lines with figures, a summary last; logs under
# $OUT. Changes no GPU setting; stops all it starts.
# On the H200 machine, after `e2e/gpu/build-runtime.sh` here and `apt-get download runc` into .device/debs (carry
# [".device"]):  OUT=$OUT bash e2e/gpu/domains-check.sh
# Dry run without a GPU (stand-ins from e2e/gpu/dry, no containers, the JDK of this machine):  DRY=1 bash e2e/gpu/domains-check.sh
set -u
OUT=${OUT:-/tmp/domains-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/domains-check.log") 2>&1
export PYTHONUNBUFFERED=1
DRY=${DRY:-0}
WATCHDOG_S=${WATCHDOG_S:-470}       # the whole check stops after this (the device call's limit is 600 s)
RECOVER_MAX_S=${RECOVER_MAX_S:-3}   # the target: a new pod of the faulted domain computes within this after the fault
W=$(mktemp -d /tmp/domains.XXXXXX)
RUN=/run/mpshare
J=.device/jre/bin/java
CP='.device/lib/*:.device/e2e-check.jar'
MPSBIN=()
PYBIN=python3
if [ "$DRY" = 1 ]; then
  RUN=$W/run; J=${JAVA:-java}; PYBIN=$PWD/e2e/gpu/dry/python3
  MPSBIN=(--mps-control-binary "$PWD/e2e/gpu/dry/nvidia-cuda-mps-control")
fi
SOCK=$RUN/blue/supervisor.sock
A=t-0a0a0a0a0a0a; B=t-0b0b0b0b0b0b; N=n-000000000001
T_START=$SECONDS; RES=(); PASSED=0; FAILED=0
step() { echo; echo "=== $(date -u +%T.%3N) (+$((SECONDS - T_START)) s) $*"; }
result() { RES+=("$1|$2|$3"); echo "$1 $2 | $3"; if [ "$1" = PASS ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi; }
verdict() { if eval "$1"; then result PASS "$2" "$3"; else result FAIL "$2" "$3"; fi; }
now() { date +%s.%3N; }
sup() { timeout 60 python3 e2e/gpu/sup.py "$SOCK" "$@"; }
pipe() { echo "$RUN/blue/d/$1/pipe"; }
at() { grep -oE "$2.*@[0-9.]+" "$W/$1.log" 2>/dev/null | head -1 | grep -oE '[0-9.]+$'; }   # at JOB REGEX: epoch of its first line matching
line() { grep -oE "$2.*" "$W/$1.log" 2>/dev/null | head -1 | cut -c1-140; }
sub() { python3 -c "print(f'{$1 - $2:.2f}')" 2>/dev/null || echo "?"; }
SUP=
cleanup() {
  trap - EXIT TERM INT
  step "cleanup"
  for d in "$RUN"/blue/d/*/; do [ -d "$d" ] && cp "$d/log/daemon.log" "$OUT/daemon-$(basename "$d").log" 2>/dev/null; done
  for id in $A $B $N; do sup delete $id >/dev/null 2>&1; done
  sleep 3
  for p in $(jobs -p); do kill "$p" 2>/dev/null; done
  [ -n "$SUP" ] && kill -TERM "$SUP" 2>/dev/null && sleep 3 && kill -9 "$SUP" 2>/dev/null
  for f in "$RUN"/blue/d/*/domain.json; do   # daemons of domains not drained (a client stayed): the supervisor leaves them running
    [ -f "$f" ] && p=$(sed -n 's/.*"daemonPid":\([0-9]*\).*/\1/p' "$f") && [ -n "$p" ] && kill -9 "$p" 2>/dev/null && echo "stopped daemon $p ($f)"
  done
  p=$(sed -n 's/.*"daemonPid":\([0-9]*\).*/\1/p' "$RUN/blue/status.json" 2>/dev/null); [ -n "$p" ] && kill "$p" 2>/dev/null
  [ "$DRY" = 1 ] && for p in $(cat "$W/dry-servers" 2>/dev/null); do kill "$p" 2>/dev/null; done
  cp "$W"/*.log "$OUT/" 2>/dev/null
  [ "$DRY" = 1 ] || { umount "$RUN" 2>/dev/null; rmdir "$RUN" 2>/dev/null; }
  rm -rf "$W"
  echo; echo "=== summary ($((SECONDS - T_START)) s): $PASSED PASS, $FAILED FAIL"
  for r in "${RES[@]}"; do IFS='|' read -r a b c <<< "$r"; printf '%-4s %-62s | %s\n' "$a" "$b" "$c"; done
}
trap cleanup EXIT
trap 'echo "stopped by a signal"; exit 1' TERM INT
( sleep "$WATCHDOG_S"; echo "WATCHDOG: $WATCHDOG_S s passed, stopping the check"; kill -TERM $$ ) & WATCHDOG=$!

# ctr NAME UID DOMAIN|none PERCENT SCRIPT ARGS...: SCRIPT (domain_job.py or gpu_job.py) as a pod's container with the answer
# of DOMAIN: its pipe directory read-only, CUDA_MPS_PIPE_DIRECTORY, a 4 GiB cap, the thread share PERCENT (the env a tenant
# controls), UID; "none": no MPS at all (time-sliced). Output in $W/NAME.log.
ctr() {
  local name=$1 uid=$2 dom=$3 pct=$4 script=$5; shift 5
  local envs=("NVIDIA_VISIBLE_DEVICES=$GPU") mounts=()
  if [ "$dom" != none ]; then
    envs+=("CUDA_MPS_PIPE_DIRECTORY=$(pipe "$dom")" "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=4G" "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct")
    mounts+=(--mount "$(pipe "$dom"):$(pipe "$dom"):ro")
  fi
  if [ "$DRY" = 1 ]; then
    env -i PATH="$PATH" HOME=/tmp DRY_SERVERS="$W/dry-servers" "${envs[@]}" "$PYBIN" "e2e/gpu/$script" "$@" > "$W/$name.log" 2>&1
  else
    local e=(); for v in "${envs[@]}"; do e+=(--env "$v"); done
    python3 e2e/gpu/ctr.py --repo . --name "$name" --uid "$uid" --gid "$uid" "${e[@]}" "${mounts[@]}" --mount "$W/trig:/trig:ro" \
      -- python3 "/e2e/e2e/gpu/$script" "$@" > "$W/$name.log" 2>&1
  fi
}
trigger() { [ "$DRY" = 1 ] && echo "$W/trig/go" || echo /trig/go; }
wait_line() { local end=$((SECONDS + $3)); while [ $SECONDS -lt $end ]; do grep -qE "$2" "$W/$1.log" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

step "machine"
mkdir -p "$W/trig"
if [ "$DRY" != 1 ]; then
  [ -d .device/jre ] || tar -C .device -xzf .device/jre.tgz
  [ -d .device/lib ] || python3 -c 'import tarfile; tarfile.open(".device/lib.tar.xz").extractall(".device")'
  mkdir -p /tmp/runc-root && dpkg -x .device/debs/runc_*.deb /tmp/runc-root && export RUNC=/tmp/runc-root/usr/sbin/runc
  nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,driver_version --format=csv
  "$RUNC" --version | head -1
  GPU=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
  MPSCTL=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control)
  if [ -e "$RUN" ] && [ -n "$(ls -A "$RUN" 2>/dev/null)" ]; then echo "ABORT: $RUN exists and is not empty: not ours"; exit 1; fi
  mkdir -p "$RUN" && mount -t tmpfs -o size=64m,mode=0755 mpshare-e2e "$RUN" && echo "$RUN: a temporary tmpfs"
else
  GPU=GPU-dry-0; MPSCTL=$PWD/e2e/gpu/dry/nvidia-cuda-mps-control
  echo "DRY run: stand-ins for nvidia-cuda-mps-control and python3, no containers, no GPU"
fi
"$J" -version 2>&1 | head -1
echo "GPU $GPU"
ctl() { echo "$2" | CUDA_MPS_PIPE_DIRECTORY="$(pipe "$1")" timeout 5 "$MPSCTL" 2>&1; }   # ctl DOMAIN COMMAND: root's own control client

step "1. supervisor and two tenant domains (UID 1000, UID 1001; 8 GiB ceiling, 50 % share) on $GPU"
"$J" --enable-native-access=ALL-UNNAMED -cp "$CP" io.mpshare.e2e.NvmlMpsCheck mps-control --run-dir "$RUN" --colour blue \
  --health-interval-seconds 1 --command-timeout-seconds 2 --backoff-max-seconds 1 --drain-wait-seconds 2 "${MPSBIN[@]}" \
  > "$OUT/supervisor.log" 2>&1 &
SUP=$!
for i in $(seq 1 120); do sup status 2>/dev/null | grep -q '"ready":true' && break; sleep 0.5; done
verdict 'sup status | grep -q "\"ready\":true"' "supervisor serves its socket" "$SOCK, pid $SUP"
T0=$(now)
sup put $A "$GPU" tenant 1000 8192 50 | head -1 > "$W/putA"; sup put $B "$GPU" tenant 1001 8192 50 | head -1 > "$W/putB"
WA=$(sup wait $A SERVING 30); WB=$(sup wait $B SERVING 30)
verdict '[[ $WA == SERVING* && $WB == SERVING* ]]' "two tenant domains serving on one GPU" \
  "PUT answered $(cat "$W/putA") and $(cat "$W/putB"); A $WA, B $WB; daemons $(sup get $A daemonPid) and $(sup get $B daemonPid); pipes $(pipe $A), $(pipe $B)"

step "2. compute share (F8): the domain's share is the server's; a client's own CUDA_MPS_ACTIVE_THREAD_PERCENTAGE cannot pass it"
ctr sA100 1000 $A 100 domain_job.py sms sA100 & p1=$!
ctr sA30 1000 $A 30 domain_job.py sms sA30 & p2=$!
ctr sB100 1001 $B 100 domain_job.py sms sB100 & p3=$!
wait $p1 $p2 $p3
SA=$(line sA100 'SEES' | grep -oE '[0-9]+ SMs'); SA30=$(line sA30 'SEES' | grep -oE '[0-9]+ SMs'); SB=$(line sB100 'SEES' | grep -oE '[0-9]+ SMs')
verdict '[ "$SA" = "66 SMs" ] && [ "$SB" = "66 SMs" ]' "env 100 % in a 50 % domain sees 66 of 132 SMs" "A env 100: $SA; B env 100: $SB; A env 30: $SA30 (expected 38)"
sup put $A "$GPU" tenant 1000 8192 25 > /dev/null
sleep 1.5   # one health check: the running (idle, kept for UID 1000) server gets the new share
echo "server of A: $(ctl $A get_server_list | tr '\n' ' '); its share: $(for s in $(ctl $A get_server_list); do ctl $A "get_active_thread_percentage $s"; done | tr '\n' ' ')"
ctr sA25 1000 $A 100 domain_job.py sms sA25
S25=$(line sA25 'SEES' | grep -oE '[0-9]+ SMs')
verdict '[ "$S25" = "32 SMs" ]' "share lowered to 25 % reaches the running server" "A env 100 after PUT 25 %: $S25 (expected 32)"

step "3. fault: a tenant-A pod writes to an illegal address; tenant B runs on"
sup put $A "$GPU" tenant 1000 8192 50 > /dev/null
ctr b1 1001 $B 50 domain_job.py work b1 40 & PB1=$!
ctr b2 1001 $B 50 domain_job.py work b2 40 & PB2=$!
ctr a1 1000 $A 50 domain_job.py work a1 40 & PA1=$!
ctr a2 1000 $A 50 domain_job.py fault a2 12 & PA2=$!
ctr a3 1000 $A 50 domain_job.py late a3 "$(trigger)" & PA3=$!
for j in b1 b2 a1; do wait_line $j 'SEES|INIT FAIL' 60 || echo "$j: not started in 60 s"; done
wait_line a3 READY 60 || echo "a3: not ready in 60 s"
sup get $A clients; sup get $B clients
wait_line a2 'FAULT launch' 60; F0=$(at a2 'FAULT launch'); echo "fault launched at $F0"
[ "$DRY" != 1 ] && { for i in $(seq 1 15); do echo "$(now) server status: $(for s in $(ctl $A get_server_list); do echo "$s $(ctl $A "get_server_status $s")"; done | tr '\n' ' ')"; sleep 0.2; done; } &
# FAULTED lasts until the killed clients are gone (milliseconds): sup.py reads the recorded fault, not the state, and
# creates the trigger for a3 (a pod already started, whose CUDA init waits for it) the moment A serves again.
REC=$(sup recover $A "$F0" 4 "$W/trig/go"); echo "passive (no new client tried): $(echo $REC)"
HOW="passive: the detectors fired with no new client"
if ! grep -q '^SERVING' <<< "$REC"; then
  if ! grep -q '^FAULTED' <<< "$REC"; then
    HOW="active: a new tenant-A client had to be refused first"
    ctr canary 1000 $A 50 domain_job.py sms canary & PC=$!
  fi
  REC="$REC"$'\n'"$(sup recover $A "$F0" 25 "$W/trig/go")"; echo "then: $(echo $REC)"
  [ -n "${PC:-}" ] && { wait $PC; echo "canary: $(line canary 'SEES|INIT')"; }
fi
[ -e "$W/trig/go" ] || touch "$W/trig/go"   # a3 ends either way
T_DET=$(grep -m1 '^FAULTED' <<< "$REC" | awk '{print $3}'); T_SRV=$(grep -m1 '^SERVING' <<< "$REC" | awk '{print $3}')
sup signals $A | tee "$W/signals"
FIRST=$(head -1 "$W/signals")
verdict '[ -n "$T_DET" ]' "fault detected ($HOW)" \
  "recorded $(sub "${T_DET:-0}" "$F0") s after the launch; first detector: ${FIRST:-none} ($(sub "$(echo "$FIRST" | awk '{print $2}')" "$F0") s after the launch); serving again $(sub "${T_SRV:-0}" "$F0") s after"
wait $PA3; T3=$(at a3 'COMPUTE ok')
verdict '[ -n "$T3" ] && python3 -c "import sys; sys.exit(0 if $T3 - $F0 <= $RECOVER_MAX_S else 1)"' "a new tenant-A pod computes <= $RECOVER_MAX_S s after the fault" \
  "$( [ -n "$T3" ] && echo "computed $(sub "$T3" "$F0") s after the launch" || echo "$(line a3 'COMPUTE|TRIGGERED')"); pod started before the fault, CUDA init on the trigger at SERVING"
wait $PA1; EA1=$?; wait $PA2; EA2=$?
KILLED=$(sup get $A lastFault | python3 -c 'import json,sys; f=json.load(sys.stdin) or {}; print(f.get("clients"))' 2>/dev/null)
verdict '[ "$EA1" = 137 ] && [ "$EA2" = 137 ]' "tenant A's faulted clients killed (SIGKILL)" "a1 exit $EA1 ($(line a1 'ERROR|DONE')), a2 exit $EA2; killed $KILLED"
wait $PB1; EB1=$?; wait $PB2; EB2=$?
verdict '[ "$EB1" = 0 ] && [ "$EB2" = 0 ]' "tenant B's pods ran to the end" "b1: exit $EB1 $(line b1 'DONE|ERROR'); b2: exit $EB2 $(line b2 'DONE|ERROR')"
cp "$(dirname "$(pipe $A)")/log/daemon.log" "$OUT/daemon-$A-after-fault.log" 2>/dev/null
echo "tenant A's daemon log around the fault:"; grep -vE 'Cmd:|get_|set_' "$OUT/daemon-$A-after-fault.log" 2>/dev/null | tail -25
[ "$DRY" != 1 ] && { echo "kernel:"; dmesg 2>/dev/null | grep -i xid | tail -4; }

step "4. stall (F15): a UID-65534 process in tenant A's pod holds 130 connections on A's control socket"
DPID=$(sup get $A daemonPid)
ctr a5 1000 $A 50 domain_job.py work a5 35 & PA5=$!
ctr b3 1001 $B 50 domain_job.py work b3 35 & PB3=$!
wait_line a5 'SEES|INIT FAIL' 60; wait_line b3 'SEES|INIT FAIL' 60
ctr h 65534 $A 50 domain_job.py hold h 130 22 & PH=$!
wait_line h HOLDING 60; TH=$(at h HOLDING); echo "$(line h HOLDING)"
ST=$(sup wait $A STALLED 25 0.1); echo "A: $ST"
sup get $A stalledBy | tee "$W/stalledBy"; echo "lastError: $(sup get $A lastError)"
verdict '[[ $ST == STALLED* ]] && [ "$(sup get $A daemonPid)" = "$DPID" ]' "only A stalled, its daemon not killed" \
  "STALLED $(sub "$(echo "$ST" | grep -oE 'at [0-9.]+' | cut -c4-)" "${TH:-0}") s after the hold; daemon $DPID -> $(sup get $A daemonPid); B: $(sup get $B state)"
verdict '[ "$DRY" = 1 ] || grep -q "\"uid\": *65534" "$W/stalledBy"' "the holder named (peer UID 65534)" "$(cut -c1-150 "$W/stalledBy")$( [ "$DRY" = 1 ] && echo ' (dry: no real sockets to name)')"
ctr b4 1001 $B 50 domain_job.py sms b4
verdict 'grep -q SEES "$W/b4.log"' "tenant B serves new pods during A's stall" "$(line b4 'SEES|INIT')"
wait $PH; TR=$(at h RELEASED)
BACK=$(sup wait $A SERVING 25 0.1)
verdict '[[ $BACK == SERVING* ]]' "A serves again when the holder is gone" "$BACK ($(sub "$(echo "$BACK" | grep -oE 'at [0-9.]+' | cut -c4-)" "${TR:-0}") s after the release)"
wait $PA5; EA5=$?; wait $PB3; EB3=$?
verdict '[ "$EA5" = 0 ] && [ "$EB3" = 0 ]' "no client died through the stall" "a5: exit $EA5 $(line a5 'DONE|ERROR'); b3: exit $EB3 $(line b3 'DONE|ERROR')"

step "5. throughput: 8 clients of 256x256 fp32 matmuls, 6 s: one daemon, 2 tenants x 4 (two daemons), time-sliced"
sup put $A "$GPU" tenant 1000 8192 100 > /dev/null; sup put $B "$GPU" tenant 1001 8192 100 > /dev/null
sup put $N "$GPU" node null 8192 100 > /dev/null; echo "node domain: $(sup wait $N SERVING 30)"
tput() { # tput LABEL DOM1 UID1 DOM2 UID2: 4 clients on each, the same start time; prints the aggregate iterations/s
  local label=$1 start; start=$(python3 -c "import time; print(time.time() + ${LEAD:-25})"); local pids=() i
  for i in 1 2 3 4; do ctr "tp-$label-$i" "$3" "$2" 100 gpu_job.py matmul 256 "$start" 6 & pids+=($!); done
  for i in 5 6 7 8; do ctr "tp-$label-$i" "$5" "$4" 100 gpu_job.py matmul 256 "$start" 6 & pids+=($!); done
  wait "${pids[@]}"
  cat "$W"/tp-$label-*.log | sed -n 's/.*it_per_s=\([0-9.]*\).*late_s=\([0-9.]*\).*/\1 \2/p' > "$W/tp-$label"
  echo "$label: $(wc -l < "$W/tp-$label") of 8 reported; latest start $(sort -k2 -n "$W/tp-$label" | tail -1 | awk '{print $2}') s late" >&2
  awk '{s+=$1} END {printf "%.0f", s}' "$W/tp-$label"
}
ONE=$(tput one $N 1000 $N 1000); TWO=$(tput two $A 1000 $B 1001); TS=$(tput sliced none 1000 none 1000)
R2=$(python3 -c "print(f'{$TWO / $ONE:.2f}')" 2>/dev/null || echo "?"); RS=$(python3 -c "print(f'{$TS / $ONE:.2f}')" 2>/dev/null || echo "?")
verdict '[ "$(cat "$W"/tp-one "$W"/tp-two "$W"/tp-sliced | wc -l)" = 24 ]' "throughput measured, every client reported" \
  "one daemon $ONE it/s; 2 tenants x 4 (two daemons) $TWO it/s ($R2 of one); time-sliced $TS it/s ($RS of one)"
verdict 'python3 -c "import sys; sys.exit(0 if $TWO > $TS else 1)"' "two daemons beat time-slicing" "$TWO vs $TS it/s"

step "6. delete the domains: each drains and quits"
for id in $A $B $N; do sup delete $id > /dev/null; done
GONE=0; for i in $(seq 1 40); do [ -z "$(ls "$RUN/blue/d" 2>/dev/null)" ] && GONE=1 && break; sleep 0.25; done
verdict '[ "$GONE" = 1 ]' "deleted domains drained and quit, their folders removed" "left: $(ls "$RUN/blue/d" 2>/dev/null | tr '\n' ' ')"
kill "$WATCHDOG" 2>/dev/null
