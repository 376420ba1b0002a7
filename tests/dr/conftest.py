"""Fixtures of the disaster-recovery suite: the built mpack and the drivers of tests/e2e, and clusters of its own
(a case stops and restarts cluster A, so A is never shared with another case).

Which cases run: MM2_DR_CASES="trunk-prefixed silent-loss" (space or comma separated case names, see CASE_NAMES),
"all" for every case; default CI_CASES (the failover and failback on trunk with the prefixed policy, and the silent
loss). Each failover+failback case takes 22-25 min on a loaded 2-core host (trunk-prefixed with mm2-verify of both
directions: 23.6 min; trunk-identity: 22-24.5 min at load ~15, 34.2 min at load ~20 with every record once on both
clusters), so trunk-identity runs in CI in a lane of its own (tests/run.sh lane real Kafka D). A case left out is skipped, naming the knob."""
import os
import re

import pytest

from e2e.conftest import drivers, mpack, require_line  # noqa: F401 (fixtures)
from realkafka import cluster as rk

# Case name -> the test it selects: test_failover.py's parametrize ids, and test_silent_loss.py.
CASE_NAMES = ("2.7.8-identity", "trunk-prefixed", "trunk-identity", "silent-loss")
CI_CASES = ("trunk-prefixed", "silent-loss")
KNOB = "MM2_DR_CASES"


def selected_cases(environ=None):
    asked = (os.environ if environ is None else environ).get(KNOB, "").strip()
    if asked == "all":
        return CASE_NAMES
    names = tuple(n for n in re.split(r"[\s,]+", asked) if n) if asked else CI_CASES
    unknown = [n for n in names if n not in CASE_NAMES]
    if unknown:
        raise pytest.UsageError("%s=%r: unknown case %s; use 'all' or some of: %s"
                                % (KNOB, asked, ", ".join(unknown), " ".join(CASE_NAMES)))
    return names


def _case_of(item):
    if item.fspath.basename == "test_silent_loss.py":
        return "silent-loss"
    callspec = getattr(item, "callspec", None)
    return callspec.id if callspec is not None else None


def pytest_collection_modifyitems(config, items):
    chosen = selected_cases()
    for item in items:
        case = _case_of(item)
        if case is not None and item.fspath.dirname == os.path.dirname(os.path.abspath(__file__)) \
                and case not in chosen:
            item.add_marker(pytest.mark.skip(reason="DR case %s not in %s (now: %s); %s=all runs every case"
                                             % (case, KNOB, " ".join(chosen), KNOB)))


@pytest.fixture
def own_clusters(tmp_path):
    """own_clusters("a", "b") -> {name: KafkaCluster} started for this case; stopped by pid at teardown."""
    rk.interrupt_on_sigterm()
    reason = rk.skip_reason()
    started = []

    def get(*names):
        if reason:
            pytest.skip(reason)
        made = [rk.KafkaCluster(n, str(tmp_path / "kafka")) for n in names]
        started.extend(made)
        for c in made:
            c.start(wait=False)
        for c in made:
            c.wait_started()
        return dict((c.name, c) for c in made)
    yield get
    for c in started:
        c.stop()
