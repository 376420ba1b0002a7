"""Issue 12: what the wizard can get wrong, said by the advisor (through the stack advisor).

- a cluster pointing at this Ambari cluster's brokers on a port or with a protocol the local
  Kafka does not listen with;
- no Kafka with MirrorMaker 2 for INSTALL (HDP 3.1's Kafka 2.0 and an empty kafka_tarball_url);
- a global target.clusters that leaves sources without heartbeats (the aggregation example).
"""
import json
import os

import pytest

from mm2_core.advisor import advice
from mm2_core.config import names

import advisor_inputs as inputs
from advisor_harness import find, validation_items

C, E, D, T = names.CLUSTERS, names.ENV, names.DRIVER, names.TOPOLOGY
HOSTS = ["k1.example.com", "k2.example.com", "k3.example.com", "m1.example.com"]
TWO_LISTENERS = {"listeners": "PLAINTEXT://localhost:6667,SASL_SSL://localhost:6668",
                 "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL"}
EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def _items(advisor_path, stack_advisor, mm2, **kwargs):
    services = inputs.services_json(advisor_path, mm2=mm2, **kwargs)
    return validation_items(stack_advisor, services, inputs.hosts_json(HOSTS, "c1"))


def _simple_target(bootstrap, protocol="PLAINTEXT", **more):
    clusters = {"source.alias": "dc1", "source.bootstrap.servers": "dc1-k1.example.org:9092",
                "target.alias": "dc2", "target.bootstrap.servers": bootstrap, "target.security.protocol": protocol}
    clusters.update(more)
    return {C: clusters}


@pytest.mark.parametrize("bootstrap,protocol,broker,config_name,fragment", [
    ("k1.example.com:6668", "PLAINTEXT", None, "target.bootstrap.servers", "port 6668"),
    ("k1.example.com:6667,k2.example.com:6667", "SSL", None, "target.security.protocol", "speaks PLAINTEXT"),
    ("k2.example.com:6667", "SASL_SSL", TWO_LISTENERS, "target.security.protocol", "SASL_SSL:6668"),
    ("k3.example.com:9999", "SASL_SSL", TWO_LISTENERS, "target.bootstrap.servers", "PLAINTEXT:6667, SASL_SSL:6668"),
])
def test_a_target_on_the_local_brokers_must_match_a_listener(advisor_path, stack_advisor, bootstrap, protocol,
                                                             broker, config_name, fragment):
    mm2 = _simple_target(bootstrap, protocol, **({"target.sasl.mechanism": "PLAIN", "target.sasl.username": "u",
                                                   "target.sasl.password": "p"} if protocol.startswith("SASL") else {}))
    items = _items(advisor_path, stack_advisor, mm2, kafka_broker=broker)
    assert find(items, config_type=C, config_name=config_name, level="ERROR", text=fragment), items


@pytest.mark.parametrize("bootstrap,protocol,broker", [
    ("k1.example.com:6667", "PLAINTEXT", None),
    ("k1.example.com:6668,k2.example.com:6668", "SASL_SSL", TWO_LISTENERS),
    ("other.example.org:6668", "SSL", None),  # not this cluster's brokers: the operator's choice
])
def test_a_matching_listener_or_another_cluster_is_fine(advisor_path, stack_advisor, bootstrap, protocol, broker):
    mm2 = _simple_target(bootstrap, protocol, **({"target.sasl.mechanism": "PLAIN", "target.sasl.username": "u",
                                                   "target.sasl.password": "p"} if protocol.startswith("SASL") else {}))
    items = _items(advisor_path, stack_advisor, mm2, kafka_broker=broker)
    assert find(items, text="local Kafka") == []


def test_a_yaml_cluster_on_the_local_brokers_is_checked_too(advisor_path, stack_advisor):
    content = ("clusters:\n  remote: {bootstrap.servers: 'r1.example.org:9092'}\n"
               "  here: {bootstrap.servers: 'k1.example.com:6667', security.protocol: SSL}\n"
               "flows:\n  - {source: remote, target: here}\n")
    items = _items(advisor_path, stack_advisor, {C: {"topology.mode": "advanced"}, T: {"content": content}})
    assert find(items, config_type=T, config_name="content", level="ERROR", text="speaks PLAINTEXT")


@pytest.mark.parametrize("stack,env,config_name", [
    ("HDP", {}, "kafka_tarball_url"),                                          # auto, Kafka 2.0, no tarball
    ("HDP", {"kafka_install_source": "stack"}, "kafka_install_source"),
    ("BIGTOP", {"kafka_install_source": "tarball"}, "kafka_tarball_url"),
])
def test_install_without_a_kafka_with_mm2_is_an_error_in_the_wizard(advisor_path, stack_advisor, stack, env,
                                                                    config_name):
    mm2 = _simple_target("")
    mm2[E] = env
    items = _items(advisor_path, stack_advisor, mm2, stack=stack)
    assert find(items, config_type=E, config_name=config_name, level="ERROR", text="2.4"), items


@pytest.mark.parametrize("stack,env", [
    ("HDP", {"kafka_tarball_url": "https://archive.apache.org/dist/kafka/3.7.1/kafka_2.13-3.7.1.tgz"}),
    ("HDP", {"kafka_install_source": "path", "kafka_home": "/opt/kafka_2.13-3.7.1"}),
    ("BIGTOP", {}),                                                            # Kafka 2.8: the stack's own
    ("ODP", {"kafka_install_source": "stack"}),
])
def test_install_sources_that_work_are_not_flagged(advisor_path, stack_advisor, stack, env):
    mm2 = _simple_target("")
    mm2[E] = env
    items = _items(advisor_path, stack_advisor, mm2, stack=stack)
    assert find(items, config_type=E, config_name="kafka_tarball_url") == []
    assert find(items, config_type=E, config_name="kafka_install_source") == []


@pytest.mark.parametrize("stack", ["BIGTOP", "ODP"])
def test_a_cluster_without_kafka_on_a_stack_whose_package_has_mm2_is_fine(advisor_path, stack_advisor, stack):
    # The stack's add-on installs the stack's Kafka package on the drivers: no KAFKA service needed.
    items = _items(advisor_path, stack_advisor, _simple_target("t1.example.org:9092"), stack=stack, brokers=None)
    assert find(items, config_type=E, level="ERROR") == [], items


def test_a_cluster_without_kafka_on_hdp_says_so(advisor_path, stack_advisor):
    items = _items(advisor_path, stack_advisor, _simple_target("t1.example.org:9092"), stack="HDP", brokers=None)
    found = find(items, config_type=E, config_name="kafka_tarball_url", level="ERROR",
                 text="the cluster runs no KAFKA service and this stack has no Kafka package with MirrorMaker 2")
    assert found, items
    assert find(items, text="the stack has no Kafka service") == []


def test_every_stack_listed_with_a_kafka_package_installs_one_on_the_drivers():
    # advice.STACK_KAFKA_PACKAGES must say what the stack add-ons' metainfo.xml really do.
    root = os.path.join(os.path.dirname(__file__), "..", "..", "stacks")
    for stack in os.listdir(root):
        with open(os.path.join(root, stack, names.SERVICE, "1.0.0", "metainfo.xml")) as fh:
            installs = "<name>kafka" in fh.read()
        listed = any(name == stack for name, _ in advice.STACK_KAFKA_PACKAGES)
        assert installs == listed, stack


def _aggregation():
    with open(os.path.join(EXAMPLES, "aggregation-three-into-one", "configurations.json")) as fh:
        return json.load(fh)


def test_the_aggregation_example_gives_every_source_its_heartbeats(advisor_path, stack_advisor):
    items = _items(advisor_path, stack_advisor, _aggregation(), kafka_version="3.7.1-1",
                   extra={E: {"kafka_version_override": "3.7.1"}})
    assert find(items, text="heartbeat") == [], items


def test_a_global_target_list_without_the_sources_is_warned(advisor_path, stack_advisor):
    mm2 = _aggregation()
    mm2[D] = {"target.clusters": "central"}
    items = _items(advisor_path, stack_advisor, mm2, extra={E: {"kafka_version_override": "3.7.1"}})
    warned = find(items, level="WARN", text="has no heartbeats")
    assert sorted(i["message"].split()[1] for i in warned) == ["amer->central", "apac->central", "emea->central"]


# --- the pure rules, plain dicts in and out --------------------------------------------------------

@pytest.mark.parametrize("env,stack_version,expected", [
    ({}, "2.0.0.3.1", ["kafka_tarball_url"]),
    ({}, None, ["kafka_tarball_url"]),                       # no Kafka with MM2 from the stack at all
    ({}, "2.4.0", []),
    ({"kafka_install_source": "tarball", "kafka_tarball_url": " "}, "3.1.0", ["kafka_tarball_url"]),
    ({"kafka_install_source": "stack"}, "2.3.1", ["kafka_install_source"]),
    ({"kafka_install_source": "path"}, "2.0.0", []),
    ({"kafka_tarball_url": "/srv/kafka_2.12-2.8.2.tgz"}, "2.0.0", []),
])
def test_installation_problems(env, stack_version, expected):
    assert [p.name for p in advice.installation_problems(env, stack_version)] == expected
