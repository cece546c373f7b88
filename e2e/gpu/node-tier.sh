#!/usr/bin/env bash
# The GPU node tier (docs/gpu-results.md, "The seed's sample on a real GPU node"): a whole mpshare cluster on the GPU
# machine, every part real and as the chart configures it: etcd, kube-apiserver, kube-controller-manager and
# kube-scheduler v1.31 with the chart's extender configuration; kubelet on containerd 1.6 and runc; `mpshare
# mps-control` on the driver's nvidia-cuda-mps-control, `mpshare device-plugin` on NVML with the device-specs
# strategy, `mpshare scheduler-extender` and `mpshare webhook` (a jlink runtime and the product's jars), each as the
# chart's ServiceAccount. Then five scenarios, each ending in one RESULT line with its figures:
#   1. the seed's sample Job, byte for byte (examples/mps-sample-job.yaml, <NODE_NAME> filled in), in a trusted
#      namespace served by the node daemon: bound through the extender, Running, `kubectl exec ... nvidia-smi` in its
#      container shows the MPS server as C and the job as M+C, the job sees its cap less the context and trains;
#      `mpshare inspect` shows it
#   2. a strict-namespace pod as UID 1000 beside it on the same GPU (its own tenant domain): both train, each sees its cap
#   3. a pod that raises its own cap and holds more than its share: it is stopped, the neighbours run on
#   4. kubelet restarted, then the device plugin restarted, with both pods running: no container restarts
#   5. a kernel faults in the strict tenant's domain: that domain's pods end and get an Event, the seed Job runs on,
#      the tenant's next pod computes
# It stops everything it started and puts the machine back; logs go to $OUT (node-tier.log, node-tier-logs.tgz).
#
#   e2e/gpu/node-tier.sh stage K    unpack part K (1, 2, 3) of `e2e/gpu/node-tier-stage.sh`'s build from
#                                   .device/node-tier/pK into $NODE_TIER_STAGE (default /var/tmp/mpshare-node-tier),
#                                   which outlives the call while the machine stays warm; part 1 also checks the
#                                   machine and builds the images. e2e/gpu/README.md gives the device calls.
#   e2e/gpu/node-tier.sh run        the tier (after the three parts), in a network namespace of its own.
#   e2e/gpu/node-tier.sh unpack A D an .xz or .tar.xz as stage unpacks it (python's lzma), for other scripts' parts
#   DRY=1 e2e/gpu/node-tier.sh ...  the same on a machine without a GPU: a fake driver tree (fake libcuda that runs
#                                   the kernels on the CPU, fake nvidia-smi, device nodes that are /dev/null), the
#                                   project's fake nvidia-cuda-mps-control, the device plugin on --fake-gpus; every
#                                   check that needs a GPU prints SKIP. Take /tmp/mpshare-e2e.lock around it.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$REPO/e2e/gpu/node-tier
DRY=${DRY:-0}
STAGE=${NODE_TIER_STAGE:-/var/tmp/mpshare-node-tier}
PARTS=$REPO/.device/node-tier
OUT=${OUT:-/tmp/node-tier-out}
BUDGET_S=${NODE_TIER_BUDGET_S:-500}   # scenarios stop being started after this; the device call's limit is 600 s
SEED_SHA256=8aacf6c5f5eaa8ffb6be3d9d67e0b38105479b7ab92e848374e1feb00ea724e8   # the seed's sample-job.yaml
SEED_IMAGE=registry.cn-hangzhou.aliyuncs.com/ai-samples/gpushare-sample:tensorflow-1.5
PAUSE_IMAGE=docker.io/mpshare-e2e/pause:1
SEED_UID=${SEED_IMAGE_UID:-1000}
NODE_IP=192.0.2.10                    # TEST-NET-1, on lo of the tier's own network namespace
RUN_DIR=/run/mpshare                  # the chart's run folder: <colour>/pipe is what pods mount
PLUGIN_DIR=/var/lib/kubelet/device-plugins
DRIVER_VERSION=580.159.04             # the fake tree's (FakeNvml reports it too)
STRATEGY=${NODE_TIER_STRATEGY:-device-specs}   # the device plugin's --device-list-strategy; envvar gives pods no driver here
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

say() { echo "node-tier: $*"; }
step() { echo; echo "=== $(date -u +%T) [${SECONDS}s] $*"; }
die() { echo "node-tier: $*" >&2; exit 2; }
py() { python3 "$@"; }

# --- stage ---------------------------------------------------------------------------------------------------------

unpack() { # unpack ARCHIVE DEST: a .tar.xz into DEST, or a single .xz file to DEST (python's lzma: no xz binary needed)
  py - "$1" "$2" <<'EOF'
import lzma, os, shutil, sys, tarfile
src, dest = sys.argv[1], sys.argv[2]
if src.endswith(".tar.xz"):
    os.makedirs(dest, exist_ok=True)
    with tarfile.open(src, "r:xz") as t:
        t.extractall(dest, filter="tar") if hasattr(tarfile, "tar_filter") else t.extractall(dest)
else:
    with lzma.open(src) as f, open(dest + ".tmp", "wb") as o:
        shutil.copyfileobj(f, o, 1 << 20)
    os.chmod(dest + ".tmp", 0o755)
    os.replace(dest + ".tmp", dest)
EOF
}

stage() {
  local k=$1 part=$PARTS/p$1 build
  [ -f "$part/BUILD" ] || die "no $part: run e2e/gpu/node-tier-stage.sh here first and carry .device/node-tier/p$k"
  (cd "$part" && sha256sum -c --quiet SHA256SUMS) || die "part $k does not match its SHA256SUMS: carried whole?"
  build=$(cat "$part/BUILD")
  if [ -f "$STAGE/BUILD" ] && [ "$(cat "$STAGE/BUILD")" != "$build" ]; then say "$STAGE held build $(cat "$STAGE/BUILD"): replaced"; rm -rf "$STAGE"; fi
  mkdir -p "$STAGE/bin" "$STAGE/parts" && echo "$build" > "$STAGE/BUILD"
  local t0=$SECONDS
  case $k in
    1) unpack "$part/bin.tar.xz" "$STAGE" && unpack "$part/jre.tar.xz" "$STAGE" \
         && { [ ! -f "$part/kernels.ptx" ] || cp "$part/kernels.ptx" "$STAGE/"; } ;;
    2) for b in kube-apiserver kube-controller-manager kube-scheduler; do unpack "$part/$b.xz" "$STAGE/bin/$b" || return 1; done ;;
    3) unpack "$part/kubelet.xz" "$STAGE/bin/kubelet" && unpack "$part/kubectl.xz" "$STAGE/bin/kubectl" \
         && unpack "$part/lib.tar.xz" "$STAGE" && unpack "$part/conf.tar.xz" "$STAGE" ;;
    *) die "stage takes 1, 2 or 3" ;;
  esac || die "unpacking part $k failed"
  echo "$build" > "$STAGE/parts/p$k"
  say "part $k of build $build unpacked into $STAGE in $((SECONDS - t0)) s: $(ls "$STAGE/bin" | tr '\n' ' ')"
  if [ "$k" = 1 ]; then machine_facts; build_images; fi
  return 0
}

staged() { # every part of one build is in $STAGE
  local k b
  b=$(cat "$STAGE/BUILD" 2>/dev/null) || return 1
  for k in 1 2 3; do [ "$(cat "$STAGE/parts/p$k" 2>/dev/null)" = "$b" ] || { say "part $k is not staged (build $b): its stage call is missing"; return 1; }; done
}

machine_facts() {
  step "the machine"
  uname -r; grep PRETTY_NAME /etc/os-release; echo "cpus $(nproc), $(awk '/MemTotal/ {print $2 / 1048576 " GiB"}' /proc/meminfo) now, pid 1 $(cat /proc/1/comm)"
  echo "cgroup: $(stat -fc %T /sys/fs/cgroup) controllers [$(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)] subtree [$(cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null)]"
  echo "overlay: $(grep -c overlay /proc/filesystems) in /proc/filesystems; swap: $(tail -n +2 /proc/swaps | wc -l) devices"
  echo "tools: $(for t in python3 unshare mount umount nsenter mknod ldconfig nvcc nvidia-smi nvidia-cuda-mps-control; do printf '%s=%s ' "$t" "$(command -v "$t" || echo -)"; done)"
  python3 --version
  if [ "$DRY" != 1 ]; then
    nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_mode --format=csv,noheader
    ls -la /dev/nvidia* 2>&1 | head -12
    ls /usr/local/nvidia /usr/local/nvidia/bin /usr/local/nvidia/lib64 2>&1 | tr '\n' ' ' | cut -c1-1500; echo
    ldconfig -p | grep -E 'libcuda\.so|libnvidia-ml\.so' | head -4
  fi
  LD_LIBRARY_PATH=$STAGE/bin "$STAGE/bin/runc" --version | head -1
  "$STAGE/jre/bin/java" -version 2>&1 | head -1
}

# --- images: the kernels as PTX, the pause and seed images as OCI archives ------------------------------------------

compile_ptx() { # compile_ptx OUT: the PTX staged with part 1 (nvcc where it was built), else nvcc or NVRTC here
  local out=$1 nvcc
  if [ -f "$STAGE/kernels.ptx" ]; then cp "$STAGE/kernels.ptx" "$out"; say "kernels.cu as PTX from the build ($(head -c 400 "$out" | grep -m1 'Cuda compilation tools' | sed 's#^// ##'))"; return 0; fi
  if [ "$DRY" = 1 ]; then echo "// dry run: the fake driver runs kernels.cu compiled as C and does not read this" > "$out"; return 0; fi
  nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc 2>/dev/null | head -1)
  if [ -n "$nvcc" ] && "$nvcc" --ptx -arch=compute_90 -o "$out" "$HERE/mnist/kernels.cu" 2> "$STAGE/images/nvcc.log"; then
    say "kernels.cu -> PTX with $nvcc ($(wc -c < "$out") bytes)"; return 0
  fi
  say "nvcc ${nvcc:-not found}$( [ -n "$nvcc" ] && echo ": $(tail -3 "$STAGE/images/nvcc.log" | tr '\n' ' ')"); trying NVRTC"
  py "$HERE/nvrtc.py" "$HERE/mnist/kernels.cu" "$out" compute_90
}

build_images() {
  step "images"
  mkdir -p "$STAGE/images/app"
  cp "$HERE/mnist/main.py" "$STAGE/images/app/"
  compile_ptx "$STAGE/images/app/kernels.ptx" || { say "no PTX: the seed image cannot train"; return 1; }
  local python
  if [ "$DRY" = 1 ]; then python=/usr/bin/python3; else python=$(python3 -c 'import sys; print(sys._base_executable)'); fi
  py "$HERE/images.py" pause --binary "$STAGE/bin/pause" --ref "$PAUSE_IMAGE" --out "$STAGE/images/pause.oci.tar" || return 1
  local env=() f
  [ "$DRY" = 1 ] && env=(--env MNIST_HIDDEN=64 --env MNIST_BATCH=32 --env MNIST_EXAMPLES=4096)
  # what the driver's files need from the image's distribution (a CUDA image is a whole distribution; this one is not)
  if [ "$DRY" != 1 ]; then
    for f in $(ldconfig -p | awk '/libcuda\.so\.1 |libnvidia-(ml|ptxjitcompiler|nvvm)\.so\.[0-9]+ / {print $NF}') "$(command -v nvidia-smi)"; do
      [ -e "$f" ] && env+=(--ldd-also "$f")
    done
  fi
  py "$HERE/images.py" seed --python "$python" --app "$STAGE/images/app" --ref "$SEED_IMAGE" --user "$SEED_UID:$SEED_UID" \
    "${env[@]}" --out "$STAGE/images/seed.oci.tar" --files-out "$STAGE/images/seed.files" || return 1
  # the image's Python starts in the image's root alone (chroot), as the image's user, with the image's environment
  local root=$STAGE/images/root envs; rm -rf "$root"; mkdir -p "$root"
  py - "$STAGE/images/seed.oci.tar" "$root" > "$STAGE/images/seed.env" <<'EOF'
import json, sys, tarfile
t = tarfile.open(sys.argv[1])
index = json.load(t.extractfile("index.json"))
manifest = json.load(t.extractfile("blobs/sha256/" + index["manifests"][0]["digest"][7:]))
layer = tarfile.open(fileobj=t.extractfile("blobs/sha256/" + manifest["layers"][0]["digest"][7:]))
layer.extractall(sys.argv[2], filter="tar") if hasattr(tarfile, "tar_filter") else layer.extractall(sys.argv[2])
print("\n".join(json.load(t.extractfile("blobs/sha256/" + manifest["config"]["digest"][7:]))["config"]["Env"]))
EOF
  mapfile -t envs < "$STAGE/images/seed.env"
  if env -i "${envs[@]}" "$(command -v chroot)" --userspec="$SEED_UID:$SEED_UID" "$root" /usr/bin/python -c \
       'import ctypes, argparse, array, os, sys; print("image: python", sys.version.split()[0], "starts in the image root alone as uid", os.getuid())'; then :
  else say "image: python does not start in the image's root"; fi
  # the driver's library, mounted where the device plugin's device-specs answer mounts it, loads in the image's root
  if [ "$DRY" != 1 ] && [ -d /usr/local/nvidia/lib64 ]; then
    mkdir -p "$root/usr/local/nvidia"
    if mount --bind /usr/local/nvidia "$root/usr/local/nvidia" && mount -o remount,bind,ro "$root/usr/local/nvidia"; then
      env -i "${envs[@]}" "$(command -v chroot)" --userspec="$SEED_UID:$SEED_UID" "$root" /usr/bin/python -c \
        'import ctypes; ctypes.CDLL("libcuda.so.1"); ctypes.CDLL("libnvidia-ml.so.1"); print("image: the driver'"'"'s libcuda.so.1 and libnvidia-ml.so.1 load in the image root")' \
        || say "image: the driver's libraries do not load in the image's root (see above): the seed image lacks what they need"
      umount "$root/usr/local/nvidia"
    fi
  fi
  rm -rf "$root"
}

# --- the cluster ---------------------------------------------------------------------------------------------------

declare -A PID
RESULTS=()
result() { RESULTS+=("$1|$2|$3"); echo "RESULT $1 | $2 | $3"; }
k() { "$STAGE/bin/kubectl" --kubeconfig "$W/admin.kc" "$@"; }
time_left() { [ $SECONDS -lt "$BUDGET_S" ]; }

start() { # start NAME [ENV=V ...] -- CMD...: a background process, its output appended to logs/NAME.log
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  echo "--- $(date -u +%T) started: $*" >> "$W/logs/$name.log"
  env "${envs[@]}" "$@" >> "$W/logs/$name.log" 2>&1 &
  PID[$name]=$!
}

stop() { # stop NAME [GRACE_S]: SIGTERM, then SIGKILL after GRACE_S
  local name=$1 grace=${2:-10} p=${PID[$1]:-} i
  [ -n "$p" ] || return 0
  kill -TERM "$p" 2>/dev/null
  for ((i = 0; i < grace * 10; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null
  wait "$p" 2>/dev/null
  unset "PID[$name]"
}

until_ok() { # until_ok SECONDS WHAT CMD...: run CMD every 0.5 s until it succeeds
  local limit=$1 what=$2 end; shift 2; end=$((SECONDS + limit))
  while ! "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge "$end" ] && { say "no $what within $limit s"; return 1; }
    sleep 0.5
  done
}

http_ok() { # http_ok URL: 200 (TLS not verified: loopback health checks)
  py - "$1" <<'EOF'
import ssl, sys, urllib.request
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=2, context=ctx).status == 200 else 1)
EOF
}

alive() { kill -0 "${PID[$1]:-0}" 2>/dev/null; }

kubeconfig() { # kubeconfig FILE USER-YAML
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: tier, cluster: {server: "https://127.0.0.1:6443", certificate-authority: "$PKI/ca.crt"}}]
users: [{name: u, user: $2}]
contexts: [{name: tier, context: {cluster: tier, user: u}}]
current-context: tier
EOF
}

account_kubeconfig() { # account_kubeconfig FILE SERVICEACCOUNT: a token of the chart's ServiceAccount
  local token
  token=$(k -n mpshare-system create token "$2" --duration=2h) || return 1
  kubeconfig "$1" "{token: \"$token\"}"
}

mpshare() { # mpshare NAME ENV... -- ARGS...: the product's command line on the jlink runtime
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  start "$name" "${envs[@]}" "PATH=$SYS_PATH" -- "$STAGE/jre/bin/java" -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
    --enable-native-access=ALL-UNNAMED -cp "$STAGE/lib/*" io.mpshare.cli.Main "$@"
}

chart_args() { # chart_args COMPONENT: the chart's arguments, one a line, with the node's name filled in
  sed "s/\$(NODE_NAME)/$NODE/" "$CONF/chart/args/$1"
}

netns_setup() { # lo up, and the node's address on it (no interface of the machine is touched: a namespace of our own)
  py - "$NODE_IP" <<'EOF'
import fcntl, socket, struct, sys
SIOCGIFFLAGS, SIOCSIFFLAGS, SIOCSIFADDR, SIOCSIFNETMASK = 0x8913, 0x8914, 0x8916, 0x891c
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def up(name):
    flags = struct.unpack("16sH14s", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH14s", name.encode(), 0, b"")))[1]
    fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14s", name.encode(), flags | 1, b""))
def addr(name, ip, mask):
    for req, a in ((SIOCSIFADDR, ip), (SIOCSIFNETMASK, mask)):
        fcntl.ioctl(s, req, struct.pack("16sH2s4s8s", name.encode(), socket.AF_INET, b"\0\0", socket.inet_aton(a), b""))
up("lo"); addr("lo:1", sys.argv[1], "255.255.255.255"); up("lo:1")
EOF
}

fake_driver() { # the dry run's driver tree: laid out as the GPU machine's (/usr/local/nvidia/{bin,lib64}), its own ld cache
  FAKE=$W/fake-driver
  local lib=$FAKE/usr/local/nvidia/lib64 bin=$FAKE/usr/local/nvidia/bin n
  mkdir -p "$lib" "$bin" "$FAKE/dev" "$FAKE/etc"
  gcc -shared -fPIC -O2 -Wl,-soname,libcuda.so.1 -o "$lib/libcuda.so.$DRIVER_VERSION" "$HERE/fakedriver/libcuda.c" -lm || return 1
  ln -s "libcuda.so.$DRIVER_VERSION" "$lib/libcuda.so.1"
  gcc -static -O2 -o "$bin/nvidia-smi" "$HERE/fakedriver/nvidia-smi.c" || return 1
  for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do mknod -m 666 "$FAKE/dev/$n" c 1 3; done
  echo /usr/local/nvidia/lib64 > "$FAKE/etc/ld.so.conf"
  ldconfig -r "$FAKE" 2>/dev/null
  say "fake driver tree $FAKE: $(cd "$FAKE" && find . -type f -o -type l -o -type c | sort | tr '\n' ' ')"
}

containerd_config() {
  local snapshotter=overlayfs
  mkdir -p "$W/ovl/l" "$W/ovl/u" "$W/ovl/w" "$W/ovl/m"
  if mount -t overlay overlay -o "lowerdir=$W/ovl/l,upperdir=$W/ovl/u,workdir=$W/ovl/w" "$W/ovl/m" 2>/dev/null; then umount "$W/ovl/m"
  else snapshotter=native; say "overlay cannot be mounted under $W: containerd uses the native snapshotter"; fi
  rm -rf "$W/ovl"
  mkdir -p "$W/cni/conf" "$W/cni/bin"
  cp "$STAGE/bin/loopback" "$HERE/cni/mpshare-noaddr" "$W/cni/bin/"
  echo '{"cniVersion":"0.4.0","name":"mpshare-node-tier","plugins":[{"type":"loopback"},{"type":"mpshare-noaddr"}]}' > "$W/cni/conf/10-tier.conflist"
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$STAGE/bin" "$STAGE/bin/runc" > "$W/runc"; chmod 755 "$W/runc"
  local cri='[plugins."io.containerd.grpc.v1.cri"'
  cat > "$W/containerd/config.toml" <<EOF
version = 2
root = "$W/containerd/root"
state = "$W/containerd/state"
[grpc]
  address = "$W/containerd/containerd.sock"
$cri]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
$cri.containerd]
  snapshotter = "$snapshotter"
  default_runtime_name = "runc"
$cri.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
$cri.containerd.runtimes.runc.options]
  SystemdCgroup = false
  BinaryName = "$W/runc"
  Root = "$W/containerd/runc"
$cri.cni]
  bin_dir = "$W/cni/bin"
  conf_dir = "$W/cni/conf"
EOF
}

kubelet_config() {
  echo "nameserver 127.0.0.1" > "$W/resolv.conf"
  cat > "$W/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$W/containerd/containerd.sock
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: "$PKI/ca.crt"}}
authorization: {mode: AlwaysAllow}
failSwapOn: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi"}
podLogsDir: $W/kubelet/pod-logs
resolvConf: $W/resolv.conf
staticPodPath: $W/kubelet/manifests
EOF
  kubeconfig "$W/kubelet/kubeconfig" "{client-certificate: \"$PKI/kubelet.crt\", client-key: \"$PKI/kubelet.key\"}"
}

start_kubelet() {
  start kubelet "PATH=$SYS_PATH" -- "$STAGE/bin/kubelet" --config "$W/kubelet/config.yaml" --root-dir "$W/kubelet/root" \
    --cert-dir "$W/kubelet/pki" --kubeconfig "$W/kubelet/kubeconfig" --hostname-override "$NODE" --node-ip "$NODE_IP" \
    --node-labels ack.node.gpu.schedule=mps --v=2
}

start_device_plugin() {
  local args extra=(--pod-resources-socket="$W/kubelet/root/pod-resources/kubelet.sock")
  mapfile -t args < <(chart_args device-plugin)
  [ "$DRY" = 1 ] && extra+=(--fake-gpus=1x143771)
  if [ "$STRATEGY" != envvar ]; then
    extra+=(--device-list-strategy="$STRATEGY")
    [ "$DRY" = 1 ] && extra+=(--driver-root="$FAKE" --dev-root="$FAKE")
  fi
  mpshare device-plugin "KUBECONFIG=$W/device-plugin.kc" "NODE_NAME=$NODE" -- "${args[@]}" "${extra[@]}"
}

registrations() { grep -c 'Got registration request from device plugin with resource" resourceName="aliyun.com/gpu-mem"' "$W/logs/kubelet.log"; }
all_healthy() { grep 'Processed device updates for resource" resourceName="aliyun.com/gpu-mem"' "$W/logs/kubelet.log" | tail -1 | grep -q 'healthyCount=140'; }
registered_since() { [ "$(registrations)" -gt "$1" ] && all_healthy; }
node_gpu_mem() { k get node "$NODE" -o jsonpath='{.status.allocatable.aliyun\.com/gpu-mem}' 2>/dev/null; }
registered() { [ "$(node_gpu_mem)" = 140 ]; }

up() {
  SYS_PATH=$STAGE/bin:/usr/local/nvidia/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  PKI=$CONF/pki
  mkdir -p "$W/logs" "$W/etcd" "$W/containerd" "$W/kubelet/manifests" "$W/kubelet/pod-logs"
  kubeconfig "$W/admin.kc" "{client-certificate: \"$PKI/admin.crt\", client-key: \"$PKI/admin.key\"}"

  step "control plane"
  mount -t tmpfs -o size=2g node-tier-etcd "$W/etcd"
  start etcd -- "$STAGE/bin/etcd" --data-dir "$W/etcd/data" --name tier --listen-client-urls http://127.0.0.1:2379 \
    --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster tier=http://127.0.0.1:2380 --log-level warn --quota-backend-bytes 2147483648
  start kube-apiserver -- "$STAGE/bin/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 --secure-port=6443 --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --client-ca-file="$PKI/ca.crt" --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC \
    --allow-privileged=true --profiling=false --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$PKI/apiserver-kubelet-client.key" --kubelet-preferred-address-types=InternalIP --v=1
  until_ok 90 "kube-apiserver /readyz" k get --raw /readyz || return 1
  start kube-controller-manager -- "$STAGE/bin/kube-controller-manager" --kubeconfig="$W/admin.kc" --authentication-kubeconfig="$W/admin.kc" \
    --authorization-kubeconfig="$W/admin.kc" --bind-address=127.0.0.1 --secure-port=10257 \
    --controllers='*,-nodelifecycle,-nodeipam,-route,-cloud-node-lifecycle,-service' --leader-elect=false \
    --use-service-account-credentials=true --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" --v=1
  k apply -f "$CONF/chart/rbac.yaml" > "$W/logs/apply-rbac.log" || return 1
  until_ok 60 "ServiceAccount default/default" k -n default get serviceaccount default || return 1
  account_kubeconfig "$W/scheduler.kc" mpshare-scheduler && account_kubeconfig "$W/webhook.kc" mpshare-webhook \
    && account_kubeconfig "$W/device-plugin.kc" mpshare-device-plugin || return 1
  say "control plane ready; the chart's ServiceAccounts and RBAC applied"

  step "scheduler, extender, webhook (the chart's arguments, as the chart's ServiceAccounts)"
  local args
  mapfile -t args < <(chart_args extender)
  mpshare extender "KUBECONFIG=$W/scheduler.kc" -- "${args[@]}"
  sed "s#@KUBECONFIG@#$W/scheduler.kc#" "$CONF/chart/scheduler-config.yaml" > "$W/scheduler-config.yaml"
  mapfile -t args < <(chart_args kube-scheduler | sed "s#^--config=.*#--config=$W/scheduler-config.yaml#")
  start kube-scheduler -- "$STAGE/bin/kube-scheduler" "${args[@]}" --authentication-kubeconfig="$W/scheduler.kc" \
    --authorization-kubeconfig="$W/scheduler.kc" --bind-address=127.0.0.1 --secure-port=10259 --cert-dir="$W/scheduler-certs"
  mapfile -t args < <(chart_args webhook | grep -vE '^--(tls-secret|mutating-webhook-configuration|validating-webhook-configuration)=')
  mpshare webhook "KUBECONFIG=$W/webhook.kc" -- "${args[@]}" --tls-cert-file="$PKI/webhook.crt" --tls-key-file="$PKI/webhook.key" --tls-ca-file="$PKI/ca.crt"
  until_ok 90 "extender /readyz" http_ok http://127.0.0.1:39999/mpshare-scheduler/readyz || return 1
  until_ok 60 "kube-scheduler /healthz" http_ok https://127.0.0.1:10259/healthz || return 1
  until_ok 60 "webhook /healthz" http_ok https://127.0.0.1:9443/healthz || return 1
  k apply -f "$CONF/chart/webhooks.yaml" > "$W/logs/apply-webhooks.log" || return 1
  say "extender, kube-scheduler (profile mpshare-scheduler) and webhook ready; webhook configurations at https://127.0.0.1:9443"

  step "node: containerd, images, kubelet"
  if [ "$DRY" = 1 ]; then fake_driver || return 1; fi
  containerd_config
  start containerd "PATH=$SYS_PATH" -- "$STAGE/bin/containerd" --config "$W/containerd/config.toml"
  until_ok 30 "containerd" "$STAGE/bin/ctr" --address "$W/containerd/containerd.sock" version || return 1
  local img
  for img in pause seed; do
    [ -f "$STAGE/images/$img.oci.tar" ] || build_images || return 1
    "$STAGE/bin/ctr" --address "$W/containerd/containerd.sock" -n k8s.io images import "$STAGE/images/$img.oci.tar" | sed 's/^/  ctr: /' || return 1
  done
  "$STAGE/bin/ctr" --address "$W/containerd/containerd.sock" -n k8s.io images ls -q | sed 's/^/  image: /'
  rm -f "$PLUGIN_DIR/kubelet.sock" "$PLUGIN_DIR/kubelet_internal_checkpoint"
  kubelet_config
  start_kubelet
  until_ok 60 "Node $NODE" k get node "$NODE" || return 1
  k wait --for=condition=Ready "node/$NODE" --timeout=60s >/dev/null || { say "node not Ready"; tail -20 "$W/logs/kubelet.log"; return 1; }
  k taint node "$NODE" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1   # the node lifecycle controller is off, as in e2e/k8s
  say "node $NODE Ready: $(k get node "$NODE" -o jsonpath='{.status.addresses}')"

  step "mps-control and the device plugin (device-specs)"
  if [ -e "$RUN_DIR" ] && [ -n "$(ls -A "$RUN_DIR" 2>/dev/null)" ]; then say "$RUN_DIR is not empty: not ours"; return 1; fi
  mkdir -p "$RUN_DIR" && mount -t tmpfs -o size=64m,mode=0755 node-tier-run "$RUN_DIR" && RUN_MOUNTED=1
  mapfile -t args < <(chart_args mps-control)
  if [ "$DRY" = 1 ]; then   # the project's fake control binary (a script the repository keeps without its x bit)
    printf '#!/bin/sh\nexec sh %s "$@"\n' "$REPO/mps/src/test/resources/fake-nvidia-cuda-mps-control.sh" > "$W/nvidia-cuda-mps-control"
    chmod 755 "$W/nvidia-cuda-mps-control"; args+=(--mps-control-binary="$W/nvidia-cuda-mps-control")
  fi
  mpshare mps-control "NODE_NAME=$NODE" -- "${args[@]}"
  until_ok 60 "$RUN_DIR/blue/ready" test -f "$RUN_DIR/blue/ready" || { tail -20 "$W/logs/mps-control.log"; return 1; }
  start_device_plugin
  until_ok 90 "aliyun.com/gpu-mem 140 in the node's allocatable" registered || { tail -30 "$W/logs/device-plugin.log"; return 1; }
  say "device plugin registered: allocatable $(k get node "$NODE" -o jsonpath='{.status.allocatable}')"
}

scenario_fault() {
  step "5. a kernel faults in tenant-a's domain: its pods end and are told, the seed Job (node daemon) runs on, a new tenant-a pod computes"
  if [ "$DRY" = 1 ]; then result "5. a fault stays in its domain" SKIP "dry run: the fake driver has no MPS server to fault"; return; fi
  is_running tenant-a strict-trainer && is_running default "$SEED_POD" || { result "5. a fault stays in its domain" FAIL "strict-trainer or the seed Job not running before the fault"; return; }
  local j1 j2 j3 t_fault t_first phase_s phase_f ev_s ev_seed ev_f pipe_s pipe_f r
  trainer_pod tenant-a faulter 1 1000 --max_steps=100000000 --data_dir=tensorflow-sample-code/data --hidden=256 --fault_at_step=300 2>&1 | sed 's/^/  kubectl: /'
  until_ok 90 "faulter's fault" first_match tenant-a faulter '^fault:' || { log_of tenant-a faulter | tail -5; result "5. a fault stays in its domain" FAIL "faulter did not reach its fault"; return; }
  t_fault=$(first_match tenant-a faulter '^fault:' | grep -o 'at [0-9.]*$' | cut -c4-)
  j1=$(last_step default "$SEED_POD")
  # the faulting tenant's next pod, created once the fault is on its way
  trainer_pod tenant-a after-fault 1 1000 --max_steps=300 --data_dir=tensorflow-sample-code/data --hidden=256 2>&1 | sed 's/^/  kubectl: /'
  until_ok 60 "strict-trainer ended" sh -c "[ \"\$($STAGE/bin/kubectl --kubeconfig $W/admin.kc -n tenant-a get pod strict-trainer -o jsonpath='{.status.phase}')\" != Running ]"
  until_ok 90 "after-fault Succeeded" sh -c "[ \"\$($STAGE/bin/kubectl --kubeconfig $W/admin.kc -n tenant-a get pod after-fault -o jsonpath='{.status.phase}')\" = Succeeded ]"
  sleep 4
  j2=$(last_step default "$SEED_POD"); sleep 4; j3=$(last_step default "$SEED_POD")
  log_of tenant-a faulter | tail -4 | sed 's/^/  faulter: /'
  log_of tenant-a strict-trainer | tail -2 | sed 's/^/  strict: /'
  log_of tenant-a after-fault | grep -E '^(environment|step 0|done|error)' | sed 's/^/  after-fault: /'
  k get events -A --field-selector reason=MpsDomainFault -o custom-columns=NS:.metadata.namespace,POD:.involvedObject.name,TYPE:.type,MESSAGE:.message --no-headers | sed 's/^/  event: /'
  phase_s=$(k -n tenant-a get pod strict-trainer -o jsonpath='{.status.phase} exit {.status.containerStatuses[0].state.terminated.exitCode}')
  phase_f=$(k -n tenant-a get pod faulter -o jsonpath='{.status.phase} exit {.status.containerStatuses[0].state.terminated.exitCode}')
  pipe_s=$(first_match tenant-a strict-trainer '^environment:' | sed -n 's/.*CUDA_MPS_PIPE_DIRECTORY=\([^ ]*\).*/\1/p')
  pipe_f=$(first_match tenant-a faulter '^environment:' | sed -n 's/.*CUDA_MPS_PIPE_DIRECTORY=\([^ ]*\).*/\1/p')
  r=FAIL; [ "$pipe_s" = "$pipe_f" ] && [[ $phase_s != Running* ]] && is_running default "$SEED_POD" && [ "${j3:-0}" -gt "${j2:-0}" ] && r=PASS
  result "5a. the fault ends its own domain's clients only" "$r" "faulter and strict-trainer share $pipe_s: faulter $phase_f, strict-trainer $phase_s; the seed Job (node daemon) Running, steps $j1 -> $j2 -> $j3 after the fault"
  ev_s=$(k -n tenant-a get events --field-selector involvedObject.name=strict-trainer,reason=MpsDomainFault -o jsonpath='{.items[0].message}')
  ev_seed=$(k -n default get events --field-selector "involvedObject.name=$SEED_POD,reason=MpsDomainFault" -o name | wc -l)
  r=FAIL; [ -n "$ev_s" ] && [ "$ev_seed" = 0 ] && r=PASS
  result "5b. the affected pod is told" "$r" "strict-trainer's Warning MpsDomainFault: ${ev_s:0:160}; the seed Job's pod: $ev_seed such events"
  t_first=$(first_match tenant-a after-fault '^step 0 ' | grep -o 'at [0-9.]*$' | cut -c4-)
  r=FAIL; [ "$(k -n tenant-a get pod after-fault -o jsonpath='{.status.phase}')" = Succeeded ] && [ -n "$t_first" ] && r=PASS
  result "5c. the faulting tenant's next pod computes" "$r" "after-fault (created when the fault was logged): first step $(py -c "print(round($t_first - $t_fault, 2))" 2>/dev/null || echo '?') s after the fault (pod create, bind, container start and CUDA init included); $(log_of tenant-a after-fault | grep -E '^(done|error)' | head -1)"
}

# --- the pods and what they print ----------------------------------------------------------------------------------

pod_of_job() { k -n default get pods -l job-name=mps-sample -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
log_of() { k -n "$1" logs "$2" 2>/dev/null || cat "$W"/kubelet/pod-logs/"$1"_"$2"_*/*/0.log 2>/dev/null | sed -E 's/^[^ ]+ (stdout|stderr) [FP] //'; }
last_step() { log_of "$1" "$2" | sed -n 's/^step \([0-9]*\) .*/\1/p' | tail -1; }
is_running() { [ "$(k -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }
container_id() { k -n "$1" get pod "$2" -o jsonpath='{.status.containerStatuses[0].containerID}/{.status.containerStatuses[0].restartCount}'; }
first_match() { log_of "$1" "$2" | grep -m1 "$3"; }
stepped_past() { local s; s=$(last_step "$1" "$2"); [ -n "$s" ] && [ "$s" -gt "$3" ]; }

trainer_pod() { # trainer_pod NS NAME GIB UID ARGS...: a pod of the seed image running main.py with ARGS
  local ns=$1 name=$2 gib=$3 uid=$4; shift 4
  local a list=""
  for a in "$@"; do list+="\"$a\", "; done
  k apply -f - <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $name, namespace: $ns}
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/hostname: $NODE}
  securityContext: {runAsUser: $uid, runAsGroup: $uid, runAsNonRoot: true}
  containers:
    - name: trainer
      image: $SEED_IMAGE
      imagePullPolicy: IfNotPresent
      command: [python, tensorflow-sample-code/tfjob/docker/mnist/main.py, ${list%, }]
      workingDir: /root
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
      resources: {limits: {aliyun.com/gpu-mem: $gib}}
EOF
}

alloc_annotation() { k -n "$1" get pod "$2" -o jsonpath='{.metadata.annotations.mpshare\.io/allocation}'; }
free_seen() { first_match "$1" "$2" '^memory: free' | sed -n 's/^memory: free \([0-9.]*\) GiB.*/\1/p'; }
cap_env() { first_match "$1" "$2" '^environment:' | sed -n 's/.*CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=\([^ ]*\).*/\1/p'; }
cap_gib() { py -c "import sys; v=sys.argv[1].split(',')[0].split('=')[-1]; print(round(float(v[:-1]) / (1024 if v[-1] in 'Mm' else 1), 2) if v else '')" "$(cap_env "$1" "$2")"; }

# --- scenarios -----------------------------------------------------------------------------------------------------

scenario_seed() {
  step "1. the seed's sample Job in a trusted namespace"
  local sha job=$REPO/examples/mps-sample-job.yaml pod t0 a sched smi mc server free cap ctx loss0 loss1 inspect
  sha=$(sha256sum "$job" | cut -d' ' -f1)
  [ "$sha" = "$SEED_SHA256" ] || { result "1. seed Job" FAIL "examples/mps-sample-job.yaml is not the seed's (sha256 $sha)"; return; }
  # a trusted namespace whose pods the node's one daemon serves: ACK's and the seed's shape (the admin's label)
  k label namespace default mpshare.io/tenancy=trusted mpshare.io/fault-domain=node --overwrite >/dev/null
  sed "s/<NODE_NAME>/$NODE/" "$job" > "$W/seed-job.yaml"
  diff "$job" "$W/seed-job.yaml" | sed 's/^/  filled in: /'
  t0=$SECONDS
  k create -f "$W/seed-job.yaml" 2>&1 | sed 's/^/  kubectl: /'
  until_ok 60 "a pod of Job mps-sample" pod_of_job || { result "1. seed Job" FAIL "no pod"; return; }
  pod=$(pod_of_job); SEED_POD=$pod
  until_ok 90 "pod $pod Running" is_running default "$pod" || { k -n default describe pod "$pod" | tail -25; result "1. seed Job" FAIL "pod $pod not Running"; return; }
  sched=$(k -n default get pod "$pod" -o jsonpath='{.spec.schedulerName} {.spec.nodeName}')
  a=$(alloc_annotation default "$pod")
  say "pod $pod Running $((SECONDS - t0)) s after create; schedulerName/node: $sched; allocation: $a"
  k -n default get events --field-selector "involvedObject.name=$pod" -o custom-columns=REASON:.reason,FROM:.source.component,MESSAGE:.message --no-headers | sed 's/^/  event: /'
  until_ok 60 "the job's first logged step" stepped_past default "$pod" 0
  log_of default "$pod" | head -12 | sed 's/^/  job: /'
  local bound=FAIL; [[ $sched == "mpshare-scheduler $NODE" && $a == *"node=$NODE"* ]] && bound=PASS
  result "1a. bound through the extender" "$bound" "schedulerName $(echo "$sched" | cut -d' ' -f1) (set by the webhook), allocation annotation of the extender's bind: ${a:0:140}"

  local pipe; pipe=$(first_match default "$pod" '^environment:' | sed -n 's/.*CUDA_MPS_PIPE_DIRECTORY=\([^ ]*\).*/\1/p')
  r=FAIL; [ "$pipe" = "$RUN_DIR/blue/pipe" ] && r=PASS
  result "1f. the seed's shape: the node daemon" "$r" "namespace default labelled mpshare.io/fault-domain=node; the job's CUDA_MPS_PIPE_DIRECTORY=$pipe (the node daemon's: $RUN_DIR/blue/pipe)"

  local via="kubectl exec (API server -> kubelet $NODE_IP:10250 -> containerd)"
  if ! smi=$(k -n default exec "$pod" -c mps-sample -- nvidia-smi 2>&1); then
    say "kubectl exec failed: $smi"
    smi=$("$STAGE/bin/ctr" --address "$W/containerd/containerd.sock" -n k8s.io task exec --exec-id smi "$(container_id default "$pod" | sed 's#containerd://##; s#/.*##')" nvidia-smi 2>&1)
    via="ctr task exec (kubectl exec failed)"
  fi
  echo "$smi" | sed 's/^/  nvidia-smi| /'
  if [ "$DRY" = 1 ]; then
    result "1b. nvidia-smi in the pod" SKIP "dry run: $via ran the fake tree's nvidia-smi: $(echo "$smi" | head -1 | cut -c1-80)"
  else
    server=$(echo "$smi" | grep -E '^\|.* C +nvidia-cuda-mps-server' | head -1)
    mc=$(echo "$smi" | grep -E '^\|.* M\+C +' | grep -i python | head -1)
    [ -n "$server" ] && [ -n "$mc" ] && r=PASS || r=FAIL
    result "1b. nvidia-smi in the pod" "$r" "via $via; server: $(echo "$server" | tr -s ' ' | cut -c1-70); job: $(echo "$mc" | tr -s ' ' | cut -c1-70)"
  fi

  free=$(free_seen default "$pod"); cap=$(cap_gib default "$pod")
  if [ "$DRY" = 1 ]; then result "1c. the job's memory" SKIP "dry run (fake driver): cap ${cap} GiB from Allocate's env, fake free ${free} GiB"
  else
    ctx=$(py -c "print(round($cap - $free, 2))" 2>/dev/null)
    r=$(py -c "print('PASS' if 7.0 <= $free < $cap else 'FAIL')" 2>/dev/null || echo FAIL)
    result "1c. the job's memory" "$r" "asked 7 GiB, cap ${cap} GiB (7 + the booked reserve), sees ${free} GiB free: the context takes ${ctx} GiB"
  fi
  sleep 6
  loss0=$(first_match default "$pod" '^step 0 ' | awk '{print $4}'); loss1=$(log_of default "$pod" | grep '^step ' | tail -1)
  local check; check=$(first_match default "$pod" '^check:')
  r=FAIL; [[ $check == *"(ok)"* ]] && [ -n "$loss1" ] && py -c "import sys; sys.exit(0 if float('$(echo "$loss1" | awk '{print $4}')') < float('$loss0') else 1)" && r=PASS
  [ "$DRY" = 1 ] && [ "$r" = PASS ] && r="PASS (fake driver)"
  result "1d. the job trains" "$r" "${check#check: }; step 0 loss $loss0 -> $(echo "$loss1" | cut -d' ' -f1-8)"
  sleep 8   # the policer publishes usage every 10 s
  inspect=$("$STAGE/jre/bin/java" -Xshare:auto -XX:TieredStopAtLevel=1 -cp "$STAGE/lib/*" io.mpshare.cli.Main inspect --kubeconfig "$W/admin.kc" -d 2>&1)
  echo "$inspect" | sed 's/^/  inspect| /'
  local used; used=$(echo "$inspect" | grep "default/$pod" | awk '{print $3}')
  if [ "$DRY" = 1 ]; then result "1e. mpshare inspect" SKIP "dry run: allocated $(echo "$inspect" | grep "default/$pod" | awk '{print $2}') GiB, used '$used' (fake GPUs report no process)"
  else
    [[ -n $used && $used != "-" ]] && echo "$inspect" | grep "default/$pod" | grep -q assigned && r=PASS || r=FAIL
    result "1e. mpshare inspect" "$r" "$(echo "$inspect" | grep "default/$pod" | tr -s ' ')"
  fi
}

scenario_strict() {
  step "2. a strict-namespace pod as UID 1000 beside it"
  k create namespace tenant-a >/dev/null
  k label namespace tenant-a mpshare.io/tenancy=strict >/dev/null
  k annotate namespace tenant-a mpshare.io/client-uid=1000 >/dev/null
  until_ok 30 "ServiceAccount tenant-a/default" k -n tenant-a get serviceaccount default
  trainer_pod tenant-a strict-trainer 3 1000 --max_steps=100000000 --data_dir=tensorflow-sample-code/data --hidden=2048 --cap_probe 2>&1 | sed 's/^/  kubectl: /'
  until_ok 90 "strict-trainer Running" is_running tenant-a strict-trainer || { k -n tenant-a describe pod strict-trainer | tail -20; result "2. strict pod" FAIL "not Running"; return; }
  until_ok 60 "strict-trainer's first step" stepped_past tenant-a strict-trainer 0
  log_of tenant-a strict-trainer | head -9 | sed 's/^/  strict: /'
  local s1 j1 s2 j2 probe free cap gpu_a gpu_b
  s1=$(last_step tenant-a strict-trainer); j1=$(last_step default "$SEED_POD"); sleep 8
  s2=$(last_step tenant-a strict-trainer); j2=$(last_step default "$SEED_POD")
  gpu_a=$(alloc_annotation default "$SEED_POD" | grep -o 'uuids=[^;]*'); gpu_b=$(alloc_annotation tenant-a strict-trainer | grep -o 'uuids=[^;]*')
  local r=FAIL; [ "${s2:-0}" -gt "${s1:-0}" ] && [ "${j2:-0}" -gt "${j1:-0}" ] && [ "$gpu_a" = "$gpu_b" ] && r=PASS
  [ "$DRY" = 1 ] && [ "$r" = PASS ] && r="PASS (fake driver)"
  result "2a. both train on one GPU" "$r" "same GPU: $([ "$gpu_a" = "$gpu_b" ] && echo yes || echo no) (${gpu_a:0:24}...); in 8 s the seed job went $j1 -> $j2 steps, strict-trainer (uid $(first_match tenant-a strict-trainer '^environment' | grep -o 'uid=[0-9]*')) $s1 -> $s2"
  probe=$(first_match tenant-a strict-trainer '^cap probe'); free=$(free_seen tenant-a strict-trainer); cap=$(cap_gib tenant-a strict-trainer)
  if [ "$DRY" = 1 ]; then result "2b. caps as booked" SKIP "dry run: strict-trainer cap $cap GiB, seed cap $(cap_gib default "$SEED_POD") GiB (Allocate's env); ${probe}"
  else
    r=FAIL; [[ $probe == *"(refused)"* ]] && py -c "import sys; sys.exit(0 if 3.0 <= $free < $cap else 1)" && r=PASS
    result "2b. caps as booked" "$r" "strict-trainer asked 3 GiB: cap $cap GiB, sees $free GiB; ${probe#cap probe: }; the seed job: cap $(cap_gib default "$SEED_POD") GiB, sees $(free_seen default "$SEED_POD") GiB"
  fi
}

scenario_over() {
  step "3. a pod that holds more than its share"
  trainer_pod tenant-a over-asker 2 1000 --max_steps=100000000 --data_dir=tensorflow-sample-code/data --hidden=1024 --mps_limit=0=100G --grab_gib=5 2>&1 | sed 's/^/  kubectl: /'
  until_ok 90 "over-asker Running" is_running tenant-a over-asker || { k -n tenant-a describe pod over-asker | tail -20; result "3. over-asker" FAIL "not Running"; return; }
  local end=$((SECONDS + 45)) phase err grab s1 j1 s2 j2
  until_ok 40 "over-asker's grab" first_match tenant-a over-asker '^grab:'
  s1=$(last_step tenant-a strict-trainer); j1=$(last_step default "$SEED_POD")
  while [ $SECONDS -lt $end ]; do
    phase=$(k -n tenant-a get pod over-asker -o jsonpath='{.status.phase}' 2>/dev/null || echo gone)
    err=$(first_match tenant-a over-asker '^error:')
    { [ -n "$err" ] || [ "$phase" = Failed ] || [ "$phase" = gone ] || [ "$phase" = Succeeded ]; } && break
    sleep 0.5
  done
  log_of tenant-a over-asker | sed 's/^/  over: /' | head -14
  grep -iE 'over|terminat|rogue|polic' "$W/logs/device-plugin.log" | tail -5 | sed 's/^/  device-plugin: /'
  sleep 4
  s2=$(last_step tenant-a strict-trainer); j2=$(last_step default "$SEED_POD")
  grab=$(first_match tenant-a over-asker '^grab:' | grep -o 'at [0-9.]*' | cut -c4-)
  local t_err; t_err=$(echo "$err" | grep -o 'at [0-9.]*$' | cut -c4-)
  if [ "$DRY" = 1 ]; then result "3. the over-asker is stopped" SKIP "dry run: fake GPUs report no process to police (phase $phase)"
  else
    local r=FAIL; [ -n "$err" ] && [ "${s2:-0}" -gt "${s1:-0}" ] && [ "${j2:-0}" -gt "${j1:-0}" ] && is_running default "$SEED_POD" && is_running tenant-a strict-trainer && r=PASS
    local how
    if [ -n "$grab" ]; then how="held 5 GiB more; the policer stopped it $(py -c "print(round($t_err - $grab, 2))" 2>/dev/null || echo '?') s after the grab"
    else how="its 5 GiB grab was refused before it held anything (the domain's server ceiling: the client's own env cap does not lift it)"; fi
    result "3. the over-asker is stopped" "$r" "asked 2 GiB, raised its env cap to 0=100G; $how: ${err:0:110}; pod $phase; neighbours stepped on: seed $j1 -> $j2, strict $s1 -> $s2"
  fi
}

scenario_restarts() {
  step "4. kubelet restart and device plugin restart with both pods running"
  local before_a before_b after_a after_b j1 s1 j2 s2 t0 r
  before_a=$(container_id default "$SEED_POD"); before_b=$(container_id tenant-a strict-trainer)
  j1=$(last_step default "$SEED_POD"); s1=$(last_step tenant-a strict-trainer)
  local n kubelet_s plugin_s
  n=$(registrations); t0=$SECONDS; stop kubelet 20; sleep 2; start_kubelet
  until_ok 60 "the plugin registered with the new kubelet, every device healthy" registered_since "$n"
  kubelet_s=$((SECONDS - t0)); say "kubelet stopped, started, and the plugin registered again with all devices healthy in $kubelet_s s"
  sleep 4
  n=$(registrations); t0=$SECONDS; stop device-plugin 20; start_device_plugin
  until_ok 60 "the new device plugin registered, every device healthy" registered_since "$n"
  plugin_s=$((SECONDS - t0)); say "device plugin stopped, started and registered again with all devices healthy in $plugin_s s"
  sleep 6
  after_a=$(container_id default "$SEED_POD"); after_b=$(container_id tenant-a strict-trainer)
  j2=$(last_step default "$SEED_POD"); s2=$(last_step tenant-a strict-trainer)
  r=FAIL; [ "$before_a" = "$after_a" ] && [ "$before_b" = "$after_b" ] && is_running default "$SEED_POD" && is_running tenant-a strict-trainer \
    && [ "${j2:-0}" -gt "${j1:-0}" ] && [ "${s2:-0}" -gt "${s1:-0}" ] && [ -z "$(first_match default "$SEED_POD" '^error:')" ] && r=PASS
  [ "$DRY" = 1 ] && [ "$r" = PASS ] && r="PASS (fake driver)"
  result "4. restarts: nothing dies" "$r" "kubelet back in ${kubelet_s} s, plugin back in ${plugin_s} s; containers (id/restarts) seed ${before_a: -16} -> ${after_a: -16}, strict ${before_b: -16} -> ${after_b: -16}; steps seed $j1 -> $j2, strict $s1 -> $s2; allocatable gpu-mem $(node_gpu_mem)"
  trainer_pod tenant-a after-restarts 1 1000 --max_steps=200 --data_dir=tensorflow-sample-code/data --hidden=256 >/dev/null 2>&1
  until_ok 60 "after-restarts finished" sh -c "[ \"\$($STAGE/bin/kubectl --kubeconfig $W/admin.kc -n tenant-a get pod after-restarts -o jsonpath='{.status.phase}')\" = Succeeded ]"
  r=FAIL; [ "$(k -n tenant-a get pod after-restarts -o jsonpath='{.status.phase}')" = Succeeded ] && r=PASS
  [ "$DRY" = 1 ] && [ "$r" = PASS ] && r="PASS (fake driver)"
  result "4b. a new pod after the restarts" "$r" "after-restarts (1 GiB, 200 steps): $(k -n tenant-a get pod after-restarts -o jsonpath='{.status.phase}'); $(log_of tenant-a after-restarts | grep -E '^(done|error)' | head -1)"
}

# --- teardown ------------------------------------------------------------------------------------------------------

teardown() {
  trap - EXIT INT TERM
  step "teardown"
  [ -n "${WATCHDOG:-}" ] && kill "$WATCHDOG" 2>/dev/null
  if [ -n "${PID[kube-apiserver]:-}" ]; then
    k -n default get pods -o wide > "$W/logs/pods-default.txt" 2>&1
    k -n tenant-a get pods -o wide > "$W/logs/pods-tenant-a.txt" 2>&1
    k get events -A --sort-by=.lastTimestamp > "$W/logs/events.txt" 2>&1
    k get node "$NODE" -o yaml > "$W/logs/node.yaml" 2>&1
  fi
  local p
  for p in device-plugin kubelet; do stop "$p" 20; done
  # every process in kubelet's pod cgroups (cgroup v2, or each v1 controller), then containerd's shims, then containerd
  for _ in 1 2 3 4 5; do
    local pids; pids=$(find /sys/fs/cgroup -path '*/kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null)
    [ -z "$pids" ] && break
    kill -KILL $pids 2>/dev/null; sleep 0.5
  done
  for p in $(pgrep -f "$W/containerd/containerd.sock"); do [ "$p" != "${PID[containerd]:-}" ] && kill -KILL "$p" 2>/dev/null; done
  stop containerd 10
  stop mps-control 15
  if [ "$DRY" != 1 ] && [ -d "$RUN_DIR/blue/pipe" ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY=$RUN_DIR/blue/pipe timeout 5 nvidia-cuda-mps-control >/dev/null 2>&1
    pkill -KILL -f nvidia-cuda-mps-server 2>/dev/null
  fi
  for p in webhook extender kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$p" 10; done
  cp -r "$W/kubelet/pod-logs" "$W/logs/" 2>/dev/null
  cp "$RUN_DIR"/blue/log/*.log "$W/logs/" 2>/dev/null
  awk -v w="$W" '$5 == w || index($5, w "/") == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  [ -n "${RUN_MOUNTED:-}" ] && { umount -l "$RUN_DIR" 2>/dev/null; rmdir "$RUN_DIR" 2>/dev/null; }
  [ -z "${HAD_KUBEPODS:-}" ] && find /sys/fs/cgroup -depth -type d -path '*/kubepods*' -exec rmdir {} \; 2>/dev/null
  [ -z "${HAD_CONTAINERD_RUN:-}" ] && rm -rf /run/containerd 2>/dev/null
  rm -f "$PLUGIN_DIR/kubelet.sock" "$PLUGIN_DIR/kubelet_internal_checkpoint" "$PLUGIN_DIR"/mpshare*.sock 2>/dev/null
  [ -n "${SYSCTLS:-}" ] && echo "$SYSCTLS" | while IFS='=' read -r key v; do echo "$v" > "/proc/sys/$key"; done
  summary
  mkdir -p "$OUT"
  tar -C "$W" -czf "$OUT/node-tier-logs.tgz" logs 2>/dev/null
  rm -rf "$W"
  say "logs: $OUT/node-tier-logs.tgz; left running: $(pgrep -f "$STAGE/" | wc -l) processes of the tier"
}

summary() {
  step "RESULTS ($([ "$DRY" = 1 ] && echo "dry run, no GPU" || echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"); ${SECONDS} s)"
  local r a b c pass=0 fail=0 skip=0
  for r in "${RESULTS[@]}"; do
    IFS='|' read -r a b c <<< "$r"
    printf '%-38s | %-18s | %s\n' "$a" "$b" "$c"
    case $b in PASS*) pass=$((pass + 1));; SKIP*) skip=$((skip + 1));; *) fail=$((fail + 1));; esac
  done
  echo "$pass passed, $fail failed, $skip skipped"
}

run_in_netns() {
  [ "$(id -u)" = 0 ] || die "run as root"
  W=$(mktemp -d /tmp/nt.XXXXXX)
  CONF=$STAGE/conf
  NODE=$(cat "$CONF/node-name")
  [ -d /run/containerd ] && HAD_CONTAINERD_RUN=1
  [ -n "$(find /sys/fs/cgroup -maxdepth 2 -name 'kubepods*' 2>/dev/null)" ] && HAD_KUBEPODS=1
  SYSCTLS=$(for key in vm/overcommit_memory kernel/panic kernel/panic_on_oops; do echo "$key=$(cat "/proc/sys/$key")"; done)
  trap teardown EXIT
  trap 'say "stopped by a signal"; exit 3' INT TERM
  # the watchdog ends its sleep when it is killed: a sleep left behind holds the tee's pipe open, and the device call
  # with it, until the sleep ends (a 93 s tier took its call 546 s)
  ( trap 'kill "$nap" 2>/dev/null; exit 0' TERM; sleep "$((BUDGET_S + 40))" & nap=$!; wait "$nap"
    say "watchdog: $((BUDGET_S + 40)) s passed, ending the tier"; kill -TERM $$ ) &
  WATCHDOG=$!
  netns_setup || die "cannot set up the network namespace"
  say "network namespace of our own: lo up, node address $NODE_IP; build $(cat "$STAGE/BUILD"); dry=$DRY; work folder $W"
  if ! up; then result "0. cluster up" FAIL "see above and node-tier-logs.tgz"; return 1; fi
  result "0. cluster up" PASS "in ${SECONDS} s: etcd, kube-apiserver, controller-manager, kube-scheduler + extender, webhook, containerd, kubelet, mps-control, device plugin (device-specs)"
  local s
  for s in scenario_seed scenario_strict scenario_over scenario_restarts scenario_fault; do
    if time_left; then $s; else result "$s" SKIP "the tier's time budget ($BUDGET_S s) was spent"; fi
  done
}

case "${1:-}" in
  stage) [ $# = 2 ] || die "usage: $0 stage 1|2|3"; stage "$2" ;;
  run)
    staged || die "stage the three parts first (e2e/gpu/README.md): $0 stage 1, 2, 3"
    mkdir -p "$OUT"
    set -o pipefail
    unshare --net -- bash "$0" in-netns 2>&1 | tee "$OUT/node-tier.log"
    ;;
  in-netns) run_in_netns ;;
  unpack) [ $# = 3 ] || die "usage: $0 unpack ARCHIVE.tar.xz DIR | FILE.xz DEST"; unpack "$2" "$3" || die "unpacking $2 failed" ;;
  *) die "usage: $0 stage 1|2|3 | run | unpack ARCHIVE DEST   (DRY=1 without a GPU)" ;;
esac
