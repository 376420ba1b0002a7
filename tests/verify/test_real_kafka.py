# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""mm2-verify against real Kafka clusters after a real MirrorMaker 2 run.

Two one-node KRaft clusters (../shared/kafka), MM2 started by hand with connect-mirror-maker.sh,
and mm2-verify run as an operator runs it (the console script in its own process) with Spark's
own Kafka connector (official, from Maven Central: realkafka.artifacts; --kafka-connector).  The expectations come from the
clusters themselves (console tools), never from the job:

- after a clean run: OK, exactly the topics MM2 replicates (look-alike names, MM2's default
  topics.exclude, internal topics and heartbeats on Spark's real subscribePattern matching);
- records produced while MM2 is stopped: pending inside the window, missing without one (one
  run with two verifications, to keep the JVM starts few);
- a kill -9 and restart: the replayed records are duplicates, nothing missing;
- failover offsets: for a consumer group committed on the source, MM2's checkpoint on the target
  re-reads or skips exactly what the records at those offsets say.
"""
import json
import os
import re
import sys
import time

import pytest

from realkafka import artifacts
from realkafka import cluster as rk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = rk.skip_reason() or artifacts.skip_reason("spark-kafka")
CONNECTOR = None if REASON else artifacts.spark_kafka_dir()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

SOURCE_TOPICS = {"orders": 2, "legacy-orders": 1, "orders.replica": 1, "payments": 1}
FIRST = {"orders": 200, "legacy-orders": 30, "orders.replica": 20, "payments": 40}
WHILE_STOPPED = 30
AFTER_RESTART = 20
GROUP = "billing"


def mm2_verify(tmp_path, name, *argv):
    """(exit code, report, stdout, stderr) of the mm2-verify console script."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "package", "scripts"), os.path.join(ROOT, "src")])
    env["PYSPARK_PYTHON"] = sys.executable
    env["JAVA_HOME"] = rk.java_home()
    report = str(tmp_path / ("%s.json" % name))
    result = rk.run_bounded([sys.executable, "-m", "mm2_verify.cli", "--master", "local[2]", "--kafka-connector",
                             CONNECTOR, "--shuffle-partitions", "4", "--report", report] + list(argv),
                            timeout=300, env=env, cwd=str(tmp_path))
    data = json.load(open(report)) if os.path.exists(report) and result.returncode in (0, 1) else None
    return result.returncode, data, result.stdout, result.stderr


def records_with_offsets(cluster, topic, partition):
    """[(offset, value)] of one partition, read from its start."""
    end = cluster.end_offsets(topic).get(partition, 0)
    return [(o, value) for _, o, _, value in cluster.records(topic, end, partition=partition, offset=0)] if end else []


def expected_failover(source, target, topic, partition, committed, downstream, alias="primary"):
    """Re-read and skipped records of a consumer moving from source offset `committed` to target
    offset `downstream`, from the partitions' contents (values are unique)."""
    on_target = {}
    for offset, value in records_with_offsets(target, alias + "." + topic, partition):
        on_target.setdefault(value, []).append(offset)
    reread = skipped = 0
    for offset, value in records_with_offsets(source, topic, partition):
        copies = on_target.get(value)
        if not copies:
            continue
        if offset < committed and max(copies) >= downstream:
            reread += 1
        if offset >= committed and max(copies) < downstream:
            skipped += 1
    return reread, skipped


STARTED = [time.time()]


def stage(name):
    """Elapsed time per stage (shown with pytest -s): where the CI minutes go."""
    print("[%6.1fs] %s" % (time.time() - STARTED[0], name))


def test_verify_real_mirror_maker_run_stop_kill_and_failover_offsets(tmp_path):
    STARTED[0] = time.time()
    with rk.kafka_clusters(tmp_path, ("a", "b")) as clusters:
        a, b = clusters["a"], clusters["b"]
        stage("clusters up")
        for topic, partitions in SOURCE_TOPICS.items():
            a.create_topic(topic, partitions=partitions)
            a.produce_n(topic, FIRST[topic], prefix=topic)
        props = rk.mm2_test_properties({"primary": a.bootstrap, "backup": b.bootstrap}, ["primary->backup"], {
            "sync.group.offsets.enabled": "true",
            # Source offsets are committed only on a clean stop: a kill -9 then replays what it copied.
            "offset.flush.interval.ms": "3600000"})
        mm2 = rk.MirrorMaker(tmp_path / "mm2-1", props)
        with mm2:
            for topic in ("orders", "legacy-orders", "payments"):
                rk.wait_until(lambda t=topic: b.count("primary." + t) >= FIRST[t], 180, 2, "primary.%s on b" % topic)
            a.commit_group_offsets(GROUP, "orders", {0: 60, 1: 35})
            rk.wait_until(lambda: len(b.group_offsets(GROUP)) == 2, 120, 2, "MM2 to checkpoint group %s" % GROUP)
        stage("replicated and checkpointed")
        assert "orders.replica" in a.topics() and "primary.orders.replica" not in b.topics()

        # Records produced while MM2 is stopped (into payments only): in flight with a window, lost without.
        a.produce_n("payments", WHILE_STOPPED, prefix="stopped")

        # One run, two verifications of the same clusters: everything MM2 replicates (MM2's
        # defaults, a pending window) with the failover offsets, and payments without a window.
        kafka = {"source": {"kind": "kafka", "options": {"bootstrap.servers": a.bootstrap}},
                 "target": {"kind": "kafka", "options": {"bootstrap.servers": b.bootstrap}}}
        plan = {"flows": [dict(kafka, flow="primary->backup", pending_window="10m"),
                          dict(kafka, flow="primary->backup", topics="payments", pending_window="0",
                               check_offsets="no")]}
        (tmp_path / "plan.json").write_text(json.dumps(plan))
        code, report, out, err = mm2_verify(tmp_path, "stopped", "--plan", str(tmp_path / "plan.json"))
        stage("verified the mirror and the stopped records")
        assert code == 1, out + err[-3000:]
        everything, strict = report["flows"]

        # 1. Exactly the topics MM2 replicates: not orders.replica (MM2's default topics.exclude),
        #    not heartbeats or MM2's internal topics, names intact on the target.
        parts = dict(((p["topic"], p["partition"]), p) for p in everything["partitions"])
        assert sorted(set(t for t, _ in parts)) == ["legacy-orders", "orders", "payments"]
        assert sorted(set(p["target_topic"] for p in parts.values())) == [
            "primary.legacy-orders", "primary.orders", "primary.payments"]
        copied = FIRST["orders"] + FIRST["legacy-orders"] + FIRST["payments"]
        totals = everything["totals"]
        assert (totals["source_records"], totals["matched"], totals["missing"], totals["pending"]) == \
               (copied + WHILE_STOPPED, copied, 0, WHILE_STOPPED)
        assert totals["status"] == "PENDING" and parts[("payments", 0)]["replicated_to"] == FIRST["payments"] - 1

        # 2. The stopped records without a window: missing, the flow fails.
        assert strict["totals"]["status"] == "FAILED(missing)"
        assert (strict["totals"]["source_records"], strict["totals"]["pending"], strict["totals"]["missing"]) == \
               (FIRST["payments"] + WHILE_STOPPED, 0, WHILE_STOPPED)
        assert [f["topic"] for f in strict["partitions"]] == ["payments"]

        # Failover offsets: what the checkpoints make a consumer re-read or skip, against the partitions.
        offsets = everything["offsets"]
        assert offsets["checked"] and offsets["error"] is None
        groups = dict(((g["group"], g["partition"]), g) for g in offsets["groups"] if g["topic"] == "orders")
        assert sorted(groups) == [(GROUP, 0), (GROUP, 1)]
        for partition, committed in ((0, 60), (1, 35)):
            g = groups[(GROUP, partition)]
            assert g["committed"] == committed and g["checkpoint_upstream"] <= committed
            assert (g["reread"], g["skipped"]) == expected_failover(
                a, b, "orders", partition, committed, g["checkpoint_downstream"])
            assert g["skipped"] == 0 and g["status"] in ("EXACT", "REREADS")
        assert "Failover offsets" in out and GROUP in out

        # 3. Restart, copy more, kill -9 before MM2 commits its source offsets, restart: replays.
        with rk.MirrorMaker(tmp_path / "mm2-2", props) as second:
            total = FIRST["orders"]
            rk.wait_until(lambda: b.count("primary.payments") >= FIRST["payments"] + WHILE_STOPPED, 180, 2,
                          "the stopped records on b")
            a.produce_n("orders", AFTER_RESTART, prefix="after")
            total += AFTER_RESTART
            rk.wait_until(lambda: b.count("primary.orders") >= total, 180, 2, "the new records on b")
            second.kill9()
        with rk.MirrorMaker(tmp_path / "mm2-3", props):
            rk.wait_until(lambda: b.count("primary.orders") > total, 180, 2, "MM2 to replay after kill -9")
            a.produce_n("orders", 1, prefix="marker")  # copied after the replay, in partition order
            total += 1
            rk.wait_until(lambda: sorted(v for _, v in b.consume("primary.orders", 10 ** 4, timeout_ms=4000)
                                         if v.startswith("marker")) != [], 120, 3, "the marker on b")
        stage("replayed after kill -9")
        on_target = b.count("primary.orders")
        code, report, out, err = mm2_verify(tmp_path, "replayed", "--flow", "primary->backup", "--topics", "orders",
                                            "--source-bootstrap", a.bootstrap, "--target-bootstrap", b.bootstrap)
        stage("verified the replayed mirror")
        assert code == 0, out + err[-3000:]
        totals = report["totals"]
        assert (totals["source_records"], totals["matched"], totals["missing"], totals["pending"]) == \
               (total, total, 0, 0)
        assert totals["duplicates"] == on_target - total > 0
        assert totals["order_violations"] == 0
