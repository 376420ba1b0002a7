#!/usr/bin/env bash
# Build Ambari's web UI (ambari-web) from source with npm, once; reuse the build while the sources are unchanged.
#
#   bash tests/realserver/webui/build_web.sh [ambari version]   -> prints the built web root (public/) last
#
# Sources: $MM2_AMBARI_WEB_SRC, default ../shared/ambari-src/trunk/ambari-web (read-only; copied first).
# Output:  $MM2_CACHE/ambari-web (default ~/.cache/mm2-mpack/ambari-web), outside the project:
#            src/          the copied sources, node_modules/, and public/ (what the server serves: webapp.dir)
#            driver/       playwright-core (the version pinned in this folder's package.json) for the tests
#            stamp         sha256 of the sources + this script + package.json + the version: equal -> reuse
#            build-info    wall time (s) and disk (MB) of node_modules, public and the driver
# Node:    the machine's node and npm (no Node download). Ambari's own build (ambari-web/pom.xml) runs
#          `yarn install --ignore-engines --pure-lockfile` with Node 4.5.0, then `node node_modules/brunch/bin/brunch
#          build`, then set-ambari-version.sh. Here, on Node 20:
#  - `npm install --omit=dev --ignore-scripts --legacy-peer-deps` (the brunch plugins declare node 0.x/4
#    engines: npm only warns; the devDependencies are karma/mocha/sinon for the UI's unit tests), with
#    babel-plugin-transform-object-assign moved from devDependencies to dependencies in the copy's package.json: the one
#    devDependency the build needs (brunch-config.js names it for babel-brunch);
#  - brunch-config.js of the copy gets `notifications = []`: brunch 1.7's logger sends every error to growl,
#    whose spawn of a notifier with the whole error text fails on Node 20 with "spawn E2BIG" and hides the
#    error itself (`false` does not switch it off in loggy; an empty list does). Nothing else changes.
#  - App.version is set to the server's version (set-ambari-version.sh, as the Maven build does), so the UI
#    shows no "version mismatch" alert.
#
# Exit codes: 0 built or reused; 3 cannot build here (sources, node or npm registry absent: the reason is
# printed, callers skip); other: the build failed (see $OUT/build.log).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
SRC=${MM2_AMBARI_WEB_SRC:-$ROOT/../shared/ambari-src/trunk/ambari-web}
CACHE=${MM2_CACHE:-$HOME/.cache/mm2-mpack}
OUT=$CACHE/ambari-web
VERSION=${1:-3.0.0.0}
SKIP=3

if [ ! -f "$SRC/package.json" ] || [ ! -f "$SRC/brunch-config.js" ]; then
  echo "SKIP: no ambari-web sources at $SRC (set MM2_AMBARI_WEB_SRC; see ../shared/ambari-src/README.md)"
  exit $SKIP
fi
for tool in node npm; do
  command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not found (Debian: apt-get install nodejs npm)"; exit $SKIP; }
done
SRC=$(cd "$SRC" && pwd)
mkdir -p "$OUT"

stamp=$( (cd "$SRC" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; \
          sha256sum "$HERE/build_web.sh" "$HERE/package.json" | cut -c1-64; node --version; echo "$VERSION") | sha256sum | cut -c1-64)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp" ] && [ -f "$OUT/src/public/javascripts/app.js" ] \
   && [ -d "$OUT/driver/node_modules/playwright-core" ]; then
  echo "reusing the ambari-web build in $OUT (sources unchanged: stamp ${stamp:0:12})"
  echo "$OUT/src/public"
  exit 0
fi
if ! npm ping >/dev/null 2>&1; then
  echo "SKIP: the npm registry is unreachable (npm ping failed)"
  exit $SKIP
fi

rm -f "$OUT/stamp"
start=$(date +%s)
rm -rf "$OUT/src"
cp -a "$SRC" "$OUT/src"
chmod -R u+w "$OUT/src"
cd "$OUT/src"
echo 'module.exports.config.notifications = [];' >> brunch-config.js
node -e '
const fs = require("fs"), p = JSON.parse(fs.readFileSync("package.json")), name = "babel-plugin-transform-object-assign";
if (!p.devDependencies[name]) { console.error("package.json: no devDependency " + name); process.exit(1); }
p.dependencies[name] = p.devDependencies[name]; delete p.devDependencies[name];
fs.writeFileSync("package.json", JSON.stringify(p, null, 2));'
npm_flags=(--no-audit --no-fund --ignore-scripts --legacy-peer-deps --loglevel=error)
echo "building ambari-web in $OUT/src (log: $OUT/build.log)"
{
  nice -n 10 npm install "${npm_flags[@]}" --omit=dev &&
  nice -n 10 node node_modules/brunch/bin/brunch build &&
  bash set-ambari-version.sh "$VERSION"
} > "$OUT/build.log" 2>&1 || { tail -c 3000 "$OUT/build.log"; echo; echo "the ambari-web build failed: $OUT/build.log"; exit 1; }
grep -q "App.version = '$VERSION';" public/javascripts/app.js || { echo "set-ambari-version.sh did not set App.version"; exit 1; }

mkdir -p "$OUT/driver"
cp "$HERE/package.json" "$OUT/driver/package.json"
(cd "$OUT/driver" && nice -n 10 npm install "${npm_flags[@]}" --omit=dev) >> "$OUT/build.log" 2>&1 \
  || { tail -20 "$OUT/build.log"; echo "installing playwright-core failed: $OUT/build.log"; exit 1; }
end=$(date +%s)
{
  echo "build_seconds=$((end - start))"
  echo "node_modules_mb=$(du -sm "$OUT/src/node_modules" | cut -f1)"
  echo "public_mb=$(du -sm "$OUT/src/public" | cut -f1)"
  echo "driver_mb=$(du -sm "$OUT/driver" | cut -f1)"
  echo "node=$(node --version) npm=$(npm --version)"
} > "$OUT/build-info"
echo "$stamp" > "$OUT/stamp"
cat "$OUT/build-info"
echo "$OUT/src/public"
