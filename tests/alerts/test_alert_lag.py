"""Replication record lag alert (the replication consumers' records-lag), 3.x and 4.x naming."""
import pytest

from conftest import render
from mm2_sim import Flow, MM2Process, Partition, partitions

VERSIONS = ["3.4.1", "3.7.1", "4.0.0"]


def _serve(metrics_server, version, parts, **kw):
    return metrics_server(render(MM2Process(version, herders=[("A", "B"), ("B", "A")],
                                            flows=[Flow("A", "B", parts, tasks=3)], **kw)))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("lag,expected", [
    (9999, "OK"), (10000, "WARNING"), (10001, "WARNING"),
    (99999, "WARNING"), (100000, "CRITICAL"), (100001, "CRITICAL"),
])
def test_worst_partition_lag_at_the_boundaries(metrics_server, run_alert, version, lag, expected):
    parts = partitions("orders", 5, lag=10.0) + [Partition("clicks", 11, lag=float(lag))]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("lag", server.port)
    assert state == expected
    against = {"OK": "(warning 10000 records, critical 100000 records)",
               "WARNING": ">= warning 10000 records (critical 100000 records)",
               "CRITICAL": ">= critical 100000 records"}[expected]
    assert text.startswith("A->B: worst partition clicks-11 (A.clicks on the target) lag %d records %s; "
                           "7 partitions here, %d records behind in total;" % (lag, against, lag + 50))
    mode = "before Kafka 3.5" if version < "3.5" else "Kafka 3.5+"
    assert mode in text


def test_internal_consumers_do_not_count_before_35(metrics_server, run_alert):
    """Before 3.5 every consumer has a generated id; the offset-syncs reader's lag (7) and Connect's
    own topics must not be taken for replication lag."""
    server = _serve(metrics_server, "3.4.1", partitions("orders", 2, lag=0.0))
    state, text = run_alert("lag", server.port)
    assert state == "OK"
    assert "lag 0 records" in text and "3 partitions here, 0 records behind in total" in text


def test_same_source_topic_in_two_flows_before_35_is_attributed_by_consumer(metrics_server, run_alert):
    """Before 3.5 consumer ids are generated; A->B's consumer also reads A's heartbeats, which pins it
    to A->B, and then C->B's consumer can only be C->B's (one consumer per flow partition)."""
    ab = Flow("A", "B", [Partition("orders", 0, lag=20000.0)])
    cb = Flow("C", "B", [Partition("orders", 0, lag=5.0)], heartbeat=False)
    server = metrics_server(render(MM2Process("3.4.1", herders=[("A", "B"), ("C", "B")], flows=[ab, cb])))
    state, text = run_alert("lag", server.port, clusters={"topology.mode": "advanced"})
    lines = text.split("\n")
    assert state == "WARNING"
    assert lines[0].startswith("A->B: worst partition orders-0 (A.orders on the target) lag 20000 records >= warning")
    assert lines[1].startswith("C->B: worst partition orders-0 (C.orders on the target) lag 5 records (warning")
    assert "attribute" not in text


def test_aggregation_before_35_never_names_another_flows_partition(metrics_server, run_alert):
    """emea->central and apac->central both replicate 'orders' and 'heartbeats': their generated-id
    consumers read only topics both flows have, so the lag cannot be pinned; it is reported as such,
    with the right state, and no flow line claims the lagging partition."""
    emea = Flow("emea", "central", [Partition("orders", 0, lag=150000.0)])
    apac = Flow("apac", "central", [Partition("orders", 0, lag=3.0)])
    server = metrics_server(render(MM2Process("3.4.1", herders=[("emea", "central"), ("apac", "central")],
                                              flows=[emea, apac])))
    state, text = run_alert("lag", server.port, clusters={"topology.mode": "advanced"})
    assert state == "CRITICAL"
    lines = text.split("\n")
    assert lines[0].startswith("Cannot attribute 1 lagging partition(s) to one flow: worst orders-0 lag 150000 "
                               "records >= critical 100000 records belongs to one of apac->central, emea->central")
    assert "150000" not in "\n".join(l for l in lines if l.startswith(("apac->central", "emea->central")))


AGGREGATION_AND_REVERSE = """clusters:
  dc1: {bootstrap.servers: "dc1:9092"}
  dc2: {bootstrap.servers: "dc2:9092"}
  dc3: {bootstrap.servers: "dc3:9092"}
  central: {bootstrap.servers: "central:9092"}
flows:
  - {source: dc1, target: central}
  - {source: dc2, target: central}
  - {source: dc3, target: central}
  - {source: central, target: dc1}
"""


@pytest.mark.parametrize("style", ["0.x", "1.x"])
def test_three_sources_into_one_target_and_back_before_35(metrics_server, run_alert, style):
    """Three sources into one target plus a reverse flow, the same topic names everywhere, Kafka 3.4
    naming: every flow replicates here, so no flow line may say otherwise; the lag of partitions no
    consumer pins to one flow is reported once, with its state."""
    flows = [Flow(s, t, partitions("orders", 3, lag=10.0) + partitions("sales.eu", 2, lag=20.0))
             for s, t in (("dc1", "central"), ("dc2", "central"), ("dc3", "central"), ("central", "dc1"))]
    flows[1].partitions[0].lag = 20000.0
    process = MM2Process("3.4.1", herders=[(f.source, f.target) for f in flows], flows=flows)
    server = metrics_server(render(process, style))
    state, text = run_alert("lag", server.port, clusters={"topology.mode": "advanced"},
                            topology={"content": AGGREGATION_AND_REVERSE})
    assert state == "WARNING"
    assert "no partition of this flow is replicated by this host" not in text
    lines = text.split("\n")
    assert lines[0].startswith("Cannot attribute ")
    assert "worst orders-0 lag 20000 records >= warning 10000 records" in lines[0]
    for name in ("dc1->central", "dc2->central", "dc3->central", "central->dc1"):
        line = [l for l in lines if l.startswith(name + ":")]
        assert line == ["%s: 6 partitions here; their consumer lag cannot be attributed to this flow alone "
                        "(before Kafka 3.5 the replication consumers have generated client ids, and the flows of "
                        "this process replicate topics of the same names)" % name], text


def test_aggregation_without_lag_has_no_heartbeats_note(metrics_server, run_alert):
    emea = Flow("emea", "central", partitions("emea_orders", 2))
    apac = Flow("apac", "central", partitions("apac_orders", 2))
    server = metrics_server(render(MM2Process("3.4.1", herders=[("emea", "central"), ("apac", "central")],
                                              flows=[emea, apac])))
    state, text = run_alert("lag", server.port, clusters={"topology.mode": "advanced"})
    assert state == "OK"
    assert "attribute" not in text and "several flows" not in text and "shared" not in text
    assert text.count("3 partitions here, 0 records behind") == 2


@pytest.mark.parametrize("version", VERSIONS)
def test_dotted_topic_lag_is_joined_and_named_as_the_topic(metrics_server, run_alert, version):
    """Kafka's consumer metrics write 'sales.orders' as 'sales_orders' in the topic tag."""
    parts = partitions("sales.orders", 2, lag=10.0) + [Partition("sales.orders", 7, lag=150000.0)]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("lag", server.port)
    assert state == "CRITICAL"
    assert text.startswith("A->B: worst partition sales.orders-7 (A.sales.orders on the target) lag 150000 "
                           "records >= critical 100000 records; 4 partitions here")
    assert "sales_orders" not in text


def test_same_source_topic_in_two_flows_from_35_is_exact(metrics_server, run_alert):
    ab = Flow("A", "B", [Partition("orders", 0, lag=20000.0)])
    cb = Flow("C", "B", [Partition("orders", 0, lag=5.0)], heartbeat=False)
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B"), ("C", "B")], flows=[ab, cb])))
    state, text = run_alert("lag", server.port, clusters={"topology.mode": "advanced"})
    lines = text.split("\n")
    assert state == "WARNING"
    assert lines[0].startswith("A->B: worst partition orders-0 (A.orders on the target) lag 20000 records >= warning")
    assert lines[1].startswith("C->B: worst partition orders-0 (C.orders on the target) lag 5 records (warning")
    assert "several flows" not in text


def test_no_lag_metrics_while_replicating_is_unknown(metrics_server, run_alert):
    text = render(MM2Process("3.7.1", flows=[Flow("A", "B", partitions("t", 2))]))
    text = "\n".join(l for l in text.split("\n") if "consumer_records_lag" not in l) + "\n"
    server = metrics_server(text)
    state, msg = run_alert("lag", server.port)
    assert state == "UNKNOWN"
    assert "exports no consumer lag" in msg and "jmx_exporter_mm2.yaml" in msg


def test_no_partitions_here(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B")], flows=[])))
    assert run_alert("lag", server.port) == ("OK", "A->B: no partition of this flow is replicated by this host")
