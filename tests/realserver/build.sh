#!/usr/bin/env bash
# Build the real Ambari 3 server from source, once; reuse the build while the sources are unchanged.
#
#   bash tests/realserver/build.sh            -> prints the server home on its last line
#
# Sources: $MM2_AMBARI_SERVER_SRC, default ../shared/ambari-src/trunk (read-only; copied first).
# Output:  $MM2_CACHE/ambari-server (default ~/.cache/mm2-mpack/ambari-server), outside the project:
#            src/        the copied sources, with the build changes below
#            lib/        ambari-server jar, the in-tree modules it needs, every runtime dependency
#            stamp       sha256 of the sources + this script: equal stamp -> nothing to do
#            build-info  build wall time (s) and disk of lib/, src/ and ~/.m2 after the build
# Maven:   dependencies from Maven Central into ~/.m2 (MAVEN_OPTS / settings as usual). With a warm
#          ~/.m2 set MM2_MVN_OFFLINE=1 to build offline.
#
# What this changes in the copy, and why (the original sources stay untouched):
#  - the root pom lists modules that the source folder does not hold (ambari-agent, ambari-funtest,
#    ambari-web/admin need npm): a small aggregator pom builds only ambari-project, ambari-utility,
#    ambari-views, ambari-server-spi, ambari-serviceadvisor and ambari-server;
#  - only JDK 17 (and 25) exist here while the code targets Java 8, whose JDK carried JAXB,
#    javax.activation and javax.annotation: ambari-project (the parent of every module) gets those
#    four APIs/implementations from Maven Central as plain dependencies (jaxb-api 2.3.1,
#    jaxb-runtime 2.3.9, javax.activation-api 1.2.0, javax.annotation-api 1.3.2);
#  - org.apache.ambari:ambari-metrics-common is NOT built or stubbed: its published version
#    2.7.0.0.0 (ambari.metrics.version of ambari-server/pom.xml) comes from Maven Central.
#  - EclipseLink 2.7.15 instead of 2.6.2 (-Declipselink.version, the root pom's own property, used by
#    the server's dependency and by its static-weaving plugin): 2.6.2 cannot read JDK 17 class files
#    (its bundled ASM 5), both in the build's static weaving and at server start, with the same error
#    "PersistenceUnitLoadingException ... NullPointerException: Cannot invoke
#    "org.eclipse.persistence.internal.sessions.AbstractSession.getName()" because "this.session" is null"
#    (EntityManagerSetupImpl.predeploy); 2.7.15 weaves and runs on JDK 17. One call of an EclipseLink
#    internal helper whose signature 2.7 changed is adapted in DBAccessorImpl.java (getDBPlatform now
#    takes the database's minor and major version): the only change to the server's Java sources;
#  - contrib/views (views are not part of this build) is an empty folder for the view-jar copy step;
#  - Maven Central only (a mirror of every repository the POMs list);
#  - the swagger REST docs are not generated (their sources are left out; an empty spec feeds
#    swagger-codegen, which cannot be skipped).
# Tests, rat, findbugs, checkstyle, the python tests and the tarball assembly are skipped.
#
# Exit codes: 0 built or reused; 3 cannot build here (sources absent, Maven or Central unreachable:
# the reason is printed, callers skip); other: the build failed (see $OUT/build.log).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SRC=${MM2_AMBARI_SERVER_SRC:-$ROOT/../shared/ambari-src/trunk}
CACHE=${MM2_CACHE:-$HOME/.cache/mm2-mpack}
OUT=$CACHE/ambari-server
SKIP=3

if [ ! -f "$SRC/ambari-server/pom.xml" ]; then
  echo "SKIP: no Ambari server sources at $SRC (set MM2_AMBARI_SERVER_SRC; see ../shared/ambari-src/README.md)"
  exit $SKIP
fi
SRC=$(cd "$SRC" && pwd)
mkdir -p "$OUT"

# The stamp: every source file's content, and this script (it decides the build changes).
stamp=$( (cd "$SRC" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; sha256sum "$HERE/build.sh" | cut -c1-64) | sha256sum | cut -c1-64)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp" ] && ls "$OUT"/lib/ambari-server-*.jar >/dev/null 2>&1; then
  echo "reusing the Ambari server build in $OUT (sources unchanged: stamp ${stamp:0:12})"
  echo "$OUT"
  exit 0
fi

if ! command -v mvn >/dev/null 2>&1; then echo "SKIP: mvn not found (apt-get install maven)"; exit $SKIP; fi
if ! command -v java >/dev/null 2>&1; then echo "SKIP: java not found (JDK 17)"; exit $SKIP; fi
MVN_FLAGS=(-B -q)
if [ "${MM2_MVN_OFFLINE:-0}" = 1 ]; then
  MVN_FLAGS+=(-o)
elif ! curl -fsS -m 20 -o /dev/null https://repo.maven.apache.org/maven2/org/apache/ambari/ambari-metrics-common/2.7.0.0.0/ambari-metrics-common-2.7.0.0.0.pom; then
  echo "SKIP: Maven Central (https://repo.maven.apache.org) is unreachable and MM2_MVN_OFFLINE is not set"
  exit $SKIP
fi

rm -f "$OUT/stamp"
start=$(date +%s)
# Maven Central only: the POMs also list java.net, Atlassian, Sonatype and Apache snapshot repositories,
# each asked first for every artifact (slow, and not what this build promises).
cat > "$OUT/settings.xml" <<'XML'
<settings>
  <mirrors>
    <mirror><id>central-only</id><mirrorOf>*</mirrorOf><url>https://repo.maven.apache.org/maven2</url></mirror>
  </mirrors>
</settings>
XML
# The generated REST API docs are left out of the sources; swagger-codegen (no skip switch) renders
# its HTML from this empty spec instead of the one swagger-maven-plugin would generate (skipped).
mkdir -p "$OUT/swagger-stub" "$OUT/no-contrib-views"
echo '{"swagger":"2.0","info":{"title":"Ambari REST API (docs not built)","version":"v1"},"paths":{}}' > "$OUT/swagger-stub/swagger.json"
rm -rf "$OUT/src" "$OUT/lib.new"
cp -a "$SRC" "$OUT/src"
chmod -R u+w "$OUT/src"
cd "$OUT/src"

cat > mm2-aggregator.xml <<'POM'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>mm2.realserver</groupId>
  <artifactId>ambari-server-only</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <modules>
    <module>ambari-project</module>
    <module>ambari-utility</module>
    <module>ambari-views</module>
    <module>ambari-server-spi</module>
    <module>ambari-serviceadvisor</module>
    <module>ambari-server</module>
  </modules>
</project>
POM

python3 - <<'PY'
p = "ambari-project/pom.xml"
s = open(p).read()
marker = "  <dependencyManagement>"
if s.count(marker) != 1:
    raise SystemExit("ambari-project/pom.xml: expected one <dependencyManagement>; the build changes need updating")
deps = [("javax.xml.bind", "jaxb-api", "2.3.1"), ("org.glassfish.jaxb", "jaxb-runtime", "2.3.9"),
        ("javax.activation", "javax.activation-api", "1.2.0"), ("javax.annotation", "javax.annotation-api", "1.3.2")]
block = "  <dependencies>\n    <!-- mm2 realserver build on JDK 17: Java EE APIs that JDK 8 carried -->\n" + "".join(
    "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n" % d
    for d in deps) + "  </dependencies>\n"
open(p, "w").write(s.replace(marker, block + marker, 1))

# EclipseLink 2.7 changed one internal helper that DBAccessorImpl calls (the only source change).
p = "ambari-server/src/main/java/org/apache/ambari/server/orm/DBAccessorImpl.java"
s = open(p).read()
call = "DBPlatformHelper.getDBPlatform(vendorName, new AbstractSessionLog() {"
if s.count(call) != 1:
    raise SystemExit(p + ": the DBPlatformHelper call moved; the build changes need updating")
open(p, "w").write(s.replace(call, "DBPlatformHelper.getDBPlatform(vendorName, "
                             "String.valueOf(connection.getMetaData().getDatabaseMinorVersion()), "
                             "String.valueOf(connection.getMetaData().getDatabaseMajorVersion()), new AbstractSessionLog() {", 1))
PY

echo "building the Ambari server in $OUT/src (log: $OUT/build.log)"
if ! nice -n 10 mvn "${MVN_FLAGS[@]}" -s "$OUT/settings.xml" -f mm2-aggregator.xml package dependency:copy-dependencies \
     -DskipTests -Dmaven.test.skip=true -Drat.skip=true -Dfindbugs.skip=true -Dcheckstyle.skip=true \
     -DassemblyPhase=none -DskipPythonTests -DincludeScope=runtime \
     -Dswagger.skip=true -Dswagger.spec.dir="$OUT/swagger-stub" -Dcontrib-views-dir="$OUT/no-contrib-views" \
     -Declipselink.version=2.7.15 > "$OUT/build.log" 2>&1; then
  grep -E "ERROR" "$OUT/build.log" | head -20
  echo "the Ambari server build failed: $OUT/build.log"
  exit 1
fi
mkdir -p "$OUT/lib.new"
cp ambari-server/target/dependency/*.jar "$OUT/lib.new/"
cp ambari-server/target/ambari-server-*.jar ambari-serviceadvisor/target/ambari-serviceadvisor-*.jar "$OUT/lib.new/"
rm -rf "$OUT/lib" && mv "$OUT/lib.new" "$OUT/lib"
end=$(date +%s)
{
  echo "build_seconds=$((end - start))"
  echo "lib_mb=$(du -sm "$OUT/lib" | cut -f1)"
  echo "src_and_target_mb=$(du -sm "$OUT/src" | cut -f1)"
  echo "m2_mb=$(du -sm "$HOME/.m2" 2>/dev/null | cut -f1)"
  echo "java=$(java -version 2>&1 | head -1)"
} > "$OUT/build-info"
echo "$stamp" > "$OUT/stamp"
cat "$OUT/build-info"
echo "$OUT"
