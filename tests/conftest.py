"""Root test configuration, shared by both Python lines.

- Puts the pure core (package/scripts), the off-cluster sources (src) and the Ambari test double
  (tests/ambari_double) on sys.path. With MM2_AMBARI_SRC=<ambari checkout> the real Ambari
  libraries are used instead of the double (local extra confidence; CI has no Ambari).
- On Python 2 it skips what is Python 3 only: a test module whose first line is
  '# py3-only: <reason>', and any directory holding a file named PY3_ONLY.
"""
import os
import sys

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS_DIR)
SCRIPTS_DIR = os.path.join(REPO_ROOT, "package", "scripts")
SRC_DIR = os.path.join(REPO_ROOT, "src")
DOUBLE_DIR = os.path.join(TESTS_DIR, "ambari_double")


def real_ambari_paths(src):
    """sys.path entries that make a real Ambari checkout importable (as Ambari's own pom does)."""
    return [os.path.join(src, p) for p in (
        "ambari-common/src/main/python",
        "ambari-agent/src/main/python",
        "ambari-common/src/main/python/ambari_jinja2",
        "ambari-common/src/test/python",
        "ambari-server/src/test/python",
    )]


def _setup_path():
    real = os.environ.get("MM2_AMBARI_SRC")
    if real:  # relative (../shared/ambari/trunk) works too: child processes run elsewhere
        real = os.environ["MM2_AMBARI_SRC"] = os.path.abspath(real)
    # TESTS_DIR makes the test harness importable as `harness` (tests/harness/).
    paths = [SCRIPTS_DIR, SRC_DIR, TESTS_DIR] + (real_ambari_paths(real) if real else [DOUBLE_DIR])
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(0, path)


_setup_path()

PY2 = sys.version_info[0] == 2

# The tests' own Spark JVMs (local sessions, spark-submit, the jobs mm2-verify and VERIFY_REPLICATION submit) start
# with the client compiler only and the serial collector, as the tests' brokers do (tests/realkafka/cluster.py
# LEAN_JVM_OPTS): they live seconds on tiny inputs, where C2 and G1 threads are CPU never paid back. spark-submit
# gives SPARK_SUBMIT_OPTS to the driver's JVM; an operator's own setting wins.
LEAN_SPARK_SUBMIT_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ.setdefault("SPARK_SUBMIT_OPTS", LEAN_SPARK_SUBMIT_OPTS)

# Each test's CPU and the JVM guard (tests/cost_report.py): hooks taken in here.
from cost_report import pytest_configure, pytest_sessionfinish, pytest_terminal_summary  # noqa: E402,F401
try:
    from cost_report import pytest_runtest_protocol  # noqa: F401
except ImportError:   # pragma: no cover
    pass

# The tests that start a JVM (Spark, javac, java, Kafka) outside the real-Kafka folders: marked `jvm`, they run in a
# real lane (tests/run.sh REAL_JVM) and the double stages leave them out (MM2_TESTS=nojvm), so a double stage is
# pure Python and takes minutes. The double stages' JVM guard (MM2_JVM_GUARD=1, tests/cost_report.py) fails a run
# in which a test not listed here starts one. A folder, a module, or a module::test prefix.
JVM_TESTS = (
    "tests/realkafka",                        # real Kafka clusters
    "tests/verify",                           # Spark (and real Kafka in test_real_kafka.py)
    "tests/tools/test_jdk_properties.py",     # the JDK's Properties.load
    "tests/tools/test_key_types_vs_kafka.py", # Kafka's ConfigDefs in a JVM
    "tests/advisor/test_javaregex.py",        # java.util.regex (also on the real-Ambari stages)
    "tests/agent/test_logging_jvm.py",        # log4j in a JVM (also on the real-Ambari stages)
)
TESTS_ENV = "MM2_TESTS"   # "nojvm": leave out the `jvm` tests; "jvm": only them; unset: everything


def _is_py3_only(path):
    path = str(path)
    if os.path.isdir(path):
        return os.path.exists(os.path.join(path, "PY3_ONLY"))
    if path.endswith(".py"):
        with open(path) as fh:
            return fh.readline().startswith("# py3-only")
    return False


def _ignore(path):
    if PY2 and _is_py3_only(path):
        return True
    return None


# pytest >= 7 names the hook argument collection_path (pytest 9 dropped `path`); 4.6 (py2.7) has only `path`.
if int(pytest.__version__.split(".")[0]) >= 7:
    def pytest_ignore_collect(collection_path, config):
        return _ignore(collection_path)
else:
    def pytest_ignore_collect(path, config):
        return _ignore(path)


def _nearest_conftest_module(test_file, config):
    """The conftest module closest to test_file (Python's `import conftest` would take any)."""
    directory = os.path.dirname(os.path.abspath(test_file))
    loaded = {}
    for plugin in config.pluginmanager.get_plugins():
        path = getattr(plugin, "__file__", None)
        if path and os.path.basename(path).startswith("conftest.py"):
            loaded[os.path.dirname(os.path.abspath(path))] = plugin
    while directory.startswith(REPO_ROOT):
        if directory in loaded:
            return loaded[directory]
        directory = os.path.dirname(directory)
    return None


def pytest_collectstart(collector):
    # Test modules here use `from conftest import helper` for their own directory's conftest.
    # Every directory's conftest is a top-level module named "conftest", so bind that name to
    # the nearest one right before a test module is imported (pytest 4.6 on Python 2 would
    # otherwise hand every module the first conftest it loaded).
    path = getattr(collector, "path", None) or getattr(collector, "fspath", None)
    if path is None or not str(path).endswith(".py") or os.path.basename(str(path)).startswith("conftest"):
        return
    module = _nearest_conftest_module(str(path), collector.config)
    if module is not None:
        sys.modules["conftest"] = module


REAL_AMBARI_RUNS_ENV = "MM2_REAL_AMBARI_RUNS"


def _under(path, folders):
    path = os.path.abspath(path)
    return any(path == f or path.startswith(f + os.sep) for f in folders)


def _mark_jvm(items):
    for item in items:
        nodeid = item.nodeid.replace(os.sep, "/")
        if not nodeid.startswith("tests/"):
            rel = os.path.relpath(str(getattr(item, "path", None) or item.fspath), REPO_ROOT).replace(os.sep, "/")
            nodeid = rel + nodeid[nodeid.find("::"):] if "::" in nodeid else rel
        if any(nodeid == p or nodeid.startswith(p + ("" if "::" in p else "/")) or nodeid.startswith(p + "::")
               for p in JVM_TESTS):
            item.add_marker(pytest.mark.jvm)


def _select_by_jvm(config, items):
    wanted = os.environ.get(TESTS_ENV)
    if wanted not in ("jvm", "nojvm"):
        return
    kept = [item for item in items if (item.get_closest_marker("jvm") is not None) == (wanted == "jvm")]
    if len(kept) != len(items):
        kept_ids = set(id(item) for item in kept)
        config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept_ids])
        items[:] = kept


def pytest_collection_modifyitems(config, items):
    _mark_jvm(items)
    _select_by_jvm(config, items)
    _select_real_ambari(config, items)


def _select_real_ambari(config, items):
    """On real Ambari (MM2_AMBARI_SRC) the tests of the double's own machinery have nothing to
    test: deselect them, so every skip of a real-Ambari run is a real limitation (root, a JVM).

    On the double, MM2_REAL_AMBARI_RUNS="<folder> ..." (tests/run.sh, when its real-Ambari stages run the
    same folders on both lines) deselects those folders' tests but the double's own (double_only): the
    real stages run them against Ambari's real libraries, which is the stronger test of the same code."""
    if not os.environ.get("MM2_AMBARI_SRC"):
        folders = [os.path.join(REPO_ROOT, f) for f in os.environ.get(REAL_AMBARI_RUNS_ENV, "").split()]
        if not folders:
            return
        kept = [item for item in items
                if not _under(str(getattr(item, "path", None) or item.fspath), folders)
                or item.get_closest_marker("double_only") is not None]
    else:
        kept = [item for item in items if item.get_closest_marker("double_only") is None]
    if len(kept) != len(items):
        kept_ids = set(id(item) for item in kept)
        config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept_ids])
        items[:] = kept


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory):
    """This checkout's wheel installed into a fresh virtualenv, once per session (tests/wheel_install.py):
    tests/newcomer and tests/tools/test_wheel.py share it. Python 3 only."""
    import wheel_install
    return wheel_install.build_and_install(tmp_path_factory.mktemp("wheel"), pytest.skip)


@pytest.fixture(scope="session")
def kafka_pool(tmp_path_factory):
    """The test process's shared real Kafka clusters (tests/realkafka/cluster.py ClusterPool):
    kafka_pool("a", "b") -> {name: KafkaCluster} of the run's Kafka, kafka_pool("a", "b", home=<distribution>) of
    another version; started when first asked, all stopped by pid at the end of the session (also on failure). Each
    test isolates itself by topic, group and alias names. Python 3 only."""
    from realkafka import cluster as rk
    reason = rk.skip_reason()
    if reason:
        pytest.skip(reason)
    rk.interrupt_on_sigterm()
    pool = rk.ClusterPool(tmp_path_factory.mktemp("kafka-pool"))
    try:
        yield pool.get
    finally:
        pool.close()
