#!/usr/bin/env bash
# The whole test suite from a fresh clone, setup included. After the setup, every stage runs as a lane, side by
# side, each in the background into its own log (printed at the end), each in a cpuacct cgroup of its own:
#   double, Python 3         every folder but the real-Kafka lanes', Ambari test double (.venv3, Python 3.11), no JVM,
#                            in two lanes (tests/newcomer tests/rest tests/tools; every other folder)
#   double, Python 2.7       every folder that runs on agents             (.venv27 target dir), no JVM
#   real Ambari 3            AMBARI_SUITES on ../shared/ambari/trunk      (.venv39, Python 3.9)
#   real Ambari 2.7.8        AMBARI_SUITES on ../shared/ambari/release-2.7.8 (Python 2.7, .venv27)
#   real Kafka A             tests/e2e, tests/dr's silent-loss case       (REAL_KAFKA_A)
#   real Kafka B             tests/mm1 (but the real cutover) tests/versions (REAL_KAFKA_B)
#   real Kafka C             tests/dr: failover + failback under the prefixed policy; tests/live
#   real Kafka D             tests/dr: failover + failback under the identity policy; tests/alerts_real;
#                            the live retire case and the real MM1 cutover
#                            (C and D: MM2_DR_CASES, unless set: CI_DR_CASES_C / CI_DR_CASES_D below)
#   JVM tests                the `jvm` tests of the double's folders (Spark, javac, java, Kafka: tests/conftest.py JVM_TESTS)
#   real Ambari server       bash tests/realserver/run.sh (builds the server from ../shared/ambari-src, or reuses it)
# The end of the output: the failures recapped, then one table of every stage's and lane's wall time and CPU
# seconds, and the whole run against its budget (BUDGET_MIN; a loud warning past WARN_MIN). Each pytest prints the
# 15 tests that cost it the most CPU (tests/cost_report.py).
# The real-Kafka lanes use official Kafka distributions and artifacts assembled from Maven Central
# (tests/realkafka/dists.py, artifacts.py; cached outside the project) and skip with a reason without them.
# The real-Ambari stages need ../shared/ambari (a folder holding trunk/ and release-2.7.8/, Ambari's own Python in
# checkout layout); absent, they are skipped with a message. To test against your own Ambari checkout, run one
# suite by hand:
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
REAL_KAFKA_A=(tests/e2e tests/dr/test_silent_loss.py)
# The r6 rehearsal of 2026-11-27 (--durations): B 58 min (lifecycle 4.3.1 18 min, 2.8.2 11, logged config 20, the
# MM1 cutover 7), C 58, D 48, A 55 without its reruns: the MM1 cutover moved to D.
REAL_KAFKA_B=(tests/mm1 tests/versions --ignore=tests/mm1/test_cutover_real.py)
REAL_KAFKA_C=(tests/dr tests/live --ignore=tests/live/test_connect_retire.py)
REAL_KAFKA_D=(tests/dr tests/alerts_real tests/live/test_connect_retire.py tests/mm1/test_cutover_real.py)
# The DR cases of C and D (tests/dr/test_failover.py's MM2_DR_CASES; an MM2_DR_CASES of the caller wins):
# both replication policies, one lane each (a case takes 15-35 min on the 2-core host); the silent-loss case in A
# (reh3: C, the prefixed case and live, was the longest lane at 45 min, A the shortest at 34).
CI_DR_CASES_C=${MM2_DR_CASES:-trunk-prefixed}
CI_DR_CASES_A=${MM2_DR_CASES:-silent-loss}
CI_DR_CASES_D=${MM2_DR_CASES:-trunk-identity}
# The short sequence of tests/versions (CI_SHORT_VERSIONS there): 3.2.3 and 4.0 in lane B beside the full case set;
# 3.4.1 and 3.6.2, which also restart MM2 behind a group and export, gate and fail it over (~4 min each, issue 37),
# one each in lanes A and D (their own cluster pair; the lane's other tests keep the session's)
SHORT_B="3.2.3 4.0"; SHORT_A="3.4.1"; SHORT_D="3.6.2"
REAL_KAFKA_A+=(tests/versions/test_logged_config.py)
REAL_KAFKA_D+=(tests/versions/test_logged_config.py)

PY3=${MM2_PY3:-python3}
PY27=${MM2_PY27:-$(PYENV_VERSION=2.7.18 pyenv which python 2>/dev/null || command -v python2.7 || true)}
PY39=${MM2_PY39:-$(PYENV_VERSION=3.9.18 pyenv which python 2>/dev/null || command -v python3.9 || true)}
AMBARI_ROOT=$ROOT/../shared/ambari   # trunk/ and release-2.7.8/ (see ../shared/ambari/README.md)
PIP_QUIET=(-q --disable-pip-version-check)

# ---- what each stage and lane costs: wall time and CPU (user + system of every process it started, brokers and
# MirrorMaker included however they detach), from a cpuacct cgroup of its own under one for the run; printed as one
# table at the end (and each pytest prints its 15 costliest tests: tests/cost_report.py). Without cgroups (not root)
# the CPU column says n/a.
RUN_START=${MM2_CI_START:-$(date +%s)}   # .ci/run sets it before the build: the budget counts the whole run
BUDGET_MIN=40; WARN_MIN=45
COSTS=$(mktemp)
CG_RUN=""
if [ -w /sys/fs/cgroup/cpuacct/cgroup.procs ] && mkdir -p "/sys/fs/cgroup/cpuacct/mm2-tests-$$" 2>/dev/null &&
   echo $$ > "/sys/fs/cgroup/cpuacct/mm2-tests-$$/cgroup.procs" 2>/dev/null; then
  CG_RUN=/sys/fs/cgroup/cpuacct/mm2-tests-$$
fi
cg_make() {  # name: a cgroup for it under the run's (its path, or "" without cgroups)
  local dir
  [ -n "${CG_RUN:-}" ] || { echo ""; return 0; }
  dir="$CG_RUN/$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_')"
  mkdir -p "$dir" 2>/dev/null && echo "$dir" || echo ""
}
cg_ns() { if [ -n "${1:-}" ] && [ -r "$1/cpuacct.usage" ]; then cat "$1/cpuacct.usage"; else echo ""; fi; }
cg_cpu() { local ns; ns=$(cg_ns "${1:-}"); if [ -n "$ns" ]; then echo $(( ns / 1000000000 )); else echo n/a; fi; }
in_cg() {  # cgroup, command...: the command (and all it starts) in that cgroup, named to it in MM2_CPU_CGROUP
  local cg=$1; shift
  if [ -n "$cg" ]; then
    sh -c 'echo $$ > "$0/cgroup.procs" 2>/dev/null && export MM2_CPU_CGROUP="$0"; exec "$@"' "$cg" "$@"
  else "$@"; fi
}
cost() { [ -z "${COSTS:-}" ] || printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$COSTS"; }   # name, result, wall s, CPU s
stage() { echo; echo "== $*"; STAGE_START=$(date +%s); STAGE_NS=$(cg_ns "${CG_RUN:-}"); }
stage_done() {  # name, result; the CPU of a stage run in the script's own cgroup (setup: nothing else runs yet)
  local wall=$(( $(date +%s) - STAGE_START )) cpu=n/a now
  now=$(cg_ns "${CG_RUN:-}"); [ -n "$now" ] && [ -n "${STAGE_NS:-}" ] && cpu=$(( (now - STAGE_NS) / 1000000000 ))
  echo "== $1: $2 (${wall}s)"
  [ "${3:-}" = nocost ] || cost "$1" "$2" "$wall" "$cpu"
}
print_costs() {  # the table of every stage and lane, then the run against its budget
  local total=$(( $(date +%s) - RUN_START )) cpu
  cpu=$(cg_cpu "${CG_RUN:-}")
  echo; echo "== cost of every stage and lane (wall and CPU seconds; side by side ones overlap in wall time)"
  printf '%-58s %-7s %7s %7s\n' "stage or lane" result wall CPU
  while IFS=$'\t' read -r name result wall c; do printf '%-58s %-7s %7s %7s\n' "$name" "$result" "$wall" "$c"; done < "$COSTS"
  printf '%-58s %-7s %7s %7s\n' "the whole run (from .ci/run's start)" "" "$total" "$cpu"
  echo "== CI time: $(( total / 60 )) min $(( total % 60 )) s of the ${BUDGET_MIN} min budget ($(( total * 100 / (BUDGET_MIN * 60) ))%); CI's hard limit is 90 min"
  if [ "$total" -gt $(( WARN_MIN * 60 )) ]; then
    echo "!!!!! WARNING: this run took $(( total / 60 )) min, past the ${WARN_MIN} min warning line (budget ${BUDGET_MIN} min," \
         "CI's hard limit 90): read the table above for what grew, and cut work before adding tests !!!!!"
  fi
  rm -f "$COSTS"
}
cg_cleanup() {  # the run's cgroups, once their processes are gone (best effort)
  [ -n "${CG_RUN:-}" ] || return 0
  echo $$ > /sys/fs/cgroup/cpuacct/cgroup.procs 2>/dev/null || true
  for dir in "$CG_RUN"/*/ "$CG_RUN"; do rmdir "$dir" 2>/dev/null || true; done
}
trap cg_cleanup EXIT

# ---- setup
stage "setup: Python 3 ($($PY3 --version 2>&1))"
[ -x .venv3/bin/python ] || "$PY3" -m venv .venv3
.venv3/bin/python -m pip install "${PIP_QUIET[@]}" -r requirements-test.txt
.venv3/bin/python -m pip install "${PIP_QUIET[@]}" --no-deps -e .
stage_done "setup: Python 3" passed

if [ -z "$PY27" ] || [ ! -x "$PY27" ]; then
  echo "Python 2.7 not found: install it (pyenv install 2.7.18) or set MM2_PY27=/path/to/python2.7" >&2
  exit 1
fi
stage "setup: Python 2.7 ($("$PY27" --version 2>&1))"
"$PY27" -m pip install "${PIP_QUIET[@]}" --target .venv27 -r requirements-test-py27.txt
stage_done "setup: Python 2.7" passed

# Ambari trunk's agent library needs `distro` (the agent package's python3-distro): the end-to-end suites
# run trunk's scripts under Python 3.9 with this directory on PYTHONPATH (tests/e2e/agent.py).
PY39=${PY39:-$(PYENV_VERSION=3.9.18 pyenv which python 2>/dev/null || command -v python3.9 || true)}
if [ -n "$PY39" ] && [ -x "$PY39" ]; then
  echo "== setup: Ambari trunk agent packages for $("$PY39" --version 2>&1)"
  "$PY39" -m pip install -q --disable-pip-version-check --target .venv-agent39 -r requirements-agent-py39.txt
fi

if [ -z "$PY39" ] || [ ! -x "$PY39" ]; then
  echo "Python 3.9 not found (Ambari 3's vendored Jinja needs 3.9/3.10): pyenv install 3.9.18 or set MM2_PY39=/path/to/python3.9" >&2
  exit 1
fi
stage "setup: Python 3.9 for Ambari 3 ($("$PY39" --version 2>&1))"
[ -x .venv39/bin/python ] || "$PY39" -m venv .venv39
.venv39/bin/python -m pip install "${PIP_QUIET[@]}" -r requirements-test-ambari3.txt
stage_done "setup: Python 3.9" passed

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
stage_done "setup: Kafka distributions and artifacts" "$([ $status = 0 ] && echo passed || echo FAILED)"

LANES=$(mktemp -d)
# CI shows a failed run's head and tail only: every failed test's name and error lines are recapped at the end.
RECAP=$(mktemp)
recap() {  # name, log: the failed tests' names and error lines (pytest 4 on Python 2.7 prints no FAILED summary)
  if grep -qE '^(FAILED|ERROR) |^E  ' "$2"; then
    { echo "-- $1"; grep -E '^(FAILED|ERROR) ' "$2" | head -20 || true
      grep -E '^_{3,} .+ _{3,}$|^E  ' "$2" | head -60 || true; } >> "$RECAP"
  fi
}
lane() {  # name, log file, command...: in the background in a cgroup of its own, result line appended to its log
  local name=$1 log=$2 cg; shift 2
  cg=$(cg_make "$name")
  (
    start=$(date +%s)
    if in_cg "$cg" "$@" > "$log" 2>&1; then result=passed; else result=FAILED; fi
    wall=$(( $(date +%s) - start ))
    echo "== $name: $result (${wall}s, $(cg_cpu "$cg") CPU s)" >> "$log"
    cost "$name" "$result" "$wall" "$(cg_cpu "$cg")"
    [ "$result" = passed ]
  ) &
  LANE_PIDS+=($!); LANE_LOGS+=("$log"); LANE_NAMES+=("$name")
}
LANE_PIDS=(); LANE_LOGS=(); LANE_NAMES=()
finish_lanes() {  # wait for every lane, then print each one's log (and recap its failures)
  local i
  for i in "${!LANE_PIDS[@]}"; do wait "${LANE_PIDS[$i]}" || status=1; done
  for i in "${!LANE_PIDS[@]}"; do
    echo; echo "== lane log: ${LANE_NAMES[$i]}"; cat "${LANE_LOGS[$i]}"; recap "lane ${LANE_NAMES[$i]}" "${LANE_LOGS[$i]}"
  done
  LANE_PIDS=(); LANE_LOGS=(); LANE_NAMES=()
}
PYTEST3=(.venv3/bin/python -m pytest -p no:cacheprovider)
# The folders of the double stages (every folder but the real-Kafka lanes'): their `jvm` tests run in lane J.
IGNORE_LANES=()
for folder in "${REAL_KAFKA_A[@]}" "${REAL_KAFKA_B[@]}" "${REAL_KAFKA_C[@]}" "${REAL_KAFKA_D[@]}"; do
  case "$folder" in --*) ;; *) IGNORE_LANES+=(--ignore="$folder");; esac
done
# The JVM lanes run behind the pure-Python stages in the CPU's queue (nice 10; the real server's lane at 5): the
# scheduler shares the CPU by runnable thread, and two dozen JVM threads at equal priority left the Python 3 double
# 0.16 of a core (reh3 at nice 3: 1119 s for 126 CPU s; reh4 at nice 10: 333 s). A pure stage is one or two
# threads, so the JVM lanes still get most of the CPU while the doubles end within minutes; the total work, so the
# run's wall time, stays the same. Not further: at nice 15 (reh5, every JVM lane) a Spark job of lane J, starved
# beside Chromium (which sets its own priorities) and the real-Ambari stages, ran past its 300 s bound.
HEAVY=(nice -n "${MM2_HEAVY_NICE:-10}")
lane "real Kafka A (${REAL_KAFKA_A[*]}: $SHORT_A)" "$LANES/kafka-a.log" \
  env MM2_DR_CASES="$CI_DR_CASES_A" MM2_TEST_KAFKA_VERSIONS=none MM2_TEST_KAFKA_SHORT_VERSIONS="$SHORT_A" \
  "${HEAVY[@]}" "${PYTEST3[@]}" "${REAL_KAFKA_A[@]}" "$@"
lane "real Kafka B (${REAL_KAFKA_B[*]}: short $SHORT_B)" "$LANES/kafka-b.log" \
  env MM2_TEST_KAFKA_SHORT_VERSIONS="$SHORT_B" "${HEAVY[@]}" "${PYTEST3[@]}" "${REAL_KAFKA_B[@]}" "$@"
lane "real Kafka C (${REAL_KAFKA_C[*]}: $CI_DR_CASES_C)" "$LANES/kafka-c.log" \
  env MM2_DR_CASES="$CI_DR_CASES_C" "${HEAVY[@]}" "${PYTEST3[@]}" "${REAL_KAFKA_C[@]}" "$@"
lane "real Kafka D (${REAL_KAFKA_D[*]}: $CI_DR_CASES_D, $SHORT_D)" "$LANES/kafka-d.log" \
  env MM2_DR_CASES="$CI_DR_CASES_D" MM2_TEST_KAFKA_VERSIONS=none MM2_TEST_KAFKA_SHORT_VERSIONS="$SHORT_D" \
  "${HEAVY[@]}" "${PYTEST3[@]}" "${REAL_KAFKA_D[@]}" "$@"
lane "J: the jvm tests of the double's folders" "$LANES/jvm.log" \
  env MM2_TESTS=jvm MM2_REAL_AMBARI_RUNS="${AMBARI_SUITES[*]}" "${HEAVY[@]}" "${PYTEST3[@]}" "${IGNORE_LANES[@]}" "$@"
lane "real Ambari server (tests/realserver/run.sh)" "$LANES/realserver.log" \
  env MM2_PY3="$ROOT/.venv3/bin/python" MM2_REALSERVER_WEBUI="${MM2_REALSERVER_WEBUI:-1}" nice -n 5 bash tests/realserver/run.sh "$@"

print_recap() {
  if [ -s "$RECAP" ]; then echo; echo "== failures, recapped from the logs above"; cat "$RECAP"; fi
  rm -f "$RECAP"
}

run_stage() {  # name, then the command (its output also goes to a log, for the recap), in a cgroup of its own
  local name=$1; shift
  stage "tests: $name"
  local log cg r; log=$(mktemp); cg=$(cg_make "$name")
  if in_cg "$cg" "$@" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" = 0 ]; then r=passed; else r=FAILED; status=1; fi
  stage_done "$name" "$r" nocost
  cost "$name" "$r" "$(( $(date +%s) - STAGE_START ))" "$(cg_cpu "$cg")"
  recap "$name" "$log"; rm -f "$log"
}

# ---- the double and real-Ambari stages: pure Python, as lanes beside the real ones from the start
# The doubles leave the `jvm` tests to lane J (MM2_TESTS=nojvm) and fail when a test starts a JVM without the marker
# (MM2_JVM_GUARD=1: tests/cost_report.py). When the real-Ambari stages run, the doubles leave AMBARI_SUITES to them
# but for the tests of the double's own machinery (tests/conftest.py, MM2_REAL_AMBARI_RUNS): the real stages run the
# same tests on the same two Python lines against Ambari's real libraries, the stronger test of the same code.
DOUBLE_ENV=(MM2_TESTS=nojvm MM2_JVM_GUARD=1)
REAL_AMBARI=yes
if [ ! -d "$AMBARI_ROOT/trunk" ] || [ ! -d "$AMBARI_ROOT/release-2.7.8" ]; then
  REAL_AMBARI=""
  echo "== SKIPPED real Ambari stages: $AMBARI_ROOT/{trunk,release-2.7.8} not found" \
       "(see ../shared/ambari/README.md; run one suite on your own checkout with MM2_AMBARI_SRC)"
else
  DOUBLE_ENV+=(MM2_REAL_AMBARI_RUNS="${AMBARI_SUITES[*]}")
  echo "== the doubles leave ${AMBARI_SUITES[*]} to the real Ambari stages (but the double's own tests)"
fi
# The Python 3 double in two lanes, each one thread beside the JVM lanes (reh4 and reh5: one lane took 5.6-6.2 min
# for 80-100 CPU s): the folders of processes and sockets (a wheel installed and run, the fake Ambari's REST
# calls, the command-line tools), then the rest.
DOUBLE_PY3_FIRST=(tests/newcomer tests/rest tests/tools)
DOUBLE_PY3_REST=("${IGNORE_LANES[@]}")
for folder in "${DOUBLE_PY3_FIRST[@]}"; do DOUBLE_PY3_REST+=(--ignore="$folder"); done
lane "double, Python 3 (${DOUBLE_PY3_FIRST[*]})" "$LANES/double-py3-first.log" \
  env "${DOUBLE_ENV[@]}" "${PYTEST3[@]}" "${DOUBLE_PY3_FIRST[@]}" "$@"
lane "double, Python 3 (every other folder)" "$LANES/double-py3.log" \
  env "${DOUBLE_ENV[@]}" "${PYTEST3[@]}" "${DOUBLE_PY3_REST[@]}" "$@"
lane "double, Python 2.7" "$LANES/double-py27.log" \
  env "${DOUBLE_ENV[@]}" PYTHONPATH="$ROOT/.venv27" "$PY27" -m pytest -p no:cacheprovider "$@"
if [ -n "$REAL_AMBARI" ]; then
  lane "real Ambari 3 (trunk), Python 3.9" "$LANES/trunk.log" \
    env MM2_AMBARI_SRC="$AMBARI_ROOT/trunk" .venv39/bin/python -m pytest -p no:cacheprovider -W ignore::DeprecationWarning \
    "${AMBARI_SUITES[@]}" "$@"
  lane "real Ambari 2.7.8, Python 2.7" "$LANES/release-2.7.8.log" \
    env MM2_AMBARI_SRC="$AMBARI_ROOT/release-2.7.8" PYTHONPATH="$ROOT/.venv27" "$PY27" -m pytest -p no:cacheprovider \
    "${AMBARI_SUITES[@]}" "$@"
fi
finish_lanes
rm -rf "$LANES"
print_recap
print_costs
echo
echo "== all stages: $([ $status = 0 ] && echo passed || echo 'FAILED (see above)')"
exit $status
