"""Mirrored topic names: the one rule shared by rendering, alerts, the service check and mm2-verify."""
import pytest

from mm2_core.config import names
from mm2_core.kafka import replication_policy as rp
from mm2_core.model import parse


@pytest.mark.parametrize("policy,topic,expected", [
    ("prefixed", "orders", "primary.orders"),
    ("prefixed", "heartbeats", "primary.heartbeats"),
    ("identity", "orders", "orders"),
    # Kafka's IdentityReplicationPolicy still prefixes heartbeats (looksLikeHeartbeat).
    ("identity", "heartbeats", "primary.heartbeats"),
    ("identity", "dc0.heartbeats", "primary.dc0.heartbeats"),
])
def test_remote_topic_follows_kafka_policies(policy, topic, expected):
    assert rp.remote_topic("primary", topic, policy) == expected


@pytest.mark.parametrize("policy", rp.POLICIES)
@pytest.mark.parametrize("topic", ["orders", "heartbeats", "a.b.c", "x-heartbeats"])
def test_upstream_topic_inverts_remote_topic(policy, topic):
    remote = rp.remote_topic("dc1", topic, policy, "_")
    assert rp.upstream_topic("dc1", remote, policy, "_") == topic


def test_topology_names_mirrored_heartbeats_like_kafka_under_identity():
    configurations = {
        names.CLUSTERS: {"source.alias": "src", "source.bootstrap.servers": "s1:9092",
                         "target.alias": "dst", "target.bootstrap.servers": "d1:9092"},
        names.REPLICATION: {"replication.policy": "identity"},
    }
    topo = parse.build_topology(configurations, "3.7.1")
    flow = topo.flows[0]
    assert topo.mirrored_topic(flow, "orders") == "orders"
    assert topo.mirrored_topic(flow, "heartbeats") == "src.heartbeats"


def test_a_topic_that_came_from_the_target_is_a_cycle_mm2_does_not_replicate():
    assert rp.is_cycle("B.orders", "B")
    assert rp.is_cycle("C.B.orders", "B")      # through C, from B (isCycle recurses on the upstream topic)
    assert rp.is_cycle("X.B.orders", "B")      # any prefix is a source cluster to Kafka's policy
    assert not rp.is_cycle("C.orders", "B")
    assert not rp.is_cycle("orders", "B")
    assert rp.is_cycle("B_orders", "B", separator="_")
    assert not rp.is_cycle("B.orders", "B", policy=rp.IDENTITY)
