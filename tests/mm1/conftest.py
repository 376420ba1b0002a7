"""Fixtures of the MirrorMaker 1 migration suite: real clusters and the built mpack, stopped by pid."""
import os
import signal
import subprocess
import sys

import pytest

from realkafka import cluster as rk

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mm2_ambari(*args, **kwargs):
    """`mm2-ambari ARGS` as an operator runs it (a subprocess on this checkout's sources)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(REPO_ROOT, "src"),
                                                       os.path.join(REPO_ROOT, "package", "scripts")]))
    env.update(kwargs.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "mm2_ambari.cli"] + [str(a) for a in args], capture_output=True,
                          text=True, env=env, timeout=kwargs.pop("timeout", 300), **kwargs)


@pytest.fixture(scope="session")
def sigterm_cleanup():
    """`timeout` sends SIGTERM: turn it into KeyboardInterrupt so the finalizers stop our JVMs by pid."""
    def handler(signum, frame):
        raise KeyboardInterrupt("SIGTERM")
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, handler)
