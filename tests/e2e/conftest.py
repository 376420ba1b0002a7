"""Fixtures of the end-to-end suites: the mpack built once per session, drivers cleaned up by pid."""
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
