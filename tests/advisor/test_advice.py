"""The pure rules behind the advisor's recommendations (mm2_core.advisor.advice)."""
import pytest

from mm2_core.advisor import advice
from mm2_core.config import local_kafka, names

C, R = names.CLUSTERS, names.REPLICATION
HOSTS = ["k2.example.com", "k1.example.com", "k3.example.com"]


@pytest.mark.parametrize("value, expected", [
    ("PLAINTEXT://localhost:6667", [("PLAINTEXT", "PLAINTEXT", "localhost", "6667")]),
    ("SASL_PLAINTEXT://:6668, SSL://0.0.0.0:6669",
     [("SASL_PLAINTEXT", "SASL_PLAINTEXT", "", "6668"), ("SSL", "SSL", "0.0.0.0", "6669")]),
    ("PLAINTEXTSASL://localhost:6667", [("PLAINTEXTSASL", "SASL_PLAINTEXT", "localhost", "6667")]),
    ("PLAINTEXT://[::1]:9092", [("PLAINTEXT", "PLAINTEXT", "[::1]", "9092")]),
    ("INTERNAL://:9094", [("INTERNAL", None, "", "9094")]),
    ("PLAINTEXT://localhost:{{kafka_port}}, garbage", []),
    ("", []),
])
def test_parse_listeners(value, expected):
    got = [(l.name, l.protocol, l.host, l.port) for l in local_kafka.parse_listeners(value)]
    assert got == expected


def test_listener_names_map_to_protocols():
    listeners = local_kafka.parse_listeners("INTERNAL://:9094,EXTERNAL://:9095",
                                       local_kafka.parse_protocol_map("INTERNAL:SASL_PLAINTEXT, EXTERNAL:SSL"))
    assert [(l.name, l.protocol) for l in listeners] == [("INTERNAL", "SASL_PLAINTEXT"), ("EXTERNAL", "SSL")]


def test_describe_local_kafka_plain():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "PLAINTEXT://localhost:6667"})
    assert local["bootstrap.servers"] == "k1.example.com:6667,k2.example.com:6667,k3.example.com:6667"
    assert local["security.protocol"] == "PLAINTEXT" and local["sasl.mechanism"] is None
    assert local["broker_count"] == 3


def test_no_brokers_means_no_local_kafka():
    assert local_kafka.describe_local_kafka([], {"listeners": "PLAINTEXT://localhost:6667"}) is None


def test_inter_broker_listener_name_wins():
    local = local_kafka.describe_local_kafka(HOSTS, {
        "listeners": "EXTERNAL://:9095,INTERNAL://:9094",
        "listener.security.protocol.map": "INTERNAL:SASL_SSL,EXTERNAL:SSL",
        "inter.broker.listener.name": "INTERNAL"})
    assert local["bootstrap.servers"].endswith(":9094") and local["security.protocol"] == "SASL_SSL"


def test_scram_mechanism_from_broker_settings_without_kerberos():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "SASL_SSL://:9093",
                                                "sasl.enabled.mechanisms": "SCRAM-SHA-512"})
    assert (local["security.protocol"], local["sasl.mechanism"]) == ("SASL_SSL", "SCRAM-SHA-512")
    assert local["sasl.kerberos.service.name"] is None


def test_kerberos_upgrades_ssl_listener_to_sasl_ssl_and_names_the_service_after_kafka_user():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "SSL://localhost:6669"}, {"kafka_user": "kfk"},
                                        security_enabled=True)
    assert (local["security.protocol"], local["sasl.mechanism"]) == ("SASL_SSL", "GSSAPI")
    assert local["sasl.kerberos.service.name"] == "kfk"


def test_old_port_property_without_listeners():
    local = local_kafka.describe_local_kafka(HOSTS, {"port": "6667"})
    assert local["bootstrap.servers"].startswith("k1.example.com:6667") and local["security.protocol"] == "PLAINTEXT"


def test_no_usable_listener_gives_no_bootstrap():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "INTERNAL://:9094"})
    assert local["bootstrap.servers"] == "" and advice.recommend({}, local, "c1").get(C, {}).get(
        "target.bootstrap.servers") is None


def test_raw_listener_port_is_local_but_never_the_default():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "PLAINTEXT://localhost:6667",
                                                "raw.listeners": "SSL://localhost:6670"})
    assert local["bootstrap.servers"].endswith(":6667")
    endpoint = advice.local_endpoint_for("k1.example.com:6670", local)
    assert endpoint["security.protocol"] == "SSL"
    assert endpoint["bootstrap.servers"] == ",".join("%s:6670" % h for h in sorted(HOSTS))


@pytest.mark.parametrize("bootstrap", ["remote.example.org:9092", "k1.example.com:6667,remote:9092",
                                       "k1.example.com:6667,k2.example.com:6668", "k1.example.com"])
def test_bootstrap_not_purely_local_is_the_operators(bootstrap):
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "PLAINTEXT://localhost:6667"})
    assert advice.local_endpoint_for(bootstrap, local) is None


@pytest.mark.parametrize("name, alias", [("c1", "c1"), ("Prod Cluster.1", "Prod_Cluster_1"), ("..", None),
                                         ("", None), (None, None), ("_x_", "x"), ("Config", "Config-cluster")])
def test_alias_from_cluster_name(name, alias):
    assert advice.alias_from_cluster_name(name) == alias


@pytest.mark.parametrize("count, rf", [(0, None), (1, 1), (2, 2), (3, 3), (7, 3)])
def test_recommended_replication_factor(count, rf):
    assert advice.recommended_replication_factor(count) == rf


def test_source_that_is_the_local_kafka_gets_the_cluster_name_as_alias():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "PLAINTEXT://localhost:6667"})
    current = {C: {"source.bootstrap.servers": "k1.example.com:6667", "target.bootstrap.servers": "dr:9092",
                   "source.alias": "", "target.alias": "dr"}}
    out = advice.recommend(current, local, "prod")
    assert out[C] == {"source.alias": "prod"}
    assert R not in out  # the target is remote: its broker count is unknown


@pytest.mark.parametrize("source_alias", ["prod", "PROD"])
def test_no_alias_when_it_would_collide_with_the_other_side(source_alias):
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "PLAINTEXT://localhost:6667"})
    out = advice.recommend({C: {"source.alias": source_alias, "target.alias": ""}}, local, "prod")
    assert "target.alias" not in out[C]


def test_ranger_recommendation_does_not_need_a_local_target():
    local = local_kafka.describe_local_kafka(HOSTS, {"listeners": "PLAINTEXT://localhost:6667"}, ranger_kafka_enabled=True)
    out = advice.recommend({C: {"target.bootstrap.servers": "dr:9092"}}, local, "c1")
    assert out == {R: {"sync.topic.acls.enabled": "false"}}


@pytest.mark.parametrize("env, stack, expected", [
    ({"kafka_version_override": " 3.6.2 "}, "2.8.1-2", ("3.6.2", "kafka-mm2-env/kafka_version_override")),
    ({}, "2.8.1-2", ("2.8.1", "the stack's KAFKA service version")),
    ({"kafka_install_source": "stack"}, "2.0.0.3.1", ("2.0.0", "the stack's KAFKA service version")),
    ({"kafka_tarball_url": "http://repo/kafka/kafka_2.13-3.7.1.tgz"}, "2.0.0.3.1",
     ("3.7.1", "kafka-mm2-env/kafka_tarball_url")),
    ({"kafka_install_source": "path", "kafka_home": "/opt/kafka_2.12-2.8.2"}, "3.1.0",
     ("2.8.2", "kafka-mm2-env/kafka_home")),
    ({"kafka_install_source": "tarball", "kafka_tarball_url": "/repo/kafka.tgz"}, "3.1.0",
     (advice.ASSUMED_KAFKA_VERSION, "assumed: set kafka-mm2-env/kafka_version_override")),
    ({}, None, (advice.ASSUMED_KAFKA_VERSION, "assumed: set kafka-mm2-env/kafka_version_override")),
])
def test_kafka_version_for_validation(env, stack, expected):
    assert advice.kafka_version_for_validation(env, stack) == expected


@pytest.mark.parametrize("config_type, name, expected", [
    (names.TOPOLOGY, "content: flows[0] (a->b)", ("content", "flows[0] (a->b): msg")),
    (names.TOPOLOGY, "content", ("content", "msg")),
    (C, "source.alias", ("source.alias", "msg")),
    (names.CUSTOM, "a->b.emit.heartbeats.enabled", ("a->b.emit.heartbeats.enabled", "msg")),
    ("kafka-broker", "listeners", ("listeners", "msg")),
])
def test_ambari_property_names_the_field_of_the_form(config_type, name, expected):
    assert advice.ambari_property(config_type, name, "msg") == expected
