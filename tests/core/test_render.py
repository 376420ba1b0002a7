"""Version-aware rendering, security, secrets, safe defaults: what an operator relies on."""
import copy

import pytest

import examples_support

from mm2_core.config import local_kafka
from mm2_core.config.problems import ConfigError
from mm2_core.formats import javaprops
from mm2_core.kafka import versions
from mm2_core.model import parse, placement, topology
from mm2_core.rendering import render

HOST = "mm2-1.example.com"
CONF = "/etc/kafka-mm2/conf"
BASE = {
    "kafka-mm2-clusters": {"source.alias": "east", "source.bootstrap.servers": "e1:9092,e2:9092",
                           "target.alias": "west", "target.bootstrap.servers": "w1:9092,w2:9092,w3:9092"},
}


def configs(**sections):
    out = copy.deepcopy(BASE)
    for name, props in sections.items():
        out.setdefault("kafka-mm2-" + name, {}).update(props)
    return out


def props(rendering, name=render.PROPERTIES_FILE):
    return javaprops.load_dict(rendering.file(name).text)


def rendered(version, cfg=None, local=None, host=HOST):
    return render.render_mm2(cfg or configs(), version, host, CONF, local_kafka=local)


# --- version-aware keys ------------------------------------------------------------------------

@pytest.mark.parametrize("version,exclude_key,absent", [
    ("2.4.1", "topics.blacklist", "topics.exclude"),
    ("2.6.3", "groups.blacklist", "groups.exclude"),
    ("2.7.0", "topics.exclude", "topics.blacklist"),
    ("3.9.0", "groups.exclude", "groups.blacklist"),
    ("4.0.0", "topics.exclude", "topics.blacklist"),
])
def test_exclude_keys_follow_the_version(version, exclude_key, absent):
    p = props(rendered(version, configs(replication={"topics.exclude": "__.*, x\\.y"})))
    assert exclude_key in p and absent not in p
    if exclude_key.startswith("topics"):
        assert p[exclude_key] == "__.*, x\\.y"


def test_no_blacklist_key_at_all_on_4x():
    p = props(rendered("4.0.0"))
    assert not [k for k in p if k.endswith(".blacklist")]


def test_offset_sync_keys_only_from_2_7():
    assert "sync.group.offsets.enabled" not in props(rendered("2.4.1"))
    p = props(rendered("2.7.2", configs(replication={"sync.group.offsets.enabled": True,
                                                     "sync.group.offsets.interval.seconds": "30"})))
    assert p["sync.group.offsets.enabled"] == "true"
    assert p["sync.group.offsets.interval.seconds"] == "30"
    assert "sync.group.offsets.interval.ms" not in p


def test_offset_syncs_location_only_from_3_0():
    assert "offset-syncs.topic.location" not in props(rendered("2.8.2"))
    p = props(rendered("3.0.0", configs(replication={"offset-syncs.topic.location": "target"})))
    assert p["offset-syncs.topic.location"] == "target"


def test_internal_rest_from_3_5_with_this_hosts_listener():
    before = rendered("3.4.1")
    assert not before.internal_rest and before.rest_listener is None
    assert "listeners" not in props(before) and "dedicated.mode.enable.internal.rest" not in props(before)
    after = rendered("3.5.0", configs(driver={"internal.rest.port": "18083"}), host="mm2-7.example.com")
    p = props(after)
    assert after.internal_rest and after.rest_listener == "http://mm2-7.example.com:18083"
    assert p["dedicated.mode.enable.internal.rest"] == "true"
    assert p["listeners"] == "http://mm2-7.example.com:18083"
    assert p["rest.advertised.host.name"] == "mm2-7.example.com"
    assert p["rest.advertised.port"] == "18083"


def test_worker_settings_are_written_per_cluster_not_top_level():
    p = props(rendered("3.7.1", configs(replication={"offset.flush.interval.ms": "15000"})))
    assert "offset.flush.interval.ms" not in p          # MM2 ignores it there
    assert p["east.offset.flush.interval.ms"] == p["west.offset.flush.interval.ms"] == "15000"


def test_internal_topic_replication_factors():
    p = props(rendered("3.7.1", configs(replication={"internal.topics.replication.factor": "2",
                                                     "replication.factor": "-1"})))
    for key in ("heartbeats.topic.replication.factor", "checkpoints.topic.replication.factor",
                "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
                "config.storage.replication.factor", "status.storage.replication.factor"):
        assert p[key] == "2"
    assert p["replication.factor"] == "-1"


def test_separator_other_than_dot_pins_internal_topic_names_from_3_5_2():
    cfg = configs(replication={"replication.policy.separator": "_"})
    assert props(rendered("3.7.1", cfg))["replication.policy.internal.topic.separator.enabled"] == "true"
    assert "replication.policy.internal.topic.separator.enabled" not in props(rendered("3.2.3", cfg))
    problems = render.validate(cfg, "3.7.1")
    assert [p for p in problems if p.level == "WARN" and p.name == "replication.policy.separator"]


# --- client overrides ---------------------------------------------------------------------------

ADVANCED = """
clusters:
  a:
    bootstrap.servers: a:9092
    consumer: {max.poll.records: 5000}
    admin: {request.timeout.ms: 90000}
  b:
    bootstrap.servers: b:9092
    producer: {linger.ms: 100}
    admin: {retries: 5}
flows:
  - source: a
    target: b
    tasks.max: 8
    topics: orders.*
    emit.heartbeats.interval.seconds: 5
    config:
      producer.override.batch.size: 327680
"""


def advanced(text=ADVANCED, **sections):
    return configs(clusters={"topology.mode": "advanced"}, topology={"content": text}, **sections)


@pytest.mark.parametrize("version", ["2.4.1", "2.7.2"])
def test_cluster_overrides_reach_clients_before_2_8_through_flow_keys(version):
    p = props(rendered(version, advanced()))
    assert p["a->b.consumer.max.poll.records"] == "5000"
    assert p["a->b.source.admin.request.timeout.ms"] == "90000"
    assert p["a->b.target.admin.retries"] == "5"
    assert p["b.producer.linger.ms"] == "100"       # worker producer: works on every version
    # what these versions ignore per cluster is not written there (only per flow, above)
    assert not [k for k in p if k.startswith(("a.consumer.", "a.admin.", "b.admin."))], sorted(p)


def test_cluster_consumer_override_no_flow_takes_is_a_warning_before_2_8():
    cfg = configs(custom={"west.consumer.max.poll.records": "500", "east.consumer.fetch.min.bytes": "2"})
    r = rendered("2.4.1", cfg)
    p = props(r)
    assert "west.consumer.max.poll.records" not in p and p["east->west.consumer.fetch.min.bytes"] == "2"
    assert "east.consumer.fetch.min.bytes" not in p
    (warning,) = [w for w in r.warnings if "has no effect" in w.message]
    assert warning.name == "west.consumer.max.poll.records" and "Kafka 2.4.1" in warning.message, warning.message
    assert not [w for w in rendered("2.8.2", cfg).warnings if "has no effect" in w.message]
    assert props(rendered("2.8.2", cfg))["west.consumer.max.poll.records"] == "500"


def test_cluster_overrides_are_not_repeated_from_2_8():
    p = props(rendered("2.8.2", advanced()))
    assert p["a.consumer.max.poll.records"] == "5000"
    assert not [k for k in p if k.startswith("a->b.consumer.") or ".source.admin." in k]


def test_flow_settings_only_when_they_differ():
    p = props(rendered("3.7.1", advanced()))
    assert p["a->b.tasks.max"] == "8"
    assert p["a->b.topics"] == "orders.*"
    assert "a->b.emit.heartbeats.interval.seconds" not in p   # same as the global 5
    assert p["a->b.producer.override.batch.size"] == "327680"
    assert p["a->b.enabled"] == "true"


def test_disabled_flow_is_written_disabled():
    text = ADVANCED.replace("    tasks.max: 8\n", "    enabled: false\n")
    r = rendered("3.7.1", advanced(text))
    p = props(r)
    assert p["a->b.enabled"] == "false" and "a->b.tasks.max" not in p
    assert r.topology.targets() == []


def _herders(version, custom=None):
    """The herder pairs MM2 of this version creates (MirrorMakerConfig.clusterPairs) from the rendered file of the
    shipped aggregation example: 4 clusters, 3 flows into central."""
    cfg, _ = examples_support.load_example("aggregation-three-into-one")
    cfg.setdefault("kafka-mm2-custom", {}).update(custom or {})
    r = rendered(version, cfg)
    p = props(r)
    heartbeats = p.get("emit.heartbeats.enabled", "true")
    pairs = placement.herder_pairs([a.strip() for a in p["clusters"].split(",")],
                                   [(f.source, f.target) for f in r.topology.enabled_flows],
                                   versions.KafkaVersion.parse(version).key,
                                   lambda s, t: p.get("%s->%s.emit.heartbeats.enabled" % (s, t), heartbeats) != "false")
    return set(pairs), p


def test_three_into_one_runs_only_the_flows_and_their_heartbeat_herders():
    """MM2 would create 12 herders (every ordered pair emits heartbeats); the flows and the reverse pairs that write
    each source's heartbeats (central->emea's herder writes into emea what emea->central carries as
    emea.heartbeats) are the 6 that work; the rest are turned off."""
    flows = {("emea", "central"), ("apac", "central"), ("amer", "central")}
    pairs, p = _herders("3.9.0")
    assert pairs == flows | set((t, s) for s, t in flows)
    assert p["emea->apac.emit.heartbeats.enabled"] == "false" and "central->emea.emit.heartbeats.enabled" not in p
    # before KAFKA-10710 (2.7.1) every pair had a herder whatever it emitted: nothing written there
    pairs, p = _herders("2.6.3")
    assert len(pairs) == 12 and not [k for k in p if k.endswith(".emit.heartbeats.enabled")]
    # an operator's own setting for a pair wins
    pairs, p = _herders("3.9.0", {"emea->apac.emit.heartbeats.enabled": "true"})
    assert ("emea", "apac") in pairs and p["emea->apac.emit.heartbeats.enabled"] == "true"
    assert ("apac", "emea") not in pairs
    # two clusters (one-way, active-active): every pair works
    assert not [k for k in props(rendered("3.9.0")) if k.endswith(".emit.heartbeats.enabled")]


def test_every_pair_of_a_ring_of_clusters_emits_heartbeats_only_where_a_flow_needs_them():
    """Eight clusters in a ring (i -> i+1): the answer for each of the 56 ordered pairs, which the placement checks
    ask for every pair, is 'a flow or the reverse of one'; the others are written off."""
    from mm2_core.model import resolved
    aliases = ["c%d" % i for i in range(8)]
    flows = set((aliases[i], aliases[(i + 1) % 8]) for i in range(8))
    content = "clusters:\n" + "".join("  %s: {bootstrap.servers: '%s:9092'}\n" % (a, a) for a in aliases)
    content += "flows:\n" + "".join("  - {source: %s, target: %s}\n" % f for f in sorted(flows))
    topo, collector = parse.parse({"kafka-mm2-clusters": {"topology.mode": "advanced"},
                                   "kafka-mm2-topology": {"content": content}}, "3.9.0", None)
    assert topo is not None and not collector.has_errors, collector.problems
    answers = resolved.resolve(topo)
    working = flows | set((t, s) for s, t in flows)
    for source in aliases:
        for target in aliases:
            if source != target:
                assert answers.emits_heartbeats(source, target) == ((source, target) in working), (source, target)
    assert len(answers.quiet_pairs) == 8 * 7 - 16


# --- exactly-once ------------------------------------------------------------------------------

def test_exactly_once_renders_everything_it_needs():
    r = rendered("3.5.0", configs(replication={"exactly.once.enabled": "true"}))
    p = props(r)
    assert p["dedicated.mode.enable.internal.rest"] == "true"
    assert p["west.exactly.once.source.support"] == "enabled"
    assert p["east.consumer.isolation.level"] == "read_committed"
    assert "east.exactly.once.source.support" not in p


def test_exactly_once_two_step_upgrade_through_custom():
    cfg = configs(replication={"exactly.once.enabled": "true"},
                  custom={"west.exactly.once.source.support": "preparing"})
    assert props(rendered("3.7.1", cfg))["west.exactly.once.source.support"] == "preparing"
    cfg["kafka-mm2-custom"]["west.exactly.once.source.support"] = "maybe"
    with pytest.raises(ConfigError) as info:
        rendered("3.7.1", cfg)
    assert "preparing" in str(info.value)


def test_read_uncommitted_override_is_refused_with_exactly_once():
    cfg = configs(replication={"exactly.once.enabled": "true"},
                  custom={"east->west.consumer.isolation.level": "read_uncommitted"})
    with pytest.raises(ConfigError) as info:
        rendered("3.7.1", cfg)
    assert "read_committed" in str(info.value)


# --- security ----------------------------------------------------------------------------------

def test_each_cluster_has_its_own_security():
    cfg = configs(clusters={
        "source.security.protocol": "SASL_SSL", "source.sasl.mechanism": "GSSAPI",
        "source.ssl.truststore.location": "/t.jks", "source.ssl.truststore.password": "tpw",
        "target.security.protocol": "SASL_PLAINTEXT", "target.sasl.mechanism": "SCRAM-SHA-256",
        "target.sasl.username": "mm2", "target.sasl.password": 'p"w\\d'},
        env={"mm2_principal_name": "mm2/_HOST@EXAMPLE.COM", "mm2_keytab": "/k/mm2.keytab"})
    p = props(rendered("3.7.1", cfg, host="MM2-9.Example.COM"))
    assert p["east.security.protocol"] == "SASL_SSL"
    assert p["east.sasl.kerberos.service.name"] == "kafka"
    assert p["east.sasl.jaas.config"] == (
        'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
        'keyTab="/k/mm2.keytab" principal="mm2/mm2-9.example.com@EXAMPLE.COM";')
    assert p["east.ssl.truststore.password"] == "tpw"
    assert p["west.security.protocol"] == "SASL_PLAINTEXT"
    assert p["west.sasl.mechanism"] == "SCRAM-SHA-256"
    assert p["west.sasl.jaas.config"] == ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                                          'username="mm2" password="p\\"w\\\\d";')
    assert "west.ssl.truststore.location" not in p


def test_per_cluster_kerberos_principal_override():
    cfg = configs(clusters={"source.security.protocol": "SASL_PLAINTEXT",
                            "source.sasl.kerberos.principal": "other/_HOST@R", "source.sasl.kerberos.keytab": "/o.kt"})
    p = props(rendered("3.7.1", cfg))
    assert 'principal="other/mm2-1.example.com@R"' in p["east.sasl.jaas.config"]
    assert 'keyTab="/o.kt"' in p["east.sasl.jaas.config"]


def test_plain_mechanism():
    cfg = configs(clusters={"target.security.protocol": "SASL_SSL", "target.sasl.mechanism": "PLAIN",
                            "target.sasl.username": "u", "target.sasl.password": "pw"})
    p = props(rendered("2.4.1", cfg))
    assert p["west.sasl.jaas.config"].startswith("org.apache.kafka.common.security.plain.PlainLoginModule required")


# --- secrets -------------------------------------------------------------------------------------

SECRET_CFG = dict(clusters={"source.security.protocol": "SSL", "source.ssl.truststore.location": "/t.jks",
                            "source.ssl.truststore.password": "trust-pw", "target.security.protocol": "SASL_SSL",
                            "target.sasl.mechanism": "SCRAM-SHA-512", "target.sasl.username": "u",
                            "target.sasl.password": "scram-pw", "target.ssl.truststore.location": "/t.jks"})


def test_literal_secrets_make_the_file_0600():
    r = rendered("3.7.1", configs(**SECRET_CFG))
    assert [f.name for f in r.files] == [render.PROPERTIES_FILE]
    main = r.file(render.PROPERTIES_FILE)
    assert main.mode == 0o600 and main.secret
    plain = rendered("3.7.1").file(render.PROPERTIES_FILE)
    assert plain.mode == 0o640 and not plain.secret


@pytest.mark.parametrize("version,worker_copy", [("3.2.3", False), ("3.5.0", True), ("3.7.1", True),
                                                 ("3.8.0", True), ("3.8.1", False), ("4.0.0", False)])
def test_file_config_provider_keeps_secrets_out_of_the_main_file(version, worker_copy):
    cfg = configs(replication={"secrets.config.provider.enabled": "true"}, **SECRET_CFG)
    r = rendered(version, cfg)
    main, secrets = r.file(render.PROPERTIES_FILE), r.file(render.SECRETS_FILE)
    assert main.mode == 0o640 and not main.secret
    assert secrets.mode == 0o600 and secrets.secret
    assert "trust-pw" not in main.text and "scram-pw" not in main.text
    p, s = props(r), props(r, render.SECRETS_FILE)
    path = CONF + "/" + render.SECRETS_FILE
    assert p["east.ssl.truststore.password"] == "${file:%s:east.ssl.truststore.password}" % path
    assert p["west.sasl.jaas.config"] == "${file:%s:west.sasl.jaas.config}" % path
    assert s["east.ssl.truststore.password"] == "trust-pw"
    assert 'password="scram-pw"' in s["west.sasl.jaas.config"]
    assert p["config.providers"] == "file"
    assert p["config.providers.file.class"] == render.FILE_PROVIDER_CLASS
    # KAFKA-17192: 3.5.0-3.8.0 workers only see config.providers through the cluster-level copy.
    assert ("east.config.providers" in p) is worker_copy and ("west.config.providers" in p) is worker_copy


def test_references_are_kept_and_not_treated_as_literal_secrets():
    cfg = configs(clusters={"source.security.protocol": "SSL", "source.ssl.truststore.location": "/t.jks",
                            "source.ssl.truststore.password": "${file:/etc/vault/pw.properties:east}"},
                  custom={"config.providers": "file", "config.providers.file.class": render.FILE_PROVIDER_CLASS})
    r = rendered("3.7.1", cfg)
    assert props(r)["east.ssl.truststore.password"] == "${file:/etc/vault/pw.properties:east}"
    assert r.file(render.PROPERTIES_FILE).mode == 0o640


def test_literal_secret_in_yaml_is_a_warning():
    text = ADVANCED.replace("    bootstrap.servers: b:9092\n",
                            "    bootstrap.servers: b:9092\n    security.protocol: SSL\n"
                            "    ssl.truststore.location: /t.jks\n    ssl.truststore.password: pw\n")
    problems = render.validate(advanced(text), "3.7.1")
    assert not [p for p in problems if p.level == "ERROR"]
    assert [p for p in problems if p.level == "WARN" and "clusters.b.ssl.truststore.password" in p.message]


# --- local Kafka, Ranger, defaults ---------------------------------------------------------------

LOCAL = {"hosts": ["k1.example.com", "k2.example.com"], "bootstrap.servers": "k1.example.com:6668,k2.example.com:6668",
         "broker_count": 2, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
         "sasl.kerberos.service.name": "kafka", "ranger_kafka_enabled": True}


def test_target_defaults_to_the_local_kafka():
    cfg = configs(clusters={"target.bootstrap.servers": ""},
                  replication={"internal.topics.replication.factor": "2", "replication.factor": "2"},
                  env={"mm2_principal_name": "mm2/_HOST@R", "mm2_keytab": "/k"})
    r = rendered("3.7.1", cfg, local=LOCAL)
    p = props(r)
    assert p["west.bootstrap.servers"] == LOCAL["bootstrap.servers"]
    assert p["west.security.protocol"] == "SASL_PLAINTEXT"
    assert p["west.sasl.mechanism"] == "GSSAPI"
    assert r.topology.clusters["west"].local
    # Ranger authorizes the local Kafka: ACL sync would only fight it (off by default, no warning)
    assert p["sync.topic.acls.enabled"] == "false"
    assert not [w for w in r.warnings if w.name == "sync.topic.acls.enabled"]
    # an operator who turns it on is told it stays off
    cfg["kafka-mm2-replication"]["sync.topic.acls.enabled"] = "true"
    r = rendered("3.7.1", cfg, local=LOCAL)
    assert props(r)["sync.topic.acls.enabled"] == "false"
    assert [w for w in r.warnings if w.name == "sync.topic.acls.enabled"]


def test_acl_sync_is_rendered_only_when_the_operator_says_there_is_an_authorizer():
    """Without an authorizer MM2 2.8 logs SecurityDisabledException at every ACL sync: off unless turned on."""
    assert props(rendered("2.8.2", configs()))["sync.topic.acls.enabled"] == "false"
    on = configs(replication={"sync.topic.acls.enabled": "true"})
    assert props(rendered("2.8.2", on))["sync.topic.acls.enabled"] == "true"


def test_assign_groups_without_checkpoints_are_named_on_2_4_to_2_7_only():
    for version, warned in (("2.4.1", True), ("2.7.2", True), ("2.8.2", False), ("3.9.0", False)):
        found = [w for w in rendered(version, configs()).warnings if "assign()" in w.message]
        assert bool(found) == warned, (version, found)
        if warned:
            assert found[0].config_type == "kafka-mm2-replication" and found[0].name == "groups"
            assert "2.8 and newer checkpoint them" in found[0].message


def test_replication_factor_above_the_local_broker_count_is_refused():
    cfg = configs(clusters={"target.bootstrap.servers": ""}, env={"mm2_principal_name": "p", "mm2_keytab": "/k"})
    problems = render.validate(cfg, "3.7.1", LOCAL)
    names = set(p.name for p in problems if p.level == "ERROR")
    assert names == {"internal.topics.replication.factor", "replication.factor"}


def test_local_kafka_from_ambari_configurations():
    cfg = {"kafka-broker": {"listeners": "PLAINTEXT://localhost:6667,SASL_PLAINTEXT://localhost:6668"},
           "cluster-env": {"security_enabled": True},
           "ranger-kafka-plugin-properties": {"ranger-kafka-plugin-enabled": "Yes"}}
    local = local_kafka.local_kafka_from(cfg, ["b.example.com", "a.example.com"])
    assert local.bootstrap == "a.example.com:6668,b.example.com:6668"
    assert local.protocol == "SASL_PLAINTEXT" and local.broker_count == 2 and local.ranger
    assert local_kafka.local_kafka_from(cfg, []) is None


def test_ambari_booleans_and_missing_properties():
    # Ambari's ConfigDictionary turns "true"/"false" into bools; absent properties take the defaults.
    p = props(rendered("3.7.1", configs(replication={"sync.topic.configs.enabled": False,
                                                     "sync.group.offsets.enabled": True})))
    assert p["sync.topic.configs.enabled"] == "false" and p["sync.group.offsets.enabled"] == "true"
    assert p["tasks.max"] == "4" and p["emit.heartbeats.interval.seconds"] == "5"
    assert p["topics.exclude"] == ".*[\\-\\.]internal, .*\\.replica, __.*"


def test_active_active_and_target_clusters():
    r = rendered("3.7.1", configs(replication={"direction": "active-active"}))
    p = props(r)
    assert p["east->west.enabled"] == p["west->east.enabled"] == "true"
    # empty target.clusters: no --clusters, every herder (incl. heartbeat emitters) runs here
    assert r.target_clusters == [] and r.clusters_args == []
    r = rendered("3.7.1", configs(replication={"direction": "active-active"}, driver={"target.clusters": "east"}))
    assert r.target_clusters == ["east"] and r.clusters_args == ["--clusters", "east"]


def test_mirrored_topic_names_follow_the_policy():
    topo = parse.build_topology(configs(replication={"replication.policy.separator": "_"}), "3.7.1")
    flow = topo.flows[0]
    assert topo.mirrored_topic(flow, "orders") == "east_orders"
    topo = parse.build_topology(configs(replication={"replication.policy": "identity"}), "3.7.1")
    assert topo.mirrored_topic(topo.flows[0], "orders") == "orders"
    assert topo.targets() == ["west"] and topo.sources() == ["east"]


def test_identity_aggregation_warns_about_merged_topics():
    text = ("clusters:\n  a: {bootstrap.servers: 'a:9092'}\n  b: {bootstrap.servers: 'b:9092'}\n"
            "  c: {bootstrap.servers: 'c:9092'}\nflows:\n  - {source: a, target: c}\n  - {source: b, target: c}\n")
    problems = render.validate(advanced(text, replication={"replication.policy": "identity"}), "3.7.1")
    assert not [p for p in problems if p.level == "ERROR"]
    assert [p for p in problems if p.level == "WARN" and "lands in one topic" in p.message]


def test_custom_properties_pass_through_verbatim():
    cfg = configs(custom={"east->west.consumer.override.client.rack": " rack 1 ", "west.producer.linger.ms": "5",
                          "east->west.transforms": "x", "east->west.transforms.x.type": "org.example.X"})
    p = props(rendered("3.7.1", cfg))
    assert p["east->west.consumer.override.client.rack"] == " rack 1 "
    assert p["west.producer.linger.ms"] == "5"
    assert p["east->west.transforms.x.type"] == "org.example.X"


def test_validate_equals_render_errors():
    cfg = configs(custom={"west.producer.acks": "1"}, replication={"tasks.max": "0"})
    problems = [p for p in render.validate(cfg, "3.7.1") if p.level == "ERROR"]
    with pytest.raises(ConfigError) as info:
        rendered("3.7.1", cfg)
    assert set(problems) == set(info.value.errors)
    assert len(problems) == 2


def test_alias_problem_for_the_advisor():
    assert topology.alias_problem("east-1_a") is None
    assert "no '.'" in topology.alias_problem("us.east")
    assert "cannot be a cluster alias" in topology.alias_problem("Admin")


def test_local_kafka_without_readable_listeners_says_so():
    cfg = configs(clusters={"target.bootstrap.servers": ""})
    problems = render.validate(cfg, "3.7.1", {"hosts": ["k1"], "bootstrap.servers": "", "broker_count": 1})
    assert [p for p in problems if p.name == "target.bootstrap.servers" and "listeners could not be read" in p.message]
