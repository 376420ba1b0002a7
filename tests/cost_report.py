"""What each test costs, and which tests start a JVM: pytest hooks that tests/conftest.py takes in (Python 2.7 and 3).

CPU: tests/run.sh runs every stage and lane in a cpuacct cgroup of its own and names it in MM2_CPU_CGROUP; each test's
CPU is that cgroup's usage across the test's setup, call and teardown: its own Python and every process it started,
brokers and MirrorMaker included (they stay in the cgroup however they detach). Without the variable, the process's
own CPU and its reaped children's. The session ends with the MM2_CPU_TOP (default 15) tests that cost the most.

JVMs: every test that starts a JVM (Spark, javac, java, Kafka) carries the marker `jvm` (tests/conftest.py's
JVM_TESTS) and runs in a real lane, so the double stages stay fast. With MM2_JVM_GUARD=1 (the double stages) a
watcher thread looks for java processes started by this pytest process (they inherit MM2_TEST_OWNER=<our pid> and
pytest's PYTEST_CURRENT_TEST) and the session fails, naming each test that started one without the marker.
"""
import os
import resource
import sys
import threading
import time

CGROUP_ENV = "MM2_CPU_CGROUP"
TOP_ENV = "MM2_CPU_TOP"
GUARD_ENV = "MM2_JVM_GUARD"
OWNER_ENV = "MM2_TEST_OWNER"

_costs = []          # (cpu s, wall s, nodeid)
_jvm_tests = {}      # nodeid -> pid of a java process it started
_state = {"watcher": None, "stop": None}


def cpu_seconds():
    """CPU seconds so far: the stage's cgroup when run.sh made one, else this process and its reaped children."""
    path = os.environ.get(CGROUP_ENV)
    if path:
        try:
            with open(os.path.join(path, "cpuacct.usage")) as fh:
                return int(fh.read().strip()) / 1e9
        except (IOError, OSError, ValueError):
            pass
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _java_processes_of(owner):
    """{pid: PYTEST_CURRENT_TEST at its start} of the java processes whose environment names `owner`."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % name) as fh:
                if fh.read().strip() != "java":
                    continue
            if "python" in os.path.basename(os.readlink("/proc/%s/exe" % name)):
                continue   # the fake MM2 JVM of tests/fixtures/fake_kafka: a Python process named java
            with open("/proc/%s/environ" % name, "rb") as fh:
                env = dict(item.split(b"=", 1) for item in fh.read().split(b"\0") if b"=" in item)
        except (IOError, OSError):
            continue
        if env.get(OWNER_ENV.encode()) == owner.encode():
            current = env.get(b"PYTEST_CURRENT_TEST")
            if current is None:   # started outside a test's phases: name it by its command line
                try:
                    with open("/proc/%s/cmdline" % name, "rb") as fh:
                        current = b"(outside any test) " + fh.read().replace(b"\0", b" ")[-300:]
                except (IOError, OSError):
                    current = b"(outside any test)"
            found[int(name)] = current.decode("utf-8", "replace")
    return found


def _watch(owner, stop):
    seen = set()
    while not stop.wait(0.25):
        for pid, current in _java_processes_of(owner).items():
            if pid not in seen:
                seen.add(pid)
                nodeid = current.rsplit(" (", 1)[0]   # "path::test (call)"
                _jvm_tests.setdefault(nodeid, pid)


def pytest_configure(config):
    config.addinivalue_line("markers", "jvm: the test starts a JVM (Spark, javac, java, Kafka): real lanes only")
    os.environ[OWNER_ENV] = str(os.getpid())
    if os.environ.get(GUARD_ENV) == "1" and sys.platform.startswith("linux"):
        stop = threading.Event()
        watcher = threading.Thread(target=_watch, args=(str(os.getpid()), stop))
        watcher.daemon = True
        watcher.start()
        _state.update(watcher=watcher, stop=stop)


try:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        cpu0, wall0 = cpu_seconds(), time.time()
        yield
        _costs.append((cpu_seconds() - cpu0, time.time() - wall0, item.nodeid))
except AttributeError:   # pragma: no cover (pytest without hookimpl)
    pass


def pytest_sessionfinish(session, exitstatus):
    if _state["stop"] is not None:
        _state["stop"].set()
        _state["watcher"].join(2)
        unmarked = sorted(n for n in _jvm_tests if not _marked_jvm(session, n))
        if unmarked:
            session.config._mm2_unmarked_jvm = unmarked
            session.exitstatus = 1


def _marked_jvm(session, nodeid):
    for item in getattr(session, "items", ()):
        if item.nodeid == nodeid:
            return item.get_closest_marker("jvm") is not None
    return False


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    top = int(os.environ.get(TOP_ENV, "15"))
    if _costs and top > 0:
        total = sum(c for c, _, _ in _costs)
        source = "cgroup %s" % os.path.basename(os.environ[CGROUP_ENV]) if os.environ.get(CGROUP_ENV) else "rusage"
        write("")
        write("== the %d tests that cost the most CPU (%s; %d tests, %.0f CPU s in all)"
              % (min(top, len(_costs)), source, len(_costs), total))
        for cpu, wall, nodeid in sorted(_costs, reverse=True)[:top]:
            write("%8.1f CPU s %8.1f s  %s" % (cpu, wall, nodeid))
    client = sys.modules.get("realkafka.client")
    if client is not None and getattr(client, "CALLS", None):
        write("== the session's Kafka client (in-process, no JVM): %s"
              % ", ".join("%s %d" % kv for kv in sorted(client.CALLS.items())))
    unmarked = getattr(terminalreporter.config, "_mm2_unmarked_jvm", None)
    if unmarked:
        write("")
        write("== FAILED: tests that started a JVM without the `jvm` marker (add them to JVM_TESTS in "
              "tests/conftest.py, so they run in a real lane and not in the double stages):", red=True)
        for nodeid in unmarked:
            write("   %s (java pid %s)" % (nodeid, _jvm_tests[nodeid]), red=True)
