"""A flow's positions moved while MirrorMaker 2 keeps running (connect mode, Kafka 3.6+: Connect's offsets API,
KIP-875), and seeded while it is stopped (the failback path), on real Kafka through the built mpack's scripts.

One case, A->B and C->B on one Connect worker:
- A->B paused, a backlog written to A; FLOW_SEED A->B at=end skips it through the offsets API: only A->B's source
  connector is stopped and put back PAUSED, C->B keeps replicating with exact counts, the worker keeps its pid;
  after FLOW_RESUME only what A gets afterwards is copied (none of the backlog);
- FLOW_SEED A->B offsets=<t>-0=0,<t>-1=0 on the running flow replays A's topic from its beginning (the stored
  positions removed: Connect takes no negative offset), the connector back RUNNING: exactly everything once more;
- a flow into another target than the worker's is not touched (the host says so);
- MirrorMaker 2 stopped: FLOW_SEED at=end writes into the worker's offsets topic (<connect.group.id>-offsets.internal,
  key A->B.MirrorSourceConnector), and after START nothing A got while it was stopped is copied.
"""
from live.live_support import ok, wait_count
from live.test_flow_operations import connect_conf, states
from mm2_core.config import names
from mm2_core.connect import connect_mode, connect_rest, flow_control

LINE = "trunk"
N = 100


def _keys(cluster, topic, n):
    return sorted(k for k, _ in cluster.consume(topic, n + 10, timeout_ms=5000))


def _expected(*prefixes):
    return sorted("%s-%d" % (p, i) for p in prefixes for i in range(N))


def test_flow_positions_move_through_the_offsets_api_while_the_other_flow_runs(three_clusters, mpack, drivers, tmp_path):
    clusters, run_id, port = three_clusters
    a, b, c = clusters["a"], clusters["b"], clusters["c"]
    ta, tc = "oa-%s" % run_id, "oc-%s" % run_id
    a.create_topic(ta, partitions=2)
    c.create_topic(tc, partitions=2)
    d = drivers.new(mpack, LINE, tmp_path, configurations=connect_conf(clusters, ta, tc, port))
    for command in ("INSTALL", "START"):
        ok(d.run(command), command)
    pid = d.pid()
    client = connect_rest.ConnectRest("http://127.0.0.1:%d" % port, ".".join(str(x) for x in a.version))
    source = connect_mode.connector_name("A->B", connect_mode.SOURCE)
    a.produce_n(ta, N, prefix="a1")
    c.produce_n(tc, N, prefix="c1")
    wait_count(b, "A." + ta, N)
    wait_count(b, "C." + tc, N)

    # a flow into another target is not this worker's: said so, nothing done (mm2-ambari flow seed runs everywhere)
    other = ok(d.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "at": "end"}), "FLOW_SEED B->A")
    assert other.structured_out["flow_seed"] == {"flow": "B->A", "served": False, "target_here": "B"}, other

    # skip a backlog: A->B paused, N records written to A, then seeded at A's end while the worker runs
    ok(d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "A->B"}), "FLOW_PAUSE A->B")
    a.produce_n(ta, N, prefix="a2")
    c.produce_n(tc, N, prefix="c2")
    seed = ok(d.run(names.CMD_FLOW_SEED, command_params={"flow": "A->B", "at": "end"}, timeout=240),
              "FLOW_SEED A->B at=end (running worker)")
    out = seed.structured_out["flow_seed"]
    ends = a.end_offsets(ta)
    assert out["method"] == "offsets API" and out["source_connector_state"] == "PAUSED", out
    assert out["positions"] == dict(("%s-%d" % (ta, p), o) for p, o in ends.items()), (out, ends)
    assert out["written"] == 2, out
    nxt = flow_control.source_offsets(client.offsets(source), "A")
    assert dict((k, v) for k, v in nxt.items() if k[0] == ta) == dict(((ta, p), o) for p, o in ends.items())
    now = states(port)
    assert all(now[connect_mode.connector_name("A->B", k)][0] == "PAUSED" for k in connect_mode.KINDS), now
    assert all(now[connect_mode.connector_name("C->B", k)][0] == "RUNNING" for k in connect_mode.KINDS), now
    wait_count(b, "C." + tc, 2 * N)     # the other flow kept replicating, exactly
    assert d.pid() == pid

    ok(d.run(names.CMD_FLOW_RESUME, command_params={"flow": "A->B"}), "FLOW_RESUME A->B")
    a.produce_n(ta, N, prefix="a3")
    wait_count(b, "A." + ta, 2 * N)
    assert _keys(b, "A." + ta, 2 * N) == _expected("a1", "a3")    # none of the skipped backlog

    # replay: the running flow seeded at offset 0 copies A's topic once more, and only A->B's source was touched
    seed = ok(d.run(names.CMD_FLOW_SEED, command_params={"flow": "A->B", "offsets": "%s-0=0,%s-1=0" % (ta, ta)},
                    timeout=240), "FLOW_SEED A->B offsets=0 (running worker)")
    out = seed.structured_out["flow_seed"]
    assert (out["method"], out["source_connector_state"], out["written"]) == ("offsets API", "RUNNING", 2), out
    wait_count(b, "A." + ta, 2 * N + 3 * N)
    assert _keys(b, "A." + ta, 5 * N) == sorted(_expected("a1", "a3") + _expected("a1", "a2", "a3"))
    c.produce_n(tc, N, prefix="c3")
    wait_count(b, "C." + tc, 3 * N)
    assert d.pid() == pid

    # the failback path: MirrorMaker 2 stopped, positions written into the worker's offsets topic, then START
    ok(d.run("STOP"), "STOP")
    a.produce_n(ta, N, prefix="a4")
    seed = ok(d.run(names.CMD_FLOW_SEED, command_params={"flow": "A->B", "at": "end"}, timeout=240),
              "FLOW_SEED A->B at=end (stopped worker)")
    out = seed.structured_out["flow_seed"]
    assert out["method"] == "offsets topic" and out["offsets_topic"] == "mm2-live-%d-offsets.internal" % port, out
    assert out["written"] == 2, out
    ok(d.run("START"), "START")
    a.produce_n(ta, N, prefix="a5")
    wait_count(b, "A." + ta, 6 * N)
    keys = _keys(b, "A." + ta, 6 * N)
    assert not [k for k in keys if k.startswith("a4-")], "records A got while MM2 was stopped were copied"
    assert [k for k in keys if k.startswith("a5-")] == _expected("a5")
    ok(d.run("STOP"), "STOP")
