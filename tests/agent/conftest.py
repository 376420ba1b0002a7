"""Fixtures of the MM2 lifecycle tests (helpers live in agent_support.py)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent_support import FakeSite, ProcessGuard, set_subreaper  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def subreaper():
    """Orphaned fake MM2 processes re-parent to the test process, so the guard can reap them."""
    ok = set_subreaper(True)
    yield ok
    set_subreaper(False)


@pytest.fixture
def guard():
    g = ProcessGuard()
    yield g
    g.cleanup()


@pytest.fixture
def site(tmpdir, guard):
    s = FakeSite(tmpdir)
    guard.watch_state_dir(s.state)
    return s
