"""Heartbeat gap alert: state between runs, 'no heartbeat ever', the --clusters pitfall, peers."""
import json
import os
import time

import pytest

from conftest import render
from metrics_server import free_port
from mm2_sim import Flow, MM2Process, partitions

NOW = 1800000000.0
LOCAL = "127.0.0.1"


def _process(version="3.7.1", heartbeat=True, count=120.0, active=True, herders=(("A", "B"), ("B", "A")),
             start_ms=None, **kw):
    flow = Flow("A", "B", partitions("orders", 2), heartbeat=heartbeat, heartbeat_count=count,
                heartbeat_active=active)
    return MM2Process(version, herders=list(herders), flows=[flow],
                      start_ms=start_ms if start_ms is not None else (NOW - 3600) * 1000, **kw)


def _state(run_alert):
    with open(os.path.join(run_alert.state_dir, "heartbeat.json")) as fh:
        return json.load(fh)


def _seed(run_alert, data):
    if not os.path.isdir(run_alert.state_dir):
        os.makedirs(run_alert.state_dir)
    with open(os.path.join(run_alert.state_dir, "heartbeat.json"), "w") as fh:
        json.dump(data, fh)


@pytest.mark.parametrize("version", ["3.4.1", "3.7.1", "4.0.0"])
def test_arriving_heartbeats_are_ok(metrics_server, run_alert, version):
    server = metrics_server(render(_process(version)))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    assert state == "OK"
    assert text == ("A->B: heartbeat gap 0 s (warning 120 s, critical 300 s); last heartbeat from A seen on B 0 s "
                    "ago; A.heartbeats-0 on 127.0.0.1")
    assert _state(run_alert)["A->B"]["count"] == 120.0


def test_count_going_up_between_runs_resets_the_gap(metrics_server, run_alert):
    server = metrics_server(render(_process(count=120.0)))
    run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    # an idle window (NaN average) but the count moved since the last run: a heartbeat arrived
    server.payload = render(_process(count=132.0, active=False))
    state, text = run_alert("heartbeat", server.port, now=NOW + 60, hosts=[LOCAL])
    assert state == "OK" and "heartbeat gap 0 s" in text


@pytest.mark.parametrize("version", ["3.4.1", "4.0.0"])
@pytest.mark.parametrize("gap,expected", [
    (119, "OK"), (120, "WARNING"), (121, "WARNING"), (299, "WARNING"), (300, "CRITICAL"), (301, "CRITICAL"),
])
def test_stalled_heartbeats_at_the_boundaries(metrics_server, run_alert, version, gap, expected):
    server = metrics_server(render(_process(version, count=120.0, active=False)))
    _seed(run_alert, {"A->B": {"host": LOCAL, "count": 120.0, "advanced_at": NOW - gap, "first_seen": NOW - 4000}})
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    assert state == expected
    against = {"OK": "(warning 120 s, critical 300 s)", "WARNING": ">= warning 120 s (critical 300 s)",
               "CRITICAL": ">= critical 300 s"}[expected]
    assert text.startswith("A->B: heartbeat gap %d s %s; last heartbeat from A seen on B %d s ago; "
                           "A.heartbeats-0 on 127.0.0.1" % (gap, against, gap))
    if expected != "OK":   # B->A runs here, so heartbeats are emitted into A: the flow itself is suspect
        assert "Heartbeats are emitted into A by B->A: check that A->B replicates" in text
    assert _state(run_alert)["A->B"]["advanced_at"] == NOW - gap   # not advanced: the time is kept


def test_no_heartbeat_ever_grows_from_the_first_observation(metrics_server, run_alert):
    server = metrics_server(render(_process(count=0.0, active=False)))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    # first look: nothing in the last stat window (60 s) is all that is known
    assert state == "OK"
    assert "heartbeat gap 60 s" in text and "no heartbeat has arrived since the replication task started" in text
    state, text = run_alert("heartbeat", server.port, now=NOW + 240, hosts=[LOCAL])
    assert state == "CRITICAL"
    assert text.startswith("A->B: heartbeat gap 300 s >= critical 300 s; no heartbeat has arrived since the "
                           "replication task started")


def test_clusters_pitfall_nobody_emits_heartbeats_into_the_source(metrics_server, run_alert):
    """--clusters B on every host: only the A->B herder runs, so no heartbeats go into A at all and
    A.heartbeats never exists on B."""
    server = metrics_server(render(_process(heartbeat=False, herders=[("A", "B")], start_ms=(NOW - 400) * 1000)))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL], driver={"target.clusters": "B"})
    assert state == "CRITICAL"
    assert text.startswith("A->B: heartbeat gap 400 s >= critical 300 s; no heartbeat ever: no driver host "
                           "replicates A.heartbeats into B")
    assert "No driver host runs a herder into A" in text
    assert "(the --clusters pitfall): add A to kafka-mm2-driver/target.clusters of at least one driver host" in text
    assert text.endswith("; this host serves only B")


def test_missing_heartbeat_flow_gets_a_startup_grace(metrics_server, run_alert):
    server = metrics_server(render(_process(heartbeat=False, herders=[("A", "B")], start_ms=(NOW - 30) * 1000)))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL], driver={"target.clusters": "B"})
    assert state == "OK"
    assert "heartbeat gap 30 s (warning 120 s, critical 300 s); no heartbeat ever" in text


def test_flow_whose_herder_runs_nowhere_is_critical(metrics_server, run_alert):
    server = metrics_server(render(MM2Process("3.7.1", herders=[("B", "A")], flows=[])))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    assert state == "CRITICAL"
    assert text.startswith("A->B: heartbeat gap inf s >= critical 300 s; no driver host runs the A->B herder")


def test_heartbeat_partition_on_another_driver_host(metrics_server, run_alert):
    """The single heartbeat partition is replicated by one task, possibly on a peer host."""
    local = metrics_server(render(_process(heartbeat=False)))
    peer = metrics_server(render(_process(count=50.0)), host="127.0.0.2", port=local.port)
    state, text = run_alert("heartbeat", local.port, now=NOW, hosts=[LOCAL, "127.0.0.2"])
    assert state == "OK"
    assert text.endswith("A.heartbeats-0 on 127.0.0.2")
    assert len(peer.requests) == 1 and "name%5B%5D=" in peer.requests[0][0]


def test_peers_are_not_read_when_everything_is_local(metrics_server, run_alert):
    local = metrics_server(render(_process()))
    peer = metrics_server(render(_process()), host="127.0.0.2", port=local.port)
    assert run_alert("heartbeat", local.port, now=NOW, hosts=[LOCAL, "127.0.0.2"])[0] == "OK"
    assert peer.requests == []


def test_unreadable_peer_makes_a_missing_heartbeat_unknown(metrics_server, run_alert):
    local = metrics_server(render(_process(heartbeat=False)))
    state, text = run_alert("heartbeat", local.port, now=NOW, hosts=[LOCAL, "127.0.0.3"])
    assert state == "UNKNOWN"
    assert "A.heartbeats-0 is not replicated by the driver hosts read, and 127.0.0.3 could not be read: " \
           "127.0.0.3: connection refused" in text


def test_counter_reset_after_a_task_restart_counts_as_arrival(metrics_server, run_alert):
    server = metrics_server(render(_process(count=3.0, active=False)))
    _seed(run_alert, {"A->B": {"host": LOCAL, "count": 5000.0, "advanced_at": NOW - 280}})
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    assert state == "OK" and "heartbeat gap 0 s" in text


def test_heartbeats_disabled_are_not_checked(metrics_server, run_alert):
    server = metrics_server(render(_process(heartbeat=False)))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL],
                            custom={"emit.heartbeats.enabled": "false"})
    assert state == "OK" and "heartbeats are disabled" in text


@pytest.mark.parametrize("content", ["{not json", "", "[1, 2]", "\x00\x01"])
def test_corrupt_or_foreign_state_is_ignored(metrics_server, run_alert, content):
    server = metrics_server(render(_process(count=10.0, active=False)))
    if not os.path.isdir(run_alert.state_dir):
        os.makedirs(run_alert.state_dir)
    with open(os.path.join(run_alert.state_dir, "heartbeat.json"), "w") as fh:
        fh.write(content)
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])
    assert state == "OK" and "heartbeat gap 60 s" in text
    assert _state(run_alert)["A->B"]["count"] == 10.0   # rewritten whole


def test_unwritable_state_dir_is_reported_not_raised(metrics_server, run_alert, tmpdir):
    blocker = tmpdir.join("file")
    blocker.write("x")
    server = metrics_server(render(_process()))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL],
                            params={"state.directory": str(blocker.join("sub"))})
    assert state == "OK"
    assert "Note: could not save alert state to" in text


def test_without_host_list_only_this_host_is_read(metrics_server, run_alert):
    server = metrics_server(render(_process()))
    state, text = run_alert("heartbeat", server.port, now=NOW)
    assert state == "OK"
    assert text.endswith("Note: the driver host list (clusterHostInfo) was not available, so only this host was read")


def test_real_clock_is_used_by_default(metrics_server, run_alert):
    server = metrics_server(render(_process()))
    before = time.time()
    run_alert("heartbeat", server.port, hosts=[LOCAL])
    assert before <= _state(run_alert)["A->B"]["advanced_at"] <= time.time()


def test_unreachable_local_endpoint(run_alert):
    state, text = run_alert("heartbeat", free_port(), now=NOW, hosts=[LOCAL])
    assert state == "UNKNOWN" and "connection refused" in text


def test_unreadable_topology_checks_only_flows_replicated_here(metrics_server, run_alert):
    """Advanced mode with a broken YAML: the B->A herder of a one-way setup emits heartbeats only."""
    server = metrics_server(render(_process()))
    state, text = run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL],
                            clusters={"topology.mode": "advanced"}, topology={"content": "clusters: [oops"})
    assert state == "OK"
    lines = text.split("\n")
    assert lines[0].startswith("A->B: heartbeat gap 0 s") and not any(l.startswith("B->A") for l in lines)
    assert lines[-1].startswith("Note: the MM2 topology in the configurations is not valid")


def test_heartbeats_that_disappear_are_not_called_never_seen(metrics_server, run_alert):
    server = metrics_server(render(_process()))
    assert run_alert("heartbeat", server.port, now=NOW, hosts=[LOCAL])[0] == "OK"
    server.payload = render(_process(heartbeat=False))    # the heartbeat partition is gone
    state, text = run_alert("heartbeat", server.port, now=NOW + 200, hosts=[LOCAL])
    assert state == "WARNING"
    assert text.startswith("A->B: heartbeat gap 200 s >= warning 120 s (critical 300 s); heartbeats were seen "
                           "before (last on 127.0.0.1), but no driver host replicates A.heartbeats into B any more")
    assert "no heartbeat ever" not in text
