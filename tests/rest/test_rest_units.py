"""Pure parts: the deployment file, secret masking, config planning with SECRET references, the waiter."""
import io

import pytest
import yaml

from rest_fake_ambari import FakeAmbari

from mm2_core.config import names
from mm2_ambari.rest import configplan, deployfile
from mm2_ambari.common import masking
from mm2_ambari.transport.ambari_api import AmbariClient
from mm2_ambari.transport.ambari_state import ConfigState, StackDefaults
from mm2_ambari.rest.deployfile import RESET
from mm2_ambari.common.errors import BadInput, RequestFailed
from mm2_ambari.transport.waiter import Waiter

TOPO = "clusters:\n  a: {bootstrap.servers: 'a:9092'}\n  b: {bootstrap.servers: 'b:9092'}\nflows:\n  - {source: a, target: b}\n"


def problems_of(text, environ=None):
    with pytest.raises(BadInput) as info:
        deployfile.parse(text, "t.yaml", environ or {})
    return [str(info.value)] + info.value.problems


# --- deployment file --------------------------------------------------------------------------------
def test_deployment_section_is_cut_out_keeping_line_numbers_and_comments():
    text = "# head\ndeployment:\n  hosts: [h1]\n  kafka_version: '3.7.1'\n# about flows\n" + TOPO
    df = deployfile.parse(text, "t.yaml", {})
    lines = df.topology_text.split("\n")
    assert lines[0] == "# head" and lines[1] == "" and lines[2] == "" and lines[3] == ""
    assert lines[4] == "# about flows"  # the comment belongs to what follows
    assert yaml.safe_load(df.topology_text) == yaml.safe_load(TOPO)
    assert df.hosts == ["h1"] and df.kafka_version == "3.7.1"


def test_flow_style_root_falls_back_to_a_redump():
    df = deployfile.parse("{clusters: {a: {bootstrap.servers: 'a:1'}}, flows: [], deployment: {hosts: [h]}}",
                          "t.yaml", {})
    assert yaml.safe_load(df.topology_text) == {"clusters": {"a": {"bootstrap.servers": "a:1"}}, "flows": []}


def test_a_file_without_deployment_is_stored_verbatim():
    df = deployfile.parse(TOPO, "t.yaml", {})
    assert df.topology_text == TOPO
    overrides = df.desired_overrides()
    assert overrides[names.CLUSTERS] == {"topology.mode": "advanced"}
    assert overrides[names.TOPOLOGY] == {"content": TOPO}


def test_values_become_ambari_strings_and_null_resets():
    df = deployfile.parse(TOPO + "deployment:\n  configurations:\n    kafka-mm2-replication:\n"
                                 "      tasks.max: 8\n      sync.group.offsets.enabled: true\n"
                                 "      topics: null\n", "t.yaml", {})
    assert df.configurations[names.REPLICATION] == {"tasks.max": "8", "sync.group.offsets.enabled": "true",
                                                    "topics": RESET}


def test_from_env_and_from_file(tmp_path):
    (tmp_path / "log4j.properties").write_text("log4j.rootLogger=INFO, stdout\n")
    text = TOPO + ("deployment:\n  configurations:\n    kafka-mm2-clusters:\n"
                   "      source.sasl.password: {from_env: PW}\n"
                   "    kafka-mm2-log4j:\n      content: {from_file: log4j.properties}\n")
    df = deployfile.parse(text, "t.yaml", {"PW": "pw"}, base_dir=str(tmp_path))
    assert df.configurations[names.CLUSTERS]["source.sasl.password"] == "pw"
    assert df.configurations[names.LOG4J]["content"] == "log4j.rootLogger=INFO, stdout\n"
    missing = problems_of(text.replace("{from_file: log4j.properties}", "x"))
    assert any("t.yaml:9: deployment.configurations.kafka-mm2-clusters.source.sasl.password: "
               "environment variable PW is not set" in p for p in missing)


@pytest.mark.parametrize("snippet, expected", [
    ("  hostz: [h]\n", "t.yaml:7: deployment.hostz: unknown key (did you mean hosts?)"),
    ("  configurations:\n    kafka-mm2-env: {mm2_heap_opt: x}\n",
     "deployment.configurations.kafka-mm2-env.mm2_heap_opt: unknown property of kafka-mm2-env "
     "(did you mean mm2_heap_opts?)"),
    ("  configurations:\n    kafka-mm2-envv: {a: b}\n", "not a config type of KAFKA_MIRRORMAKER2 (did you mean kafka-mm2-env?)"),
    ("  configurations:\n    kafka-mm2-topology: {content: x}\n", "the topology is the file itself"),
    ("  configurations:\n    kafka-mm2-clusters: {topology.mode: simple}\n", "a topology file always uses advanced mode"),
    ("  ambari: {url: ambari:8080}\n", "must be http(s)://host:port of the Ambari server"),
    ("  kafka_version: three\n", "must be a Kafka version such as 3.7.1"),
    ("  hosts: [h1, h1]\n", "host h1 is listed twice"),
    ("  configurations:\n    kafka-mm2-env: {mm2_heap_opts: [1, 2]}\n", "must be a string, number, boolean, null"),
    ("  hosts: [h1]\n  config_groups:\n    - {name: g, hosts: [h2]}\n", "host h2 is not in deployment.hosts"),
    ("  hosts: [h1]\n  config_groups:\n    - {name: g, hosts: [h1]}\n    - {name: k, hosts: [h1]}\n",
     "host h1 is already in config group g"),
    ("  config_groups:\n    - {name: g, hosts: [h1], configurations: {kafka-mm2-replication: {tasks.max: 2}}}\n",
     "cannot be overridden in a config group"),
])
def test_deployment_mistakes_name_the_key_and_the_fix(snippet, expected):
    found = problems_of(TOPO + "deployment:\n" + snippet)
    assert any(expected in p for p in found), found


def test_duplicate_keys_are_reported_with_lines():
    found = problems_of(TOPO + "flows: []\n")
    assert any("t.yaml:6: key 'flows' repeated (first at line 4)" in p for p in found), found


def test_root_must_be_a_mapping():
    assert "must be a mapping with clusters: and flows:" in problems_of("- a\n- b\n")[0]


# --- masking ----------------------------------------------------------------------------------------
def test_mask_text_hides_secret_values_in_yaml_and_properties():
    text = ("clusters:\n  a:\n    ssl.truststore.password: hunter2\n    sasl.jaas.config: |\n"
            "      org.apache.kafka.common.security.plain.PlainLoginModule required\n"
            "      username=\"u\" password=\"hunter3\";\n    bootstrap.servers: a:9092\n"
            "b.ssl.key.password=hunter4\n")
    masked = masking.mask_text(text)
    for secret in ("hunter2", "hunter3", "hunter4", "PlainLoginModule"):
        assert secret not in masked
    assert "bootstrap.servers: a:9092" in masked
    assert "ssl.truststore.password: ********" in masked


def test_mask_body_masks_desired_config_passwords_but_not_references():
    body = {"Clusters": {"desired_config": [{"type": names.CLUSTERS, "tag": "v", "properties": {
        "source.ssl.truststore.password": "pw", "target.ssl.truststore.password": "SECRET:kafka-mm2-clusters:2:x",
        "source.bootstrap.servers": "a:9092"}}]}}
    props = masking.mask_body(body)["Clusters"]["desired_config"][0]["properties"]
    assert props == {"source.ssl.truststore.password": masking.MASK,
                     "target.ssl.truststore.password": "SECRET:kafka-mm2-clusters:2:x",
                     "source.bootstrap.servers": "a:9092"}
    assert body["Clusters"]["desired_config"][0]["properties"]["source.ssl.truststore.password"] == "pw"


def test_secret_reference_shape_is_ambaris():
    assert masking.is_secret_ref("SECRET:kafka-mm2-clusters:12:source.sasl.password")
    assert not masking.is_secret_ref("SECRET:kafka-mm2-clusters:x:source.sasl.password")
    assert not masking.is_secret_ref("SECRET")


# --- config planning ----------------------------------------------------------------------------------
PW = "source.ssl.truststore.password"
REF = "SECRET:kafka-mm2-clusters:3:" + PW
STACK = StackDefaults({names.CLUSTERS: {PW: "", "source.alias": "", "topology.mode": "simple"}},
                      {names.CLUSTERS: {PW}})


def plan_one(stored, wanted, rotate=False, attrs=None):
    current = {names.CLUSTERS: ConfigState(names.CLUSTERS, "v3", 3, dict(
        {"source.alias": "", "topology.mode": "simple"}, **({PW: stored} if stored is not None else {})), attrs)}
    overrides = {names.CLUSTERS: {PW: wanted}} if wanted is not None else {}
    [change] = configplan.plan(STACK, current, overrides, rotate, types=[names.CLUSTERS])
    return change


@pytest.mark.parametrize("stored, wanted, rotate, sent, changed", [
    (REF, "file-pw", False, REF, False),        # cannot compare: keep the stored password
    (REF, "file-pw", True, "file-pw", True),    # --rotate-secrets sends it
    (REF, "", False, "", True),                 # clearing is a real change
    ("", "file-pw", False, "file-pw", True),    # nothing stored yet: set it
    (REF, REF, False, REF, False),              # the reference itself: unchanged
    (REF, None, False, REF, False),             # not in the file: untouched
    (REF, RESET, False, "", True),              # null: back to the stack default
])
def test_password_planning_rules(stored, wanted, rotate, sent, changed):
    change = plan_one(stored, wanted, rotate)
    assert change.properties[PW] == sent
    assert change.changed is changed


def test_new_type_starts_from_stack_defaults_and_existing_attributes_are_kept():
    [new] = configplan.plan(STACK, {}, {names.CLUSTERS: {"topology.mode": "advanced"}}, types=[names.CLUSTERS])
    assert new.is_new and new.properties == {PW: "", "source.alias": "", "topology.mode": "advanced"}
    assert configplan.render_diff(new)[1] == "  ~ topology.mode: 'simple' -> 'advanced'"
    kept = plan_one(REF, None, attrs={"final": {"source.alias": "true"}})
    assert kept.attributes == {"final": {"source.alias": "true"}} and not kept.changed


def test_custom_passwords_get_ambaris_password_attribute():
    [custom] = configplan.plan(StackDefaults(), {}, {names.CUSTOM: {"dc1.ssl.keystore.password": "k",
                                                                    "dc1.fetch.max.bytes": "1"}},
                               types=[names.CUSTOM])
    assert custom.attributes == {"password": {"dc1.ssl.keystore.password": "true"}}
    assert "dc1.ssl.keystore.password" in custom.secret_names
    assert "k'" not in "\n".join(configplan.render_diff(custom))


def test_stack_defaults_from_ambaris_answer():
    body = {"items": [
        {"StackConfigurations": {"type": "kafka-mm2-env.xml", "property_name": "mm2_user", "property_value": "mm2",
                                 "property_type": ["USER"]}},
        {"StackConfigurations": {"type": "kafka-mm2-clusters.xml", "property_name": PW, "property_value": None,
                                 "property_type": ["PASSWORD"]}}]}
    stack = StackDefaults.from_response(body)
    assert stack.properties == {names.ENV: {"mm2_user": "mm2"}, names.CLUSTERS: {PW: ""}}
    assert stack.is_password(names.CLUSTERS, PW) and not stack.is_password(names.ENV, "mm2_user")


# --- waiter -------------------------------------------------------------------------------------------
def test_progress_bar_and_failure_details():
    fake = FakeAmbari().start()
    try:
        fake.install_started_service(["mm2-1.example.com"])
        client = AmbariClient(fake.url, ("admin", "admin-secret"), log=lambda m: None)
        stream = io.StringIO()
        waiter = Waiter(client, "prod", poll_interval=0, progress=True, stream=stream)
        rid = client.post("/clusters/prod/requests", {
            "RequestInfo": {"command": "RESTART", "context": "r"},
            "Requests/resource_filters": [{"service_name": names.SERVICE, "component_name": names.COMPONENT,
                                           "hosts": "mm2-1.example.com"}]}).request_id
        tasks = waiter.wait(rid, "restart")
        assert [t["status"] for t in tasks] == ["COMPLETED"]
        assert "restart (request 1): 100%|" in stream.getvalue()
        fake.fail_next("RESTART", stderr="line1\nFail: password=hunter2 bad")
        rid = client.post("/clusters/prod/requests", {
            "RequestInfo": {"command": "RESTART", "context": "r"},
            "Requests/resource_filters": [{"service_name": names.SERVICE, "component_name": names.COMPONENT,
                                           "hosts": "mm2-1.example.com"}]}).request_id
        with pytest.raises(RequestFailed) as info:
            Waiter(client, "prod", poll_interval=0, progress=False, stream=io.StringIO()).wait(rid, "restart")
        assert info.value.status == "FAILED" and info.value.request_id == rid
        assert "hunter2" not in str(info.value) and "password=********" in str(info.value)
        client.close()
    finally:
        fake.stop()


def test_wait_timeout_says_the_request_goes_on():
    fake = FakeAmbari().start()
    try:
        fake.install_started_service(["mm2-1.example.com"])
        fake.steps = 1000
        client = AmbariClient(fake.url, ("admin", "admin-secret"), log=lambda m: None)
        rid = client.post("/clusters/prod/requests", {
            "RequestInfo": {"command": "RESTART", "context": "r"},
            "Requests/resource_filters": [{"service_name": names.SERVICE, "component_name": names.COMPONENT,
                                           "hosts": "mm2-1.example.com"}]}).request_id
        ticks = iter(range(0, 100000, 10))
        waiter = Waiter(client, "prod", poll_interval=0, timeout=25, progress=False, stream=io.StringIO(),
                        clock=lambda: next(ticks))
        with pytest.raises(Exception) as info:
            waiter.wait(rid, "restart")
        assert "is still IN_PROGRESS after 25s; it goes on in Ambari" in str(info.value)
        client.close()
    finally:
        fake.stop()


def test_config_provider_references_are_shown_not_masked():
    text = "clusters:\n  a:\n    ssl.truststore.password: ${file:/etc/kafka-mm2/secrets.properties:a.ts}\n"
    assert masking.mask_text(text) == text
    assert masking.mask_value(names.CLUSTERS, "source.ssl.truststore.password", "${file:/s.properties:k}") \
        == "${file:/s.properties:k}"
