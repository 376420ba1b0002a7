"""Fixtures for the tests of the Ambari double and the harness.

The same tests run against real Ambari when MM2_AMBARI_SRC points at a checkout (see README);
tests about the double's own machinery are marked double_only and skipped there.
"""
import logging
import os

import pytest

import harness

# Tests of the double's own machinery: deselected (not skipped) on real Ambari, where there is
# nothing of the double to test (tests/conftest.py).
double_only = pytest.mark.double_only


ambari_line = harness.ambari_line


class _ListHandler(logging.Handler):
    def __init__(self, sink):
        logging.Handler.__init__(self)
        self.sink = sink

    def emit(self, record):
        self.sink.append(record.getMessage())


@pytest.fixture
def basedir(tmpdir):
    """A package dir with templates/ and files/."""
    tmpdir.mkdir("templates")
    tmpdir.mkdir("files")
    return str(tmpdir)


@pytest.fixture
def log_lines():
    """Captures what Ambari's Logger writes (as a list of messages)."""
    from resource_management.core.logger import Logger
    lines = []
    logger = logging.getLogger("mm2.harness_tests.%d" % id(lines))
    logger.handlers = [_ListHandler(lines)]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    previous = Logger.logger
    Logger.logger = logger
    Logger.sensitive_strings.clear()
    yield lines
    Logger.logger = previous
    Logger.sensitive_strings.clear()


@pytest.fixture
def test_env(basedir, log_lines):
    """An Environment in test mode (resources recorded, not performed)."""
    from resource_management.core.environment import Environment
    with Environment(basedir, test_mode=True, logger=logging.getLogger("mm2.harness_tests.%d" % id(log_lines))) as env:
        yield env


@pytest.fixture
def live_env(basedir, log_lines, monkeypatch):
    """An Environment that performs resources (as during a real command), with the double's
    ambari-sudo.sh on PATH (the real library needs it when not running as root)."""
    from resource_management.core.environment import Environment
    monkeypatch.setenv("PATH", harness.paths.DOUBLE_BIN_DIR + os.pathsep + os.environ["PATH"])
    with Environment(basedir, test_mode=False,
                     logger=logging.getLogger("mm2.harness_tests.%d" % id(log_lines))) as env:
        yield env
