#!/usr/bin/env bash
# Calibrates the CUDA context reserve on the GPU machine, with the raw MPS daemon and PyTorch jobs in real runc
# containers (e2e/gpu/ctr.py: host root filesystem read-only, own PID/IPC/mount namespaces, UID 1000, only the pipe
# directory mounted, read-only). For N = 2, 5, 10 GiB and reserve R = 512, 768, 1024 MiB, a job with env cap
# N GiB + R holds N - 0.1 GiB, computes (cuBLAS) and asks 20 MiB more (hold_job.py). Also: what the MPS server
# holds; privileged control commands from the container as UID 1000 (refused?) with the daemon still serving.
# Needs runc: carry Debian's package in .device/debs (apt-get download runc). Changes no GPU setting.
set -u
OUT=${OUT:-/tmp/calibrate-out}; mkdir -p "$OUT"
exec > >(tee "$OUT/calibrate.log") 2>&1
W=/tmp/iso; rm -rf "$W"; mkdir -p "$W/pipe" "$W/log" /tmp/runc-root
dpkg -x .device/debs/runc_*.deb /tmp/runc-root && export RUNC=/tmp/runc-root/usr/sbin/runc
$RUNC --version | head -1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
export CUDA_MPS_PIPE_DIRECTORY=$W/pipe CUDA_MPS_LOG_DIRECTORY=$W/log
nvidia-cuda-mps-control -d && echo "daemon started"
chmod 0755 "$W" "$W/pipe"
ctr() { python3 e2e/gpu/ctr.py --repo . --mount "$W/pipe:/run/mpshare/pipe:ro" --env CUDA_MPS_PIPE_DIRECTORY=/run/mpshare/pipe "$@"; }
echo "=== sanity: a container as UID 1000"
ctr --name sanity --uid 1000 --gid 1000 -- sh -c 'id; ls -la /run/mpshare/pipe | head -5; touch /run/mpshare/pipe/x 2>&1 | head -1; python3 -c "import torch; f,t=torch.cuda.mem_get_info(); print(\"free\", round(f/2**30,2), \"GiB\")"'
echo "=== neighbour: 4 GiB job holding for 40 s"
ctr --name neighbour --uid 1000 --gid 1000 --env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=5G -- python3 /e2e/e2e/gpu/hold_job.py neighbour 4 40 > "$OUT/neighbour.log" 2>&1 &
NB=$!
sleep 8
echo "=== calibration matrix"
PIDS=()
for n in 2 5 10; do for r in 512 768 1024; do
  cap=$((n * 1024 + r))
  ctr --name "n${n}r${r}" --uid 1000 --gid 1000 --env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=${cap}M -- python3 /e2e/e2e/gpu/hold_job.py "n${n}r${r}" $n 4 > "$OUT/n${n}r${r}.log" 2>&1 &
  PIDS+=($!)
done; done
sleep 12
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv | tee "$OUT/apps.csv"
for p in "${PIDS[@]}"; do wait "$p"; done
for n in 2 5 10; do for r in 512 768 1024; do echo "--- N=$n R=$r: $(grep -E 'HOLD|COMPUTE|MORE20|DONE' "$OUT/n${n}r${r}.log" | awk '{print $3, $4}' | tr '\n' ' ')"; grep -E 'sees|free now' "$OUT/n${n}r${r}.log" | sed 's/^/      /'; done; done
echo "=== privileged commands from a UID 1000 container through the read-only pipe mount"
SERVER=$(echo get_server_list | nvidia-cuda-mps-control | head -1)
NBPID=$(echo "get_client_list $SERVER" | nvidia-cuda-mps-control | head -1)
echo "server $SERVER, a client $NBPID"
for cmd in "set_default_device_pinned_mem_limit 0 100G" "terminate_client $SERVER $NBPID" "quit"; do
  echo "> $cmd"; ctr --name priv --uid 1000 --gid 1000 -- sh -c "echo '$cmd' | nvidia-cuda-mps-control; echo exit \$?"
done
echo "daemon after: server list $(echo get_server_list | nvidia-cuda-mps-control | tr '\n' ' '); default limit $(echo 'get_default_device_pinned_mem_limit 0' | nvidia-cuda-mps-control)"
echo "=== ceiling vs a client that raises its env cap to 140G (daemon default limit 4G)"
echo "set_default_device_pinned_mem_limit 0 4G" | nvidia-cuda-mps-control
ctr --name raise --uid 1001 --gid 1001 --env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=140G -- python3 /e2e/e2e/gpu/hold_job.py raise 6 1 2>&1 | tail -3
wait $NB; echo "neighbour exit $?"; cat "$OUT/neighbour.log"
echo quit | nvidia-cuda-mps-control; sleep 1
cp $W/log/*.log "$OUT/" 2>/dev/null
echo "=== done"
