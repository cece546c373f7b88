#!/usr/bin/env bash
# Builds here what bench/run-scale-quiet.sh needs to run the cluster-scale bench (bench/run-k8s-scale.sh, ScaleBench)
# on a many-core host without Java, Maven or network (the GPU machine used as a quiet 16-core host), in three parts
# that each ride one device call (64 MiB, the working tree included):
#   p1, p2: e2e/gpu/node-tier-stage.sh's own parts 1 and 2, carried as they are from .device/node-tier/ (etcd and the
#           jlink Java runtime; kube-apiserver, kube-controller-manager, kube-scheduler v1.31.14);
#   p3:     .device/scale/p3/scale.tar.xz: e2e/k8s's classes and its runtime jars (the classpath ScaleBench runs on),
#           the cli's runtime jars from the node tier's part 3, and mpshare-launch.jar, a jar of nothing but a manifest
#           (Main-Class io.mpshare.cli.Main, Class-Path the cli's jars) that stands in for the shaded mpshare.jar the
#           bench starts the extender from (MPSHARE_JAR), which alone is about 57 MB.
# p3 holds the node tier's BUILD id and its own SHA256SUMS, so that run-scale-quiet.sh never mixes parts of two builds.
# Use (from anywhere in the repository): bench/scale-quiet-stage.sh             builds the node tier's parts too (~9 min)
#   SCALE_REUSE_NODE_TIER=1 bench/scale-quiet-stage.sh    keeps .device/node-tier as it is (say so when it is stale)
# It prints each part's size and the device calls; e2e/gpu/README.md ("The cluster-scale bench") lists them too.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
NT=.device/node-tier
OUT=.device/scale
say() { echo "scale-quiet-stage: $*"; }
die() { echo "scale-quiet-stage: $*" >&2; exit 1; }
grep -qx '/.device/' .gitignore || die ".device/ must be git-ignored"

if [ "${SCALE_REUSE_NODE_TIER:-0}" = 1 ] && [ -f "$NT/p3/BUILD" ]; then say "the node tier's parts of build $(cat "$NT/p3/BUILD") kept"
else e2e/gpu/node-tier-stage.sh; fi
BUILD=$(cat "$NT/p1/BUILD")
for p in p1 p2 p3; do
  [ "$(cat "$NT/$p/BUILD")" = "$BUILD" ] || die "$NT/$p is of another build: run without SCALE_REUSE_NODE_TIER"
  (cd "$NT/$p" && sha256sum -c --quiet SHA256SUMS) || die "$NT/$p does not match its SHA256SUMS"
done
[ -f e2e/k8s/target/classpath.txt ] && [ -d e2e/k8s/target/classes ] || die "no e2e/k8s build: run without SCALE_REUSE_NODE_TIER"

rm -rf "$OUT" && mkdir -p "$OUT/p3"
W=$(mktemp -d /tmp/scale-quiet-stage.XXXXXX)
trap 'rm -rf "$W"' EXIT
S=$W/scale
mkdir -p "$S"
tar -C "$S" -xJf "$NT/p3/lib.tar.xz"   # lib/: the cli's runtime jars and the cli's own, re-stored by the node tier
cli_jars=$(cd "$S" && ls lib/*.jar)
cp -r e2e/k8s/target/classes "$S/classes"
: > "$S/classpath"   # e2e/k8s's runtime classpath, relative to scale/: the jar of each version once in lib/
tr ':' '\n' < e2e/k8s/target/classpath.txt | while read -r jar || [ -n "$jar" ]; do   # the file ends without a newline
  [ -e "$S/lib/$(basename "$jar")" ] || cp "$jar" "$S/lib/"
  echo "lib/$(basename "$jar")" >> "$S/classpath"
done
python3 e2e/gpu/store-jars.py "$S/lib"
python3 - "$S/mpshare-launch.jar" $cli_jars <<'EOF'
import sys, zipfile
def wrapped(line):  # a manifest line is at most 72 bytes; continuation lines start with one space
    b = line.encode()
    parts = [b[:72]] + [b" " + b[i:i + 71] for i in range(72, len(b), 71)]
    return b"\r\n".join(parts) + b"\r\n"
manifest = b"".join(wrapped(l) for l in ["Manifest-Version: 1.0", "Main-Class: io.mpshare.cli.Main",
                                           "Class-Path: " + " ".join(sys.argv[2:])]) + b"\r\n"
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("META-INF/MANIFEST.MF", manifest)
EOF
tar -C "$W" -cf - scale | xz -T0 -6 > "$OUT/p3/scale.tar.xz"
echo "$BUILD" > "$OUT/p3/BUILD"
(cd "$OUT/p3" && sha256sum -- * > SHA256SUMS)

TREE=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
mib() { awk "BEGIN {printf \"%.1f\", $1 / 1048576}"; }
ok=1
for part in "$NT/p1" "$NT/p2" "$OUT/p3"; do
  size=$(du -cb "$part" | tail -1 | cut -f1)
  say "$part $(mib "$size") MiB, with the working tree $(mib $((size + TREE))) MiB of the 64 a call carries"
  [ $((size + TREE)) -le $((64 * 1024 * 1024)) ] || { ok=0; say "$part is too large"; }
done
say "build $BUILD; working tree $(mib "$TREE") MiB"
[ "$ok" = 1 ] || die "a part is over the 64 MiB a call carries"
say "device calls (kind nvidia-h200, back to back so that the machine stays warm):"
say "  1: bash bench/run-scale-quiet.sh stage 1   carry [\"$NT/p1\"]"
say "  2: bash bench/run-scale-quiet.sh stage 2   carry [\"$NT/p2\"]"
say "  3: bash bench/run-scale-quiet.sh stage 3 && bash bench/run-scale-quiet.sh run --nodes=500 ...   carry [\"$OUT/p3\"], timeout_s 600"
