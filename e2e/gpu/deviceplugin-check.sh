#!/usr/bin/env bash
# Real-GPU check of the device plugin (docs/gpu-results.md): the real MPS control daemon under the supervisor (`mpshare mps-control`,
# pipe dir /run/mpshare/blue/pipe), the device plugin (DevicePluginNode with FfmNvml) against a fake kubelet (real gRPC
# over unix sockets in a temporary folder) and an in-memory API server (e2e/gpu/java-deviceplugin/DevicePluginDrive).
# Two pods are admitted with the extender's allocation annotation (AllocationCodec): pod-a 7 GiB + 30% cores, pod-b
# 3 GiB; their Allocate answers start real CUDA processes, each in its own namespaces
# (unshare --ipc --mount --pid --fork --mount-proc, own tmpfs /dev/shm, the host's run dir hidden, only the answered
# mount: the pipe dir bound read-only at its container path), with exactly the MPS env Allocate returned.
# Then: a live ceiling change through the supervisor's PUT /ceilings/0 and a new client under it, no daemon restart;
# kill -9 of the control daemon, timed until the fake kubelet's ListAndWatch shows every device Unhealthy, and until
# Healthy again after the supervisor restarted it; one more pod admitted and run after the restart.
# Run from the repo root on the GPU machine after `e2e/gpu/build-runtime.sh --deviceplugin` here, carry [".device"].
# Changes no GPU setting; everything it starts is stopped and its folders removed. Logs and summary under $OUT.
# Dry run without a GPU: DRY=1 (stand-ins from e2e/gpu/dry for nvidia-cuda-mps-control and python3, FakeNvml).
set -u
OUT=${OUT:-/tmp/dp-check-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/dp-check.log") 2>&1
DRY=${DRY:-0}
RUN=${RUN:-/run/mpshare}              # supervisor run dir: pipe dir $RUN/blue/pipe
W=$(mktemp -d /tmp/dp-check.XXXXXX)   # fake kubelet sockets, Allocate answers
PORT=39997
CEIL0=8G; CEIL1_MIB=4096
export PYTHONUNBUFFERED=1
T_START=$SECONDS
step() { echo; echo "=== $(date -u +%T.%3N) $*"; }
RES=()
row() { RES+=("$1|$2|$3"); echo "RESULT $1 | $2 | $3"; }
J=.device/jre/bin/java
CP='.device/lib/*:.device/e2e-check.jar:.device/dp-check.jar'
MPSBIN=(); PYBIN=python3; FAKE=
if [ "$DRY" = 1 ]; then MPSBIN=(--mps-control-binary "$PWD/e2e/gpu/dry/nvidia-cuda-mps-control"); PYBIN=$PWD/e2e/gpu/dry/python3; FAKE=fake; J=${JAVA:-java}; fi
chk() { timeout 60 "$J" --enable-native-access=ALL-UNNAMED -cp "$CP" io.mpshare.e2e.NvmlMpsCheck "$@"; }
status_file() { cat "$RUN/blue/status.json" 2>/dev/null; }
daemon_pid() { status_file | sed -n 's/.*"daemonPid":\([0-9-]*\).*/\1/p'; }
wait_status() { # wait_status SECONDS REGEX
  local end=$((SECONDS + $1)) s
  while [ $SECONDS -lt "$end" ]; do s=$(status_file); if echo "$s" | grep -Eq "$2"; then return 0; fi; sleep 0.2; done
  echo "timeout waiting for status /$2/: $(status_file)"; return 1
}
cleanup() {
  [ -n "${DP_PID:-}" ] && kill "$DP_PID" 2>/dev/null
  [ -n "${SUP:-}" ] && kill -TERM "$SUP" 2>/dev/null && wait "$SUP" 2>/dev/null
  for p in $(jobs -p); do kill "$p" 2>/dev/null; done
  cp "$RUN"/blue/log/*.log "$OUT/" 2>/dev/null
  umount "$RUN" 2>/dev/null && rmdir "$RUN" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT

step "machine"
if [ "$DRY" != 1 ]; then
  [ -d .device/jre ] || tar -C .device -xzf .device/jre.tgz
  [ -d .device/lib ] || python3 -c 'import tarfile; tarfile.open(".device/lib.tar.xz").extractall(".device")'
  nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,driver_version --format=csv
  which nvidia-cuda-mps-control; uname -r
  python3 -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count())'
  unshare --version
fi
"$J" -version 2>&1 | head -1
ls .device/lib | wc -l
if [ -e "$RUN" ] && [ -n "$(ls -A "$RUN" 2>/dev/null)" ]; then echo "ABORT: $RUN exists and is not empty: not ours"; exit 1; fi
mkdir -p "$RUN"
mount -t tmpfs -o size=64m,mode=0755 mpshare-e2e "$RUN" && echo "$RUN: a temporary tmpfs (removed at the end)"

step "1. supervisor: mpshare mps-control --run-dir $RUN --colour blue --ceiling 0=$CEIL0"
"$J" --enable-native-access=ALL-UNNAMED -cp "$CP" io.mpshare.e2e.NvmlMpsCheck mps-control --run-dir "$RUN" --colour blue \
  --ceiling 0=$CEIL0 --default-active-thread-percentage 100 --status-port $PORT --backoff-max-seconds 2 --drain-wait-seconds 10 \
  "${MPSBIN[@]}" > "$OUT/supervisor.log" 2>&1 &
SUP=$!
T0=$SECONDS
if wait_status 60 '"ready":true'; then row "supervisor starts the real daemon" "ok" "ready $((SECONDS - T0)) s after start, daemon pid $(daemon_pid), pipe $RUN/blue/pipe"
else row "supervisor starts the real daemon" "FAIL" "not ready in 60 s"; cat "$OUT/supervisor.log"; exit 1; fi
status_file; echo
ls -la "$RUN/blue" "$RUN/blue/pipe"

step "2. device plugin: DevicePluginNode + FfmNvml, fake kubelet on $W/device-plugins, in-memory API server"
coproc DP { exec "$J" --enable-native-access=ALL-UNNAMED -cp "$CP" io.mpshare.e2e.DevicePluginDrive "$W" "$RUN" $FAKE 2>"$OUT/deviceplugin.log"; }
DP_PID=$DP_PID
DPIN=${DP[1]}; DPOUT=${DP[0]}
LAST=
dp_until() { # dp_until REGEX TIMEOUT: echo harness lines until one matches
  local line
  while IFS= read -r -t "$2" line <&"$DPOUT"; do echo "  dp> $line"; LAST=$line; [[ $line =~ $1 ]] && return 0; done
  echo "  dp: no /$1/ within $2 s"; return 1
}
dp() { echo "$1" >&"$DPIN"; }
T0=$SECONDS
if dp_until '^ready' 90; then
  row "plugin registers with the fake kubelet (gRPC, unix sockets)" "ok" "$LAST; $(ls "$W/device-plugins" | tr '\n' ' ')"
  dp_until '^health' 10; row "ListAndWatch at start" "ok" "${LAST#health }"
else row "plugin registers" "FAIL" "see deviceplugin.log"; tail -40 "$OUT/deviceplugin.log"; exit 1; fi

admit() { # admit NAME GIB [CORE]: Allocate's answer into $W/NAME.env and $W/NAME.mounts
  dp "admit $*"
  : > "$W/$1.env"; : > "$W/$1.mounts"
  local line
  while IFS= read -r -t 30 line <&"$DPOUT"; do
    echo "  dp> $line"
    case $line in
      end) return 0;;
      error*) return 1;;
      mount\ *) echo "${line#mount }" >> "$W/$1.mounts";;
      [A-Z]*=*) echo "$line" >> "$W/$1.env";;
    esac
  done
  return 1
}
container() { # container NAME REQUEST_GIB HOLD [ENV_OF_POD]: dp_client.py in its own namespaces with the pod's answer
  local name=$1 req=$2 hold=$3 pod=${4:-$1} setup="set -e; mount -t tmpfs tmpfs /dev/shm; " host ct mode i=0
  while read -r host ct mode; do
    i=$((i + 1))
    setup+="mkdir -p /tmp/stage-$name-$i; mount --bind $host /tmp/stage-$name-$i; "
    [ $i = 1 ] && setup+="mount -t tmpfs tmpfs $RUN; "   # hide the host's run dir: only the answered mount stays
    setup+="mkdir -p $ct; mount --bind /tmp/stage-$name-$i $ct; "
    [ "$mode" = ro ] && setup+="mount -o remount,bind,ro $ct; "
    setup+="umount /tmp/stage-$name-$i; rmdir /tmp/stage-$name-$i; "
  done < "$W/$pod.mounts"
  setup+="echo \"client $name ns: pid \$\$, \$(ls /proc | grep -c '^[0-9]') pids in /proc, ipc \$(readlink /proc/self/ns/ipc), "
  setup+="mounts: \$(grep -E ' $RUN|/dev/shm' /proc/self/mountinfo | awk '{print \$5, \$6}' | tr '\\n' ';')\"; "
  setup+="touch $(awk 'NR==1{print $2}' "$W/$pod.mounts")/probe 2>/dev/null && echo \"client $name pipe dir WRITABLE\" || echo \"client $name pipe dir read-only\"; "
  rm -f "/tmp/dp-$name.ready"
  # the container's env: the image's (this shell's, less any CUDA_/NVIDIA_/MPSHARE_ variable) plus Allocate's answer
  env $(env | grep -oE '^(CUDA_|NVIDIA_|MPSHARE_|ALIYUN_)[A-Za-z0-9_]*' | sed 's/^/-u /') $(cat "$W/$pod.env") \
    timeout 120 unshare --ipc --mount --pid --fork --mount-proc sh -c "$setup exec $PYBIN e2e/gpu/dp_client.py $name $req $hold" &
  CLIENT=$!
}
wait_ready() { local end=$((SECONDS + 90)); while [ ! -f "/tmp/dp-$1.ready" ] && [ $SECONDS -lt $end ]; do sleep 0.2; done; [ -f "/tmp/dp-$1.ready" ]; }
client_line() { grep "^client $1 $2" "$OUT/dp-check.log" | tail -1 | sed "s/^client $1 $2 *//"; }

step "3. admit pod-a (7 GiB, 30% cores) and pod-b (3 GiB) through the extender's annotation; Allocate"
admit pod-a 7 30 && row "Allocate pod-a (7 GiB, 30%)" "ok" "$(grep -E '^CUDA_MPS' "$W/pod-a.env" | tr '\n' ' ')mount $(cat "$W/pod-a.mounts")" \
  || row "Allocate pod-a" "FAIL" "$LAST"
admit pod-b 3 && row "Allocate pod-b (3 GiB)" "ok" "$(grep -E '^CUDA_MPS' "$W/pod-b.env" | tr '\n' ' ')mount $(cat "$W/pod-b.mounts")" \
  || row "Allocate pod-b" "FAIL" "$LAST"
dp health; dp_until '^health' 10

step "4. both pods' CUDA processes at once, each in its own namespaces with Allocate's env and mount"
container pod-a 7 12; A=$CLIENT
container pod-b 3 12; B=$CLIENT
wait_ready pod-a; wait_ready pod-b
sleep 1
chk status $PORT
[ "$DRY" = 1 ] || chk procs
[ "$DRY" = 1 ] || nvidia-smi --query-compute-apps=pid,used_memory --format=csv
wait $A; EA=$?; wait $B; EB=$?
for p in pod-a:7:$EA pod-b:3:$EB; do
  IFS=: read -r n r e <<< "$p"
  row "$n cap (request $r GiB)" "$( [ "$e" = 0 ] && echo exit-0 || echo "exit $e")" "sees $(client_line $n FREE); 0.9 x request: $(client_line $n 'FIT [^:]*:' | cut -c1-40); +1 GiB past request: $(client_line $n 'BEYOND [^:]*:' | cut -c1-60); $(client_line $n 'pipe dir')"
done

step "5. live ceiling change: PUT /ceilings/0 {\"mib\":$CEIL1_MIB} on the supervisor; a new client with pod-a's answer (0=7680M)"
PID_BEFORE=$(daemon_pid)
chk set-ceiling $PORT 0 $CEIL1_MIB
[ "$DRY" = 1 ] || chk control "$RUN/blue/pipe" get_default_device_pinned_mem_limit 0
container pod-a2 3 1 pod-a; wait $CLIENT; EC=$?
PID_AFTER=$(daemon_pid)
row "ceiling 8G -> 4G live, new client with env 0=7680M" "$( [ "$PID_BEFORE" = "$PID_AFTER" ] && echo "no restart" || echo "RESTARTED")" \
  "daemon pid $PID_BEFORE -> $PID_AFTER; sees $(client_line pod-a2 FREE); 2.7 GiB: $(client_line pod-a2 'FIT [^:]*:' | cut -c1-30); 4 GiB in all: $(client_line pod-a2 'BEYOND [^:]*:' | cut -c1-40); exit $EC"

step "6. kill -9 the control daemon (pid $(daemon_pid)): ListAndWatch Unhealthy, then Healthy after the supervisor's restart"
KILLED=$(daemon_pid)
dp "killwatch $KILLED"
if dp_until '^unhealthy|^error' 15 && [[ $LAST == unhealthy* ]]; then U=$LAST; dp_until '^healthy|^error' 70; H=$LAST; dp_until '^end' 5
  row "kill -9 daemon -> kubelet sees Unhealthy" "$(echo "$U" | awk '{print ($4 <= 2000) ? "ok (<= 2 s)" : "SLOW (> 2 s)"}')" "$U"
  row "supervisor restart -> kubelet sees Healthy" "$([[ $H == healthy* ]] && echo ok || echo FAIL)" "$H; daemon pid $KILLED -> $(daemon_pid)"
else row "kill -9 daemon -> Unhealthy" "FAIL" "$LAST"; fi
wait_status 30 '"ready":true'
status_file; echo

step "7. after the restart: admit pod-c (2 GiB), its client under the re-applied ceiling"
admit pod-c 2 && { container pod-c 2 1; wait $CLIENT; EC=$?
  row "pod-c (2 GiB) after the restart" "exit $EC" "sees $(client_line pod-c FREE); 0.9 x: $(client_line pod-c 'FIT [^:]*:' | cut -c1-20); +1 GiB: $(client_line pod-c 'BEYOND [^:]*:' | cut -c1-40)"; } \
  || row "pod-c after the restart" "FAIL" "$LAST"
dp health; dp_until '^health' 10

step "8. stop"
dp quit; wait "$DP_PID" 2>/dev/null; echo "device plugin exit $?"; DP_PID=
kill -TERM "$SUP"; wait "$SUP"; echo "supervisor exit $?"; SUP=
chk status $PORT 2>/dev/null | head -2

step "summary ($((SECONDS - T_START)) s)"
printf '%-55s | %-14s | %s\n' check result detail
for r in "${RES[@]}"; do IFS='|' read -r a b c <<< "$r"; printf '%-55s | %-14s | %s\n' "$a" "$b" "$c"; done
