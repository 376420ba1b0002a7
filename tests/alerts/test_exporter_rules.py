"""The shipped exporter rules turn the MBeans of every MM2 version into the series the alerts read."""
import re

import pytest
import yaml

from exporter_sim import Exporter, RULES_FILE, jmx_sanitize
from mm2_core.alerts import alert_runner, metrics as m
from mm2_sim import Checkpoint, Flow, MM2Process, partitions

VERSIONS = [("2.4.1", False), ("3.4.1", False), ("3.7.1", False), ("3.7.1", True), ("3.9.0", False), ("4.0.0", False)]


def _series(process):
    """{family: [labels dict]} of what the exporter would serve for this process."""
    found = {}
    for name, _, labels, value in Exporter().samples(process.mbeans()):
        found.setdefault(name, []).append((dict(labels), value))
    return found


def _process(version, add_source_alias=False):
    # from 3.9 the simulated process also carries a connect-mode worker's app-info (named by its REST address)
    return MM2Process(version, herders=[("A", "B"), ("B", "A")], add_source_alias=add_source_alias,
                      connect_worker="127.0.0.1:8093" if version >= "3.9" else None,
                      flows=[Flow("A", "B", partitions("orders", 3), tasks=2,
                                  checkpoints=[Checkpoint("billing:eu", "orders", 1)])])


@pytest.mark.parametrize("version,alias", VERSIONS)
def test_partition_series_exist_for_every_version(version, alias):
    series = _series(_process(version, alias))
    latency = series[m.SOURCE_LATENCY_AVG]
    topics = sorted((l["topic"], l["partition"]) for l, _ in latency)
    assert topics == [("A.heartbeats", "0"), ("A.orders", "0"), ("A.orders", "1"), ("A.orders", "2")]
    for labels, _ in latency:
        assert labels["target"] == "B"
        has_source = version >= "4" or alias
        assert ("source" in labels) == bool(has_source), labels
        if has_source:
            assert labels["source"] == "A"
    assert len(series[m.SOURCE_RECORD_COUNT]) == 4


@pytest.mark.parametrize("version,alias", VERSIONS)
def test_replication_consumer_lag_is_flow_qualified_from_35(version, alias):
    series = _series(_process(version, alias))
    if version >= "3.5":
        lag = series[m.REPLICATION_LAG]
        assert sorted((l["source"], l["target"], l["topic"], l["partition"]) for l, _ in lag) == [
            ("A", "B", "heartbeats", "0"), ("A", "B", "orders", "0"), ("A", "B", "orders", "1"), ("A", "B", "orders", "2")]
        assert set(l["task"] for l, _ in lag) == {"0", "1"}
        # the offset-syncs reader is not a replication consumer (Kafka writes "." as "_" in topic tags)
        assert all(l["topic"] != "mm2-offset-syncs_B_internal" for l, _ in lag)
    else:
        assert m.REPLICATION_LAG not in series
    # every consumer partition lands in the generic family too (it is what pre-3.5 alerts read)
    generic = series[m.CONSUMER_LAG]
    assert any(l["topic"] == "mm2-offset-syncs_B_internal" for l, _ in generic)
    assert all('"' not in l["client_id"] for l, _ in generic)


@pytest.mark.parametrize("version,alias", VERSIONS)
def test_herders_connectors_tasks_and_checkpoints(version, alias):
    series = _series(_process(version, alias))
    assert sorted((l["source"], l["target"], l["version"]) for l, _ in series[m.HERDER_UP]) == [
        ("A", "B", version), ("B", "A", version)]
    assert sorted(v for _, v in series[m.HERDER_START]) == [1.7e12, 1.7e12]
    assert ({"connector": "MirrorSourceConnector", "status": "running"}, 1.0) in series[m.CONNECTOR_STATUS]
    tasks = sorted((l["connector"], l["task"], l["status"]) for l, _ in series[m.TASK_STATUS])
    assert ("MirrorSourceConnector", "1", "running") in tasks
    cp = series[m.CHECKPOINT_LATENCY]
    assert [l for l, _ in cp] == [{"source": "A", "target": "B", "group": "billing:eu", "topic": "A.orders",
                                   "partition": "1"}]


def test_quoted_client_ids_and_groups_are_unquoted():
    assert jmx_sanitize("A->B|MirrorSourceConnector-0|replication-consumer").startswith('"')
    assert jmx_sanitize("consumer-1") == "consumer-1"
    process = MM2Process("3.7.1", flows=[Flow("dc-1", "dc-2", partitions("t", 1),
                                              checkpoints=[Checkpoint("g/1", "t", 0)])])
    series = _series(process)
    assert {l["source"] for l, _ in series[m.REPLICATION_LAG]} == {"dc-1"}
    assert {l["target"] for l, _ in series[m.REPLICATION_LAG]} == {"dc-2"}
    assert series[m.CHECKPOINT_LATENCY][0][0]["group"] == "g/1"


def test_user_client_id_prefix_is_accepted():
    """3.5+ prepends a user-set client.id: '<id>|A->B|MirrorSourceConnector-0|replication-consumer'."""
    from exporter_sim import MBean
    bean = MBean("kafka.consumer", [("type", "consumer-fetch-manager-metrics"),
                                    ("client-id", "mirror|A->B|MirrorSourceConnector-3|replication-consumer"),
                                    ("topic", "t"), ("partition", "5")], [("records-lag", 42.0)])
    samples = Exporter().samples([bean])
    assert samples == [(m.REPLICATION_LAG, samples[0][1],
                        [("source", "A"), ("target", "B"), ("task", "3"), ("topic", "t"), ("partition", "5")], 42.0)]


def test_status_strings_become_labels_and_unrelated_mbeans_are_dropped():
    process = MM2Process("3.7.1", flows=[Flow("A", "B", partitions("t", 1))],
                         task_status={("MirrorSourceConnector", 0): "failed"})
    names = set(n for n, _, _, _ in Exporter().samples(process.mbeans()))
    assert not any(n.startswith("kafka_producer") or "rebalance" in n for n in names)
    series = _series(process)
    assert ({"connector": "MirrorSourceConnector", "task": "0", "status": "failed"}, 1.0) in series[m.TASK_STATUS]


def test_families_the_alerts_read_are_produced_by_the_rules():
    produced = set(_series(_process("3.7.1")))
    produced |= set(_series(_process("3.4.1")))
    produced |= set(_series(_process("3.9.0")))
    exporter_own = {m.SCRAPE_ERROR, m.SCRAPE_DURATION}
    for family in alert_runner.ALL_FAMILIES:
        assert family in produced or family in exporter_own, family


def test_rule_names_avoid_suffixes_the_1x_client_reserves():
    with open(RULES_FILE) as fh:
        rules = yaml.safe_load(fh)["rules"]
    for rule in rules:
        assert rule["type"] == "GAUGE"
        assert not re.search(r"_(total|info|created|bucket)$", rule["name"]), rule["name"]
        assert rule["name"].startswith("mm2_")
    produced = set(_series(_process("4.0.0")))
    assert not [n for n in produced if re.search(r"_(total|info|created|bucket)$", n)]


def test_every_rule_is_used_by_some_version():
    """A rule that matches nothing for any version is dead weight (or a typo)."""
    exporter = Exporter()
    hits = set()
    for version, alias in VERSIONS:
        for bean in _process(version, alias).mbeans():
            if not exporter.included(bean):
                continue
            props = ", ".join("%s=%s" % (k, jmx_sanitize(v)) for k, v in bean.props)
            for attr, value in bean.attrs:
                from exporter_sim import java_value_string
                text = "%s<%s><>%s: %s" % (bean.domain, props, attr, java_value_string(value))
                for i, rule in enumerate(exporter.rules):
                    if rule.pattern.match(text):
                        hits.add(i)
                        break
    assert hits == set(range(len(exporter.rules)))


def test_grafana_dashboard_queries_only_series_the_rules_produce():
    import json
    import os
    from exporter_sim import REPO
    path = os.path.join(REPO, "common-services", "KAFKA_MIRRORMAKER2", "1.0.0", "dashboards", "grafana-dashboards",
                        "grafana-kafka-mirrormaker2.json")
    with open(path) as fh:
        dash = json.load(fh)
    produced = set(_series(_process("3.7.1"))) | set(_series(_process("3.4.1"))) | {m.SCRAPE_DURATION}
    used = set()
    for panel in dash["panels"]:
        for target in panel.get("targets", []):
            used |= set(re.findall(r"\b(mm2_[a-z_]+|jmx_[a-z_]+)\b", target["expr"]))
    assert used and used <= produced, used - produced
    assert [v["name"] for v in dash["templating"]["list"]] == ["datasource", "instance"]


def test_connect_mode_worker_becomes_one_herder_per_flow():
    """Connect mode: the worker's app-info (id 127.0.0.1:<port>) is exported; the alerts add one herder per flow
    the worker's REST API lists, so the replication alerts read connect mode like dedicated MM2."""
    from mm2_core.alerts import alert_connect
    series = _series(_process("3.9.0"))
    assert series[m.CONNECT_WORKER_UP] == [({"port": "8093", "version": "3.9.0"}, 1.0)]
    text = "".join('%s{port="8093",version="3.9.0"} 1.0\n' % m.CONNECT_WORKER_UP for _ in [0])
    text += '%s{port="8093"} 1700000000000.0\n' % m.CONNECT_WORKER_START

    class Listing(object):
        def connectors(self):
            return {"A->B.MirrorSourceConnector": {}, "A->B.MirrorHeartbeatConnector": {}, "C->B.MirrorSourceConnector": {}}
    original = alert_connect._client
    alert_connect._client = lambda configs, timeout, host=None: Listing()
    try:
        lines = alert_connect.herder_lines({"kafka-mm2-driver": {"connect.rest.port": "8093"}}, text)
        assert alert_connect.herder_lines({"kafka-mm2-driver": {"connect.rest.port": "9999"}}, text) == ""
    finally:
        alert_connect._client = original
    assert lines.splitlines() == [
        'mm2_herder_up{source="A",target="B",version="3.9.0"} 1.0',
        'mm2_herder_start_time_ms{source="A",target="B"} 1700000000000.0',
        'mm2_herder_up{source="C",target="B",version="3.9.0"} 1.0',
        'mm2_herder_start_time_ms{source="C",target="B"} 1700000000000.0']
