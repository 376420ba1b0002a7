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
        pids = [c.process.pid for c in clusters.values()]
    for pid in pids:
        with pytest.raises(OSError):
            os.kill(pid, 0)
