# Sourced by bin/mpshare, bin/dev-cluster and bin/test: finds a JDK 25 (or newer) and exports JAVA_HOME;
# mpshare_build builds quietly with it.
# Order: $JAVA_HOME, `java` on PATH, then the usual JVM folders. Stops with a message otherwise.

mpshare_java_major() { # prints the feature version of the java binary in $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

mpshare_find_jdk() {
  local candidates=() c v
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    c=$(readlink -f "$(command -v java)"); candidates+=("${c%/bin/java}")
  fi
  for c in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25* /usr/lib/jvm/jdk-25* /usr/lib/jvm/java-25* \
           /opt/java/openjdk /opt/jdk* /usr/local/jdk* /Library/Java/JavaVirtualMachines/*/Contents/Home \
           /usr/lib/jvm/*; do
    [ -d "$c" ] && candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    v=$(mpshare_java_major "$c/bin/java")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      export JAVA_HOME="$c"; export PATH="$JAVA_HOME/bin:$PATH"; return 0
    fi
  done
  cat >&2 <<MSG
mpshare: no JDK 25 found (looked at \$JAVA_HOME, java on PATH and /usr/lib/jvm/*).
Install one, for example the Debian/Ubuntu package temurin-25-jdk from Adoptium, or unpack
a JDK 25 and set JAVA_HOME to its folder, then run this command again.
MSG
  return 1
}

mpshare_require_maven() {
  command -v mvn >/dev/null 2>&1 && return 0
  echo "mpshare: Apache Maven (mvn, 3.8 or newer) is needed to build. Install it (apt-get install maven) and run again." >&2
  return 1
}

# mpshare_build WHO SAYING MODULES [MAVEN ARGS...]: builds MODULES (and what they need) in the checkout $root,
# quietly. Says "WHO: SAYING" and nothing else; Maven's output (no colours, no JDK warnings of Maven's own libraries) goes to target/build.log,
# whose end is shown only when the build fails.
mpshare_build() {
  local who=$1 saying=$2 modules=$3; shift 3
  mpshare_require_maven || return 2
  local log="$root/target/build.log" opts="${MAVEN_OPTS:-}"
  mkdir -p "$root/target"
  # Maven's guava calls sun.misc.Unsafe, which JDK 24+ warns about on every run
  [ "$(mpshare_java_major "$JAVA_HOME/bin/java")" -ge 24 ] && opts="$opts --sun-misc-unsafe-memory-access=allow"
  echo "$who: $saying" >&2
  if ! (cd "$root" && MAVEN_OPTS="$opts" mvn -B -q -Dstyle.color=never -Dmaven.javadoc.skip=true -pl "$modules" -am "$@" package) > "$log" 2>&1; then
    echo "$who: the build failed; the end of $log:" >&2
    tail -n 30 "$log" | sed 's/\x1b\[[0-9;]*m//g' >&2
    return 2
  fi
}
