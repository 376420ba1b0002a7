#!/usr/bin/env bash
# The whole test suite from a fresh clone, setup included. Stages:
#   1. double, Python 3      every folder but the real-Kafka lanes, Ambari test double (.venv3, Python 3.11)
#   2. double, Python 2.7    every folder that runs on agents             (.venv27 target dir)
#   3. real Ambari 3         AMBARI_SUITES on ../shared/ambari/trunk      (.venv39, Python 3.9)
#   4. real Ambari 2.7.8     AMBARI_SUITES on ../shared/ambari/release-2.7.8 (Python 2.7, .venv27)
# Side by side with 1-4, from the start (each into its own log, printed at the end):
#   real Kafka A             tests/e2e                                    (REAL_KAFKA_A)
#   real Kafka B             tests/mm1 (but the real cutover) tests/versions (REAL_KAFKA_B)
#   real Kafka C             tests/dr: failover + failback under the prefixed policy, the silent-loss case
#   real Kafka D             tests/dr: failover + failback under the identity policy; tests/alerts_real;
#                            the live retire case and the real MM1 cutover
#                            (C and D: MM2_DR_CASES, unless set: CI_DR_CASES_C / CI_DR_CASES_D below)
#   real Ambari server       bash tests/realserver/run.sh (builds the server from ../shared/ambari-src, or reuses it)
# The real-Kafka lanes use official Kafka distributions and artifacts assembled from Maven Central
# (tests/realkafka/dists.py, artifacts.py; cached outside the project) and skip with a reason without them.
# Stages 3 and 4 run side by side and need ../shared/ambari (a folder holding trunk/
# and release-2.7.8/, Ambari's own Python in checkout layout); absent, they are skipped with a
# message. To test against your own Ambari checkout, run one stage by hand:
#   MM2_AMBARI_SRC=/path/to/ambari .venv39/bin/python -m pytest tests/agent
# Usage: bash tests/run.sh [extra pytest args]      (the extra args go to every stage)
# Exit code: non-zero when any stage fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# Every suite whose code runs inside Ambari (agent scripts, the harness and its double, the
# service advisor, the alert scripts, install-mpack). Add a folder here when it touches Ambari.
AMBARI_SUITES=(tests/harness_tests tests/agent tests/advisor tests/alerts tests/build)
# The real-Kafka folders (each PY3_ONLY, minutes of JVMs each): three lanes beside the double stages.
# Balanced by the rehearsal of 2026-11-26 (load ~13): mm1 + live took 20 min, e2e ~8 min a case, a DR
# lane ~31 min; tests/versions then grew by the logged-config check (~90 s a version) and tests/live by
# its offsets and retire cases, so live moved beside lane C's DR cases. The CI of 2026-11-26 (3605 s): C took
# 55 min and D 37, so the connect-mode retire case (~5 min alone) runs in D.
REAL_KAFKA_A=(tests/e2e)
# The r6 rehearsal of 2026-11-27 (--durations): B 58 min (lifecycle 4.3.1 18 min, 2.8.2 11, logged config 20, the
# MM1 cutover 7), C 58, D 48, A 55 without its reruns: the MM1 cutover moved to D.
REAL_KAFKA_B=(tests/mm1 tests/versions --ignore=tests/mm1/test_cutover_real.py)
REAL_KAFKA_C=(tests/dr tests/live --ignore=tests/live/test_connect_retire.py)
REAL_KAFKA_D=(tests/dr tests/alerts_real tests/live/test_connect_retire.py tests/mm1/test_cutover_real.py)
# The DR cases of C and D (tests/dr/test_failover.py's MM2_DR_CASES; an MM2_DR_CASES of the caller wins):
# both replication policies, one lane each (a case takes 15-35 min on the 2-core host).
CI_DR_CASES_C=${MM2_DR_CASES:-trunk-prefixed silent-loss}
CI_DR_CASES_D=${MM2_DR_CASES:-trunk-identity}

PY3=${MM2_PY3:-python3}
PY27=${MM2_PY27:-$(PYENV_VERSION=2.7.18 pyenv which python 2>/dev/null || command -v python2.7 || true)}
PY39=${MM2_PY39:-$(PYENV_VERSION=3.9.18 pyenv which python 2>/dev/null || command -v python3.9 || true)}
AMBARI_ROOT=$ROOT/../shared/ambari   # trunk/ and release-2.7.8/ (see ../shared/ambari/README.md)
PIP_QUIET=(-q --disable-pip-version-check)

stage() { echo; echo "== $*"; STAGE_START=$(date +%s); }
stage_done() { echo "== $1: $2 ($(( $(date +%s) - STAGE_START ))s)"; }

# ---- setup
stage "setup: Python 3 ($($PY3 --version 2>&1))"
[ -x .venv3/bin/python ] || "$PY3" -m venv .venv3
.venv3/bin/python -m pip install "${PIP_QUIET[@]}" -r requirements-test.txt
.venv3/bin/python -m pip install "${PIP_QUIET[@]}" --no-deps -e .

if [ -z "$PY27" ] || [ ! -x "$PY27" ]; then
  echo "Python 2.7 not found: install it (pyenv install 2.7.18) or set MM2_PY27=/path/to/python2.7" >&2
  exit 1
fi
stage "setup: Python 2.7 ($("$PY27" --version 2>&1))"
"$PY27" -m pip install "${PIP_QUIET[@]}" --target .venv27 -r requirements-test-py27.txt

# Ambari trunk's agent library needs `distro` (the agent package's python3-distro): the end-to-end suites
# run trunk's scripts under Python 3.9 with this directory on PYTHONPATH (tests/e2e/agent.py).
PY39=${PY39:-$(PYENV_VERSION=3.9.18 pyenv which python 2>/dev/null || command -v python3.9 || true)}
if [ -n "$PY39" ] && [ -x "$PY39" ]; then
  echo "== setup: Ambari trunk agent packages for $("$PY39" --version 2>&1)"
  "$PY39" -m pip install -q --disable-pip-version-check --target .venv-agent39 -r requirements-agent-py39.txt
fi

# Official Kafka distributions (the default 3.9, and the matrix's 2.8.2 and newest 4.x) and the JMX exporter
# agents and Spark's Kafka connector, from Maven Central into the cache (reused when present); without Maven
# Central the real-Kafka tests skip and say why.
stage "setup: official Kafka distributions and artifacts (Maven Central, cached)"
# Under CI (CI set) a distribution or artifact that cannot be built fails the run: its tests would otherwise
# skip, and a lane of skips would pass.
status=0
if ! .venv3/bin/python tests/realkafka/dists.py build 3.9 2.8.2 4; then
  echo "(some Kafka distributions could not be built: their tests skip)"
  if [ -n "${CI:-}" ]; then echo "== FAILED: CI needs every official Kafka distribution (see the error above)"; status=1; fi
fi
if ! .venv3/bin/python tests/realkafka/artifacts.py; then
  echo "(some artifacts could not be built: their tests skip)"
  if [ -n "${CI:-}" ]; then echo "== FAILED: CI needs every artifact (see the error above)"; status=1; fi
fi

LANES=$(mktemp -d)
# CI shows a failed run's head and tail only: every failed test's name and error lines are recapped at the end.
RECAP=$(mktemp)
recap() {  # name, log: the failed tests' names and error lines (pytest 4 on Python 2.7 prints no FAILED summary)
  if grep -qE '^(FAILED|ERROR) |^E  ' "$2"; then
    { echo "-- $1"; grep -E '^(FAILED|ERROR) ' "$2" | head -20 || true
      grep -E '^_{3,} .+ _{3,}$|^E  ' "$2" | head -60 || true; } >> "$RECAP"
  fi
}
# Each real-Kafka lane prints its ten slowest tests (--durations=10): where a lane's time goes, from CI's own log.
lane() {  # name, log file, command...: in the background, result line appended to its log
  local name=$1 log=$2; shift 2
  (
    start=$(date +%s)
    if "$@" > "$log" 2>&1; then result=passed; else result=FAILED; fi
    echo "== $name: $result ($(( $(date +%s) - start ))s)" >> "$log"
    [ "$result" = passed ]
  ) &
}
lane "real Kafka A (${REAL_KAFKA_A[*]})" "$LANES/kafka-a.log" \
  .venv3/bin/python -m pytest -p no:cacheprovider --durations=10 "${REAL_KAFKA_A[@]}" "$@"
kafka_a_pid=$!
lane "real Kafka B (${REAL_KAFKA_B[*]})" "$LANES/kafka-b.log" \
  .venv3/bin/python -m pytest -p no:cacheprovider --durations=10 "${REAL_KAFKA_B[@]}" "$@"
kafka_b_pid=$!
lane "real Kafka C (${REAL_KAFKA_C[*]}: $CI_DR_CASES_C)" "$LANES/kafka-c.log" \
  env MM2_DR_CASES="$CI_DR_CASES_C" .venv3/bin/python -m pytest -p no:cacheprovider --durations=10 "${REAL_KAFKA_C[@]}" "$@"
kafka_c_pid=$!
lane "real Kafka D (${REAL_KAFKA_D[*]}: $CI_DR_CASES_D)" "$LANES/kafka-d.log" \
  env MM2_DR_CASES="$CI_DR_CASES_D" .venv3/bin/python -m pytest -p no:cacheprovider --durations=10 "${REAL_KAFKA_D[@]}" "$@"
kafka_d_pid=$!
lane "real Ambari server (tests/realserver/run.sh)" "$LANES/realserver.log" \
  env MM2_PY3="$ROOT/.venv3/bin/python" MM2_REALSERVER_WEBUI="${MM2_REALSERVER_WEBUI:-1}" nice -n 5 bash tests/realserver/run.sh "$@"
realserver_pid=$!
finish_lanes() {
  wait $kafka_a_pid || status=1
  wait $kafka_b_pid || status=1
  wait $kafka_c_pid || status=1
  wait $kafka_d_pid || status=1
  wait $realserver_pid || status=1
  for lane_log in kafka-a kafka-b kafka-c kafka-d realserver; do
    echo; echo "== lane log: $lane_log"; cat "$LANES/$lane_log.log"; recap "lane $lane_log" "$LANES/$lane_log.log"
  done
  rm -rf "$LANES"
}

print_recap() {
  if [ -s "$RECAP" ]; then echo; echo "== failures, recapped from the logs above"; cat "$RECAP"; fi
  rm -f "$RECAP"
}

run_stage() {  # name, then the command (its output also goes to a log, for the recap)
  local name=$1; shift
  stage "tests: $name"
  local log; log=$(mktemp)
  if "$@" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" = 0 ]; then stage_done "$name" "passed"
  else stage_done "$name" "FAILED"; status=1; fi
  recap "$name" "$log"; rm -f "$log"
}

# ---- 1 and 2: the double
IGNORE_LANES=()
for folder in "${REAL_KAFKA_A[@]}" "${REAL_KAFKA_B[@]}" "${REAL_KAFKA_C[@]}" "${REAL_KAFKA_D[@]}"; do
  case "$folder" in --*) ;; *) IGNORE_LANES+=(--ignore="$folder");; esac
done
# When stages 3 and 4 run, the doubles leave AMBARI_SUITES to them but for the tests of the double's own
# machinery (tests/conftest.py, MM2_REAL_AMBARI_RUNS): the real stages run the same tests on the same two Python
# lines against Ambari's real libraries (the CI of 2026-11-27 ran those 945 tests four times, 64 min in all).
DOUBLE_ENV=()
if [ -d "$AMBARI_ROOT/trunk" ] && [ -d "$AMBARI_ROOT/release-2.7.8" ]; then
  DOUBLE_ENV=(MM2_REAL_AMBARI_RUNS="${AMBARI_SUITES[*]}")
  echo "== the doubles leave ${AMBARI_SUITES[*]} to the real Ambari stages (but the double's own tests)"
fi
# The two doubles side by side (the rehearsal of 2026-11-27: Python 3 took 38 min and 2.7 8 min one after the
# other, and with the real Ambari stages after them that chain, not a lane, ended the run at 55 min).
PY27_LOG=$(mktemp)
(
  start=$(date +%s)
  if env "${DOUBLE_ENV[@]}" PYTHONPATH="$ROOT/.venv27" "$PY27" -m pytest -p no:cacheprovider "$@" > "$PY27_LOG" 2>&1; then r=passed; else r=FAILED; fi
  echo "== double, Python 2.7: $r ($(( $(date +%s) - start ))s)" >> "$PY27_LOG"
  [ "$r" = passed ]
) &
py27_pid=$!
# Its fifteen slowest tests too: the rehearsal of 2026-11-27 (r8) took 45 min for it at load ~18.
run_stage "double, Python 3" env "${DOUBLE_ENV[@]}" .venv3/bin/python -m pytest -p no:cacheprovider --durations=15 "${IGNORE_LANES[@]}" "$@"
wait $py27_pid || status=1
echo; echo "== tests: double, Python 2.7 (beside Python 3)"; cat "$PY27_LOG"; recap "double, Python 2.7" "$PY27_LOG"
rm -f "$PY27_LOG"

# ---- 3 and 4: real Ambari
if [ ! -d "$AMBARI_ROOT/trunk" ] || [ ! -d "$AMBARI_ROOT/release-2.7.8" ]; then
  echo
  echo "== SKIPPED real Ambari stages: $AMBARI_ROOT/{trunk,release-2.7.8} not found" \
       "(see ../shared/ambari/README.md; run one suite on your own checkout with MM2_AMBARI_SRC)"
  finish_lanes
  print_recap
  exit $status
fi
if [ -z "$PY39" ] || [ ! -x "$PY39" ]; then
  echo "Python 3.9 not found (Ambari 3's vendored Jinja needs 3.9/3.10): pyenv install 3.9.18 or set MM2_PY39=/path/to/python3.9" >&2
  exit 1
fi
stage "setup: Python 3.9 for Ambari 3 ($("$PY39" --version 2>&1))"
[ -x .venv39/bin/python ] || "$PY39" -m venv .venv39
.venv39/bin/python -m pip install "${PIP_QUIET[@]}" -r requirements-test-ambari3.txt

# The two real-Ambari stages run side by side (their tests mostly wait for processes), each
# into its own log, printed when both are done. tests/conftest.py deselects the tests of the
# double's own machinery there (nothing of the double to test).
LOGS=$(mktemp -d)
real_stage() {  # name, log file, command...
  local name=$1 log=$2; shift 2
  (
    start=$(date +%s)
    if "$@" > "$log" 2>&1; then result=passed; else result=FAILED; fi
    echo "== $name: $result ($(( $(date +%s) - start ))s)" >> "$log"
    [ "$result" = passed ]
  ) &
}
STAGE_START=$(date +%s)
real_stage "real Ambari 3 (trunk), Python 3.9" "$LOGS/trunk.log" \
  env MM2_AMBARI_SRC="$AMBARI_ROOT/trunk" .venv39/bin/python -m pytest -p no:cacheprovider -W ignore::DeprecationWarning \
  "${AMBARI_SUITES[@]}" "$@"
trunk_pid=$!
real_stage "real Ambari 2.7.8, Python 2.7" "$LOGS/release-2.7.8.log" \
  env MM2_AMBARI_SRC="$AMBARI_ROOT/release-2.7.8" PYTHONPATH="$ROOT/.venv27" "$PY27" -m pytest -p no:cacheprovider \
  "${AMBARI_SUITES[@]}" "$@"
r278_pid=$!
wait $trunk_pid || status=1
wait $r278_pid || status=1
for line in trunk release-2.7.8; do
  echo; echo "== tests: real Ambari $line"; cat "$LOGS/$line.log"; recap "real Ambari $line" "$LOGS/$line.log"
done
rm -rf "$LOGS"
stage_done "real Ambari stages (both, side by side)" "$([ $status = 0 ] && echo passed || echo 'see above')"
finish_lanes
print_recap
echo
echo "== all stages: $([ $status = 0 ] && echo passed || echo 'FAILED (see above)')"
exit $status
