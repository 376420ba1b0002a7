"""Checkpoint / consumer offset sync staleness, and FAILED connectors or tasks."""
import json
import os

import pytest

from conftest import render
from mm2_sim import Checkpoint, Flow, MM2Process, partitions

NOW = 1800000000.0
SYNC_ON = {"sync.group.offsets.enabled": "true"}


def _process(version="3.7.1", cp_avg=35.0, records=1000.0, checkpoints=True, task_status=None, local_source=True,
             herders=(("A", "B"), ("B", "A"))):
    cps = [Checkpoint("billing", "orders", p, last=35.0, avg=cp_avg, maximum=cp_avg) for p in range(2)] if checkpoints else []
    parts = partitions("orders", 2, count=records) if local_source else []
    flow = Flow("A", "B", parts, heartbeat=local_source, checkpoints=cps)
    return MM2Process(version, herders=list(herders), flows=[flow], task_status=task_status)


def _seed(run_alert, data):
    if not os.path.isdir(run_alert.state_dir):
        os.makedirs(run_alert.state_dir)
    with open(os.path.join(run_alert.state_dir, "checkpoint.json"), "w") as fh:
        json.dump(data, fh)


def test_offset_sync_off_is_not_checked(metrics_server, run_alert):
    server = metrics_server(render(_process()))
    state, text = run_alert("checkpoint", server.port, now=NOW)
    assert state == "OK" and text.startswith("Consumer offset sync is off for every flow served here")


@pytest.mark.parametrize("version", ["3.4.1", "3.7.1", "4.0.0"])
def test_checkpoints_flowing(metrics_server, run_alert, version):
    server = metrics_server(render(_process(version)))
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == "OK"
    assert text == ("A->B: last checkpoint 0 s ago (warning 600 s, critical 1800 s); checkpoints flowing; 2 group "
                    "partitions checkpointed here; worst checkpoint write latency 35 ms for group billing on A.orders-0")


@pytest.mark.parametrize("age,expected", [
    (599, "OK"), (600, "WARNING"), (601, "WARNING"), (1799, "WARNING"), (1800, "CRITICAL"), (1801, "CRITICAL"),
])
def test_stale_checkpoints_while_records_flow_at_the_boundaries(metrics_server, run_alert, age, expected):
    server = metrics_server(render(_process(cp_avg=float("nan"), records=5000.0)))
    _seed(run_alert, {"A->B": {"cp_at": NOW - age, "records_at_cp": 1000.0, "sig": [2, 70.0]}})
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == expected
    against = {"OK": "(warning 600 s, critical 1800 s)", "WARNING": ">= warning 600 s (critical 1800 s)",
               "CRITICAL": ">= critical 1800 s"}[expected]
    assert text.startswith("A->B: last checkpoint %d s ago %s; " % (age, against))
    if expected != "OK":
        # 2 partitions x 5000 now, 1000 at the last checkpoint (the heartbeats partition is not counted)
        assert "9000 records were replicated since, so either the source consumer groups stopped committing or " \
               "checkpointing is stuck" in text


def test_idle_groups_are_not_stale(metrics_server, run_alert):
    """MM2 checkpoints only moved offsets: no new records, no new commits, no checkpoint."""
    server = metrics_server(render(_process(cp_avg=float("nan"), records=1000.0)))
    _seed(run_alert, {"A->B": {"cp_at": NOW - 5000, "records_at_cp": 2000.0, "sig": [2, 70.0]}})
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == "OK"
    assert "no record was replicated since either, so the groups are idle" in text


def test_changed_last_value_counts_as_a_new_checkpoint(metrics_server, run_alert):
    server = metrics_server(render(_process(cp_avg=float("nan"), records=5000.0)))
    _seed(run_alert, {"A->B": {"cp_at": NOW - 5000, "records_at_cp": 1000.0, "sig": [2, 64.0]}})
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == "OK" and "last checkpoint 0 s ago" in text


def test_without_local_replication_staleness_is_at_most_warning(metrics_server, run_alert):
    server = metrics_server(render(_process(cp_avg=float("nan"), local_source=False)))
    _seed(run_alert, {"A->B": {"cp_at": NOW - 5000, "sig": [2, 70.0]}})
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == "WARNING"
    assert "at most WARNING: this host replicates no partition of A->B" in text


def test_failed_checkpoint_task_is_critical(metrics_server, run_alert):
    server = metrics_server(render(_process(checkpoints=False,
                                            task_status={("MirrorCheckpointConnector", 0): "failed"})))
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == "CRITICAL"
    assert "A->B: MirrorCheckpointConnector task 0 FAILED on this host and no checkpoint was emitted" in text


def test_no_checkpoint_yet_is_explained(metrics_server, run_alert):
    server = metrics_server(render(_process(checkpoints=False)))
    state, text = run_alert("checkpoint", server.port, now=NOW, replication=SYNC_ON)
    assert state == "OK" and "no checkpoint emitted by this host yet" in text


def test_per_flow_sync_setting_in_custom_properties(metrics_server, run_alert):
    server = metrics_server(render(_process()))
    state, text = run_alert("checkpoint", server.port, now=NOW, custom={"A->B.sync.group.offsets.enabled": "true"})
    assert state == "OK" and text.startswith("A->B: last checkpoint 0 s ago")


# --- connectors and tasks ------------------------------------------------------------------------------------
@pytest.mark.parametrize("version", ["3.4.1", "3.7.1", "4.0.0"])
def test_all_running(metrics_server, run_alert, version):
    server = metrics_server(render(MM2Process(version, herders=[("A", "B"), ("B", "A")],
                                              flows=[Flow("A", "B", partitions("t", 4), tasks=2)])))
    state, text = run_alert("tasks", server.port)
    assert state == "OK"
    assert text == "All 6 connectors/tasks on this host are RUNNING (herders: A->B, B->A)"


@pytest.mark.parametrize("failed,expected", [(0, "OK"), (1, "WARNING"), (2, "CRITICAL"), (3, "CRITICAL")])
def test_failed_count_at_the_boundaries(metrics_server, run_alert, failed, expected):
    status = dict((("MirrorSourceConnector", t), "failed") for t in range(failed))
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B"), ("B", "A")], task_status=status,
                                              flows=[Flow("A", "B", partitions("t", 4), tasks=4)])))
    state, text = run_alert("tasks", server.port, params={"failed.tasks.warning": 1, "failed.tasks.critical": 2})
    assert state == expected
    if failed:
        against = ">= critical 2" if expected == "CRITICAL" else ">= warning 1 (critical 2)"
        assert text.startswith("%d connector(s)/task(s) FAILED %s: A->B: MirrorSourceConnector task 0" % (failed, against))
    else:
        assert "RUNNING" in text


def test_default_thresholds_make_one_failure_critical(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("4.0.0", herders=[("A", "B"), ("B", "A")],
                                              task_status={("MirrorSourceConnector", 1): "failed"},
                                              flows=[Flow("A", "B", partitions("t", 2), tasks=2)])))
    state, text = run_alert("tasks", server.port)
    assert state == "CRITICAL"
    assert text.startswith("1 connector(s)/task(s) FAILED >= critical 1: A->B: MirrorSourceConnector task 1")


def test_ambiguous_flow_is_named_as_candidates(metrics_server, run_alert):
    """Active-active in one JVM: both herders have a MirrorSourceConnector; JMX cannot tell which."""
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B"), ("B", "A")],
                                              task_status={("MirrorSourceConnector", 0): "failed"},
                                              flows=[Flow("A", "B", partitions("t", 1))])))
    state, text = run_alert("tasks", server.port, replication={"direction": "active-active"})
    assert state == "CRITICAL"
    assert "MirrorSourceConnector task 0 (one of A->B, B->A: connector names repeat in every herder" in text


def test_failed_connector_and_unassigned_task(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B")],
                                              connector_status={"MirrorCheckpointConnector": "failed"},
                                              task_status={("MirrorSourceConnector", 1): "unassigned"},
                                              flows=[Flow("A", "B", partitions("t", 2), tasks=1)])))
    state, text = run_alert("tasks", server.port)
    assert state == "CRITICAL"
    lines = text.split("\n")
    assert lines[0].startswith("1 connector(s)/task(s) FAILED >= critical 1: A->B: MirrorCheckpointConnector (")
    assert lines[1] == "Not running: A->B: MirrorSourceConnector task 1 is UNASSIGNED"


def test_paused_only_is_warning(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B")],
                                              connector_status={"MirrorSourceConnector": "paused"},
                                              flows=[Flow("A", "B", partitions("t", 1))])))
    state, text = run_alert("tasks", server.port)
    assert state == "WARNING" and "A->B: MirrorSourceConnector is PAUSED" in text


def test_nothing_assigned_here(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("3.7.1", herders=[("A", "B")], flows=[],
                                              connector_status={"MirrorSourceConnector": None,
                                                                "MirrorCheckpointConnector": None,
                                                                "MirrorHeartbeatConnector": None},
                                              task_status={("MirrorHeartbeatConnector", 0): None})))
    state, text = run_alert("tasks", server.port)
    assert state == "OK" and text.startswith("No MM2 connector or task runs on this host yet (herders: A->B)")


AGG_TOPOLOGY = """clusters:
  emea: {bootstrap.servers: "e1:9092"}
  apac: {bootstrap.servers: "a1:9092"}
  central: {bootstrap.servers: "c1:9092"}
flows:
  - {source: emea, target: central}
  - {source: apac, target: central}
settings:
  sync.group.offsets.enabled: true
"""


def _aggregation(emea_cp_avg, apac_checkpoints=True):
    emea = Flow("emea", "central", partitions("orders", 2),
                checkpoints=[Checkpoint("billing", "orders", 0, avg=emea_cp_avg, maximum=40.0)])
    apac = Flow("apac", "central", partitions("orders", 2),
                checkpoints=[Checkpoint("billing", "orders", 0, avg=emea_cp_avg)] if apac_checkpoints else [])
    return MM2Process("3.7.1", herders=[("emea", "central"), ("apac", "central")], flows=[emea, apac],
                      task_status={("MirrorCheckpointConnector", 1): "failed"})


def test_one_failed_checkpoint_task_is_pinned_to_the_flow_without_checkpoints(metrics_server, run_alert):
    server = metrics_server(render(_aggregation(35.0, apac_checkpoints=False)))
    state, text = run_alert("checkpoint", server.port, now=NOW, clusters={"topology.mode": "advanced"},
                            topology={"content": AGG_TOPOLOGY})
    lines = text.split("\n")
    assert state == "CRITICAL"
    assert lines[0] == ("apac->central: MirrorCheckpointConnector task 1 FAILED on this host and no checkpoint was "
                        "emitted: consumer offsets are not synced")
    assert lines[1].startswith("emea->central: last checkpoint 0 s ago (warning 600 s, critical 1800 s); "
                               "checkpoints flowing;")
    assert "FAILED" not in lines[1]


def test_failed_checkpoint_task_is_pinned_to_the_only_flow_whose_checkpoints_stopped(metrics_server, run_alert):
    process = _aggregation(35.0)
    process.flows[0].checkpoints[0].avg = float("nan")    # emea: nothing in the window
    server = metrics_server(render(process))
    state, text = run_alert("checkpoint", server.port, now=NOW, clusters={"topology.mode": "advanced"},
                            topology={"content": AGG_TOPOLOGY})
    lines = text.split("\n")
    assert state == "CRITICAL"
    assert lines[0].startswith("emea->central: last checkpoint 60 s ago (warning 600 s, critical 1800 s); "
                               "MirrorCheckpointConnector task 1 FAILED on this host; consumer offsets are not synced")
    assert lines[1].startswith("apac->central: last checkpoint 0 s ago") and "FAILED" not in lines[1]


def test_failed_checkpoint_task_that_cannot_be_pinned_is_reported_once(metrics_server, run_alert):
    server = metrics_server(render(_aggregation(float("nan"))))   # neither flow checkpointed in the window
    state, text = run_alert("checkpoint", server.port, now=NOW, clusters={"topology.mode": "advanced"},
                            topology={"content": AGG_TOPOLOGY})
    lines = text.split("\n")
    assert state == "CRITICAL"
    assert lines[0].startswith("MirrorCheckpointConnector task 1 FAILED on this host, for one of apac->central, "
                               "emea->central")
    assert all("FAILED" not in l for l in lines[1:])


# --- tasks across the driver hosts ---------------------------------------------------------------------
NOTHING = {"MirrorSourceConnector": None, "MirrorCheckpointConnector": None, "MirrorHeartbeatConnector": None}


def _revoked(version="3.9.0"):
    """What a driver shows while Connect has revoked its connectors (herders up, nothing assigned)."""
    return MM2Process(version, herders=[("A", "B"), ("B", "A")], flows=[], connector_status=NOTHING,
                      task_status={("MirrorHeartbeatConnector", 0): None})


def test_only_driver_host_running_nothing_is_critical(metrics_server, run_alert):
    server = metrics_server(render(_revoked()))
    state, text = run_alert("tasks", server.port, hosts=["127.0.0.1"])
    assert state == "CRITICAL"
    assert text.startswith("No driver host runs any MirrorMaker 2 connector or task (hosts read: 127.0.0.1): "
                           "nothing replicates for A->B.")


def test_tasks_on_another_driver_host_are_found_there(metrics_server, run_alert):
    local = metrics_server(render(_revoked()))
    metrics_server(render(MM2Process("3.9.0", herders=[("A", "B"), ("B", "A")],
                                     flows=[Flow("A", "B", partitions("t", 2))])), host="127.0.0.2", port=local.port)
    state, text = run_alert("tasks", local.port, hosts=["127.0.0.1", "127.0.0.2"])
    assert state == "OK"
    assert text.startswith("No MM2 connector or task runs on this host yet")


def test_all_driver_hosts_idle_is_critical(metrics_server, run_alert):
    local = metrics_server(render(_revoked()))
    metrics_server(render(_revoked()), host="127.0.0.2", port=local.port)
    state, text = run_alert("tasks", local.port, hosts=["127.0.0.1", "127.0.0.2"])
    assert state == "CRITICAL"
    assert "(hosts read: 127.0.0.1, 127.0.0.2): nothing replicates for A->B" in text


def test_unreadable_peer_makes_a_missing_flow_unknown(metrics_server, run_alert):
    local = metrics_server(render(_revoked()))
    state, text = run_alert("tasks", local.port, hosts=["127.0.0.1", "127.0.0.2"])
    assert state == "UNKNOWN"
    assert "A->B: no replication task of this flow runs on the driver hosts read (127.0.0.1), and 127.0.0.2 " \
           "could not be read: 127.0.0.2: connection refused" in text


def test_flow_without_tasks_anywhere_while_others_run_is_critical(metrics_server, run_alert):
    """Active-active on two hosts: B->A replicates on the peer, A->B nowhere although heartbeats into A
    are emitted (the B->A herder), so Connect did not assign A->B's tasks."""
    local = metrics_server(render(_revoked()))
    metrics_server(render(MM2Process("3.9.0", herders=[("A", "B"), ("B", "A")],
                                     flows=[Flow("B", "A", partitions("t", 2))])), host="127.0.0.2", port=local.port)
    state, text = run_alert("tasks", local.port, hosts=["127.0.0.1", "127.0.0.2"],
                            replication={"direction": "active-active"})
    assert state == "CRITICAL"
    assert "A->B: no driver host runs a replication task of this flow (hosts read: 127.0.0.1, 127.0.0.2), " \
           "although A has heartbeats to replicate" in text
    assert "B->A: no driver host" not in text


def test_nothing_assigned_right_after_the_start_is_a_warning(metrics_server, run_alert):
    now = 1800000000.0
    process = _revoked()
    process.herder_start = {"A->B": (now - 30) * 1000, "B->A": (now - 30) * 1000}
    server = metrics_server(render(process))
    state, text = run_alert("tasks", server.port, hosts=["127.0.0.1"], now=now)
    assert state == "WARNING"
    assert text.startswith("No driver host runs any MirrorMaker 2 connector or task")
    assert "MirrorMaker 2 started 30 s ago here: CRITICAL only after 120 s" in text
    state, _ = run_alert("tasks", server.port, hosts=["127.0.0.1"], now=now + 150)
    assert state == "CRITICAL"
