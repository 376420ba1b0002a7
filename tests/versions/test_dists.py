"""The short sequence: an official Kafka distribution (tests/realkafka/dists.py) is what it says and runs MM2.

The versions of MM2_TEST_KAFKA_SHORT_VERSIONS (versions/conftest.py) that do not run the full case set
(test_lifecycle.py, which covers the same and more).

Per version: the distribution is assembled (bin/ + config/ of the release, libs/ from Maven Central), its
kafka-clients is the release, two one-node clusters of that same version start (ZooKeeper mode for 2.x, KRaft
from 3.x), and connect-mirror-maker.sh of that distribution replicates records exactly and logs its version.
"""
import os
import re

import pytest

from realkafka import cluster as rk
from realkafka import dists
from versions.conftest import short_versions


@pytest.mark.parametrize("name", short_versions())
def test_distribution_runs_brokers_and_mirror_maker(name, tmp_path):
    reason = dists.skip_reason(name)
    if reason:
        pytest.skip(reason)
    if rk.java_home() is None:
        pytest.skip("no Java 17")
    home = rk.kafka_home(name)
    assert home, rk.dist_problem(name)
    d = dists.dist(name)
    stamp = dists.built(name)
    assert rk.installed_version(home) == d.release == stamp["release"]
    assert stamp["jars"]["connect-mirror"] == d.release and stamp["jars"]["kafka_2.13"] == d.release
    with rk.kafka_clusters(tmp_path, ("a", "b"), home=home) as clusters:
        a, b = clusters["a"], clusters["b"]
        assert a.zookeeper == (d.release < "3")
        a.create_topic("orders", partitions=2)
        a.create_topic("orders", partitions=2)     # again: exists, no error (also where --if-not-exists cannot be used)
        a.produce_n("orders", 200)
        assert a.count("orders") == 200
        props = rk.mm2_test_properties({"a": a.bootstrap, "b": b.bootstrap}, ["a->b"])
        with rk.MirrorMaker(tmp_path / "mm2", props, home=home) as mm2:
            rk.wait_until(lambda: b.count("a.orders") >= 200, 180, 2, "a.orders on b to reach 200 records")
            assert mm2.running()
        log = mm2.log_text()
        assert re.search(r"Kafka version: %s\b" % re.escape(d.release), log), log[-3000:]
        got = b.consume("a.orders", 300, timeout_ms=8000)
        assert sorted(got) == sorted(("r-%d" % i, "r-value-%d" % i) for i in range(200))
        broker_log = a.server_log_text()   # with the hourly-rolled files: a run across hh:00 has its start in server.log.<hour>
        assert "Kafka version: %s" % d.release in broker_log or "Kafka version : %s" % d.release in broker_log
