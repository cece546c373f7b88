#!/usr/bin/env bash
# Who may terminate whose MPS client: the raw daemon, a neighbour job as UID 1000 in a runc container, then control
# commands from containers as UID 1001 (another tenant) and UID 1000 (the same tenant), through the read-only pipe
# mount. Needs runc (.device/debs). Changes no GPU setting.
set -u
OUT=${OUT:-/tmp/uid-out}; mkdir -p "$OUT"
exec > >(tee "$OUT/uid-check.log") 2>&1
W=/tmp/iso; rm -rf "$W"; mkdir -p "$W/pipe" "$W/log" /tmp/runc-root
dpkg -x .device/debs/runc_*.deb /tmp/runc-root && export RUNC=/tmp/runc-root/usr/sbin/runc
export CUDA_MPS_PIPE_DIRECTORY=$W/pipe CUDA_MPS_LOG_DIRECTORY=$W/log
nvidia-cuda-mps-control -d && echo "daemon started"; chmod 0755 "$W" "$W/pipe"
ctr() { python3 e2e/gpu/ctr.py --repo . --mount "$W/pipe:/run/mpshare/pipe:ro" --env CUDA_MPS_PIPE_DIRECTORY=/run/mpshare/pipe "$@"; }
ctr --name nb --uid 1000 --gid 1000 --env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=3G -- python3 /e2e/e2e/gpu/hold_job.py nb 2 25 > "$OUT/nb.log" 2>&1 &
NB=$!
for i in $(seq 1 40); do S=$(echo get_server_list | nvidia-cuda-mps-control | head -1); [ -n "$S" ] && C=$(echo "get_client_list $S" | nvidia-cuda-mps-control | head -1); [ -n "${C:-}" ] && break; sleep 0.5; done
echo "server $S client $C"
for u in 1001 65534; do
  echo "=== as UID $u: get_server_list, get_client_list, terminate_client $S $C"
  ctr --name "u$u" --uid $u --gid $u -- sh -c "echo get_server_list | nvidia-cuda-mps-control; echo get_client_list $S | nvidia-cuda-mps-control; echo terminate_client $S $C | nvidia-cuda-mps-control; echo exit \$?"
  sleep 1; echo "neighbour alive: $(kill -0 $C 2>/dev/null && echo yes || echo no)"
done
echo "=== as UID 1000 (same tenant): terminate_client $S $C"
ctr --name u1000 --uid 1000 --gid 1000 -- sh -c "echo terminate_client $S $C | nvidia-cuda-mps-control"
sleep 2; echo "neighbour alive: $(kill -0 $C 2>/dev/null && echo yes || echo no)"
wait $NB; echo "neighbour exit $?"; cat "$OUT/nb.log"
grep -E 'Cmd|privil|UID' $W/log/control.log
echo quit | nvidia-cuda-mps-control
