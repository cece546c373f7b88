#!/usr/bin/env bash
# Builds what the GPU machine needs to run mpshare's node code (it has no Java), under the git-ignored .device/:
#   .device/jre.tgz   a jlink runtime (java.base, java.logging, java.net.http, jdk.httpserver, java.management, jdk.net (host API peer credentials),
#                     jdk.unsupported, java.naming, java.xml, java.sql), about 28 MB packed (49 MB unpacked);
#   .device/lib/      the nvml, mps, policing, host and core jars and their runtime dependencies (Jackson, Prometheus, picocli);
#   .device/e2e-check.jar  e2e/gpu/java (NvmlMpsCheck, HostMain) with MpsControlCommand, HostCommand, RunCommand and PsCommand compiled in.
# Why not the shaded mpshare.jar: it is about 57 MB (fabric8, gRPC, Bouncy Castle...), and with the runtime it
# would pass the 64 MiB a device call may carry. The node code needs none of that. Pass --shaded to add it anyway
# (then carry it alone, or without the runtime).
# --deviceplugin adds, for e2e/gpu/deviceplugin-check.sh: the deviceplugin jar and test-jar (FakeKubelet, TestPods) with
# their test-scope dependencies (gRPC, fabric8 client and mock server), less what the harness never loads (JUnit,
# AssertJ, Byte Buddy; the client's constructor loads every fabric8 model group, Bouncy Castle the mock server needs):
# and .device/dp-check.jar from e2e/gpu/java-deviceplugin. lib/ then travels as .device/lib.tar.xz (~18 MB, see below).
# Use: e2e/gpu/build-runtime.sh [--shaded | --deviceplugin]; then device run with carry [".device"], and on the machine:
#   tar -C .device -xzf .device/jre.tgz && .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp '.device/lib/*:.device/e2e-check.jar' io.mpshare.e2e.NvmlMpsCheck nvml
set -euo pipefail
cd "$(dirname "$0")/../.."
. bin/jdk.sh
mpshare_find_jdk
D=.device
mkdir -p "$D"
grep -qx '/.device/' .gitignore || { echo "build-runtime: .device/ must be git-ignored" >&2; exit 1; }

if [ ! -f "$D/jre.tgz" ] || [ "${REBUILD_JRE:-0}" = 1 ]; then
  rm -rf "$D/jre"
  "$JAVA_HOME/bin/jlink" --add-modules java.base,java.logging,java.net.http,jdk.httpserver,java.management,jdk.unsupported,java.naming,java.xml,java.sql,jdk.net \
    --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$D/jre"
  tar -C "$D" -czf "$D/jre.tgz" jre
  rm -rf "$D/jre"
fi

mvn -B -ntp -q -pl nvml,mps,policing,host -am install -DskipTests
rm -rf "$D/lib" && mkdir -p "$D/lib"
mvn -B -ntp -q -pl host dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$PWD/$D/lib"
cp nvml/target/mpshare-nvml-*.jar mps/target/mpshare-mps-*.jar policing/target/mpshare-policing-*.jar host/target/mpshare-host-*.jar "$D/lib/"
PICOCLI=$(sed -n 's:.*<picocli.version>\(.*\)</picocli.version>.*:\1:p' pom.xml)
M2=${M2_REPO:-$HOME/.m2/repository}
cp "${M2:-$HOME/.m2/repository}/info/picocli/picocli/$PICOCLI/picocli-$PICOCLI.jar" "$D/lib/"

rm -rf "$D/classes" && mkdir -p "$D/classes"
"$JAVA_HOME/bin/javac" --release 25 -d "$D/classes" -cp "$D/lib/*" \
  $(find e2e/gpu/java -name '*.java') cli/src/main/java/io/mpshare/cli/MpsControlCommand.java \
  cli/src/main/java/io/mpshare/cli/{Host,Run,Ps}Command.java cli/src/main/java/io/mpshare/cli/{CliFailure,ExitCodes,Foreground}.java
"$JAVA_HOME/bin/jar" --create --file "$D/e2e-check.jar" -C "$D/classes" .
rm -rf "$D/classes"

if [ "${1:-}" = --deviceplugin ]; then
  mvn -B -ntp -q -pl deviceplugin -am install -DskipTests
  DP=$D/dplib.tmp && rm -rf "$DP" && mkdir -p "$DP"
  mvn -B -ntp -q -pl deviceplugin dependency:copy-dependencies -DincludeScope=test -DoutputDirectory="$PWD/$DP"
  ( cd "$DP" && rm -f junit-* opentest4j-* apiguardian-* assertj-* byte-buddy* mockito-* )
  for f in "$DP"/*.jar; do [ -e "$D/lib/$(basename "$f")" ] || mv "$f" "$D/lib/"; done
  rm -rf "$DP"
  cp deviceplugin/target/mpshare-deviceplugin-*.jar "$D/lib/"   # main jar and -tests.jar
  rm -rf "$D/classes" && mkdir -p "$D/classes"
  "$JAVA_HOME/bin/javac" --release 25 -d "$D/classes" -cp "$D/lib/*" $(find e2e/gpu/java-deviceplugin -name '*.java')
  "$JAVA_HOME/bin/jar" --create --file "$D/dp-check.jar" -C "$D/classes" .
  rm -rf "$D/classes"
  # lib/ is now ~39 MB of jars: with the 28 MB runtime past 64 MiB. Re-stored uncompressed and packed with xz as one
  # stream it is ~18 MB (class files compress far better together); the check unpacks it with python3's tarfile.
  python3 e2e/gpu/store-jars.py "$D/lib"
  tar -C "$D" -cf - lib | xz -T0 -6 > "$D/lib.tar.xz"
  rm -rf "$D/lib"
fi
if [ "${1:-}" = --shaded ]; then
  mvn -B -ntp -q -pl cli package -DskipTests && cp cli/target/mpshare.jar "$D/mpshare.jar"
fi
rm -rf "$D/jre"   # unpacked on the GPU machine; carrying both would pass 64 MiB
du -sh "$D"/* | sed 's/^/build-runtime: /'
