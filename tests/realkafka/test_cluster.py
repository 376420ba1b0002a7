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

        # a read whose timeout ends before its first fetch (1 ms here; a loaded host's join and first fetch in
        # the live suite) is read once more with a longer one while the topic holds records; never when it is empty
        timeouts = []
        real_consume = a._consume

        def counted(topic, max_records, timeout_ms, *rest):
            timeouts.append(timeout_ms)
            return real_consume(topic, max_records, timeout_ms, *rest)
        a._consume = counted
        assert len(a.consume("orders", 300, timeout_ms=1)) == 300 and timeouts == [1, 30000], timeouts
        a.create_topic("empty", partitions=1)
        del timeouts[:]
        assert a.consume("empty", 10, timeout_ms=1) == [] and timeouts == [1], timeouts
        pids = [c.process.pid for c in clusters.values()]
    for pid in pids:
        with pytest.raises(OSError):
            os.kill(pid, 0)
