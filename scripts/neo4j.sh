#!/usr/bin/env bash
# Provision and run Neo4j Community 5.26 LTS from Maven Central (official org.neo4j
# artifacts) as an embedded DatabaseManagementService with Bolt on 127.0.0.1.
#   scripts/neo4j.sh up      start (idempotent), wait for Bolt, print the store URL last
#   scripts/neo4j.sh down    stop cleanly
#   scripts/neo4j.sh status  print the URL if running
# Env: KGMEM_NEO4J_PORT (default 7687), KGMEM_NEO4J_DIR (default .neo4j),
#      KGMEM_NEO4J_VERSION (default 5.26.30; 2025.x and later need Java 21+),
#      KGMEM_NEO4J_VECTOR_MERGE_FACTOR (default 10, Neo4j's own is 50: fewer vector index
#      segments, faster vector queries; see the launcher), JAVA_HOME (else java/javac from PATH),
#      KGMEM_NEO4J_JAVA_OPTS (extra JVM options). On a JDK 20+ that has jdk.incubator.vector,
#      the JVM also gets that module, so Lucene scores vectors with SIMD (vector_api_options).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${KGMEM_NEO4J_DIR:-.neo4j}"
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
PORT="${KGMEM_NEO4J_PORT:-7687}"
VERSION="${KGMEM_NEO4J_VERSION:-5.26.30}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
POM=scripts/neo4j-launcher/pom.xml
SRC=scripts/neo4j-launcher/src/main/java/kgmem/Neo4jLauncher.java
mkdir -p "$DIR"

die() { echo "neo4j.sh: $*" >&2; exit 1; }

running() { [ -f "$DIR/pid" ] && kill -0 "$(cat "$DIR/pid")" 2>/dev/null; }

bolt_open() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

provision() {
  command -v "$JAVA" >/dev/null || die "java not found; install a JDK 17+ (Neo4j 5.26 runs on Java 17 or 21)"
  local major
  major=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p' | cut -d. -f1)
  [ "${major:-0}" -ge 17 ] || die "Java $major found; Neo4j 5.26 needs Java 17+"
  case "$VERSION" in 5.*) ;; *) [ "$major" -ge 21 ] || die "Neo4j $VERSION needs Java 21+; set JAVA_HOME" ;; esac
  local stamp
  stamp=$( (sha256sum "$POM" "$SRC"; echo "$VERSION") | sha256sum | cut -c1-16)
  if [ "$(cat "$DIR/lib.stamp" 2>/dev/null)" != "$stamp" ]; then
    command -v mvn >/dev/null || die "mvn not found; it fetches Neo4j from Maven Central"
    echo "neo4j.sh: fetching Neo4j Community jars from Maven Central (cached in $DIR/lib)" >&2
    rm -rf "$DIR/lib" "$DIR/classes"
    mvn -q -B -Dstyle.color=never -Dneo4j.version="$VERSION" -f "$POM" dependency:copy-dependencies \
      -DoutputDirectory="$DIR/lib" >&2 \
      || die "maven could not fetch the Neo4j artifacts (see output above)"
    mkdir -p "$DIR/classes"
    local release=17
    case "$VERSION" in 5.*) ;; *) release=21 ;; esac
    "$JAVAC" --release "$release" -d "$DIR/classes" -cp "$DIR/lib/*" "$SRC" >&2 || die "could not compile the launcher"
    echo "$stamp" > "$DIR/lib.stamp"
  fi
}

# Lucene scores vectors with the JDK's Vector API (SIMD) when the JVM can read the incubator
# module: Lucene 9 (Neo4j 5.26) on Java 20-22, Lucene 10 (Neo4j 2025.x) on Java 21 and later.
vector_api_options() {
  local major
  major=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p' | cut -d. -f1)
  [ "${major:-0}" -ge 20 ] || return 0
  "$JAVA" --list-modules 2>/dev/null | grep -q '^jdk.incubator.vector@' || return 0
  echo "--add-modules=jdk.incubator.vector -Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=$major" \
    "-Dorg.neo4j.shaded.lucene9.vectorization.upperJavaFeatureVersion=$major"
}

up() {
  if running && bolt_open; then
    echo "neo4j.sh: already running (pid $(cat "$DIR/pid"))" >&2
    cat "$DIR/url"; echo
    return 0
  fi
  bolt_open && die "port $PORT is taken by another process; set KGMEM_NEO4J_PORT"
  provision
  if [ ! -s "$DIR/password" ]; then
    (umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$DIR/password")
  fi
  chmod 600 "$DIR/password"
  mkdir -p "$DIR/data"
  nohup "$JAVA" -Xms512m $(vector_api_options) ${KGMEM_NEO4J_JAVA_OPTS:-} -Xmx${KGMEM_NEO4J_HEAP:-2g} -Dkgmem.pagecache=$((${KGMEM_NEO4J_PAGECACHE_MB:-1024}*1024*1024)) \
    ${KGMEM_NEO4J_VECTOR_MERGE_FACTOR:+-Dkgmem.vector_merge_factor=$KGMEM_NEO4J_VECTOR_MERGE_FACTOR} \
    -cp "$DIR/classes:$DIR/lib/*" kgmem.Neo4jLauncher "$DIR/data" "$PORT" "$DIR/password" \
    > "$DIR/neo4j.log" 2>&1 &
  echo $! > "$DIR/pid"
  local waited=0
  until grep -q "kgmem-neo4j: Neo4j .* ready" "$DIR/neo4j.log" 2>/dev/null && bolt_open; do
    if ! running; then
      tail -n 40 "$DIR/neo4j.log" >&2 || true
      die "Neo4j exited during start-up (log above, full log in $DIR/neo4j.log)"
    fi
    [ "$waited" -ge 180 ] && { tail -n 40 "$DIR/neo4j.log" >&2; die "Bolt did not answer on 127.0.0.1:$PORT within 180 s"; }
    sleep 1; waited=$((waited + 1))
  done
  printf 'neo4j://neo4j:%s@127.0.0.1:%s' "$(cat "$DIR/password")" "$PORT" > "$DIR/url"
  chmod 600 "$DIR/url"
  echo "neo4j.sh: $(grep -o "Neo4j [0-9][0-9.]*" "$DIR/neo4j.log" | head -1) up after ${waited}s on 127.0.0.1:$PORT (pid $(cat "$DIR/pid"))" >&2
  cat "$DIR/url"; echo
}

down() {
  if running; then
    local pid; pid=$(cat "$DIR/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then echo "neo4j.sh: forcing stop" >&2; kill -9 "$pid" || true; fi
    echo "neo4j.sh: stopped" >&2
  else
    echo "neo4j.sh: not running" >&2
  fi
  rm -f "$DIR/pid"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) if running; then cat "$DIR/url"; echo; else echo "not running"; exit 1; fi ;;
  *) die "usage: scripts/neo4j.sh up|down|status" ;;
esac
