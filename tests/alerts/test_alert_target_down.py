"""Latency and lag alerts when the target cluster of a flow is down.

A real MM2 (3.9) whose target is stopped does one of two things, and which one varies from run to run
(seen in tests/e2e/test_one_way_dr.py on 3.9, then in tests/versions/test_lifecycle.py's fault step):
- its herder loses the flow's Connect group on the target: the herder stays up (app-info and start
  time still exported) but its connectors and tasks are unassigned, so every replication partition and
  consumer metric of the flow vanishes (_target_down: herders up, no connector/task/partition beans);
- its tasks stay assigned: they keep polling the source into the producer's buffer and nothing is
  acknowledged, so the latency window empties and the consumer lag stays near zero (an idle look);
  the record-age window, recorded at poll time, still fills. Once the buffer is full the task blocks
  in send() and its consumer stops polling (_tasks_kept)."""
import pytest

from conftest import render
from mm2_sim import Flow, MM2Process, partitions

T0 = 1800000000.0          # alert runs' clock (s); the herders started long before (sim default 2023)
KINDS = ["latency", "lag"]
LATENCY = {"latency.warning": 30.0, "latency.critical": 120.0}


def _healthy(flows=(("A", "B"),), version="3.9.0", **kw):
    return render(MM2Process(version, herders=[("A", "B"), ("B", "A")],
                             flows=[Flow(s, t, partitions("orders", 2, latency_avg=80.0, lag=3.0)) for s, t in flows],
                             **kw))


def _target_down(version="3.9.0", **kw):
    """Herders up, Connect revoked everything: no connector, task or partition metrics."""
    nothing = {"MirrorSourceConnector": None, "MirrorCheckpointConnector": None, "MirrorHeartbeatConnector": None}
    return render(MM2Process(version, herders=[("A", "B"), ("B", "A")], flows=[], connector_status=nothing,
                             task_status={("MirrorHeartbeatConnector", 0): None}, **kw))


def _tasks_gone_partitions_left(version="3.6.2"):
    """The herder lost its group on the target (connector and task status metrics gone) while the flow's
    MirrorSourceConnector partition metrics stayed, stale (real 3.6.2, tests/versions/test_lifecycle.py's fault)."""
    stuck = partitions("orders", 2, latency_avg=80.0, lag=0.0, active=False, polled=False)
    gone = {("MirrorSourceConnector", 0): None, ("MirrorHeartbeatConnector", 0): None}
    nothing = {"MirrorSourceConnector": None, "MirrorCheckpointConnector": None, "MirrorHeartbeatConnector": None}
    return render(MM2Process(version, herders=[("A", "B"), ("B", "A")], connector_status=nothing, task_status=gone,
                             flows=[Flow("A", "B", stuck, heartbeat_active=False)]))


def _tasks_kept(version="3.9.0", polled=True, last_poll=0.0, lag=0.0):
    """The target down while the flow's tasks stay assigned: nothing acknowledged in the window."""
    stuck = partitions("orders", 2, latency_avg=80.0, lag=lag, active=False, polled=polled)
    return render(MM2Process(version, herders=[("A", "B")],
                             flows=[Flow("A", "B", stuck, heartbeat_active=False, last_poll={0: last_poll})]))


def _idle(version="3.9.0"):
    """No traffic: nothing polled or written in the window, the consumer polls every second."""
    return render(MM2Process(version, herders=[("A", "B")],
                             flows=[Flow("A", "B", partitions("orders", 2, latency_avg=80.0, active=False),
                                         heartbeat_active=False)]))


def _params(kind):
    return LATENCY if kind == "latency" else {}


@pytest.mark.parametrize("kind", KINDS)
def test_single_driver_target_down_after_replicating_goes_warning_then_critical(metrics_server, run_alert, kind):
    server = metrics_server(_healthy())
    state, text = run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])
    assert state == "OK", text
    server.payload = _target_down()
    state, text = run_alert(kind, server.port, _params(kind), now=T0 + 40, hosts=["127.0.0.1"])
    assert state == "WARNING", text
    assert text.startswith("A->B: no task replicates it on any driver host since 2027-01-15 08:00:00 UTC, 40 s ago")
    assert "target unreachable? see mirrormaker.log" in text and "hosts read: 127.0.0.1" in text
    state, text = run_alert(kind, server.port, _params(kind), now=T0 + 130, hosts=["127.0.0.1"])
    assert state == "CRITICAL", text
    assert "since 2027-01-15 08:00:00 UTC, 130 s ago" in text      # since the last run that saw it replicate
    server.payload = _healthy()
    state, text = run_alert(kind, server.port, _params(kind), now=T0 + 200, hosts=["127.0.0.1"])
    assert state == "OK", text


def test_latency_follows_its_thresholds_for_the_time_without_tasks(metrics_server, run_alert):
    server = metrics_server(_healthy())
    run_alert("latency", server.port, LATENCY, now=T0, hosts=["127.0.0.1"])
    server.payload = _target_down()
    state, text = run_alert("latency", server.port, {"latency.warning": 5.0, "latency.critical": 15.0},
                            now=T0 + 16, hosts=["127.0.0.1"])
    assert state == "CRITICAL" and ">= critical 15 s" in text, text
    # a short gap (a rebalance) is still at least WARNING for the latency alert: nothing replicates
    state, text = run_alert("latency", server.port, LATENCY, now=T0 + 17, hosts=["127.0.0.1"])
    assert state == "WARNING", text


@pytest.mark.parametrize("kind", KINDS)
def test_tasks_moved_to_another_driver_host_is_ok(metrics_server, run_alert, kind):
    local = metrics_server(_healthy())
    run_alert(kind, local.port, _params(kind), now=T0, hosts=["127.0.0.1", "127.0.0.2"])
    local.payload = _target_down()
    metrics_server(_healthy(), host="127.0.0.2", port=local.port)
    state, text = run_alert(kind, local.port, _params(kind), now=T0 + 300, hosts=["127.0.0.1", "127.0.0.2"])
    assert state == "OK", text
    assert text.startswith("A->B: no partition of this flow is replicated by this host")


@pytest.mark.parametrize("kind", KINDS)
def test_no_driver_host_replicates_it_is_critical(metrics_server, run_alert, kind):
    local = metrics_server(_target_down())
    metrics_server(_target_down(), host="127.0.0.2", port=local.port)
    state, text = run_alert(kind, local.port, _params(kind), now=T0, hosts=["127.0.0.1", "127.0.0.2"])
    # never seen replicating, but the herder has run far past the startup grace
    assert state == "CRITICAL", text
    assert "A->B: no task replicates it on any driver host since" in text
    assert "hosts read: 127.0.0.1, 127.0.0.2" in text


@pytest.mark.parametrize("kind", KINDS)
def test_right_after_start_without_tasks_is_ok(metrics_server, run_alert, kind):
    started = (T0 - 30) * 1000.0
    server = metrics_server(_target_down(herder_start={"A->B": started, "B->A": started}))
    state, text = run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])
    assert state == "OK", text
    assert text.startswith("A->B: no partition of this flow is replicated by this host")


@pytest.mark.parametrize("kind", KINDS)
def test_each_flow_is_judged_on_its_own(metrics_server, run_alert, kind):
    """Active-active on one host: B's cluster down stops A->B only; B->A keeps its own (OK) line."""
    both = _healthy(flows=(("A", "B"), ("B", "A")))
    server = metrics_server(both)
    run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"], replication={"direction": "active-active"})
    server.payload = _healthy(flows=(("B", "A"),))
    state, text = run_alert(kind, server.port, _params(kind), now=T0 + 200, hosts=["127.0.0.1"],
                            replication={"direction": "active-active"})
    assert state == "CRITICAL", text
    lines = text.split("\n")
    assert lines[0].startswith("A->B: no task replicates it on any driver host")
    assert lines[1].startswith("B->A: worst partition"), lines


@pytest.mark.parametrize("kind", KINDS)
def test_unreadable_peer_is_named_and_not_guessed(metrics_server, run_alert, kind):
    local = metrics_server(_target_down())
    state, text = run_alert(kind, local.port, _params(kind), now=T0, hosts=["127.0.0.1", "127.0.0.2"])
    assert state == "OK", text
    assert text.startswith("A->B: no partition of this flow is replicated by this host, and 127.0.0.2 could not "
                           "be read to tell whether another driver host does: 127.0.0.2: connection refused")


@pytest.mark.parametrize("kind", KINDS)
def test_without_the_driver_host_list_nothing_is_assumed(metrics_server, run_alert, kind):
    server = metrics_server(_target_down())
    state, text = run_alert(kind, server.port, _params(kind), now=T0)
    assert state == "OK", text


@pytest.mark.parametrize("version", ["3.9.0", "3.4.1"])
@pytest.mark.parametrize("kind", KINDS)
def test_tasks_kept_polling_into_a_dead_target_are_stalled_not_idle(metrics_server, run_alert, kind, version):
    """Records polled in the last minute, none written: both alerts leave OK though the lag is 0."""
    server = metrics_server(_tasks_kept(version))
    state, text = run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])
    assert state == "WARNING", text
    assert text.startswith("A->B: ")
    assert "STALLED: 2 partition(s) had records read from the source in the last minute but none written to the " \
           "target, e.g. A.orders-0 (target unreachable or refusing writes? see mirrormaker.log)" in text, text
    if kind == "lag":
        assert "lag 0 records" in text and "the lag above does not count records stuck" in text, text


@pytest.mark.parametrize("version", ["3.9.0", "3.4.1"])
@pytest.mark.parametrize("kind", KINDS)
def test_task_blocked_on_a_full_producer_buffer_is_stalled(metrics_server, run_alert, kind, version):
    """Nothing polled or written in the window (it looks idle), but the replication consumer has not
    polled for 95 s: the task is blocked in send()."""
    server = metrics_server(_tasks_kept(version, polled=False, last_poll=95.0))
    state, text = run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])
    assert state == "WARNING", text
    assert "STALLED: 3 partition(s) replicated nothing in the last minute; the replication consumer of " \
           "A.heartbeats-0 has not polled for 95 s (its task is blocked writing to the target" in text, text


def test_latency_of_a_blocked_task_follows_the_time_since_its_last_poll(metrics_server, run_alert):
    server = metrics_server(_tasks_kept(polled=False, last_poll=130.0))
    state, text = run_alert("latency", server.port, LATENCY, now=T0, hosts=["127.0.0.1"])
    assert state == "CRITICAL", text   # nothing written for 130 s >= critical 120 s


@pytest.mark.parametrize("version", ["3.9.0", "3.4.1"])
@pytest.mark.parametrize("kind", KINDS)
def test_idle_flow_with_polling_consumers_stays_ok(metrics_server, run_alert, kind, version):
    """The same look without the stall evidence: no traffic. Connect's own consumers (one long poll,
    last-poll-seconds-ago in the minutes) must not count as blocked replication consumers."""
    server = metrics_server(_idle(version))
    state, text = run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])
    assert state == "OK", text
    assert "STALLED" not in text


@pytest.mark.parametrize("kind", KINDS)
def test_records_waiting_outrank_the_other_stall_evidence(metrics_server, run_alert, kind):
    server = metrics_server(_tasks_kept(lag=500.0, last_poll=95.0))
    state, text = run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])
    assert state == "WARNING", text   # 500 records is under the lag thresholds: the stall sets the state
    assert "while records wait, worst A.orders-0 with a lag of 500 records" in text, text


def test_tasks_gone_with_stale_partition_metrics_is_not_ok(metrics_server, run_alert):
    """Real 3.6.2, the target down: no connector or task status metric here, the flow's partition metrics left
    behind. The tasks alert said OK ("No MM2 connector or task runs on this host yet", issue 37): the stale
    partitions counted as the flow replicating here. Now nothing runs anywhere: CRITICAL, naming the flow; and the
    latency and lag alerts say the flow has no task, as when its partition metrics go too."""
    server = metrics_server(_healthy(version="3.6.2"))
    for kind in KINDS:
        assert run_alert(kind, server.port, _params(kind), now=T0, hosts=["127.0.0.1"])[0] == "OK"
    server.payload = _tasks_gone_partitions_left()
    state, text = run_alert("tasks", server.port, now=T0 + 40, hosts=["127.0.0.1"])
    assert state == "CRITICAL", text
    assert text.startswith("No driver host runs any MirrorMaker 2 connector or task (hosts read: 127.0.0.1): nothing "
                           "replicates for A->B"), text
    for kind in KINDS:
        state, text = run_alert(kind, server.port, _params(kind), now=T0 + 40, hosts=["127.0.0.1"])
        assert state == "WARNING", (kind, text)
        assert text.startswith("A->B: no task replicates it on any driver host since"), (kind, text)


def test_connect_mode_source_tasks_are_evidence_too():
    """Connect mode names a flow's connectors <flow>.MirrorSourceConnector (mm2_core.connect.connect_mode): its
    running source tasks make the flow's partitions evidence of replication here as dedicated mode's do (the reh8
    rehearsal: counted by the bare name only, a connect-mode flow read as replicated nowhere, CRITICAL)."""
    from mm2_core.alerts import metrics as m, tasks
    from mm2_core.alerts.registry import KINDS as ALERT_KINDS
    from mm2_core.connect import connect_mode
    families = [k.families for k in ALERT_KINDS if k.kind == "latency"][0]
    dedicated = _healthy(version="3.9.0")
    connect = dedicated.replace('connector="MirrorSourceConnector"', 'connector="%s"' % connect_mode.connector_name(
        "A->B", connect_mode.SOURCE))
    assert connect != dedicated
    for text in (dedicated, connect):
        names, _, _ = tasks.task_evidence(m.Snapshot(text, families), [])
        assert "A->B" in names, text[:2000]
    gone = _tasks_gone_partitions_left()
    assert tasks.task_evidence(m.Snapshot(gone, families), [])[0] == set()
