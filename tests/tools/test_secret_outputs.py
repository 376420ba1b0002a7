"""Issue 12 on the off-cluster side: a secret is decided by its key (the core's rule), masked in
every output of mm2-ambari, stored as PASSWORD in Ambari; hostile YAML is bounded; render writes
nothing unless everything rendered."""
import json
import os

import pytest

from mm2_ambari.rest import configplan, deployfile
from mm2_ambari.transport import credentials
from mm2_ambari.common import masking
from mm2_ambari.offline import render_cmd
from mm2_ambari.transport.ambari_state import StackDefaults
from mm2_ambari.common.errors import BadInput
from mm2_core.config import names

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"


@pytest.mark.parametrize("name,value,secret", [
    ("east.ssl.keystore.key", PEM, True),
    ("east->west.producer.ssl.keystore.key", PEM, True),
    ("west.sasl.jaas.config", "org.x.PlainLoginModule required password=\"p\";", True),
    ("east.basic.auth.user.info", "u:p", True),
    ("east.sasl.oauthbearer.client.secret", "abc", True),
    ("east.ssl.keystore.password", "${file:/etc/s.properties:ks}", False),  # a reference reveals nothing
    ("east.ssl.keystore.location", "/etc/ks.p12", False),
    ("east->west.tasks.max", "4", False),
])
def test_custom_secrets_are_masked_and_stored_as_passwords(name, value, secret):
    [change] = configplan.plan(StackDefaults(), {}, {names.CUSTOM: {name: value}}, types=[names.CUSTOM])
    marked = change.attributes.get("password", {}).get(name) == "true"
    shown = "\n".join(configplan.render_diff(change))
    masked = masking.mask_value(names.CUSTOM, name, value)
    if secret:
        assert marked and masked == masking.MASK
        assert value not in shown and "MIIE" not in shown
    else:
        assert masked == value and (not marked or value.startswith("${"))


@pytest.mark.parametrize("text,leak", [
    ("failed: https://admin:hunter2@ambari.example.com:8443/api/v1", "hunter2"),
    ("key follows\n" + PEM + "\nend", "MIIEvQ"),
    ("-----BEGIN ENCRYPTED PRIVATE KEY-----\nABCD", "ABCD"),
    ("east.ssl.keystore.key=" + "MIIEvQ", "MIIEvQ"),
    ("ssl.key.password: 'k3y'", "k3y"),
])
def test_secrets_inside_any_text_are_masked(text, leak):
    assert leak not in masking.mask_text(text)


@pytest.mark.parametrize("url", ["https://admin:hunter2@ambari.example.com:8443",
                                 "http://a:@h:8080", "https://u:p%40ss@h"])
def test_a_password_in_the_ambari_url_is_refused_without_echoing_it(url):
    with pytest.raises(BadInput) as info:
        credentials.resolve(url, environ={"AMBARI_USER": "u", "AMBARI_PASSWORD": "p"})
    password = url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    assert "holds a password" in str(info.value)
    assert not password or password not in str(info.value)


def test_the_url_without_userinfo_is_fine():
    assert credentials.resolve("https://ambari.example.com:8443",
                               environ={"AMBARI_USER": "u", "AMBARI_PASSWORD": "p"}) == ("u", "p")


def test_a_deployment_file_with_a_password_in_its_url_is_refused():
    text = ("deployment:\n  ambari: {url: 'https://admin:hunter2@ambari:8443', cluster: c}\n"
            "clusters:\n  a: {bootstrap.servers: 'a:9092'}\n  b: {bootstrap.servers: 'b:9092'}\n"
            "flows:\n  - {source: a, target: b}\n")
    with pytest.raises(BadInput) as info:
        deployfile.parse(text, "d.yaml", {})
    assert "hunter2" not in str(info.value) + json.dumps(getattr(info.value, "problems", []), default=str)


# --- bounded YAML in the deployment-file reader ------------------------------------------------

def _laughs(levels, fan=9):
    lines = ['l0: &l0 "lol"']
    for i in range(1, levels + 1):
        lines.append("l%d: &l%d [%s]" % (i, i, ", ".join("*l%d" % (i - 1) for _ in range(fan))))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text,fragment", [
    (_laughs(9), "expands to more than"),
    (_laughs(6, fan=10), "expands to more than"),
    ("a: " + "[" * 300 + "]" * 300 + "\n", "nested more than"),
    ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 60)), "nested more than"),
    ("x: '" + "a" * (deployfile.MAX_BYTES + 1) + "'\n", "at most"),
])
def test_hostile_yaml_is_refused_quickly_and_by_name(text, fragment):
    with pytest.raises(BadInput) as info:
        deployfile.parse(text, "hostile.yaml", {})
    assert fragment in str(info.value) and "hostile.yaml" in str(info.value)


def test_a_few_aliases_are_still_fine():
    text = ("defaults: &d {bootstrap.servers: 'a:9092'}\nclusters:\n  a: *d\n  b: {bootstrap.servers: 'b:9092'}\n"
            "flows:\n  - {source: a, target: b}\n")
    deployfile.check_limits(text, "ok.yaml")


# --- render writes nothing unless everything rendered -------------------------------------------

class _Args(object):
    def __init__(self, configs, out):
        self.configs, self.out = configs, out
        self.kafka_version, self.host, self.kafka_broker_hosts, self.java_home = "3.7.1", "h", "", "/jdk"


def _configs(tmp_path, extra):
    cfg = {"kafka-mm2-clusters": {"source.alias": "a", "source.bootstrap.servers": "a:9092",
                                  "target.alias": "b", "target.bootstrap.servers": "b:9092"}}
    for config_type, props in extra.items():
        cfg.setdefault(config_type, {}).update(props)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    return str(path)


@pytest.mark.parametrize("extra", [
    {"kafka-mm2-env": {"content": "export A={{ a"}},                      # refused by the validator
    {"kafka-mm2-log4j": {"content": "{{ mm2_log_dir.nope() }}"}},          # parses, fails when rendered
    {"kafka-mm2-env": {"content": "{{ undefined_function() }}"}},
])
def test_a_template_that_fails_writes_no_file(tmp_path, extra, capsys):
    out = tmp_path / "out"
    assert render_cmd.run(_Args(_configs(tmp_path, extra), str(out))) == 2
    assert not out.exists() or list(out.iterdir()) == []
    err = capsys.readouterr().err
    assert "nothing was written" in err or "template cannot be rendered" in err


@pytest.mark.parametrize("version,code", [("3.7.1;rm", 2), ("99.0.0", 2), ("4.1.0", 0)])
def test_render_refuses_versions_it_cannot_check(tmp_path, version, code, capsys):
    args = _Args(_configs(tmp_path, {}), str(tmp_path / "out"))
    args.kafka_version = version
    assert render_cmd.run(args) == code
    assert "--kafka-version" in capsys.readouterr().err
