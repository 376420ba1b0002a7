"""Fixtures of the end-to-end suites: the mpack built once per session, drivers cleaned up by pid."""
import os

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
