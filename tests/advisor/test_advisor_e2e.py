"""End to end through Ambari's own entry point, scripts/stack_advisor.py, as StackAdvisorRunner runs it.

Only with MM2_AMBARI_SRC pointing at an Ambari checkout that has
ambari-server/src/main/resources/scripts/stack_advisor.py (a full checkout, not just the stacks/
files): the server's resources layout is rebuilt in a temporary directory, services.json and
hosts.json are written like StackAdvisorCommand writes them, and the answer files are read back.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from mm2_core.config import names

import advisor_inputs as inputs
from advisor_harness import find

SRC = os.environ.get("MM2_AMBARI_SRC")
RESOURCES = os.path.join(SRC, "ambari-server", "src", "main", "resources") if SRC else None
ENTRY = os.path.join(RESOURCES, "scripts", "stack_advisor.py") if SRC else None

pytestmark = pytest.mark.skipif(not (ENTRY and os.path.isfile(ENTRY)),
                                reason="needs MM2_AMBARI_SRC with ambari-server/src/main/resources/scripts/stack_advisor.py")

HOSTS = ["k1.example.com", "k2.example.com", "k3.example.com", "m1.example.com", "m2.example.com"]


@pytest.fixture
def server(tmp_path):
    """resources/{scripts,stacks} of an Ambari server, and the environment StackAdvisorRunner sets."""
    resources = tmp_path / "resources"
    os.makedirs(str(resources / "scripts"))
    os.makedirs(str(resources / "stacks"))
    shutil.copy(ENTRY, str(resources / "scripts"))
    for name in ("stack_advisor.py", "service_advisor.py", "ambari_configuration.py"):
        shutil.copy(os.path.join(RESOURCES, "stacks", name), str(resources / "stacks"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.join(SRC, p) for p in (
        "ambari-common/src/main/python", "ambari-agent/src/main/python"))
    env["METADATA_DIR_PATH"] = str(resources / "stacks")
    env["BASE_SERVICE_ADVISOR"] = str(resources / "stacks" / "service_advisor.py")
    env["BASE_STACK_ADVISOR"] = str(resources / "stacks" / "stack_advisor.py")
    env.pop("MM2_ADVISOR_STRICT", None)  # as on a server: the safety net is on
    return str(resources), env


def _run(server, tmp_path, action, services, result_file):
    resources, env = server
    request = tmp_path / "request"
    os.makedirs(str(request))
    with open(str(request / "hosts.json"), "w") as fh:
        json.dump(inputs.hosts_json(HOSTS, "prod"), fh)
    with open(str(request / "services.json"), "w") as fh:
        json.dump(services, fh)
    proc = subprocess.Popen([sys.executable, os.path.join(resources, "scripts", "stack_advisor.py"), action,
                             str(request / "hosts.json"), str(request / "services.json")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.communicate()[0].decode("utf-8", "replace")
    assert proc.returncode == 0, output
    assert "Failed to load or create ServiceAdvisor" not in output, output
    with open(str(request / result_file)) as fh:
        return json.load(fh), output


def _services(advisor_path, drivers=("m1.example.com", "m2.example.com"), target_alias=""):
    mm2 = {names.CLUSTERS: {"source.alias": "dc1", "source.bootstrap.servers": "dc1-k1.example.org:9092",
                            "target.alias": target_alias}}
    return inputs.services_json(advisor_path, drivers=drivers, mm2=mm2)


def test_recommend_configurations(server, tmp_path, advisor_path):
    result, _ = _run(server, tmp_path, "recommend-configurations", _services(advisor_path), "configurations.json")
    props = result["recommendations"]["blueprint"]["configurations"][names.CLUSTERS]["properties"]
    assert props["target.bootstrap.servers"] == "k1.example.com:6667,k2.example.com:6667,k3.example.com:6667"
    assert props["target.alias"] == "prod"


def test_validate_configurations(server, tmp_path, advisor_path):
    # Two drivers serving every target on Bigtop 3.2's Kafka 2.8.1: KAFKA-9981.
    result, _ = _run(server, tmp_path, "validate-configurations", _services(advisor_path, target_alias="prod"),
                     "configurations-validation.json")
    assert find(result["items"], config_type=names.DRIVER, level="ERROR", text="KAFKA-9981")


def test_validate_component_layout(server, tmp_path, advisor_path):
    result, _ = _run(server, tmp_path, "validate-component-layout", _services(advisor_path, drivers=()),
                     "component-layout-validation.json")
    ours = [i for i in result["items"] if i.get("component-name") == names.COMPONENT]
    assert [i["level"] for i in ours] == ["ERROR"]
