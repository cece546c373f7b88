#!/usr/bin/env bash
# Real-GPU check of the nvml and mps modules: FfmNvml against nvidia-smi and running processes;
# ProcessMpsControl, MpsSupervisor and `mpshare mps-control` against the real nvidia-cuda-mps-control.
# Run from the repo root on the GPU machine, after e2e/gpu/build-runtime.sh here, with carry [".device"].
# It changes no GPU setting: it starts its own control daemon on a temporary pipe directory and quits it.
# Results go to $OUT (check.log, supervisor.log, control.log, server.log); summary in docs/gpu-results.md.
set -u
OUT=${OUT:-/tmp/nvml-mps-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/check.log") 2>&1
RUN=/tmp/mpshare-e2e-run
PIPE=$RUN/blue/pipe
PORT=39997
export PYTHONUNBUFFERED=1
step() { echo; echo "=== $(date -u +%T) $*"; }
JAVA=(.device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp '.device/lib/*:.device/e2e-check.jar' io.mpshare.e2e.NvmlMpsCheck)
PY=${PY:-python3}   # the CUDA clients' interpreter (a stand-in for a dry run without a GPU)
chk() { timeout 60 "${JAVA[@]}" "$@"; }
ctl() { chk control "$PIPE" "$@"; }
status_file() { cat "$RUN/blue/status.json" 2>/dev/null; }
wait_status() { # wait_status SECONDS REGEX
  local end=$((SECONDS + $1)) s
  while [ $SECONDS -lt "$end" ]; do s=$(status_file); if echo "$s" | grep -Eq "$2"; then echo "status: $s"; return 0; fi; sleep 0.3; done
  echo "CHECK FAIL timeout waiting for status /$2/: $(status_file)"; return 1
}
client() { # client NAME HOLD TRY_GIB [ENV...]: background MPS client of the blue daemon
  local name=$1 hold=$2 try=$3; shift 3
  rm -f "/tmp/client-$name.ready"
  env CUDA_MPS_PIPE_DIRECTORY="$PIPE" "$@" timeout 120 $PY e2e/gpu/mps_client.py "$name" "$hold" "$try" &
  LAST=$!
}
wait_ready() { local end=$((SECONDS + 60)); while [ ! -f "/tmp/client-$1.ready" ] && [ $SECONDS -lt $end ]; do sleep 0.2; done; cat "/tmp/client-$1.ready" 2>/dev/null; }
daemon_pid() { status_file | sed -n 's/.*"daemonPid":\([0-9-]*\).*/\1/p'; }

step "machine"
tar -C .device -xzf .device/jre.tgz
.device/jre/bin/java -version 2>&1 | head -1
nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,driver_version --format=csv
which nvidia-cuda-mps-control; uname -r
$PY -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count())'

step "1. FfmNvml vs nvidia-smi"
chk nvml

step "2. NVML processes while a plain (non-MPS) torch process holds 1 GiB"
rm -f /tmp/client-plain.ready
timeout 120 $PY e2e/gpu/mps_client.py plain 15 0.5 &
PLAIN=$!
echo "plain pid $(wait_ready plain)"
chk procs
nvidia-smi --query-compute-apps=pid,used_memory --format=csv
kill $PLAIN 2>/dev/null; wait $PLAIN 2>/dev/null

step "3. supervisor: mpshare mps-control --colour blue, ceiling 0=3G"
rm -rf "$RUN"
"${JAVA[@]}" mps-control --run-dir "$RUN" --colour blue --ceiling 0=3G --default-active-thread-percentage 100 \
  --status-port $PORT --backoff-max-seconds 2 --drain-wait-seconds 40 > "$OUT/supervisor.log" 2>&1 &
SUP=$!
T0=$SECONDS
wait_status 60 '"ready":true' && echo "ready after $((SECONDS - T0)) s"
ls -la "$RUN/blue"
chk status $PORT
ctl get_default_device_pinned_mem_limit 0
ctl get_default_active_thread_percentage
ctl bogus_command
ctl get_client_list 999999

step "4. clients: A env 0=2G, B env 0=20G (ceiling 3G), C 30% threads"
client A 25 3 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=2G
A=$LAST
echo "A pid $(wait_ready A)"
client B 10 3 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20G
client C 10 0.5 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=2G CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30
echo "B pid $(wait_ready B), C pid $(wait_ready C)"
sleep 1.5
chk status $PORT
chk procs
ctl get_server_list
SERVER=$(ctl get_server_list | sed -n "s/.*-> \([0-9]*\).*/\1/p")
echo "server $SERVER"
ctl get_client_list "$SERVER"
ctl get_device_pinned_mem_limit "$SERVER" 0

step "5. live ceiling change to 8192 MiB through PUT /ceilings/0 (no restart)"
PID_BEFORE=$(daemon_pid)
chk set-ceiling $PORT 0 8192
ctl get_device_pinned_mem_limit "$SERVER" 0
ctl get_default_device_pinned_mem_limit 0
client D 2 4 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=6G
D=$LAST
echo "D pid $(wait_ready D)"
wait $D
echo "daemon pid before $PID_BEFORE, after $(daemon_pid)"
[ "$PID_BEFORE" = "$(daemon_pid)" ] && echo "CHECK ok    ceiling changed without restart" || echo "CHECK FAIL  daemon restarted"

wait $A; echo "client A exit $?"

step "6. kill -9 the control daemon: supervisor restarts it and re-applies the ceiling"
client E 6 0.5 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=2G
E=$LAST
echo "E pid $(wait_ready E)"
KILLED=$(daemon_pid); T0=$SECONDS
kill -9 "$KILLED"
wait_status 30 '"restarts":1,' >/dev/null
wait_status 60 '"ready":true' && echo "restarted and ready $((SECONDS - T0)) s after the kill; old pid $KILLED, new $(daemon_pid)"
ctl get_default_device_pinned_mem_limit 0
client F 2 6 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20G
F=$LAST
echo "F pid $(wait_ready F)"
wait $E; echo "client E (connected when the daemon was killed) exit $?"
wait $F; echo "client F exit $?"
chk status $PORT
python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$PORT/metrics').read().decode())" | grep '^mpshare'
python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$PORT/healthz').read().decode())"

step "7. SIGTERM with a client connected: refused, then quit once it leaves"
client G 8 0.5 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=2G
echo "G pid $(wait_ready G)"
sleep 1.5
kill -TERM $SUP
wait $SUP; echo "supervisor exit $?"
ctl get_server_list
jobs -p | xargs -r kill 2>/dev/null
cp "$RUN/blue/log/control.log" "$RUN/blue/log/server.log" "$OUT/" 2>/dev/null
step "summary"
grep -c "CHECK ok" "$OUT/check.log"; grep "CHECK FAIL" "$OUT/check.log" || echo "no CHECK FAIL"
