"""A real agent registers with the real server, and the server's stack advisor endpoints run the mpack's
service advisor (the server writes hosts.json/services.json and calls stack_advisor.py through
ambari-python-wrap, as in production).

Requests are shaped like the web UI's (ambari-web utils/ajax: 'config.recommendations' and
'config.validations': hosts, services, and a blueprint with its cluster binding)."""
import time

STACK = "/api/v1/stacks/BIGTOP/versions/3.3.0"
CLUSTERS, REPLICATION, DRIVER, ENV = ("kafka-mm2-clusters", "kafka-mm2-replication", "kafka-mm2-driver",
                                      "kafka-mm2-env")


def _blueprint(host, components, configurations):
    return {"blueprint": {"host_groups": [{"name": "host_group_1", "components": [{"name": c} for c in components]}],
                          "configurations": dict((t, {"properties": p}) for t, p in configurations.items())},
            "blueprint_cluster_binding": {"host_groups": [{"name": "host_group_1", "hosts": [{"fqdn": host}]}]}}


def test_real_agent_registers_and_heartbeats(ambari, agent_host):
    assert agent_host.registration["os_type"]  # what the agent reported, e.g. debian12
    deadline = time.time() + 120
    while time.time() < deadline:
        status, body = ambari.get("/api/v1/hosts/%s?fields=Hosts/host_status,Hosts/last_heartbeat_time" % agent_host.hostname)
        if body["Hosts"]["host_status"] == "HEALTHY":
            break
        time.sleep(2)
    assert body["Hosts"]["host_status"] == "HEALTHY"
    assert body["Hosts"]["last_heartbeat_time"] > 0


def test_recommendations_follow_the_local_kafka_and_the_cluster_name(cluster_with_host):
    ambari, cluster, host = cluster_with_host
    status, body = ambari.request("POST", STACK + "/recommendations", {
        "recommend": "configurations", "hosts": [host], "services": ["ZOOKEEPER", "KAFKA", "KAFKA_MIRRORMAKER2"],
        "recommendations": _blueprint(host, ["ZOOKEEPER_SERVER", "KAFKA_BROKER", "MIRRORMAKER2_DRIVER"], {
            "kafka-broker": {"listeners": "PLAINTEXT://localhost:6667"},
            CLUSTERS: {"topology.mode": "simple", "source.alias": "dc1",
                       "source.bootstrap.servers": "dc1-k1.example.org:9092",
                       "target.alias": "", "target.bootstrap.servers": ""}})})
    assert status == 200, body
    rec = body["resources"][0]["recommendations"]["blueprint"]["configurations"]
    # the cluster's own broker becomes the target, named after the cluster; one broker -> factor 1
    assert rec[CLUSTERS]["properties"]["target.bootstrap.servers"] == "%s:6667" % "localhost"
    assert rec[CLUSTERS]["properties"]["target.alias"] == cluster
    assert rec[REPLICATION]["properties"]["replication.factor"] == "1"
    assert rec[REPLICATION]["properties"]["internal.topics.replication.factor"] == "1"


def _validate(ambari, host, configurations):
    status, body = ambari.request("POST", STACK + "/validations", {
        "validate": "configurations", "hosts": [host], "services": ["KAFKA_MIRRORMAKER2"],
        "recommendations": _blueprint(host, ["MIRRORMAKER2_DRIVER"], configurations)})
    assert status == 200, body
    return body["resources"][0]["items"]


GOOD = {CLUSTERS: {"topology.mode": "simple", "source.alias": "dc1", "source.bootstrap.servers": "127.0.0.1:9092",
                   "target.alias": "dc2", "target.bootstrap.servers": "127.0.0.1:9093"},
        REPLICATION: {"direction": "one-way"},
        ENV: {"kafka_install_source": "path", "kafka_home": "/opt/kafka", "kafka_version_override": "3.9.0"}}


def test_validation_of_a_good_configuration_has_no_error(cluster_with_host):
    ambari, _, host = cluster_with_host
    items = _validate(ambari, host, GOOD)
    assert [i for i in items if i["level"] == "ERROR"] == []


def test_validation_names_the_bad_property_and_the_fix(cluster_with_host):
    ambari, _, host = cluster_with_host
    bad = dict(GOOD, **{DRIVER: {"target.clusters": "dc3"}})
    items = _validate(ambari, host, bad)
    errors = [(i["config-type"], i["config-name"], i["message"]) for i in items if i["level"] == "ERROR"]
    assert errors == [(DRIVER, "target.clusters", "'dc3' is not a cluster alias (known: dc1, dc2)")]
