# py3-only: the mm2-ambari CLI is Python 3
"""`mm2-ambari render` writes exactly the agent's files for one host and exits 2 on bad input."""
import json
import os
import stat
import subprocess
import sys

import pytest

from mm2_ambari import cli
from mm2_core.formats import javaprops
from mm2_core.rendering import render

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "examples")
sys.path.insert(0, os.path.join(REPO, "tests", "core"))
from examples_support import load_example  # noqa: E402


def run(*argv):
    return cli.main(["render"] + list(argv))


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_renders_the_same_files_as_the_core(tmp_path, capsys):
    configs_path = os.path.join(EXAMPLES, "active-active-dc", "configurations.json")
    out = tmp_path / "out"
    assert run("--configs", configs_path, "--kafka-version", "3.7.1", "--out", str(out),
               "--host", "mm2-1.dc2.example.com") == 0
    configurations, _ = load_example("active-active-dc")
    expected = render.render_mm2(configurations, "3.7.1", "mm2-1.dc2.example.com", "/etc/kafka-mm2/conf")
    for rendered in expected.files:
        path = out / rendered.name
        assert path.read_text() == rendered.text
        assert _mode(str(path)) == rendered.mode
    assert _mode(str(out / render.SECRETS_FILE)) == 0o600
    stdout = capsys.readouterr().out
    assert "--clusters dc2" in stdout
    assert "dc1-trust-secret" not in stdout


def test_env_and_log4j_follow_the_version(tmp_path):
    configs_path = os.path.join(EXAMPLES, "kerberos-sasl-ssl", "configurations.json")
    out3, out4 = tmp_path / "k3", tmp_path / "k4"
    assert run("--configs", configs_path, "--kafka-version", "3.7.1", "--out", str(out3), "--host", "h",
               "--java-home", "/usr/jdk64/jdk17") == 0
    assert run("--configs", configs_path, "--kafka-version", "4.0.0", "--out", str(out4), "--host", "h") == 0
    env3 = (out3 / "mm2-env.sh").read_text()
    assert "export JAVA_HOME='/usr/jdk64/jdk17'" in env3
    assert "-Dlog4j.configuration=file:/etc/kafka-mm2/conf/log4j.properties" in env3
    assert (out3 / "log4j.properties").exists() and not (out3 / "log4j2.yaml").exists()
    assert "MaxFileSize=256MB" in (out3 / "log4j.properties").read_text()
    assert "-Dlog4j2.configurationFile=/etc/kafka-mm2/conf/log4j2.yaml" in (out4 / "mm2-env.sh").read_text()
    assert (out4 / "log4j2.yaml").exists() and not (out4 / "log4j.properties").exists()
    assert "{{" not in env3


def test_empty_target_uses_the_given_broker_hosts(tmp_path):
    configs_path = os.path.join(EXAMPLES, "hdinsight-migration", "configurations.json")
    out = tmp_path / "o"
    assert run("--configs", configs_path, "--kafka-version", "3.2.3", "--out", str(out), "--host", "h",
               "--kafka-broker-hosts", "b2.example.com,b1.example.com,b3.example.com") == 0
    props = javaprops.load_dict((out / render.PROPERTIES_FILE).read_text())
    assert props["odp.bootstrap.servers"] == "b1.example.com:6667,b2.example.com:6667,b3.example.com:6667"
    assert props["sync.topic.acls.enabled"] == "false"   # Ranger manages that Kafka


def test_invalid_configuration_exits_2_with_every_message(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({
        "kafka-mm2-clusters": {"source.alias": "a.b", "source.bootstrap.servers": "x",
                               "target.bootstrap.servers": "t:9092"},
        "kafka-mm2-custom": {"sync.group.offsets.interval.ms": "1000"}}))
    out = tmp_path / "none"
    assert run("--configs", str(bad), "--kafka-version", "3.7.1", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "kafka-mm2-clusters/source.alias" in err
    assert "kafka-mm2-clusters/source.bootstrap.servers" in err
    assert "did you mean sync.group.offsets.interval.seconds" in err
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ["--kafka-version", "3.7.1"],                                            # missing options
    ["--configs", "/nonexistent.json", "--kafka-version", "3.7.1", "--out", "/tmp/x"],
    ["--configs", os.path.join(EXAMPLES, "active-active-dc", "configurations.json"),
     "--kafka-version", "three", "--out", "/tmp/x"],
])
def test_bad_arguments_exit_2(argv, capsys):
    assert run(*argv) == 2


def test_example_that_is_invalid_on_an_old_line_exits_2(tmp_path, capsys):
    configs_path = os.path.join(EXAMPLES, "hdinsight-migration", "configurations.json")
    assert run("--configs", configs_path, "--kafka-version", "2.8.2", "--out", str(tmp_path / "o"),
               "--kafka-broker-hosts", "b1") == 2
    assert "identity policy" in capsys.readouterr().err


def test_console_entry_point(tmp_path):
    # The same through a separate interpreter, as an operator runs it.
    configs_path = os.path.join(EXAMPLES, "aggregation-three-into-one", "configurations.json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(REPO, "src"),
                                                       os.path.join(REPO, "package", "scripts")]))
    proc = subprocess.run([sys.executable, "-m", "mm2_ambari.cli", "render", "--configs", configs_path,
                           "--kafka-version", "2.4.1", "--out", str(tmp_path / "agg"), "--host", "h"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    props = javaprops.load_dict((tmp_path / "agg" / render.PROPERTIES_FILE).read_text())
    assert props["emea->central.consumer.max.poll.records"] == "5000"
