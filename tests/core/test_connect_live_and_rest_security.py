"""Connect mode's live flow settings (kafka-mm2-live, a type Ambari never flags Restart Required for) and the
REST listener's protection (loopback, or HTTPS + Basic auth): what reaches the connectors and the worker, and
every bad input named with its fix."""
import os

import pytest

from examples_support import render_example
from mm2_core.config import names
from mm2_core.connect import connect_mode, live
from mm2_core.connect.rest_security import RestSecurity
from mm2_core.connect import connect_rest
from mm2_core.kafka import versions

SECRETS = "/etc/kafka-mm2/conf/" + connect_mode.SECRETS_FILE
AGG = "aggregation-three-into-one"


def _plan(text, version="3.9.0", security=None, example=AGG):
    rendering, error = render_example(example, version)
    assert error is None, error
    entries, problems = live.parse(text, rendering.topology)
    assert problems == [], [str(p) for p in problems]
    properties = live.overlay(rendering.properties, entries)
    return rendering, connect_mode.plan(properties, rendering.topology, "mm2-1.example.org", 8093, SECRETS,
                                        security=security)


def _problems(text, version="3.9.0", example=AGG):
    rendering, error = render_example(example, version)
    assert error is None, error
    return [str(p) for p in live.parse(text, rendering.topology)[1]]


def test_a_live_line_changes_only_that_flows_connectors():
    _, before = _plan("")
    _, after = _plan("# orders only from emea\nemea->central.topics = orders.*, payments\n"
                     "emea->central.tasks.max=2\n")
    create, update, delete = connect_mode.connector_diff(before.connectors, after.connectors)
    assert (create, delete) == ([], [])
    # the heartbeat connector is the reverse pair's (central->emea), as in MM2: it keeps running
    assert sorted(update) == sorted(connect_mode.connector_name("emea->central", k)
                                    for k in (connect_mode.SOURCE, connect_mode.CHECKPOINT))
    source = after.connectors["emea->central.MirrorSourceConnector"]
    assert source["topics"] == "orders.*, payments" and source["tasks.max"] == "2"
    assert after.worker == before.worker   # the worker file is untouched: no restart


def test_exclude_is_written_with_the_versions_key():
    _, plan = _plan("emea->central.topics.exclude = tmp.*", version="2.6.0")
    assert plan.connectors["emea->central.MirrorSourceConnector"]["topics.blacklist"] == "tmp.*"
    _, plan = _plan("emea->central.topics.exclude = tmp.*", version="3.9.0")
    assert plan.connectors["emea->central.MirrorSourceConnector"]["topics.exclude"] == "tmp.*"


@pytest.mark.parametrize("text,expected", [
    ("emea->centrl.topics = a", "no flow emea->centrl in this topology (did you mean emea->central?)"),
    ("emea->central.topcs = a", "topcs is not a live flow setting (did you mean topics?)"),
    ("emea->central.replication.factor = 2", "replication.factor is not a live flow setting"),
    ("emea->central.topics = ", "empty: nothing would be replicated"),
    ("emea->central.topics = orders[", "fix the pattern"),
    ("emea->central.tasks.max = many", "tasks.max of flow emea->central: 'many' is not a whole number: tasks.max is "
                                       "a Kafka int; fix the value or remove the line"),
    ("emea->central.tasks.max = 0", "tasks.max of flow emea->central: 0 is out of range for tasks.max: use at least 1"),
    ("emea->central.sync.group.offsets.enabled = yes", "'yes' is not a boolean"),
    ("emea->central.topics = a\nemea->central.topics = b", "already set on line 1"),
    ("topics = a", "write SOURCE->TARGET.setting = value"),
])
def test_bad_live_lines_are_named_with_the_fix(text, expected):
    found = _problems(text)
    assert len(found) == 1 and found[0].startswith("%s/%s: line " % (names.LIVE, live.PROPERTY)), found
    assert expected in found[0], found
    assert "('" not in found[0] and "Problem(" not in found[0]   # no Python repr reaches the operator


def test_group_offset_sync_is_refused_where_kafka_lacks_it():
    found = _problems("emea->central.sync.group.offsets.enabled = true", version="2.6.0")
    assert len(found) == 1 and "Kafka 2.6.0 has no sync.group.offsets.enabled" in found[0]


def test_dedicated_mode_refuses_live_settings_but_not_comments():
    assert live.dedicated_problem("dedicated", "# nothing yet\n\n") is None
    assert live.dedicated_problem("connect", "a->b.topics = x") is None
    problem = live.dedicated_problem("dedicated", "a->b.topics = x")
    assert "%s/%s" % (names.LIVE, live.PROPERTY) in str(problem) and "connect mode" in str(problem)


def test_the_live_type_never_flags_restart_required():
    assert names.LIVE in names.OWN_CONFIG_TYPES and names.LIVE in names.NO_RESTART_CONFIG_TYPES
    assert names.LIVE not in names.RESTART_CONFIG_TYPES


# ---- the REST listener: loopback, or HTTPS + Basic auth

TLS = RestSecurity(True, "/etc/security/host.jks", "PKCS12", "ks-secret", "/etc/security/ca.pem", "ops", "pw-secret")


def test_loopback_by_default():
    _, plan = _plan("")
    worker = dict(plan.worker)
    assert worker["listeners"] == "http://127.0.0.1:8093" and plan.rest_url == "http://127.0.0.1:8093"
    assert "rest.extension.classes" not in worker and not any(k.startswith("listeners.https.") for k in worker)


def test_tls_listener_with_basic_auth():
    _, plan = _plan("", security=TLS)
    worker = dict(plan.worker)
    assert worker["listeners"] == "https://mm2-1.example.org:8093" == plan.rest_url
    assert worker["rest.advertised.listener"] == "https"
    assert worker["listeners.https.ssl.keystore.location"] == "/etc/security/host.jks"
    assert worker["listeners.https.ssl.keystore.type"] == "PKCS12"
    assert worker["rest.extension.classes"].endswith("BasicAuthSecurityRestExtension")
    assert plan.worker_has_secret   # the keystore password: the worker file is written 0600
    assert "pw-secret" not in repr(plan.worker)   # the Basic auth password lives in the credentials file only
    assert TLS.credentials_items() == [("ops", "pw-secret")]
    assert 'file="/c/mm2-connect-rest.credentials"' in TLS.jaas_text("/c/mm2-connect-rest.credentials")
    assert TLS.kafka_opt("/c/j.conf") == "-Djava.security.auth.login.config=/c/j.conf"
    assert RestSecurity().kafka_opt("/c/j.conf") == ""


@pytest.mark.parametrize("missing", ["keystore", "keystore_password", "ca_file", "password"])
def test_tls_without_a_part_is_refused_naming_the_property(missing):
    security = RestSecurity(True, "/k.jks", "JKS", "ks", "/ca.pem", "ops", "pw")
    setattr(security, missing, "")
    with pytest.raises(Exception) as info:
        _plan("", security=security)
    assert "kafka-mm2-env/mm2_connect_rest_%s" % missing in str(info.value)


def test_env_values_and_the_version_rule():
    security = RestSecurity.from_env({"mm2_connect_rest_tls_enabled": "true", "mm2_connect_rest_username": "a:b"})
    found = [str(p) for p in security.problems("3.9.0")]
    assert any("mm2_connect_rest_username: 'a:b' cannot be a Basic auth user" in p for p in found)
    assert RestSecurity.from_env(None).tls is False
    assert versions.supports("2.4.0", versions.CONNECT_REST_TLS_AUTH)   # every connect-mode version
    assert not versions.supports("1.1.0", versions.CONNECT_REST_TLS_AUTH)


def test_the_client_is_never_open():
    with pytest.raises(ValueError):
        connect_rest.ConnectRest("http://mm2-1.example.org:8093", "3.9.0")
    with pytest.raises(ValueError):   # HTTPS without credentials
        connect_rest.ConnectRest("https://mm2-1.example.org:8093", "3.9.0")
    client = connect_rest.ConnectRest("http://127.0.0.1:8093", "3.9.0")
    assert "secret" not in repr(client)


def test_the_advisors_view_of_connect_settings():
    rendering, error = render_example(AGG, "3.9.0")
    assert error is None
    topo = rendering.topology
    dedicated = {names.LIVE: {"flow.settings": "emea->central.topics = x"}}
    assert [p.name for p in live.config_problems(dedicated, topo)] == [live.PROPERTY]
    connect = {names.ENV: {"mm2_run_mode": "connect", "mm2_connect_rest_tls_enabled": "true"},
               names.LIVE: {"flow.settings": "emea->central.topics = x"}}
    found = [str(p) for p in live.config_problems(connect, topo)]
    assert found and all(p.startswith("kafka-mm2-env/mm2_connect_rest_") for p in found), found
    assert live.config_problems({names.ENV: {"mm2_run_mode": "connect"}}, topo) == []


def test_https_needs_connects_basic_auth_extension_in_the_installation(tmp_path):
    home = str(tmp_path)
    os.makedirs(os.path.join(home, "libs"))
    problem = TLS.installation_problem(home)
    assert "kafka-mm2-env/mm2_connect_rest_tls_enabled" in str(problem) and "connect-basic-auth-extension" in str(problem)
    open(os.path.join(home, "libs", "connect-basic-auth-extension-3.9.0.jar"), "w").close()
    assert TLS.installation_problem(home) is None and RestSecurity().installation_problem("/nowhere") is None
