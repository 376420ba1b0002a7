"""FLOW_SEED retire= in connect mode on real Kafka (the identity failback's loop prevention), through the built
mpack's scripts: a connect-mode worker that starts runs the tasks it finds in its config topic in its first
rebalance, before START deletes a disabled flow's connectors over REST. retire= writes the retired flow's copying
connectors disabled and without tasks into <connect.group.id>-configs.internal, so:

- a START that enables the flow again (a failback's restore) brings it back: Connect takes our records, the
  rendered configuration is PUT over them and the flow copies on from its stored positions, exactly once;
- a START that leaves the flow disabled (a failback's reverse step) starts none of its tasks: no "Creating task"
  of it in the worker's log, none of the backlog written to its source while stopped reaches the target, and its
  connectors end absent, while the other flow into the same worker keeps replicating;
- a rerun of the same retire writes nothing.
"""
from live.live_support import ok, wait_count
from live.test_flow_operations import connect_conf, count_in_log, states
from mm2_core.config import names
from mm2_core.connect import connect_mode
from realkafka import cluster as rk

LINE = "trunk"
N = 100



def _retire(d, port, written):
    run = ok(d.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "unused-0=0", "retire": "A->B"},
                   timeout=240), "FLOW_SEED B->A retire=A->B")
    out = run.structured_out["flow_seed"]["retired"]
    assert out["flow"] == "A->B" and out["config_topic"] == "mm2-live-%d-configs.internal" % port, out
    # two disabled configurations, and a task count of 0 for each connector that had tasks: the source connector
    # has; the checkpoint connector has one only when there are consumer groups to sync
    assert out["written"] in written, out
    if written != (0,):
        assert out["connectors"] == [connect_mode.connector_name("A->B", connect_mode.CHECKPOINT),
                                     connect_mode.connector_name("A->B", connect_mode.SOURCE)], out


def test_connect_mode_retire_starts_none_of_the_flows_tasks_and_a_restart_that_enables_it_brings_it_back(
        three_clusters, mpack, drivers, tmp_path):
    clusters, run_id, port = three_clusters
    a, b, c = clusters["a"], clusters["b"], clusters["c"]
    ta, tc = "ya-%s" % run_id, "yc-%s" % run_id
    a.create_topic(ta, partitions=2)
    c.create_topic(tc, partitions=2)
    both = connect_conf(clusters, ta, tc, port)
    d = drivers.new(mpack, LINE, tmp_path, configurations=both)
    for command in ("INSTALL", "START"):
        ok(d.run(command), command)
    a.produce_n(ta, N, prefix="a1")
    c.produce_n(tc, N, prefix="c1")
    wait_count(b, "A." + ta, N)
    wait_count(b, "C." + tc, N)

    # restore path: retired while stopped, then a START that keeps A->B enabled puts it back running
    ok(d.run("STOP"), "STOP")
    a.produce_n(ta, N, prefix="a2")
    _retire(d, port, (3, 4))
    _retire(d, port, (0,))                             # a rerun writes nothing
    ok(d.run("START"), "START (A->B enabled)")
    wait_count(b, "A." + ta, 2 * N)                      # the backlog once, from A->B's stored positions
    rk.wait_until(lambda: states(port)[connect_mode.connector_name("A->B", connect_mode.SOURCE)][0] == "RUNNING",
                  60, what="A->B's source connector RUNNING again")

    # reverse path: retired while stopped, then a START that disables A->B starts none of its tasks
    ok(d.run("STOP"), "STOP")
    a.produce_n(ta, N, prefix="a3")
    _retire(d, port, (3, 4))
    tasks_before = count_in_log(d, "Creating task A->B.MirrorSourceConnector-")
    only_c = connect_conf(clusters, ta, tc, port)     # the same flows, A->B disabled
    only_c[names.TOPOLOGY]["content"] = only_c[names.TOPOLOGY]["content"].replace(
        "    topics: %s\n" % ta, "    enabled: false\n    topics: %s\n" % ta)
    assert only_c[names.TOPOLOGY]["content"].count("enabled: false") == 1
    ok(d.run("START", configurations=only_c), "START (A->B disabled)")
    c.produce_n(tc, N, prefix="c2")
    wait_count(b, "C." + tc, 2 * N)                      # the worker runs and the other flow replicates
    now = states(port)
    assert not [n for n in now if n.startswith("A->B.")], now
    assert count_in_log(d, "Creating task A->B.MirrorSourceConnector-") == tasks_before
    assert b.count("A." + ta) == 2 * N, "A->B copied after it was retired and disabled"
    ok(d.run("STOP", configurations=only_c), "STOP")
