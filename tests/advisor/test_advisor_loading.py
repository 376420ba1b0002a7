"""Ambari finds, loads and instantiates the advisor from the assembled mpack layout."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from mm2_core.config import names

import advisor_inputs as inputs
from advisor_harness import first_matching_attribute, load_source
from conftest import REPO_ROOT, ambari_stacks_dir

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run_stack_advisor.py")


def test_class_ambari_picks_is_ours_and_named_as_the_design_says(advisor_path, stack_advisor_module):
    module = load_source("service_advisor_impl", advisor_path)
    assert first_matching_attribute(module, names.SERVICE) == names.ADVISOR_CLASS
    cls = getattr(module, names.ADVISOR_CLASS)
    assert issubclass(cls, module.service_advisor.ServiceAdvisor)
    # The parent is the one BASE_SERVICE_ADVISOR names, as StackAdvisorRunner sets it.
    parent_file = os.path.realpath(module.service_advisor.__file__).replace(".pyc", ".py")
    assert parent_file == os.path.realpath(os.environ["BASE_SERVICE_ADVISOR"])


def test_stack_advisor_instantiates_it_from_services_json(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path)
    stack_advisor.services = services
    advisor = stack_advisor.getServiceAdvisor(names.SERVICE)
    assert advisor is not None and type(advisor).__name__ == names.ADVISOR_CLASS
    # Components map to the same advisor (Ambari looks advisors up by component name too).
    assert stack_advisor.getServiceAdvisor(names.COMPONENT) is advisor


def test_the_advisor_is_found_when_ambari_names_it_after_the_stack(stack_advisor, advisor_path):
    # A stack add-on that <extends> the common service may get the stack-style Java name
    # (BIGTOP320KAFKA_MIRRORMAKER2ServiceAdvisor); the name pattern still finds our class.
    services = inputs.services_json(advisor_path)
    services["services"][-1]["StackServices"]["advisor_name"] = "BIGTOP320KAFKA_MIRRORMAKER2ServiceAdvisor"
    stack_advisor.services = services
    assert type(stack_advisor.getServiceAdvisor(names.SERVICE)).__name__ == names.ADVISOR_CLASS


def _python_env(extra=None):
    """Environment of a fresh interpreter: no test paths, only what a server has (Ambari libs if real)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("BASE_SERVICE_ADVISOR", None)
    src = os.environ.get("MM2_AMBARI_SRC")
    paths = [os.path.join(src, p) for p in ("ambari-common/src/main/python", "ambari-agent/src/main/python")] if src else []
    if sys.version_info[0] == 2:  # the 2.7 test line keeps its third-party packages there
        paths.append(os.path.join(REPO_ROOT, ".venv27"))
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(extra or {})
    return env


def _run(stacks_dir, action, workdir, services, hosts, env):
    with open(os.path.join(workdir, "hosts.json"), "w") as fh:
        json.dump(hosts, fh)
    with open(os.path.join(workdir, "services.json"), "w") as fh:
        json.dump(services, fh)
    proc = subprocess.Popen([sys.executable, RUNNER, stacks_dir, action, os.path.join(workdir, "hosts.json"),
                             os.path.join(workdir, "services.json")], env=env, cwd=workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.communicate()[0].decode("utf-8", "replace")
    assert proc.returncode == 0, output
    return output


def test_fresh_server_process_imports_mm2_core_from_the_mpack(tmp_path, advisor_path, service_dir):
    """As on the Ambari server: a new interpreter, BASE_SERVICE_ADVISOR set, nothing else on sys.path."""
    workdir = str(tmp_path)
    stacks = ambari_stacks_dir()
    env = _python_env({"BASE_SERVICE_ADVISOR": os.path.join(stacks, "service_advisor.py"), "MM2_ADVISOR_STRICT": "1"})
    _run(stacks, "validate-configurations", workdir, inputs.services_json(advisor_path), inputs.hosts_json(
        ["k1.example.com", "k2.example.com", "k3.example.com", "m1.example.com"]), env)
    with open(os.path.join(workdir, "runner-info.json")) as fh:
        info = json.load(fh)
    assert os.path.realpath(info["mm2_core"]).startswith(os.path.realpath(os.path.join(service_dir, "package", "scripts")))
    assert info["scripts_on_path"] == [], "package/scripts must not stay on the server's sys.path"
    with open(os.path.join(workdir, "configurations-validation.json")) as fh:
        assert "items" in json.load(fh)


def _physical_mpack_layout(root, service_dir):
    """resources/{stacks,mpacks/<m>/common-services/...} with the common-services symlink Ambari makes."""
    resources = os.path.join(root, "resources")
    stacks = os.path.join(resources, "stacks")
    os.makedirs(stacks)
    for name in ("stack_advisor.py", "service_advisor.py", "ambari_configuration.py"):
        source = os.path.join(ambari_stacks_dir(), name)
        if os.path.isfile(source):
            shutil.copy(source, stacks)
    mpack_service = os.path.join(resources, "mpacks", "kafka-mirrormaker2-mpack-1.0.0.0", "common-services",
                                 names.SERVICE)
    shutil.copytree(service_dir, os.path.join(mpack_service, names.SERVICE_VERSION))
    os.makedirs(os.path.join(resources, "common-services"))
    os.symlink(mpack_service, os.path.join(resources, "common-services", names.SERVICE))
    return resources


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_parent_found_without_base_service_advisor_through_the_mpack_symlink(tmp_path, service_dir):
    resources = _physical_mpack_layout(str(tmp_path), service_dir)
    linked = os.path.join(resources, "common-services", names.SERVICE, names.SERVICE_VERSION, "service_advisor.py")
    workdir = str(tmp_path / "run")
    os.makedirs(workdir)
    env = _python_env({"MM2_ADVISOR_STRICT": "1"})
    _run(os.path.join(resources, "stacks"), "validate-component-layout", workdir,
         inputs.services_json(linked), inputs.hosts_json(["m1.example.com"]), env)
    with open(os.path.join(workdir, "component-layout-validation.json")) as fh:
        assert json.load(fh)["items"] == []  # loaded, ran, and one driver satisfies cardinality 1+


def test_missing_parent_fails_loading_with_a_clear_message(tmp_path, service_dir):
    env = _python_env({"BASE_SERVICE_ADVISOR": str(tmp_path / "nowhere.py")})
    code = ("import sys\n"
            "sys.path.insert(0, sys.argv[2])\n"
            "from run_stack_advisor import load_source\n"
            "try:\n"
            "    load_source('service_advisor_impl', sys.argv[1])\n"
            "except ImportError as e:\n"
            "    print('IMPORTERROR ' + str(e))\n")
    proc = subprocess.Popen([sys.executable, "-c", code, os.path.join(service_dir, "service_advisor.py"), HERE],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.communicate()[0].decode("utf-8", "replace")
    assert "IMPORTERROR" in out and "stacks/service_advisor.py not found" in out and "nowhere.py" in out
