#!/usr/bin/env bash
# The real-Ambari-server suite in one command: build the server from ../shared/ambari-src (or reuse the
# build: tests/realserver/build.sh), then run tests/realserver against it.
#   bash tests/realserver/run.sh [pytest args]
# Last line: "realserver: <pytest's counts> (server build: <built|reused|skipped>, <s>s; suite <s>s)".
# Without ../shared/ambari-src, Maven, Java or Maven Central it skips and says why (exit 0).
# Python: MM2_PY3, else .venv3/bin/python (tests/run.sh sets it up with requirements-test.txt), else python3.
set -uo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
PY=${MM2_PY3:-}
[ -z "$PY" ] && { [ -x .venv3/bin/python ] && PY=.venv3/bin/python || PY=$(command -v python3); }

build_out=$(bash tests/realserver/build.sh 2>&1); rc=$?
build_s=$(( $(date +%s) - start ))
echo "$build_out" | tail -8
if [ $rc -eq 3 ]; then
  echo "realserver: 0 passed, skipped: $(echo "$build_out" | tail -1) (server build: skipped)"
  exit 0
elif [ $rc -ne 0 ]; then
  echo "realserver: 0 passed, 1 error: the server build failed (server build: failed, ${build_s}s)"
  exit 1
fi
case "$build_out" in *reusing*) how=reused;; *) how=built;; esac
export MM2_REALSERVER_HOME=$(echo "$build_out" | tail -1)

log=$(mktemp)
t0=$(date +%s)
"$PY" -m pytest -p no:cacheprovider tests/realserver "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
counts=$(tail -1 "$log" | sed -e 's/=//g' -e 's/^ *//' -e 's/ *$//')
rm -f "$log"
echo "realserver: $counts (server build: $how, ${build_s}s; suite $(( $(date +%s) - t0 ))s)"
exit $status
