"""Validation items through the stack advisor: placement rules, layout, safety net."""
import logging
import sys

import pytest

from mm2_core.config import names

import advisor_inputs as inputs
from advisor_harness import find, layout_items, validation_items

C, R, D, E, X = names.CLUSTERS, names.REPLICATION, names.DRIVER, names.ENV, names.CUSTOM
DRIVERS = ("m1.example.com", "m2.example.com")
HOSTS = ["k1.example.com", "k2.example.com", "k3.example.com"] + list(DRIVERS)


def _hosts():
    return inputs.hosts_json(HOSTS, "c1")


def _simple(direction="one-way", **extra):
    mm2 = {C: {"source.alias": "dc1", "source.bootstrap.servers": "dc1-k1.example.org:9092",
               "target.alias": "dc2", "target.bootstrap.servers": ""},
           R: {"direction": direction}}
    for config_type, props in extra.items():
        mm2.setdefault(config_type, {}).update(props)
    return mm2


def _services(advisor_path, drivers=DRIVERS, mm2=None, **kwargs):
    return inputs.services_json(advisor_path, drivers=drivers, mm2=mm2 or _simple(), **kwargs)


def test_two_drivers_for_one_target_before_kafka_3_5_is_an_error(stack_advisor, advisor_path):
    items = validation_items(stack_advisor, _services(advisor_path), _hosts())  # Bigtop 3.2: Kafka 2.8.1
    found = find(items, config_name="target.clusters", config_type=D, level="ERROR", text="KAFKA-9981")
    # Empty target.clusters: no --clusters, both hosts run every herder, so both targets dc2
    # (the flow) and dc1 (the herder emitting its heartbeats) have two drivers.
    assert sorted(i["message"].split()[1] for i in found) == ["dc1", "dc2"]
    assert "m1.example.com, m2.example.com" in found[0]["message"] and "2.8.1" in found[0]["message"]


def test_config_groups_giving_each_driver_its_own_target_satisfy_kafka_9981(stack_advisor, advisor_path):
    groups = [inputs.config_group(["m1.example.com"], {"target.clusters": "dc2"}),
              inputs.config_group(["m2.example.com"], {"target.clusters": "dc1"})]
    items = validation_items(stack_advisor, _services(advisor_path, config_groups=groups), _hosts())
    assert find(items, config_type=D, level="ERROR") == []
    assert find(items, text="heartbeat") == find(items, text="only emits heartbeats")  # m2's purpose, no pitfall


def test_kafka_3_5_allows_several_drivers_per_target(stack_advisor, advisor_path):
    services = _services(advisor_path, mm2=_simple(**{E: {"kafka_version_override": "3.7.1"}}))
    assert find(validation_items(stack_advisor, services, _hosts()), text="KAFKA-9981") == []


def test_heartbeat_pitfall_when_no_driver_serves_the_source(stack_advisor, advisor_path):
    # One driver near the target with --clusters dc2: nothing runs the dc2->dc1 herder that emits
    # the heartbeats proving dc1->dc2.
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**{D: {"target.clusters": "dc2"}}))
    items = validation_items(stack_advisor, services, _hosts())
    found = find(items, config_type=D, config_name="target.clusters", level="WARN", text="heartbeat")
    assert len(found) == 1
    message = found[0]["message"]
    assert "dc1->dc2" in message and "dc1.heartbeats" in message and "Add dc1" in message


def test_default_placement_of_a_one_way_flow_is_clean(stack_advisor, advisor_path):
    # Empty target.clusters starts MM2 without --clusters: the reverse herder emits the heartbeats.
    services = _services(advisor_path, drivers=DRIVERS[:1])
    assert find(validation_items(stack_advisor, services, _hosts()), config_type=D) == []


def test_no_heartbeat_warning_when_heartbeats_are_off(stack_advisor, advisor_path):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**{
        D: {"target.clusters": "dc2"}, X: {"emit.heartbeats.enabled": "false"}}))
    items = validation_items(stack_advisor, services, _hosts())
    assert find(items, config_type=D, text="heartbeat") == []  # no placement pitfall ...
    assert find(items, config_type=X, config_name="emit.heartbeats.enabled", level="WARN")  # ... the core says why


def test_a_target_nobody_serves_is_reported(stack_advisor, advisor_path):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple("active-active", **{
        D: {"target.clusters": "dc2"}}))
    items = validation_items(stack_advisor, services, _hosts())
    assert find(items, config_type=D, level="ERROR", text="Flow dc2->dc1 is not run by any driver host")


def test_single_driver_serving_everything_is_clean(stack_advisor, advisor_path):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple("active-active"))
    assert find(validation_items(stack_advisor, services, _hosts()), config_type=D) == []


def test_unknown_alias_in_target_clusters(stack_advisor, advisor_path):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**{D: {"target.clusters": "dc3"}}))
    found = find(validation_items(stack_advisor, services, _hosts()), config_type=D, level="ERROR", text="dc3")
    assert found and "not a cluster alias" in found[0]["message"]


def test_items_have_ambaris_validation_shape(stack_advisor, advisor_path):
    items = validation_items(stack_advisor, _services(advisor_path), _hosts())
    assert items
    for item in items:
        assert set(item) == {"type", "level", "message", "config-type", "config-name"}
        assert item["type"] == "configuration" and item["level"] in ("ERROR", "WARN")


# --- layout -----------------------------------------------------------------------------------

def test_layout_needs_at_least_one_driver(stack_advisor, advisor_path):
    items = layout_items(stack_advisor, _services(advisor_path, drivers=()), _hosts())
    assert [(i["type"], i["level"]) for i in items] == [("host-component", "ERROR")]
    assert "at least 1 %s" % names.COMPONENT_DISPLAY_NAME in items[0]["message"]


def test_layout_warns_about_several_drivers_before_kafka_3_5(stack_advisor, advisor_path):
    items = layout_items(stack_advisor, _services(advisor_path), _hosts())
    assert len(items) == 1 and items[0]["level"] == "WARN" and "KAFKA-9981" in items[0]["message"]
    services = _services(advisor_path, mm2=_simple(**{E: {"kafka_version_override": "3.6.2"}}))
    assert layout_items(stack_advisor, services, _hosts()) == []


def test_layout_with_one_driver_is_clean(stack_advisor, advisor_path):
    assert layout_items(stack_advisor, _services(advisor_path, drivers=DRIVERS[:1]), _hosts()) == []


# --- the safety net ---------------------------------------------------------------------------

SECRET = "S3cr3t-do-not-log"


def _break_the_core(monkeypatch, advisor_class):
    module = sys.modules[advisor_class.__module__]

    def boom(*args, **kwargs):
        raise RuntimeError("simulated bug")
    monkeypatch.setattr(module.local_kafka, "describe_local_kafka", boom)
    monkeypatch.setattr(module.advice, "kafka_version_for_validation", boom)


def test_a_bug_in_the_advisor_degrades_to_a_warning_not_a_broken_wizard(
        stack_advisor, advisor_path, advisor_class, monkeypatch, caplog, capsys):
    monkeypatch.delenv("MM2_ADVISOR_STRICT")
    services = _services(advisor_path, mm2=_simple(**{C: {"source.sasl.password": SECRET}}))
    stack_advisor.services = services
    advisor = stack_advisor.getServiceAdvisor(names.SERVICE)
    _break_the_core(monkeypatch, type(advisor))
    with caplog.at_level(logging.DEBUG):
        items = validation_items(stack_advisor, services, _hosts())
        layout = layout_items(stack_advisor, services, _hosts())
    assert [(i["config-type"], i["config-name"], i["level"]) for i in items] == [(C, "topology.mode", "WARN")]
    assert "could not check" in items[0]["message"] and "RuntimeError" in items[0]["message"]
    assert [i["level"] for i in layout] == ["WARN"]
    logged = caplog.text + "".join(capsys.readouterr())
    assert "simulated bug" in logged  # the traceback reaches the server log ...
    assert SECRET not in logged and SECRET not in repr(items)  # ... without configuration values


def test_strict_mode_lets_bugs_fail_the_tests(stack_advisor, advisor_path, monkeypatch):
    services = _services(advisor_path)
    stack_advisor.services = services
    _break_the_core(monkeypatch, type(stack_advisor.getServiceAdvisor(names.SERVICE)))
    with pytest.raises(RuntimeError):
        stack_advisor.validateConfigurations(services, _hosts())


# --- the core validator's findings, as Ambari validation items -------------------------------

T = names.TOPOLOGY


@pytest.mark.parametrize("kwargs, mm2, where, text", [
    ({"brokers": None}, {}, (C, "target.bootstrap.servers"), "no Kafka brokers to default to"),
    ({}, {C: {"source.bootstrap.servers": "dc1-k1:99999,foo"}}, (C, "source.bootstrap.servers"), "host:port"),
    ({}, {C: {"source.alias": "dc.1"}}, (C, "source.alias"), "not a valid cluster alias"),
    ({}, {C: {"source.alias": "DC2"}}, (C, "target.alias"), "used twice"),
    ({}, {R: {"topics": "orders\\.(?P<x>.*), a*+"}}, (R, "topics"), "not a valid Java regex"),
    ({"brokers": ("k1.example.com",)}, {}, (R, "replication.factor"), "more than the 1 broker"),
    ({}, {E: {"kafka_version_override": "2.4.1"}, R: {"sync.group.offsets.enabled": "true"}},
     (R, "sync.group.offsets.enabled"), "needs Kafka 2.7"),
    ({}, {E: {"kafka_version_override": "3.7.1"}, R: {"replication.policy": "identity", "direction": "active-active"}},
     (R, "direction"), "loop dc1 -> dc2 -> dc1"),
    ({}, {C: {"topology.mode": "advanced"}, T: {"content": "clusters:\n  dc1:\n    bootstrap.servers: a:9092\n"
                                                            "  dc2:\n    bootstrap.servers: b:9092\nflows:\n"
                                                            "  - source: dc1\n    target: dc3\n"}},
     (T, "content"), "target 'dc3' is not a cluster alias"),
])
def test_core_validator_findings_name_the_property(stack_advisor, advisor_path, kwargs, mm2, where, text):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**mm2), **kwargs)
    items = validation_items(stack_advisor, services, _hosts())
    assert find(items, config_type=where[0], config_name=where[1], level="ERROR", text=text), items


def test_java_only_regex_syntax_is_accepted(stack_advisor, advisor_path):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**{R: {"topics": "a*+, \\p{L}+\\.\\d++"}}))
    assert find(validation_items(stack_advisor, services, _hosts()), config_name="topics") == []


def test_a_clean_simple_setup_has_only_the_metrics_agent_warning(stack_advisor, advisor_path):
    """Every default: the one thing to provide is the exporter jar for metrics (a WARN: MM2 starts without it)."""
    services = _services(advisor_path, drivers=DRIVERS[:1])
    items = validation_items(stack_advisor, services, _hosts())
    assert [(i["config-type"], i["config-name"], i["level"]) for i in items] == [(E, "jmx_exporter_jar", "WARN")]
    message = items[0]["message"]
    assert message.startswith("metrics need the Prometheus JMX exporter agent at "
                              "/usr/share/java/jmx_prometheus_javaagent.jar on every driver host, and neither the "
                              "stack nor the mpack ships it: put jmx_prometheus_javaagent-<version>.jar")
    assert "Without the jar MirrorMaker 2 still starts, without metrics" in message


@pytest.mark.parametrize("env", [
    {"jmx_exporter_jar": "https://repo.example.com/maven/jmx_prometheus_javaagent-1.0.1.jar"},   # Install fetches it
    {"mm2_metrics_enabled": "false"},
])
def test_a_clean_setup_with_the_agent_from_a_url_or_metrics_off_has_no_items(stack_advisor, advisor_path, env):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**{E: env}))
    assert validation_items(stack_advisor, services, _hosts()) == []


def test_an_assumed_version_is_named_in_version_messages(stack_advisor, advisor_path):
    # HDP 3.1's Kafka 2.0 has no MM2 and no tarball version is known: 3.7.1 is assumed.
    services = _services(advisor_path, stack="HDP", drivers=DRIVERS[:1],
                         mm2=_simple(**{X: {"heartbeats.replication.enabled": "false"}}))
    found = find(validation_items(stack_advisor, services, _hosts()), config_type=X, level="ERROR")
    assert found and "3.7.1 is assumed: set kafka-mm2-env/kafka_version_override" in found[0]["message"]


def test_the_stack_kafka_version_is_used_on_bigtop(stack_advisor, advisor_path):
    services = _services(advisor_path, drivers=DRIVERS[:1], mm2=_simple(**{R: {"exactly.once.enabled": "true"}}))
    found = find(validation_items(stack_advisor, services, _hosts()), config_name="exactly.once.enabled")
    assert found and "2.8.1" in found[0]["message"] and "assumed" not in found[0]["message"]


def test_layout_warning_names_where_the_version_came_from(stack_advisor, advisor_path):
    services = _services(advisor_path, mm2=_simple(**{E: {"kafka_version_override": "3.4.1"}}))
    items = layout_items(stack_advisor, services, _hosts())
    assert "Kafka 3.4.1 (kafka-mm2-env/kafka_version_override)" in items[0]["message"]
    items = layout_items(stack_advisor, _services(advisor_path, stack="HDP",
                                                  mm2=_simple(**{E: {"kafka_install_source": "tarball",
                                                                     "kafka_tarball_url": "http://r/kafka_2.12-3.3.2.tgz"}})),
                         _hosts())
    assert "Kafka 3.3.2 (kafka-mm2-env/kafka_tarball_url)" in items[0]["message"]


def test_broken_live_flow_settings_get_the_agents_words_once_each(stack_advisor, advisor_path):
    """kafka-mm2-live/flow.settings: the advisor runs the one validator the agent, `validate` and `render` run
    (mm2_core.connect.live.parse): each broken line once, naming the flow, the setting and the fix."""
    from mm2_core.connect import live
    from mm2_core.model import parse
    lines = "dc1->dc2.tasks.max = four\ndc1->dc3.topics = x\ndc1->dc2.groups = g["
    mm2 = _simple(**{E: {"kafka_version_override": "3.7.1", "mm2_run_mode": "connect"},
                     names.LIVE: {"flow.settings": lines}})
    mm2[C]["target.bootstrap.servers"] = "dc2-k1.example.org:9092"
    items = find(validation_items(stack_advisor, _services(advisor_path, mm2=mm2), _hosts()),
                 config_type=names.LIVE, level="ERROR")
    messages = [i["message"] for i in items]
    assert len(messages) == 3, messages
    assert "line 1 (dc1->dc2.tasks.max = four): tasks.max of flow dc1->dc2: 'four' is not a whole number" \
        in messages[0] and "fix the value or remove the line" in messages[0]
    assert "no flow dc1->dc3 in this topology" in messages[1]
    assert "groups of flow dc1->dc2: 'g[' is not a valid Java regex" in messages[2]
    assert not [m for m in messages if "('ERROR'" in m]
    topology = parse.build_topology(mm2, "3.7.1")
    assert [p.message for p in live.parse(lines, topology)[1]] == messages   # the agent's words, verbatim
