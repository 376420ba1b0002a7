"""Fixtures of the disaster-recovery suite: the built mpack and the drivers of tests/e2e, and clusters of its own
(a case stops and restarts cluster A, so A is never shared with another case)."""
import pytest

from e2e.conftest import _interrupt_on_sigterm, drivers, mpack, require_line  # noqa: F401 (fixtures)
from realkafka import cluster as rk


@pytest.fixture
def own_clusters(tmp_path):
    """own_clusters("a", "b") -> {name: KafkaCluster} started for this case; stopped by pid at teardown."""
    _interrupt_on_sigterm()
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
