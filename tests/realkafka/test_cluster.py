"""The real-Kafka harness itself: two clusters, hand-started MM2 replicates, everything stops by pid."""
import os

import pytest

from realkafka import cluster as rk

pytestmark = pytest.mark.skipif(rk.skip_reason() is not None, reason=rk.skip_reason() or "")


def test_two_clusters_replicate_with_hand_started_mm2(tmp_path):
    with rk.kafka_clusters(tmp_path, ("a", "b")) as clusters:
        a, b = clusters["a"], clusters["b"]
        a.create_topic("orders", partitions=3)
        a.produce_n("orders", 300)
        assert a.count("orders") == 300
        props = rk.mm2_test_properties({"a": a.bootstrap, "b": b.bootstrap}, ["a->b"])
        with rk.MirrorMaker(tmp_path / "mm2", props) as mm2:
            rk.wait_until(lambda: b.count("a.orders") >= 300, 150, 2, "a.orders on b to reach 300 records")
            assert mm2.running()
        assert not mm2.running()
        got = b.consume("a.orders", 400, timeout_ms=8000)
        assert sorted(got) == sorted(("r-%d" % i, "r-value-%d" % i) for i in range(300))

        # the session's client reads everything the topic holds before its idle timeout runs (1 ms here: the
        # console consumer's timeout also ran while it joined and fetched, and read 0 of 400 records at load ~25)
        assert sorted(a.consume("orders", 300, timeout_ms=1)) == sorted(got)
        a.create_topic("empty", partitions=2)
        assert a.consume("empty", 10, timeout_ms=1) == [] and a.end_offsets("empty") == {0: 0, 1: 0}
        assert a.end_offsets("no-such-topic") == {} and a.group_offsets("no-such-group") == {}
        assert "no-such-topic" not in a.topics()   # asking about a topic does not create it
        # a group reads, commits what it returned, and the next read of the group goes on from there
        assert len(a.consume("orders", 100, timeout_ms=1, group="g1")) == 100
        assert sum(a.group_offsets("g1").values()) == 100 and a.group_members("g1") == 0
        assert len(a.consume("orders", 1000, timeout_ms=1, group="g1")) == 200
        a.commit_group_offsets("g2", "orders", {0: 5, 1: 0, 2: 7})
        assert a.group_offsets("g2") == {("orders", 0): 5, ("orders", 1): 0, ("orders", 2): 7}
        ends = a.end_offsets("orders")
        partition_1 = a.consume("orders", ends[1], partition=1)
        assert len(partition_1) == ends[1] and set(partition_1) <= set(got)
        assert a.consume("orders", 10, timeout_ms=1, partition=1, offset=ends[1] - 5) == partition_1[-5:]
        pids = [c.process.pid for c in clusters.values()]
    for pid in pids:
        with pytest.raises(OSError):
            os.kill(pid, 0)
