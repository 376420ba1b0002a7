"""Helpers of the MM2 lifecycle tests (kept out of conftest.py: test directories each have one,
so a module named conftest is ambiguous): process helpers, a guard that kills only what a test
started, fake sites, and run-result assertions."""
import ctypes
import errno
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_KAFKA_DIR = os.path.join(os.path.dirname(HERE), "fixtures", "fake_kafka")
if FAKE_KAFKA_DIR not in sys.path:
    sys.path.insert(0, FAKE_KAFKA_DIR)

import fakekafka  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36


def set_subreaper(on):
    """Orphaned fake MM2 processes re-parent to this test process, so the guard can reap them
    (in containers whose init never reaps, they would stay zombies forever)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except OSError:
        pass


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (IOError, OSError):
        return False
    return state not in ("Z", "X")


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except (IOError, OSError):
        return ""


class ProcessGuard(object):
    """Tracks processes a test starts; at the end kills those still alive (only those)."""

    def __init__(self):
        self.popens = []
        self.state_dirs = []

    def popen(self, args, **kwargs):
        p = subprocess.Popen(args, **kwargs)
        self.popens.append(p)
        return p

    def watch_state_dir(self, state_dir):
        self.state_dirs.append(state_dir)

    def fake_mm2_pids(self):
        pids = []
        for d in self.state_dirs:
            pids.extend(fakekafka.started_pids(d))
        return pids

    def leaked(self):
        """Fake MM2 processes of this test still alive."""
        return [p for p in self.fake_mm2_pids() if alive(p) and fakekafka.FAKE_JVM in cmdline(p)]

    def cleanup(self):
        killed = []
        for pid in self.fake_mm2_pids():
            if alive(pid) and fakekafka.FAKE_JVM in cmdline(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except OSError as e:
                    if e.errno != errno.ESRCH:
                        raise
        for p in self.popens:
            if p.poll() is None:
                p.kill()
            p.wait()
        deadline = time.time() + 5
        for pid in self.fake_mm2_pids():
            while alive(pid) and time.time() < deadline:
                reap(pid)
                time.sleep(0.02)
            reap(pid)
        return killed


class FakeSite(object):
    """A temp root with a fake Kafka home, a fake JDK and simulated clusters A and B."""

    def __init__(self, root, version="3.7.1", java_major=17):
        self.root = str(root)
        self.state = os.path.join(self.root, "kafka-state")
        os.makedirs(self.state)
        self.kafka_home = fakekafka.make_kafka_home(os.path.join(self.root, "opt", "kafka"), version, self.state)
        self.java_home = fakekafka.make_java_home(os.path.join(self.root, "jdk"), java_major)
        self.exporter_jar = os.path.join(self.root, "jmx_prometheus_javaagent.jar")
        with open(self.exporter_jar, "w") as fh:
            fh.write("")

    def cluster(self, name, bootstrap, **kwargs):
        return fakekafka.Cluster.create(self.state, name, bootstrap, **kwargs)

    def control(self, **values):
        fakekafka.set_control(self.state, **values)


def ok(run):
    assert run.exit_code == 0, run
    return run


def failed(run):
    assert run.exit_code not in (0, None), run
    return run


def wait_dead(pid, seconds=10):
    end = time.time() + seconds
    while alive(pid) and time.time() < end:
        time.sleep(0.05)
    reap(pid)
    return not alive(pid)
