"""Where the Ambari library comes from: the double, or a real checkout via MM2_AMBARI_SRC."""
import os

HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
TESTS_DIR = os.path.dirname(HARNESS_DIR)
REPO_ROOT = os.path.dirname(TESTS_DIR)
PACKAGE_DIR = os.path.join(REPO_ROOT, "package")
SCRIPTS_DIR = os.path.join(PACKAGE_DIR, "scripts")
TEMPLATES_DIR = os.path.join(PACKAGE_DIR, "templates")
DOUBLE_DIR = os.path.join(TESTS_DIR, "ambari_double")
DOUBLE_BIN_DIR = os.path.join(DOUBLE_DIR, "bin")

# Same entries as Ambari's own test PYTHONPATH (ambari-server/pom.xml), relative to a checkout.
AMBARI_SRC_SUBDIRS = (
    "ambari-common/src/main/python",
    "ambari-agent/src/main/python",
    "ambari-common/src/main/python/ambari_jinja2",
    "ambari-common/src/test/python",
    "ambari-server/src/test/python",
)


# What the agent's own PYTHONPATH (/usr/lib/ambari-agent/lib: resource_management, ambari_commons,
# ambari_jinja2, ambari_simplejson, and the agent) is in a checkout: no test-only entries.
AGENT_SRC_SUBDIRS = (
    "ambari-common/src/main/python",
    "ambari-common/src/main/python/ambari_jinja2",
    "ambari-agent/src/main/python",
)


def agent_library_paths(ambari_src):
    """PYTHONPATH entries an Ambari agent built from the checkout ambari_src gives its scripts."""
    return [os.path.join(ambari_src, p) for p in AGENT_SRC_SUBDIRS]


def real_ambari_src():
    """The Ambari checkout in MM2_AMBARI_SRC (made absolute: scripts run in other directories), or None
    when the double is in use."""
    src = os.environ.get("MM2_AMBARI_SRC")
    return os.path.abspath(src) if src else None


def using_real_ambari():
    return real_ambari_src() is not None


def library_paths(ambari_src=None):
    """sys.path / PYTHONPATH entries that make resource_management importable: the real checkout
    given (or MM2_AMBARI_SRC), or the double (also when ambari_src == "double")."""
    src = real_ambari_src() if ambari_src is None else ambari_src
    if src and src != "double":
        return [os.path.join(src, p) for p in AMBARI_SRC_SUBDIRS]
    return [DOUBLE_DIR]


def ensure_sudo_shim_on_path():
    """The agent runs with ambari-sudo.sh on PATH; real Ambari's sudo module shells out to it
    whenever it is not root (even to read a file). In-process tests get the double's shim."""
    entries = os.environ.get("PATH", "").split(os.pathsep)
    if DOUBLE_BIN_DIR not in entries:
        os.environ["PATH"] = os.pathsep.join([DOUBLE_BIN_DIR] + [e for e in entries if e])
