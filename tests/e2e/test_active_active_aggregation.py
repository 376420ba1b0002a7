"""Active-active (both ways, no loops) and 3->1 aggregation on real Kafka, through the built mpack's scripts.

Spread over the two Ambari lines to keep CI time down: active-active on 2.7.8 (Python 2.7), aggregation on trunk
(Python 3.9). With several heartbeat writers the heartbeats topics are never quiet: REPLICATION_STATUS and the service
check must still end and report the heartbeats.
"""
import re
import time

from conftest import require_line
from e2e import agent
from mm2_core.config import names
from realkafka import cluster as rk

N = 300


def ok(run, what):
    assert run.exit_code == 0 and not run.timed_out, "%s failed:\n%s" % (what, run.output[-6000:])
    return run


def exact(cluster, topic, expected, timeout=120):
    rk.wait_until(lambda: cluster.count(topic) >= expected, timeout,
                  what="%d records in %s on %s" % (expected, topic, cluster.name))
    return cluster


def settle_and_count(cluster, topic):
    time.sleep(3)
    return cluster.count(topic)


def check_status(driver, flows):
    status = ok(driver.run(names.CMD_REPLICATION_STATUS, timeout=240), "REPLICATION_STATUS")
    reports = dict((r["flow"], r) for r in status.structured_out["replication_status"])
    assert sorted(reports) == sorted(flows)
    for flow, report in reports.items():
        assert report["problems"] == [], report
        assert report["connectors"]["MirrorSourceConnector"]["state"] == "RUNNING", report
        # the age when the command read it: reading each flow's heartbeats takes a while on a loaded host, so the
        # first flow's beat is older than a minute by the time the command ends (seen: 51 s between two flows)
        assert re.match(r"\d+s ago$", report["last_heartbeat"]) and int(report["last_heartbeat"][:-5]) < 60, report
    return reports


def test_active_active_both_ways_without_loops(mpack, kafka_pool, drivers, tmp_path):
    line = "2.7.8"
    require_line(line)
    clusters = kafka_pool("a", "b")
    a, b = clusters["a"], clusters["b"]
    a.create_topic("aa-east", partitions=2)
    b.create_topic("aa-west", partitions=2)
    conf = agent.simple_configurations("A", "B", a.bootstrap, b.bootstrap, direction="active-active")
    conf[names.REPLICATION]["topics"] = "aa-.*, %s" % names.SERVICE_CHECK_TOPIC
    d = drivers.new(mpack, line, tmp_path, configurations=conf)
    for command in ("INSTALL", "CONFIGURE", "START", "STATUS"):
        ok(d.run(command), command)
    a.produce_n("aa-east", N, prefix="east")
    b.produce_n("aa-west", N, prefix="west")
    exact(b, "A.aa-east", N)
    exact(a, "B.aa-west", N)
    assert settle_and_count(b, "A.aa-east") == N and a.count("B.aa-west") == N
    # no loops: a mirrored topic is never mirrored back
    for cluster in (a, b):
        assert not [t for t in cluster.topics() if t.startswith(("A.B.", "B.A.", "A.A.", "B.B."))], cluster.topics()
    check = ok(d.service_check(), "SERVICE_CHECK")
    assert "A->B: marker produced" in check.output and "B->A: marker produced" in check.output
    check_status(d, ["A->B", "B->A"])
    ok(d.run("STOP"), "STOP")
    assert d.mm2_pids() == []
    assert d.run("STATUS").exit_code != 0


AGGREGATION = """
clusters:
  A:
    bootstrap.servers: {a}
  B:
    bootstrap.servers: {b}
  C:
    bootstrap.servers: {c}
  D:
    bootstrap.servers: {d}
flows:
  - source: A
    target: D
  - source: B
    target: D
  - source: C
    target: D
settings:
  topics: agg-.*, {check}
"""


def test_three_into_one_aggregation(mpack, kafka_pool, drivers, tmp_path):
    line = "trunk"
    require_line(line)
    clusters = kafka_pool("a", "b", "c", "d")
    sources = [("A", clusters["a"]), ("B", clusters["b"]), ("C", clusters["c"])]
    target = clusters["d"]
    yaml = AGGREGATION.format(a=clusters["a"].bootstrap, b=clusters["b"].bootstrap, c=clusters["c"].bootstrap,
                              d=target.bootstrap, check=names.SERVICE_CHECK_TOPIC)
    conf = {names.CLUSTERS: {"topology.mode": "advanced"}, names.TOPOLOGY: {"content": yaml}}
    d = drivers.new(mpack, line, tmp_path, configurations=conf)
    for alias, cluster in sources:
        cluster.create_topic("agg-orders", partitions=2)
    for command in ("INSTALL", "CONFIGURE", "START", "STATUS"):
        ok(d.run(command), command)
    for alias, cluster in sources:
        cluster.produce_n("agg-orders", N, prefix="from-" + alias)
    for alias, _ in sources:
        exact(target, "%s.agg-orders" % alias, N)
    for alias, _ in sources:
        assert settle_and_count(target, "%s.agg-orders" % alias) == N
    keys = [k for k, _ in target.consume("A.agg-orders", N, timeout_ms=5000)]
    assert sorted(keys) == sorted("from-A-%d" % i for i in range(N))
    check = ok(d.service_check(), "SERVICE_CHECK")
    for alias, _ in sources:
        assert "%s->D: marker produced" % alias in check.output
    check_status(d, ["A->D", "B->D", "C->D"])   # every flow's heartbeats, written into its source by D->source
    # the herders MM2 runs: the flows and the reverse pairs that write each source's heartbeats, 6 of the 12 ordered
    # pairs (the rest rendered emit.heartbeats.enabled=false). A herder keeps its Connect configs on its target in
    # mm2-configs.<source>.internal: on C only D->C's, none of A->C or B->C.
    on_c = sorted(t for t in clusters["c"].topics() if t.startswith("mm2-configs."))
    assert on_c == ["mm2-configs.D.internal"], on_c
    ok(d.run("STOP"), "STOP")
    assert d.mm2_pids() == []
