#!/usr/bin/env bash
# Packs what bench/run-quiet.sh needs on a machine without Maven or Java (the GPU machine used as a quiet many-core
# host): .device/bench.tar.xz holds bench/classes (the bench module's classes) and bench/lib (its runtime jars),
# to unpack under .device/. The Java runtime comes from e2e/gpu/build-runtime.sh (.device/jre.tgz); run that first
# if .device/jre.tgz is missing. Then carry .device/jre.tgz and .device/bench.tar.xz (under 64 MiB together) and run
# `bash bench/run-quiet.sh` from the repository root there: it unpacks both on first use.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
. bin/jdk.sh
mpshare_find_jdk || exit 2
mpshare_require_maven || exit 2
D=.device
mkdir -p "$D"
grep -qx '/.device/' .gitignore || { echo "build-quiet: .device/ must be git-ignored" >&2; exit 1; }
[ -f "$D/jre.tgz" ] || echo "build-quiet: $D/jre.tgz is missing: run e2e/gpu/build-runtime.sh too (the host has no Java)" >&2
mvn -B -ntp -q ${MVN_OFFLINE:+-o} -pl bench -am install -DskipTests
rm -rf "$D/bench" && mkdir -p "$D/bench/lib"
cp -r bench/target/classes "$D/bench/classes"
mvn -B -ntp -q ${MVN_OFFLINE:+-o} -pl bench dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$PWD/$D/bench/lib"
# jars re-stored uncompressed, then packed as one xz stream: class files compress far better together (as
# e2e/gpu/build-runtime.sh does), so the archive and the runtime stay under the 64 MiB a device call may carry
python3 e2e/gpu/store-jars.py "$D/bench/lib"
tar -C "$D" -cf - bench | xz -T0 -6 > "$D/bench.tar.xz"
rm -rf "$D/bench"
echo "build-quiet: $(du -h "$D/bench.tar.xz" | cut -f1) $D/bench.tar.xz (commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- core scheduler bench || echo ', with uncommitted changes'))"
