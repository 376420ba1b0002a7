"""Fixtures for the service advisor tests.

The advisor runs from an ASSEMBLED service directory (what build.py puts in the mpack:
common-services/KAFKA_MIRRORMAKER2/1.0.0/ with package/ copied inside), loaded the way Ambari's
stack advisor loads it. Its parent class comes from BASE_SERVICE_ADVISOR, as on a real server:

- default (CI): the test doubles in tests/advisor/double/ (stack_advisor.py, service_advisor.py);
- MM2_AMBARI_SRC=<Ambari checkout>: the real ambari-server/src/main/resources/stacks/
  {ambari_configuration,stack_advisor,service_advisor}.py (trunk on Python 3.9/3.10 with `distro`,
  release-2.7.8 on Python 2.7); with a full checkout also scripts/stack_advisor.py end to end.

The layout comes from build.assemble(); MM2_ADVISOR_COPY_LAYOUT=1 copies the two trees instead
(for when build.py cannot assemble because another part of the mpack is unfinished).
"""
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
DOUBLE_DIR = os.path.join(HERE, "double")
SERVICE_REL = os.path.join("common-services", "KAFKA_MIRRORMAKER2", "1.0.0")

sys.path.insert(0, HERE)  # advisor_inputs.py, advisor_harness.py

from advisor_harness import load_source  # noqa: E402


def ambari_stacks_dir():
    """Directory holding stack_advisor.py / service_advisor.py: the real one or the double."""
    src = os.environ.get("MM2_AMBARI_SRC")
    if src:
        return os.path.join(src, "ambari-server", "src", "main", "resources", "stacks")
    return DOUBLE_DIR


def _load_build_module():
    path = os.path.join(REPO_ROOT, "build.py")
    if not os.path.isfile(path):
        return None
    return load_source("mm2_build_for_advisor_tests", path)


def assemble_service(staging):
    """Return the assembled service directory (containing service_advisor.py and package/)."""
    build = _load_build_module()
    # MM2_ADVISOR_COPY_LAYOUT=1: copy the two trees instead (only while build.py cannot assemble yet).
    if build is not None and hasattr(build, "assemble") and os.environ.get("MM2_ADVISOR_COPY_LAYOUT") != "1":
        build.assemble(staging)
        for root, _dirs, files in os.walk(staging):
            if "service_advisor.py" in files and root.replace(os.sep, "/").endswith(SERVICE_REL.replace(os.sep, "/")):
                return root
        raise AssertionError("build.assemble(%s) produced no %s/service_advisor.py" % (staging, SERVICE_REL))
    # Minimal layout, as build.py lays it out: the service definition with package/ inside.
    target = os.path.join(staging, SERVICE_REL)
    shutil.copytree(os.path.join(REPO_ROOT, SERVICE_REL), target,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(os.path.join(REPO_ROOT, "package"), os.path.join(target, "package"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


@pytest.fixture(scope="session")
def service_dir(tmp_path_factory):
    return assemble_service(str(tmp_path_factory.mktemp("mpack")))


@pytest.fixture(scope="session")
def advisor_path(service_dir):
    return os.path.join(service_dir, "service_advisor.py")


@pytest.fixture(scope="session")
def stack_advisor_module():
    """The 'stack_advisor' module as scripts/stack_advisor.py loads it, and BASE_SERVICE_ADVISOR set."""
    stacks = ambari_stacks_dir()
    if os.environ.get("MM2_AMBARI_SRC"):
        load_source("ambari_configuration", os.path.join(stacks, "ambari_configuration.py"))
    module = load_source("stack_advisor", os.path.join(stacks, "stack_advisor.py"))
    os.environ["BASE_SERVICE_ADVISOR"] = os.path.join(stacks, "service_advisor.py")
    return module


@pytest.fixture(autouse=True)
def strict_advisor(monkeypatch):
    """Advisor exceptions propagate in tests; the safety net is tested explicitly."""
    monkeypatch.setenv("MM2_ADVISOR_STRICT", "1")


@pytest.fixture
def stack_advisor(stack_advisor_module):
    """A fresh DefaultStackAdvisor (real or double) per test, as one stack advisor run has."""
    return stack_advisor_module.DefaultStackAdvisor()


@pytest.fixture
def advisor_class(stack_advisor_module, advisor_path):
    """Our advisor class, picked the way Ambari picks it."""
    from advisor_harness import pick_advisor_class
    return pick_advisor_class(advisor_path)
