# Sourced by ./levee and ./test: exports JAVA_HOME as a JDK 21 or newer.
# JAVA_HOME wins when it is one; otherwise the newest JDK under /usr/lib/jvm.

jdk_major() { # prints the feature version of the JDK at $1, or nothing
  local release="$1/release"
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && [ -f "$release" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release"
}

pick_jdk() {
  local v
  if [ -n "${JAVA_HOME:-}" ]; then
    v=$(jdk_major "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge 21 ]; then return 0; fi
  fi
  local best="" best_v=0 d
  for d in /usr/lib/jvm/*; do
    [ -L "$d" ] && continue
    v=$(jdk_major "$d")
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$d"; best_v="$v"; fi
  done
  if [ -z "$best" ]; then
    echo "levee: no JDK 21 or newer found (set JAVA_HOME or install one under /usr/lib/jvm)" >&2
    return 1
  fi
  export JAVA_HOME="$best"
}

# Maven 3.8 prints stray ANSI resets even in batch mode, and its bundled Guava warns on JDK 24+
# about sun.misc.Unsafe; silence that noise only.
quiet_maven_on_new_jdks() {
  local v
  export MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true"
  v=$(jdk_major "$JAVA_HOME")
  if [ -n "$v" ] && [ "$v" -ge 24 ]; then
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  fi
}
