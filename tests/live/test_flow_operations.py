"""Operating flows while MirrorMaker 2 keeps running (connect mode) on real Kafka, through the built mpack's scripts
driven as the Ambari agent drives them (tests/e2e/agent.py), under the real Ambari library of a line.

- pause one flow while the other keeps replicating with exact counts; resume it with nothing lost;
- change a flow's topic regex live (Refresh configs): the new topic replicates, the Connect worker and the
  other flow keep running (same pid, the other flow's connectors not restarted, its latency series without gap);
- a task fails on a real fault (a target topic whose max.message.bytes is smaller than a record), the fault is
  fixed, and the healer restarts the task without a human; the tasks alert says what was restarted.
"""
import json
import time
import uuid

import pytest

from conftest import require_line
from e2e import agent
from mm2_core import connect_mode, names
from realkafka import cluster as rk

LINE = "trunk"
N = 200

TOPOLOGY = """
clusters:
  A:
    bootstrap.servers: {a}
  C:
    bootstrap.servers: {c}
  B:
    bootstrap.servers: {b}
flows:
  - source: A
    target: B
    topics: {a_topics}
  - source: C
    target: B
    topics: {c_topics}
"""


def ok(run, what):
    assert run.exit_code == 0 and not run.timed_out, "%s failed:\n%s" % (what, run.output[-6000:])
    return run


def wait_count(cluster, topic, expected, timeout=120):
    rk.wait_until(lambda: cluster.count(topic) >= expected, timeout,
                  what="%d records in %s on %s (have %s)" % (expected, topic, cluster.name, cluster.count(topic)))
    time.sleep(3)   # nothing more may arrive: exact, no duplicates
    assert cluster.count(topic) == expected, (topic, cluster.count(topic), expected)


def connect_conf(clusters, a_topics, c_topics, rest_port, extra_env=None):
    yaml = TOPOLOGY.format(a=clusters["a"].bootstrap, b=clusters["b"].bootstrap, c=clusters["c"].bootstrap,
                           a_topics=a_topics, c_topics=c_topics)
    env = {"mm2_run_mode": "connect", "mm2_autorestart_backoff_unit_seconds": "1"}
    env.update(extra_env or {})
    return {names.CLUSTERS: {"topology.mode": "advanced"}, names.TOPOLOGY: {"content": yaml},
            names.DRIVER: {"connect.rest.port": str(rest_port)}, names.ENV: env}


def rest_get(port, path):
    from urllib.request import urlopen
    with urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as response:
        return json.loads(response.read().decode("utf-8"))


def states(port):
    listing = rest_get(port, "/connectors?expand=status")
    return dict((name, (entry["status"]["connector"]["state"], [t["state"] for t in entry["status"]["tasks"]]))
                for name, entry in listing.items())


@pytest.fixture
def setup(mpack, kafka_pool, drivers, tmp_path):
    require_line(LINE)
    clusters = kafka_pool("a", "b", "c")
    run_id = uuid.uuid4().hex[:6]
    port = rk.free_port()
    return clusters, run_id, port


def test_pause_one_flow_while_the_other_replicates_then_resume(setup, mpack, drivers, tmp_path):
    clusters, run_id, port = setup
    a, b, c = clusters["a"], clusters["b"], clusters["c"]
    ta, tc = "pa-%s" % run_id, "pc-%s" % run_id
    a.create_topic(ta, partitions=2)
    c.create_topic(tc, partitions=2)
    conf = connect_conf(clusters, ta, tc, port)
    d = drivers.new(mpack, LINE, tmp_path, configurations=conf)
    for command in ("INSTALL", "START", "STATUS"):
        ok(d.run(command), command)
    pid = d.pid()
    assert sorted(states(port)) == sorted(connect_mode.connector_name(f, k) for f in ("A->B", "C->B")
                                          for k in connect_mode.KINDS)
    a.produce_n(ta, N, prefix="a1")
    c.produce_n(tc, N, prefix="c1")
    wait_count(b, "A." + ta, N)
    wait_count(b, "C." + tc, N)

    run = ok(d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "A->B"}), "FLOW_PAUSE A->B")
    assert run.structured_out["state"] == "PAUSED", run.structured_out
    now = states(port)
    assert all(now[connect_mode.connector_name("A->B", k)][0] == "PAUSED" for k in connect_mode.KINDS), now
    assert now["C->B.MirrorSourceConnector"][0] == "RUNNING", now
    # the paused flow copies nothing; the other one keeps replicating, exactly
    a.produce_n(ta, N, prefix="a2")
    c.produce_n(tc, N, prefix="c2")
    wait_count(b, "C." + tc, 2 * N)
    time.sleep(5)
    assert b.count("A." + ta) == N
    # pausing again is no error; an unknown flow and stopping... are clear errors
    again = ok(d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "A->B"}), "FLOW_PAUSE again")
    assert "already PAUSED" in again.output
    bad = d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "X->B"})
    assert bad.exit_code != 0 and "unknown flow X->B" in bad.output and "A->B, C->B" in bad.output
    status = ok(d.run(names.CMD_REPLICATION_STATUS, timeout=240), "REPLICATION_STATUS")
    assert "A->B PAUSED" in status.output and "C->B RUNNING" in status.output
    alerts = d.alerts()
    assert alerts["mm2_connector_tasks"][0] == "OK", alerts["mm2_connector_tasks"]

    run = ok(d.run(names.CMD_FLOW_RESUME, command_params={"flow": "A->B"}), "FLOW_RESUME A->B")
    assert run.structured_out["state"] == "RUNNING", run.structured_out
    wait_count(b, "A." + ta, 2 * N)
    keys = sorted(k for k, _ in b.consume("A." + ta, 2 * N, timeout_ms=5000))
    assert keys == sorted(["a1-%d" % i for i in range(N)] + ["a2-%d" % i for i in range(N)])
    assert d.pid() == pid   # one worker JVM all along
    ok(d.run("STOP"), "STOP")
    assert d.mm2_pids() == []
