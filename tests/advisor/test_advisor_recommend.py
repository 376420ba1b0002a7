"""Recommendations, driven through the stack advisor with Ambari's advisor input."""
import pytest

from mm2_core.config import names

import advisor_inputs as inputs
from advisor_harness import recommended

BROKERS = ("k1.example.com", "k2.example.com", "k3.example.com")
HOSTS = list(BROKERS) + ["m1.example.com"]
C, R = names.CLUSTERS, names.REPLICATION


def _hosts(cluster_name="c1"):
    return inputs.hosts_json(HOSTS, cluster_name)


def test_target_defaults_to_the_local_kafka(stack_advisor, advisor_path):
    rec = recommended(stack_advisor, inputs.services_json(advisor_path), _hosts())
    assert rec[C]["target.bootstrap.servers"] == "k1.example.com:6667,k2.example.com:6667,k3.example.com:6667"
    assert rec[C]["target.security.protocol"] == "PLAINTEXT"
    assert rec[C]["target.alias"] == "c1"
    assert rec[R]["replication.factor"] == "3"
    assert rec[R]["internal.topics.replication.factor"] == "3"


def test_bigtop_default_listener_port_9092(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, kafka_broker={"listeners": "PLAINTEXT://localhost:9092"})
    rec = recommended(stack_advisor, services, _hosts())
    assert rec[C]["target.bootstrap.servers"].split(",") == ["%s:9092" % h for h in BROKERS]


@pytest.mark.parametrize("brokers, rf", [(("k1.example.com",), "1"), (BROKERS[:2], "2"),
                                         (BROKERS + ("k4.example.com",), "3")])
def test_replication_factors_follow_the_broker_count(stack_advisor, advisor_path, brokers, rf):
    rec = recommended(stack_advisor, inputs.services_json(advisor_path, brokers=brokers), _hosts())
    assert rec[R]["replication.factor"] == rf
    assert rec[R]["internal.topics.replication.factor"] == rf


def test_an_operator_chosen_factor_that_fits_is_kept(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, mm2={R: {"replication.factor": "2",
                                                           "internal.topics.replication.factor": "-1"}})
    rec = recommended(stack_advisor, services, _hosts())
    assert "replication.factor" not in rec.get(R, {})
    assert "internal.topics.replication.factor" not in rec.get(R, {})


def test_without_local_kafka_nothing_about_the_target_is_invented(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, brokers=None)
    rec = recommended(stack_advisor, services, _hosts())
    for name in ("target.bootstrap.servers", "target.security.protocol", "target.alias"):
        assert name not in rec.get(C, {})
    assert "replication.factor" not in rec.get(R, {})


def test_a_remote_target_chosen_by_the_operator_is_left_alone(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, mm2={C: {"target.bootstrap.servers": "dr1.example.org:9093",
                                                           "target.security.protocol": "SSL"}})
    rec = recommended(stack_advisor, services, _hosts())
    for name in ("target.bootstrap.servers", "target.security.protocol", "target.alias"):
        assert name not in rec.get(C, {})
    assert "replication.factor" not in rec.get(R, {})


def test_a_stale_local_broker_list_is_refreshed(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, mm2={C: {"target.bootstrap.servers": "k1.example.com:6667"}})
    rec = recommended(stack_advisor, services, _hosts())
    assert rec[C]["target.bootstrap.servers"] == ",".join("%s:6667" % h for h in BROKERS)


def test_kerberos_cluster_gives_sasl_plaintext_and_gssapi(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, security_enabled=True, kafka_broker={
        "listeners": "PLAINTEXT://localhost:6667,SASL_PLAINTEXT://localhost:6668",
        "security.inter.broker.protocol": "SASL_PLAINTEXT"})
    rec = recommended(stack_advisor, services, _hosts())
    assert rec[C]["target.bootstrap.servers"] == ",".join("%s:6668" % h for h in BROKERS)
    assert rec[C]["target.security.protocol"] == "SASL_PLAINTEXT"
    assert rec[C]["target.sasl.mechanism"] == "GSSAPI"
    assert rec[C]["target.sasl.kerberos.service.name"] == "kafka"


def test_kerberos_wizard_before_listeners_are_rewritten(stack_advisor, advisor_path):
    # While Kerberos is being enabled the listeners may still read PLAINTEXT; Ambari turns them into
    # SASL_PLAINTEXT on the same port, so MM2 must already speak SASL_PLAINTEXT there.
    services = inputs.services_json(advisor_path, security_enabled=True)
    result = stack_advisor.recommendConfigurationsForKerberos(services, _hosts())
    props = result["recommendations"]["blueprint"]["configurations"][C]["properties"]
    assert props["target.security.protocol"] == "SASL_PLAINTEXT"
    assert props["target.bootstrap.servers"].endswith(":6667")


def test_hdp_plaintextsasl_listener_is_sasl_plaintext(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, stack="HDP", security_enabled=True, kafka_broker={
        "listeners": "PLAINTEXTSASL://localhost:6667", "security.inter.broker.protocol": "PLAINTEXTSASL"})
    rec = recommended(stack_advisor, services, _hosts())
    assert rec[C]["target.security.protocol"] == "SASL_PLAINTEXT"


def test_operator_edit_in_this_request_wins(stack_advisor, advisor_path):
    # changed-configurations: the operator just set the protocol; putProperty keeps their value.
    services = inputs.services_json(advisor_path, mm2={C: {"target.security.protocol": "SSL"}},
                                    changed=[(C, "target.security.protocol")])
    rec = recommended(stack_advisor, services, _hosts())
    assert rec[C]["target.security.protocol"] == "SSL"
    assert rec[C]["target.bootstrap.servers"].endswith(":6667")


def test_ranger_kafka_plugin_turns_acl_sync_off(stack_advisor, advisor_path):
    rec = recommended(stack_advisor, inputs.services_json(advisor_path, ranger_kafka="Yes"), _hosts())
    assert rec[R]["sync.topic.acls.enabled"] == "false"
    rec = recommended(stack_advisor, inputs.services_json(advisor_path, ranger_kafka="No"), _hosts())
    assert "sync.topic.acls.enabled" not in rec.get(R, {})


@pytest.mark.parametrize("cluster_name, alias", [("Prod Cluster.1", "Prod_Cluster_1"), ("dc1-kafka", "dc1-kafka"),
                                                 ("a->b", "a-_b")])
def test_target_alias_is_the_sanitized_cluster_name(stack_advisor, advisor_path, cluster_name, alias):
    rec = recommended(stack_advisor, inputs.services_json(advisor_path), _hosts(cluster_name))
    assert rec[C]["target.alias"] == alias


def test_no_alias_is_guessed_before_the_cluster_exists(stack_advisor, advisor_path):
    # In the install wizard hosts are not in a cluster yet: hosts.json has no cluster_name.
    rec = recommended(stack_advisor, inputs.services_json(advisor_path), _hosts(None))
    assert "target.alias" not in rec.get(C, {})


def test_an_alias_the_operator_set_is_kept(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, mm2={C: {"target.alias": "dr"}})
    assert "target.alias" not in recommended(stack_advisor, services, _hosts()).get(C, {})


def test_advanced_mode_leaves_the_simple_mode_target_alone(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, mm2={C: {"topology.mode": "advanced"}})
    assert "target.bootstrap.servers" not in recommended(stack_advisor, services, _hosts()).get(C, {})


def test_changing_the_broker_listener_re_recommends_the_target(stack_advisor, advisor_path):
    # recommend-configuration-dependencies: only properties that depend on the changed one come back.
    services = inputs.services_json(advisor_path, kafka_broker={"listeners": "PLAINTEXT://localhost:7777"},
                                    mm2={C: {"target.bootstrap.servers": ",".join("%s:6667" % h for h in BROKERS)}},
                                    changed=[("kafka-broker", "listeners")])
    result = stack_advisor.recommendConfigurationDependencies(services, _hosts())
    configurations = result["recommendations"]["blueprint"]["configurations"]
    assert configurations[C]["properties"]["target.bootstrap.servers"] == ",".join("%s:7777" % h for h in BROKERS)
    assert set(configurations[C]["properties"]) <= {"target.bootstrap.servers", "target.security.protocol"}
    assert R not in configurations


def test_enabling_the_ranger_kafka_plugin_turns_acl_sync_off_as_a_dependency(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, ranger_kafka="Yes",
                                    changed=[("ranger-kafka-plugin-properties", "ranger-kafka-plugin-enabled")])
    result = stack_advisor.recommendConfigurationDependencies(services, _hosts())
    configurations = result["recommendations"]["blueprint"]["configurations"]
    assert configurations[R]["properties"] == {"sync.topic.acls.enabled": "false"}
    assert C not in configurations  # the target is not among what depends on the Ranger flag


def test_pointing_the_target_at_another_local_listener_follows_its_protocol(stack_advisor, advisor_path):
    listeners = {"listeners": "PLAINTEXT://localhost:6667,SASL_SSL://localhost:6669"}
    services = inputs.services_json(advisor_path, kafka_broker=listeners, changed=[(C, "target.bootstrap.servers")],
                                    mm2={C: {"target.bootstrap.servers": "k1.example.com:6669"}})
    result = stack_advisor.recommendConfigurationDependencies(services, _hosts())
    props = result["recommendations"]["blueprint"]["configurations"][C]["properties"]
    assert props["target.security.protocol"] == "SASL_SSL"
    assert "target.bootstrap.servers" not in props  # the operator's edit stands: nothing comes back for it


def test_pointing_the_target_elsewhere_recommends_nothing_about_it(stack_advisor, advisor_path):
    services = inputs.services_json(advisor_path, changed=[(C, "target.bootstrap.servers")],
                                    mm2={C: {"target.bootstrap.servers": "dr1.example.org:9093"}})
    result = stack_advisor.recommendConfigurationDependencies(services, _hosts())
    assert C not in result["recommendations"]["blueprint"]["configurations"]
