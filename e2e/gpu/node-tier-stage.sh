#!/usr/bin/env bash
# Builds here what e2e/gpu/node-tier.sh needs on the GPU machine (no Java, no network there), in three parts under the
# git-ignored .device/node-tier/, each small enough to ride one device call (64 MiB, the working tree included):
#   p1: containerd 1.6 + its runc shim + ctr, runc (+ libseccomp), the CNI loopback plugin, etcd, a static pause,
#       the jlink Java runtime, the trainer's kernels as PTX (when nvcc is here; else the GPU machine compiles them)
#   p2: kube-apiserver, kube-controller-manager, kube-scheduler v1.31 (the shared xz archives as they are)
#   p3: kubelet, kubectl, the mpshare jars, the tier's certificates and the chart's rendered manifests
# Every part holds BUILD (one id for the three) and SHA256SUMS. Binaries are this machine's Debian packages
# (bin/ci-deps installs them); the kube-* archives come from $MPSHARE_K8S_XZ or the shared k8s folder beside the
# checkout, as e2e/k8s finds them; kubectl (1.30-1.32) from $KUBECTL or PATH. e2e/gpu/README.md gives the device
# calls that carry the parts and run the tier.
# Use (from anywhere in the repository): e2e/gpu/node-tier-stage.sh        prints each part's size last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bin/jdk.sh
mpshare_find_jdk
OUT=.device/node-tier
B=$OUT/build
NODE=mpshare-gpu-node
MAX_PART=$((56 * 1024 * 1024))
MAX_CALL=$((64 * 1024 * 1024))
say() { echo "node-tier-stage: $*"; }
die() { echo "node-tier-stage: $*" >&2; exit 1; }
grep -qx '/.device/' .gitignore || die ".device/ must be git-ignored"
export MAVEN_OPTS="${MAVEN_OPTS:-}"

# --- inputs ------------------------------------------------------------------------------------------------------
bin/ci-deps >/dev/null
for t in containerd containerd-shim-runc-v2 ctr runc etcd openssl xz gcc; do command -v "$t" >/dev/null || die "$t not found (bin/ci-deps installs the Debian packages)"; done
LOOPBACK=/usr/lib/cni/loopback
[ -x "$LOOPBACK" ] || die "$LOOPBACK not found (Debian's containernetworking-plugins)"
SECCOMP=$(ldd "$(command -v runc)" | awk '/libseccomp/ {print $3}')
[ -f "$SECCOMP" ] || die "runc's libseccomp not found"
K8S=${MPSHARE_K8S_XZ:-$(cd .. && pwd)/shared/k8s}
[ -f "$K8S/kube-apiserver.xz" ] || die "no kube-* archives in $K8S: set MPSHARE_K8S_XZ to the folder with kube-apiserver.xz and SHA256SUMS"
(cd "$K8S" && sha256sum -c --quiet SHA256SUMS) || die "$K8S: SHA256SUMS does not match"
kubectl_ok() { # kubectl_ok BIN: a static kubectl of minor 30..32 (v1.31 is the apiserver's)
  local m; m=$("$1" version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -1)
  [ -n "$m" ] && [ "$m" -ge 30 ] && [ "$m" -le 32 ] && ! ldd "$1" >/dev/null 2>&1
}
KUBECTL=${KUBECTL:-}
if [ -z "$KUBECTL" ] && command -v kubectl >/dev/null; then
  k=$(readlink -f "$(command -v kubectl)")
  for c in "$(dirname "$k")/kubectl.1.31" "$k"; do [ -x "$c" ] && kubectl_ok "$c" && { KUBECTL=$c; break; }; done
fi
[ -n "$KUBECTL" ] && kubectl_ok "$KUBECTL" || die "no static kubectl 1.30-1.32 found: set KUBECTL to one (kubectl 1.31 for linux/amd64 from the Kubernetes release)"

rm -rf "$OUT" && mkdir -p "$B/bin" "$B/conf/pki" "$OUT/p1" "$OUT/p2" "$OUT/p3"
BUILD="$(date -u +%Y%m%dT%H%M%SZ)-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo -dirty)"

# --- mpshare: the jars of the cli's runtime classpath, re-stored and packed together ----------------------------
say "building mpshare (cli and e2e/k8s)"
mvn -B -ntp -q -pl cli,e2e/k8s -am install -DskipTests
mkdir -p "$B/lib"
mvn -B -ntp -q -pl cli dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$PWD/$B/lib"
cp cli/target/mpshare-cli-*.jar "$B/lib/"
rm -f "$B"/lib/*-sources.jar
python3 e2e/gpu/store-jars.py "$B/lib"
tar -C "$B" -cf - lib | xz -T0 -6 > "$OUT/p3/lib.tar.xz"

# --- the Java runtime: the modules the node and control components use (jdeps over the jars, less java.desktop and
# java.compiler, which only unused paths of Jackson and picocli reach), and jcmd (jdk.jcmd), with which the scale bench
# starts and dumps JFR in the extender; not compressed by jlink, so xz packs it ---
say "jlink"
"$JAVA_HOME/bin/jlink" --add-modules java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.httpserver,jdk.jcmd,jdk.jfr,jdk.management,jdk.net,jdk.unsupported \
  --strip-debug --no-header-files --no-man-pages --compress=zip-0 --output "$B/jre"
tar -C "$B" -cf - jre | xz -T0 -6 > "$OUT/p1/jre.tar.xz"

# --- binaries ------------------------------------------------------------------------------------------------------
for t in containerd containerd-shim-runc-v2 ctr runc etcd; do cp "$(command -v "$t")" "$B/bin/"; done
cp "$LOOPBACK" "$B/bin/loopback"
cp "$SECCOMP" "$B/bin/libseccomp.so.2"
gcc -static -Os -o "$B/bin/pause" e2e/node/src/test/resources/pause.c
tar -C "$B" -cf - bin | xz -T0 -6 > "$OUT/p1/bin.tar.xz"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
if [ -n "$NVCC" ]; then   # checked here for the H200 (sm_90) by ptxas; the driver JIT-compiles the PTX there
  "$NVCC" --ptx -arch=compute_90 -o "$OUT/p1/kernels.ptx" e2e/gpu/node-tier/mnist/kernels.cu
  PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)
  [ -z "$PTXAS" ] || "$PTXAS" -arch=sm_90 -o /dev/null "$OUT/p1/kernels.ptx" || die "ptxas refused the kernels' PTX for sm_90"
  say "kernels.cu -> PTX with $("$NVCC" --version | tail -1)"
else say "no nvcc here: the GPU machine compiles the kernels (nvcc, else NVRTC)"; fi
cp "$K8S/kube-apiserver.xz" "$K8S/kube-controller-manager.xz" "$K8S/kube-scheduler.xz" "$OUT/p2/"
cp "$K8S/kubelet.xz" "$OUT/p3/"
xz -T0 -6 -c "$KUBECTL" > "$OUT/p3/kubectl.xz"

# --- certificates: one CA for the API server's clients, its serving certificate and the webhook's ----------------
say "certificates"
P=$B/conf/pki
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$P/ca.key" -out "$P/ca.crt" -days 30 -subj "/CN=mpshare-node-tier-ca" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
leaf() { # leaf NAME SUBJECT USAGE [SAN]
  local ext="extendedKeyUsage=$3\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
  [ -n "${4:-}" ] && ext+="subjectAltName=$4\n"
  openssl req -newkey rsa:2048 -nodes -keyout "$P/$1.key" -out "$P/$1.csr" -subj "$2" 2>/dev/null
  openssl x509 -req -in "$P/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 30 -out "$P/$1.crt" \
    -extfile <(printf "$ext") 2>/dev/null
  rm -f "$P/$1.csr"
}
leaf apiserver "/CN=kube-apiserver" serverAuth "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
leaf admin "/O=system:masters/CN=mpshare-node-tier-admin" clientAuth
leaf kubelet "/O=system:nodes/CN=system:node:$NODE" clientAuth
leaf apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
leaf webhook "/CN=mpshare-webhook" serverAuth "IP:127.0.0.1,DNS:localhost"
openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
rm -f "$P/ca.srl"

# --- the chart, rendered as the e2e tiers render it ------------------------------------------------------------------
say "rendering the chart"
"$JAVA_HOME/bin/java" -cp "e2e/k8s/target/classes:$(cat e2e/k8s/target/classpath.txt)" io.mpshare.e2e.k8s.GpuTierManifests \
  charts/mpshare "$B/conf/chart" "$P/ca.crt" 2>/dev/null
echo "$NODE" > "$B/conf/node-name"
tar -C "$B" -cf - conf | xz -T0 -6 > "$OUT/p3/conf.tar.xz"

# --- parts -------------------------------------------------------------------------------------------------------
TREE=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
ok=1
for p in p1 p2 p3; do
  echo "$BUILD" > "$OUT/$p/BUILD"
  (cd "$OUT/$p" && sha256sum -- * > SHA256SUMS)
  size=$(du -cb "$OUT/$p" | tail -1 | cut -f1)
  printf 'node-tier-stage: %s %5.1f MiB (%s), with the working tree %5.1f MiB of the 64 a call carries\n' "$p" \
    "$(awk "BEGIN {print $size / 1048576}")" "$(cd "$OUT/$p" && ls -- *.xz *.ptx 2>/dev/null | tr '\n' ' ')" "$(awk "BEGIN {print ($size + $TREE) / 1048576}")"
  [ "$size" -le "$MAX_PART" ] && [ $((size + TREE)) -le "$MAX_CALL" ] || { ok=0; say "$p is too large"; }
done
rm -rf "$B"
say "build $BUILD; working tree $(awk "BEGIN {printf \"%.1f\", $TREE / 1048576}") MiB"
[ "$ok" = 1 ] || die "a part is over its limit"
