#!/usr/bin/env bash
# Isolation on the GPU in node mode (docs/gpu-results.md): the supervisor (`mpshare mps-control`, real nvidia-cuda-mps-control) + the device plugin
# (DevicePluginNode with FfmNvml, the policer on, the ceiling controller) against a kubelet stand-in (FakeKubelet: real
# gRPC on unix sockets) and an in-memory API server (e2e/gpu/java-deviceplugin/DevicePluginDrive), with every client in a
# real runc container (e2e/gpu/ctr.py) given exactly the Allocate answer's env and mounts and the pod's UID, in a
# kubelet-shaped cgroup so the policer maps it to its pod. Checks: the server ceiling follows the bookings; PyTorch jobs
# asking 2, 5 and 10 GiB hold N - 0.1 GiB and compute; a client that raises its env cap to 140G cannot pass the ceiling and
# is terminated when over its share; quit / set_* / terminate_client through the mounted pipe directory are refused and the
# daemon keeps serving; a client that unsets CUDA_MPS_PIPE_DIRECTORY is caught; a neighbour runs to the end through all of
# it; after kill -9 of the daemon the ceiling is back on the new daemon.
# Run from the repo root on the GPU machine after `e2e/gpu/build-runtime.sh --deviceplugin` and `apt-get download runc`
# into .device/debs here; carry [".device"]. Changes no GPU setting; stops all it starts. Logs under $OUT.
set -u
OUT=${OUT:-/tmp/iso-out}; mkdir -p "$OUT"
exec > >(tee "$OUT/isolation-check.log") 2>&1
RUN=/run/mpshare; W=$(mktemp -d /tmp/iso.XXXXXX)
J=.device/jre/bin/java; CP='.device/lib/*:.device/e2e-check.jar:.device/dp-check.jar'
T_START=$SECONDS; RES=()
step() { echo; echo "=== $(date -u +%T.%3N) $*"; }
row() { RES+=("$1|$2|$3"); echo "RESULT $1 | $2 | $3"; }
ctl() { echo "$*" | CUDA_MPS_PIPE_DIRECTORY=$RUN/blue/pipe nvidia-cuda-mps-control 2>&1; }
cleanup() {
  [ -n "${DP_PID:-}" ] && kill "$DP_PID" 2>/dev/null
  [ -n "${SUP:-}" ] && kill -TERM "$SUP" 2>/dev/null && sleep 2 && kill -9 "$SUP" 2>/dev/null
  for p in $(jobs -p); do kill "$p" 2>/dev/null; done
  cp "$W"/*.log "$OUT/" 2>/dev/null
  umount "$RUN" 2>/dev/null; rmdir "$RUN" 2>/dev/null; rm -rf "$W"
}
trap cleanup EXIT
step "machine"
[ -d .device/jre ] || tar -C .device -xzf .device/jre.tgz
[ -d .device/lib ] || python3 -c 'import tarfile; tarfile.open(".device/lib.tar.xz").extractall(".device")'
mkdir -p /tmp/runc-root && dpkg -x .device/debs/runc_*.deb /tmp/runc-root && export RUNC=/tmp/runc-root/usr/sbin/runc
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; $RUNC --version | head -1; "$J" -version 2>&1 | head -1
if [ -e "$RUN" ] && [ -n "$(ls -A "$RUN" 2>/dev/null)" ]; then echo "ABORT: $RUN exists and is not empty"; exit 1; fi
mkdir -p "$RUN" && mount -t tmpfs -o size=64m,mode=0755 mpshare-e2e "$RUN"

step "1. supervisor (no --ceiling: the device plugin sets it)"
"$J" --enable-native-access=ALL-UNNAMED -cp "$CP" io.mpshare.e2e.NvmlMpsCheck mps-control --run-dir "$RUN" --colour blue \
  --default-active-thread-percentage 100 --backoff-max-seconds 1 --drain-wait-seconds 5 > "$W/supervisor.log" 2>&1 &
SUP=$!
for i in $(seq 1 120); do grep -q '"ready":true' "$RUN/blue/status.json" 2>/dev/null && break; sleep 0.5; done
grep -q '"ready":true' "$RUN/blue/status.json" && row "supervisor ready" ok "$(ls $RUN/blue | tr '\n' ' ')" || { row "supervisor ready" FAIL "see supervisor.log"; tail -30 "$W/supervisor.log"; exit 1; }

step "2. device plugin (policer on, 500 ms)"
coproc DP { exec "$J" --enable-native-access=ALL-UNNAMED -cp "$CP" io.mpshare.e2e.DevicePluginDrive "$W" "$RUN" police 2>"$W/deviceplugin.log"; }
DP_PID=$DP_PID; DPIN=${DP[1]}; DPOUT=${DP[0]}; LAST=
dp_until() { local line; while IFS= read -r -t "$2" line <&"$DPOUT"; do echo "  dp> $line"; LAST=$line; [[ $line =~ $1 ]] && return 0; done; echo "  dp: no /$1/ in $2 s"; return 1; }
dp_until '^ready' 120 || { tail -40 "$W/deviceplugin.log"; exit 1; }
sleep 2; row "ceiling before any booking" "$(ctl get_default_device_pinned_mem_limit 0)" "expected the 1 GiB floor"
admit() { # admit NAME GIB UID -> $W/NAME.env, $W/NAME.cg
  echo "admit $1 $2 0 $3" >&"$DPIN"; : > "$W/$1.env"; : > "$W/$1.mounts"; local line
  while IFS= read -r -t 40 line <&"$DPOUT"; do echo "  dp> $line"
    case $line in end) return 0;; error*) return 1;; cgroup\ *) echo "${line#cgroup }" > "$W/$1.cg";; mount\ *) set -- "$1" $line; echo "--mount $3:$4:$5" >> "$W/$1.mounts"; set -- "$1";; [A-Z]*=*) echo "$line" >> "$W/$1.env";; esac
  done; return 1; }
run_ctr() { # run_ctr NAME POD UID [extra ctr.py args...] -- CMD...: the pod's answer, its cgroup
  local name=$1 pod=$2 uid=$3; shift 3
  python3 e2e/gpu/ctr.py --repo . --name "$name" --uid "$uid" --gid "$uid" --env-file "$W/$pod.env" --cgroup "$(cat "$W/$pod.cg")" \
    $(cat "$W/$pod.mounts") "$@"; }
pipe_of() { grep -E '^CUDA_MPS_PIPE_DIRECTORY=' "$W/$1.env" | cut -d= -f2; }

step "3. neighbour pod nb (4 GiB), its job runs through everything"
admit nb 4 1000 || row "admit nb" FAIL "$LAST"
echo "answer: $(tr '\n' ' ' < "$W/nb.env")"; echo "pipe in answer: $(pipe_of nb)"
run_ctr nb nb 1000 -- python3 /e2e/e2e/gpu/hold_job.py nb 4 100 > "$W/nb.log" 2>&1 &
NB=$!
sleep 4
row "ceiling with nb booked (4 GiB + reserve)" "$(ctl get_default_device_pinned_mem_limit 0)" "largest booked cap, whole GiB"

step "4. PyTorch jobs asking 2, 5, 10 GiB, each with exactly its answer"
for n in 2 5 10; do admit "j$n" $n 1000 || row "admit j$n" FAIL "$LAST"; done
sleep 3; CEIL=$(ctl get_default_device_pinned_mem_limit 0); row "ceiling with 10 GiB booked" "$CEIL" "expected 11G (10 GiB + 1 GiB reserve)"
P=(); for n in 2 5 10; do run_ctr "j$n" "j$n" 1000 -- python3 /e2e/e2e/gpu/hold_job.py "j$n" $n 4 > "$W/j$n.log" 2>&1 & P+=($!); done
for p in "${P[@]}"; do wait "$p"; done
for n in 2 5 10; do row "job asking $n GiB ($(grep -oE 'limit env [^ ]+' "$W/j$n.log" | head -1))" \
  "$(grep -oE '(HOLD|COMPUTE|MORE20|DONE) (ok|FAIL)' "$W/j$n.log" | tr '\n' ' ')" "$(grep -oE 'sees free [0-9.]+ GiB' "$W/j$n.log") ; $(grep -oE 'MORE20 ok; free now [0-9]+ MiB' "$W/j$n.log")"; done

step "5. thief pod t (2 GiB booked) raises its env cap to 0=140G"
admit t 2 1000 || row "admit t" FAIL "$LAST"
sed -i 's/^CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=.*/CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=140G/' "$W/t.env"
run_ctr t1 t 1000 -- python3 /e2e/e2e/gpu/hold_job.py t1 20 5 > "$W/t1.log" 2>&1; E1=$?
row "env cap 140G, tries 19.9 GiB" "exit $E1" "$(grep -oE 'sees free [0-9.]+ GiB' "$W/t1.log"); $(grep -oE 'HOLD (ok|FAIL).{0,60}' "$W/t1.log")"
run_ctr t2 t 1000 -- python3 /e2e/e2e/gpu/hold_job.py t2 8 20 > "$W/t2.log" 2>&1; E2=$?
row "env cap 140G, takes 7.9 GiB (under the ceiling, over its 3 GiB share)" "exit $E2" "$(grep -oE '(HOLD|COMPUTE|MORE20|DONE) (ok|FAIL)[^@]*@[0-9.]+' "$W/t2.log" | cut -c1-80 | tr '\n' ';')"
grep -iE 'policer event' "$W/deviceplugin.log" | tail -4

step "6. control commands through the mounted pipe directory"
SERVER=$(ctl get_server_list | head -1); NBC=$(ctl "get_client_list $SERVER" | head -1)
echo "server $SERVER, a client $NBC"
for u in 1001 1000; do for cmd in "quit" "set_default_device_pinned_mem_limit 0 100G" "set_device_pinned_mem_limit $SERVER 0 100G" "terminate_client $SERVER $NBC"; do
  [ "$u" = 1000 ] && [[ $cmd == terminate* ]] && continue   # same UID: MPS allows it (docs/gpu-results.md); tenants get their own UIDs
  out=$(run_ctr "c$u" t "$u" -- sh -c "echo '$cmd' | nvidia-cuda-mps-control" 2>&1 | tr '\n' ' ')
  row "UID $u: $cmd" "$(echo "$out" | grep -qiE 'privilege' && echo refused || echo "NOT refused")" "$out"
done; done
row "server $SERVER limit after UID 1000's set_device_pinned_mem_limit" "$(ctl "get_device_pinned_mem_limit $SERVER 0")" "ceiling controller wants $(ctl get_default_device_pinned_mem_limit 0)"
run_ctr t3 t 1000 -- python3 /e2e/e2e/gpu/hold_job.py t3 20 2 > "$W/t3.log" 2>&1; E3=$?
row "then a new client with env 0=140G tries 19.9 GiB" "exit $E3" "$(grep -oE 'sees free [0-9.]+ GiB' "$W/t3.log"); $(grep -oE '(HOLD|DONE) (ok|FAIL).{0,50}' "$W/t3.log" | tr '\n' ';')"
sleep 2; row "server $SERVER limit 2 s later" "$(ctl "get_device_pinned_mem_limit $SERVER 0")" ""
row "daemon still serving" "$(ctl get_server_list | tr '\n' ' ')" "default limit $(ctl get_default_device_pinned_mem_limit 0); nb alive: $(kill -0 $NB 2>/dev/null && echo yes || echo no)"

step "7. a client of pod t that unsets CUDA_MPS_PIPE_DIRECTORY (no MPS, no cap)"
grep -v '^CUDA_MPS_PIPE_DIRECTORY=' "$W/t.env" > "$W/r.env"; cp "$W/t.cg" "$W/r.cg"; cp "$W/t.mounts" "$W/r.mounts"
run_ctr rogue r 1000 -- python3 /e2e/e2e/gpu/hold_job.py rogue 3 20 > "$W/rogue.log" 2>&1; ER=$?
T_HOLD=$(grep -oE 'HOLD ok.*@[0-9.]+' "$W/rogue.log" | grep -oE '[0-9.]+$'); T_END=$(date +%s.%N)
row "no-MPS client in pod t" "exit $ER" "$(grep -oE 'sees free [0-9.]+ GiB' "$W/rogue.log"); $(grep -oE '(HOLD|COMPUTE|DONE) (ok|FAIL)' "$W/rogue.log" | tr '\n' ' ')"
grep -iE 'rogue' "$W/deviceplugin.log" | tail -2

step "8. the neighbour"
wait $NB; ENB=$?
row "neighbour nb (4 GiB) ran to the end" "exit $ENB" "$(grep -oE '(HOLD|COMPUTE|MORE20|DONE) (ok|FAIL)' "$W/nb.log" | tr '\n' ' ')"

step "9. kill -9 the daemon: the ceiling is back on the new one"
DPID=$(sed -n 's/.*"daemonPid":\([0-9]*\).*/\1/p' "$RUN/blue/status.json"); kill -9 "$DPID"; echo "killed $DPID"
for i in $(seq 1 40); do sleep 0.5; N=$(sed -n 's/.*"daemonPid":\([0-9]*\).*/\1/p' "$RUN/blue/status.json"); [ -n "$N" ] && [ "$N" != "$DPID" ] && grep -q '"ready":true' "$RUN/blue/status.json" && break; done
sleep 3; row "ceiling after the restart" "$(ctl get_default_device_pinned_mem_limit 0)" "daemon $DPID -> $N (bookings: j2, j5, j10 still booked in the API server)"

step "stop"; echo quit >&"$DPIN"; wait "$DP_PID" 2>/dev/null; DP_PID=
grep -E 'WARN|ERROR' "$W/deviceplugin.log" | head -20
step "summary ($((SECONDS - T_START)) s)"
for r in "${RES[@]}"; do IFS='|' read -r a b c <<< "$r"; printf '%-62s | %-22s | %s\n' "$a" "$b" "$c"; done
