"""Replication latency alert, against a real local metrics endpoint, for 3.x and 4.x naming."""
import pytest

from conftest import render
from mm2_sim import Flow, MM2Process, Partition, partitions

VERSIONS = ["3.4.1", "3.7.1", "4.0.0"]


def _serve(metrics_server, version, parts, herders=(("A", "B"), ("B", "A")), extra_flows=()):
    flows = [Flow("A", "B", parts, tasks=2)] + list(extra_flows)
    return metrics_server(render(MM2Process(version, herders=list(herders), flows=flows)))


@pytest.mark.parametrize("version", VERSIONS)
def test_healthy_flow_is_ok_and_names_the_worst_partition(metrics_server, run_alert, version):
    parts = partitions("orders", 6, latency_avg=20.0) + [Partition("payments", 2, latency_avg=450.0)]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("latency", server.port)
    assert state == "OK"
    assert text.startswith("A->B: worst partition A.payments-2 replication latency 0.45 s (warning 30 s, critical 120 s)")
    assert "8 active, 0 idle, 0 stalled" in text


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("latency_ms,expected", [
    (29999, "OK"), (30000, "WARNING"), (30001, "WARNING"),
    (119999, "WARNING"), (120000, "CRITICAL"), (120001, "CRITICAL"),
])
def test_thresholds_at_the_boundaries(metrics_server, run_alert, version, latency_ms, expected):
    parts = partitions("orders", 4, latency_avg=15.0) + [Partition("orders", 7, latency_avg=float(latency_ms))]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("latency", server.port)
    assert state == expected
    shown = "%g" % (latency_ms / 1000.0)
    against = {"OK": "(warning 30 s, critical 120 s)", "WARNING": ">= warning 30 s (critical 120 s)",
               "CRITICAL": ">= critical 120 s"}[expected]
    assert "A->B: worst partition A.orders-7 replication latency %s s %s" % (shown, against) in text


def test_thresholds_come_from_the_alert_parameters(metrics_server, run_alert):
    server = _serve(metrics_server, "3.7.1", [Partition("orders", 0, latency_avg=5000.0)])
    state, text = run_alert("latency", server.port, params={"latency.warning": "2", "latency.critical": 5.0})
    assert state == "CRITICAL" and ">= critical 5 s" in text


@pytest.mark.parametrize("version", VERSIONS)
def test_idle_partitions_with_stale_last_latency_do_not_fire(metrics_server, run_alert, version):
    """An idle partition keeps its last replication-latency-ms forever and its -avg goes NaN."""
    parts = [Partition("orders", p, latency_avg=30.0) for p in range(3)]
    parts += [Partition("archive", p, active=False, latency_last=9.0e6, lag=0.0) for p in range(4)]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("latency", server.port)
    assert state == "OK"
    assert "worst partition A.orders-" in text and "4 active, 4 idle, 0 stalled" in text  # + heartbeats
    assert "9000" not in text


@pytest.mark.parametrize("version", VERSIONS)
def test_all_idle_is_ok_but_says_nothing_was_replicated(metrics_server, run_alert, version):
    parts = [Partition("archive", p, active=False, latency_last=7.0e6) for p in range(3)]
    server = metrics_server(render(MM2Process(version, flows=[Flow("A", "B", parts, heartbeat=False)])))
    state, text = run_alert("latency", server.port)
    assert state == "OK"
    assert text.startswith("A->B: no record replicated in the last minute; 0 active, 3 idle, 0 stalled")


@pytest.mark.parametrize("version", VERSIONS)
def test_stalled_partition_is_not_mistaken_for_idle(metrics_server, run_alert, version):
    """NaN average while the replication consumer still reports lag: records wait, nothing moves."""
    parts = partitions("orders", 3, latency_avg=40.0)
    parts += [Partition("orders", 3, active=False, lag=5000.0), Partition("orders", 4, active=False, lag=12.0),
              Partition("orders", 5, active=False, lag=0.0)]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("latency", server.port)
    assert state == "WARNING"
    assert "4 active, 1 idle, 2 stalled" in text   # 3 orders + heartbeats active
    assert "STALLED: 2 partition(s) replicated nothing in the last minute while records wait, worst A.orders-3 " \
           "with a lag of 5000 records" in text


def test_stalled_keeps_a_critical_latency_critical(metrics_server, run_alert):
    parts = [Partition("orders", 0, latency_avg=200000.0), Partition("orders", 1, active=False, lag=10.0)]
    server = _serve(metrics_server, "4.0.0", parts)
    state, text = run_alert("latency", server.port)
    assert state == "CRITICAL" and "STALLED: 1 partition" in text


def test_two_flows_in_one_process_without_source_tag_are_told_apart(metrics_server, run_alert):
    """3.7 without add.source.alias.to.metrics: the flow comes from the target and the topic prefix."""
    ab = Flow("A", "B", [Partition("orders", 0, latency_avg=10.0)])
    cb = Flow("C", "B", [Partition("orders", 0, latency_avg=60000.0)])
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B"), ("C", "B")], flows=[ab, cb])))
    state, text = run_alert("latency", server.port, topology={"content": ""},
                            clusters={"topology.mode": "advanced"})
    assert state == "WARNING"
    lines = text.split("\n")
    assert lines[0].startswith("C->B: worst partition C.orders-0 replication latency 60 s >= warning 30 s")
    assert lines[1].startswith("A->B: worst partition A.orders-0 replication latency 0.01 s")


def test_active_active_flows_report_each_direction(metrics_server, run_alert):
    ab = Flow("A", "B", [Partition("t", 0, latency_avg=100.0)])
    ba = Flow("B", "A", [Partition("u", 0, latency_avg=45000.0)])
    server = metrics_server(render(MM2Process("3.4.1", herders=[("A", "B"), ("B", "A")], flows=[ab, ba])))
    state, text = run_alert("latency", server.port, replication={"direction": "active-active"})
    assert state == "WARNING"
    assert text.split("\n")[0].startswith("B->A: worst partition B.u-0 replication latency 45 s")
    assert "A->B: worst partition A.t-0 replication latency 0.1 s" in text


def test_expected_flow_without_partitions_here_is_said_not_hidden(metrics_server, run_alert):
    """Multi-host: this host serves B, its tasks run elsewhere."""
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B")], flows=[])))
    state, text = run_alert("latency", server.port)
    assert state == "OK"
    assert text == ("A->B: no partition of this flow is replicated by this host (its tasks run on another driver "
                    "host, or it has no topic to replicate)")


def test_only_flows_into_targets_this_host_serves_are_expected(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("3.7.1", herders=[("B", "A")], flows=[])))
    state, text = run_alert("latency", server.port, driver={"target.clusters": "A"})
    assert (state, text) == ("OK", "No replication flow runs on this host")


def test_identity_policy_topics_map_to_the_only_flow(metrics_server, run_alert):
    flow = Flow("A", "B", [Partition("orders", 0, latency_avg=31000.0)], identity=True)
    server = metrics_server(render(MM2Process("3.7.1", flows=[flow])))
    state, text = run_alert("latency", server.port, replication={"replication.policy": "identity"})
    assert state == "WARNING"
    assert text.startswith("A->B: worst partition orders-0 replication latency 31 s")


@pytest.mark.parametrize("version", VERSIONS)
def test_stalled_dotted_topic_is_stalled_not_idle(metrics_server, run_alert, version):
    parts = partitions("orders", 2) + [Partition("sales.eu", 3, active=False, lag=5000.0)]
    server = _serve(metrics_server, version, parts)
    state, text = run_alert("latency", server.port)
    assert state == "WARNING"
    assert "3 active, 0 idle, 1 stalled" in text
    assert "STALLED: 1 partition(s) replicated nothing in the last minute while records wait, worst A.sales.eu-3 " \
           "with a lag of 5000 records" in text


@pytest.mark.parametrize("version", VERSIONS)
def test_clock_skew_of_one_flow_affects_only_that_flow(metrics_server, run_alert, version):
    ab = Flow("A", "B", [Partition("orders", p, latency_avg=-2500.0) for p in range(3)], heartbeat=False)
    cb = Flow("C", "B", [Partition("orders", 0, latency_avg=45000.0)], heartbeat=False)
    server = metrics_server(render(MM2Process(version, herders=[("A", "B"), ("C", "B")], flows=[ab, cb])))
    state, text = run_alert("latency", server.port, clusters={"topology.mode": "advanced"})
    lines = text.split("\n")
    assert state == "WARNING"
    assert lines[0].startswith("C->B: worst partition C.orders-0 replication latency 45 s >= warning 30 s")
    assert lines[1].startswith("A->B: replication latency cannot be judged: clock skew: the MM2 host is 2500 ms "
                               "behind the producers (3 partition(s) report a negative replication latency")


def test_latency_series_without_topic_label_affects_only_its_flow(metrics_server, run_alert):
    text = render(MM2Process("3.7.1", flows=[Flow("A", "B", partitions("orders", 2))]))
    text = text.replace("# TYPE mm2_source_replication_latency_ms_avg gauge\n",
                        '# TYPE mm2_source_replication_latency_ms_avg gauge\n'
                        'mm2_source_replication_latency_ms_avg{partition="0",target="B"} 12.0\n')
    server = metrics_server(text)
    state, msg = run_alert("latency", server.port)
    assert state == "OK"
    assert msg.startswith("A->B: worst partition A.orders-")
    assert "1 latency series without topic/partition labels were ignored" in msg
