"""Fixtures of the end-to-end suites: the mpack built once per session, drivers cleaned up by pid."""
import os
import signal

import pytest

from e2e import agent
from realkafka import cluster as rk


@pytest.fixture(scope="session")
def mpack(tmp_path_factory):
    """The mpack build.py produces, unpacked (built once per session)."""
    return agent.build_mpack(str(tmp_path_factory.mktemp("mpack")))


def require_line(line):
    reason = agent.line_skip_reason(line)
    if reason:
        pytest.skip(reason)


def _interrupt_on_sigterm():
    """`timeout` (CI, a developer) sends SIGTERM: turn it into KeyboardInterrupt, so pytest still runs the
    finalizers that stop our brokers and MM2 JVMs by pid (otherwise they outlive the run)."""
    def handler(signum, frame):
        raise KeyboardInterrupt("SIGTERM")
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, handler)


@pytest.fixture(scope="session")
def kafka_pool(tmp_path_factory):
    """Real one-node clusters shared by the cases (each case uses its own topics):
    kafka_pool("a", "b") -> {name: KafkaCluster}, starting the missing ones in parallel; all stopped by pid at
    the end of the session (also on failure)."""
    _interrupt_on_sigterm()
    reason = rk.skip_reason()
    workdir = str(tmp_path_factory.mktemp("kafka"))
    started = {}

    def get(*names):
        if reason:
            pytest.skip(reason)
        missing = [rk.KafkaCluster(n, workdir) for n in names if n not in started]
        for cluster in missing:
            started[cluster.name] = cluster
            cluster.start(wait=False)
        for cluster in missing:
            cluster.wait_started()
        return dict((n, started[n]) for n in names)
    try:
        yield get
    finally:
        for cluster in started.values():
            cluster.close()


@pytest.fixture
def drivers():
    """Create drivers with drivers.new(...); every MM2 JVM they started is killed by pid at teardown."""
    class Drivers(list):
        def new(self, *args, **kwargs):
            driver = agent.Driver(*args, **kwargs)
            self.append(driver)
            return driver
    made = Drivers()
    yield made
    for driver in made:
        driver.cleanup()


__all__ = ["mpack", "drivers", "require_line", "rk"]


def one_more_try(config, items, wanted):
    """A real-cluster case gets one more try (pytest-rerunfailures): on a loaded 2-core host Connect's rebalances
    and checkpoint intervals can outlast a bound once. A second failure fails the run; reruns show in the summary.
    wanted(item, path): whether the item is such a case."""
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return
    for item in items:
        if wanted(item, str(getattr(item, "fspath", ""))):
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=10))


def _e2e_case(item, path):
    # a case on the shared clusters (kafka_pool) reruns only when it names its topics per attempt
    return "%se2e%s" % (os.sep, os.sep) in path and (
        "kafka_pool" not in getattr(item, "fixturenames", ()) or path.endswith("test_one_way_dr.py"))


def pytest_collection_modifyitems(config, items):
    one_more_try(config, items, _e2e_case)
