"""MirrorMaker 1 -> MirrorMaker 2 on real Kafka: no record lost, none copied twice except MM1's uncommitted tail.

What an operator of the HDInsight/HDP guides runs today: `kafka-mirror-maker.sh --consumer.config ...
--producer.config ... --whitelist ... --num.streams 2` (Cloudera's no-loss producer settings), with producers
writing all the time. Then, producers still writing:

1. `mm2-ambari import-mm1` turns that command line and its two files into a deployment file;
2. MirrorMaker 1 dies (kill -9: the worst case; a clean stop commits everything and leaves no duplicate);
3. `mm2-ambari seed-from-mm1` refuses while MM1's group still has members, then writes MM1's committed offsets
   into MM2's offsets topic (a second run writes nothing);
4. MM2 starts through the built mpack's agent scripts (INSTALL, CONFIGURE, START under real Ambari trunk);
5. once the producers stop, every source record is on the target under the same topic name: 0 missing; the
   only duplicates are records MM1 copied after its last commit (source offset >= its committed offset), as
   many as seed-from-mm1 predicted;
6. a naive switch (MM2 started without seeding) is measured too: it copies every retained record again.
"""
import json
import os
import subprocess
import threading
import time
from collections import Counter

import pytest

from e2e import agent
from mm1.conftest import mm2_ambari
from mm2_ambari.rest import deployfile
from realkafka import cluster as rk

LINE = "trunk"
TOPICS = {"orders": 3, "payments": 2}
RATE = 20                 # records per second and topic, all the time
COMMIT_MS = 4000          # MirrorMaker 1's --offset.commit.interval.ms
GROUP = "mm1-mirror"
T0 = [time.time()]
MEASURED = {}


def step(what):
    print("[%6.1fs] %s" % (time.time() - T0[0], what), flush=True)


class SteadyProducers(object):
    """One kafka-console-producer per topic, fed RATE records/s with unique values `<topic>-<n>`."""

    def __init__(self, cluster, topics, rate):
        self.cluster, self.rate = cluster, rate
        self.sent = Counter()
        self.procs = {}
        self.stop_event = threading.Event()
        for topic in topics:
            argv = [os.path.join(cluster.home, "bin", "kafka-console-producer.sh"), "--bootstrap-server",
                    cluster.bootstrap, "--topic", topic, "--producer-property", "acks=all", "--producer-property",
                    "linger.ms=5", "--property", "parse.key=true", "--property", "key.separator=\t"]
            self.procs[topic] = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL, text=True, start_new_session=True,
                                                 env=rk.tool_env(cluster.tool_log_dir))
        self.thread = threading.Thread(target=self._run)
        self.thread.start()

    def _run(self):
        while not self.stop_event.is_set():
            for topic, proc in self.procs.items():
                n = self.sent[topic]
                lines = "".join("k%d\t%s-%d\n" % (i % 17, topic, i) for i in range(n, n + self.rate // 10))
                proc.stdin.write(lines)
                proc.stdin.flush()
                self.sent[topic] += self.rate // 10
            self.stop_event.wait(0.1)

    def stop(self):
        self.stop_event.set()
        self.thread.join(30)
        for proc in self.procs.values():
            try:
                proc.stdin.close()      # the console producer flushes and exits at end of input
                proc.wait(60)
            except (OSError, subprocess.TimeoutExpired):
                rk.stop_pid(proc.pid)


def read_all(cluster, topic):
    """[(partition, offset, value)] of every record of topic (bounded by its record count)."""
    total = cluster.count(topic)
    records = [(p, o, value) for p, o, _, value in cluster.records(topic, total, timeout_ms=20000)] if total else []
    assert len(records) == total, (topic, len(records), total)
    return records


@pytest.fixture
def clusters(tmp_path, sigterm_cleanup):
    reason = agent.line_skip_reason(LINE)
    if reason:
        pytest.skip(reason)
    with rk.kafka_clusters(str(tmp_path / "kafka"), names=("dc1", "dc2")) as made:
        yield made


@pytest.fixture(scope="module")
def mpack(tmp_path_factory):
    return agent.build_mpack(str(tmp_path_factory.mktemp("mpack")))


def test_mm1_to_mm2_cutover_without_loss_or_second_copy(clusters, mpack, tmp_path):
    T0[0] = time.time()
    src, tgt = clusters["dc1"], clusters["dc2"]
    for topic, partitions in TOPICS.items():
        src.create_topic(topic, partitions=partitions)
        tgt.create_topic(topic, partitions=partitions)      # as the guides: the topics exist on the target
    work = str(tmp_path)
    consumer_cfg, producer_cfg = os.path.join(work, "consumer.properties"), os.path.join(work, "producer.properties")
    with open(consumer_cfg, "w") as fh:       # HDInsight/HDP guide + Cloudera's no-loss settings
        fh.write("bootstrap.servers=%s\ngroup.id=%s\nauto.offset.reset=earliest\nauto.commit.enable=false\n"
                 "session.timeout.ms=10000\n" % (src.bootstrap, GROUP))
    with open(producer_cfg, "w") as fh:
        fh.write("bootstrap.servers=%s\nacks=all\nretries=2147483647\nmax.in.flight.requests.per.connection=1\n"
                 "compression.type=none\n" % tgt.bootstrap)
    mm1_cmd = ["kafka-mirror-maker.sh", "--consumer.config", consumer_cfg, "--producer.config", producer_cfg,
               "--whitelist", "orders,payments", "--num.streams", "2", "--offset.commit.interval.ms", str(COMMIT_MS),
               "--abort.on.send.failure", "true"]
    aliases = ["--source-alias", "dc1", "--target-alias", "dc2"]

    # -- MirrorMaker 1 as it runs today, producers writing all the time
    producers = SteadyProducers(src, TOPICS, RATE)
    mm1_env = rk.tool_env(os.path.join(work, "mm1-logs"), heap="-Xmx256m")
    mm1 = subprocess.Popen([os.path.join(src.home, "bin", mm1_cmd[0])] + mm1_cmd[1:], env=mm1_env,
                           stdout=open(os.path.join(work, "mm1.out"), "w"), stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, start_new_session=True)
    mm2_driver = None
    try:
        rk.wait_until(lambda: sum(tgt.count(t) for t in TOPICS) > 150, 180, what="MirrorMaker 1 copying")
        step("MirrorMaker 1 copies")

        # -- import (offline, any time before the switch)
        deploy = os.path.join(work, "deploy.yaml")
        imported = mm2_ambari("import-mm1", "--kafka-version", "3.9.0", "--out", deploy, "--replication-factor", "1",
                              *aliases, "--", *mm1_cmd)
        assert imported.returncode == 0, imported.stderr
        assert "settings.tasks.max: 2" in imported.stdout and "flows[0].topics: orders|payments" in imported.stdout
        step("import-mm1")

        seed_args = ["seed-from-mm1", "--kafka-home", src.home, "--replication-factor", "1", "--json"] + aliases + \
            ["--"] + mm1_cmd
        refused = mm2_ambari(*seed_args)
        assert refused.returncode == 2 and "MirrorMaker 1 still runs: its group %s has" % GROUP in refused.stderr, \
            refused.stderr
        step("seed-from-mm1 refused while MirrorMaker 1 runs")

        time.sleep(COMMIT_MS / 1000.0 * 1.5)     # MirrorMaker 1 keeps copying (and committing) a little longer
        os.kill(mm1.pid, 9)
        mm1.wait(30)
        step("MirrorMaker 1 killed (-9)")
        rk.wait_until(lambda: src.group_members(GROUP) == 0, 90, interval=2, what="MirrorMaker 1's group to lose its members (session.timeout.ms)")
        committed = src.group_offsets(GROUP)
        mm1_wrote = dict((t, tgt.count(t)) for t in TOPICS)
        seeded = mm2_ambari(*seed_args)
        assert seeded.returncode == 0, seeded.stderr
        report = json.loads(seeded.stdout)
        step("seed-from-mm1: %s" % {k: report[k] for k in ("written", "expected_duplicates", "naive_recopy")})
        assert report["written"] == len([c for c in committed.values() if c > 0]) == sum(TOPICS.values())
        again = mm2_ambari(*seed_args)
        assert again.returncode == 0 and json.loads(again.stdout)["written"] == 0, again.stderr

        # -- MM2 through the mpack's agent scripts, configured from the imported file
        configurations = deployfile.load(deploy).desired_overrides()
        mm2_driver = agent.Driver(mpack, LINE, tmp_path, configurations=configurations, metrics=False)
        for command in ("INSTALL", "CONFIGURE", "START"):
            run = mm2_driver.run(command)
            assert run.exit_code == 0 and not run.timed_out, "%s failed:\n%s" % (command, run.output[-4000:])
        step("MM2 started by the agent")
        props = open(mm2_driver.properties_file).read()
        assert "IdentityReplicationPolicy" in props and "dc1->dc2.enabled=true" in props

        time.sleep(8)                            # producers keep writing across the switch
        producers.stop()
        sent = dict(producers.sent)
        step("producers stopped: %s" % sent)
        for topic in TOPICS:
            assert src.count(topic) == sent[topic]
        expected_total = sum(sent.values()) + report["expected_duplicates"]
        rk.wait_until(lambda: sum(tgt.count(t) for t in TOPICS) >= expected_total, 240, interval=2,
                      what="MM2 to catch up (%d records on dc2)" % expected_total)
        time.sleep(5)
        step("MM2 caught up")

        # -- exact counts: nothing missing; duplicates only from MirrorMaker 1's uncommitted tail
        missing = duplicates = 0
        for topic in TOPICS:
            source = dict((value, (p, o)) for p, o, value in read_all(src, topic))
            target = Counter(value for _, _, value in read_all(tgt, topic))
            missing += len(set(source) - set(target))
            assert not set(target) - set(source), "records on dc2 that dc1 never had"
            for value, count in target.items():
                if count > 1:
                    duplicates += count - 1
                    partition, offset = source[value]
                    assert count == 2 and offset >= committed[(topic, partition)], \
                        "%s copied %d times, source offset %d, MM1 committed %d" % (
                            value, count, offset, committed[(topic, partition)])
        MEASURED.update(records=sum(sent.values()), missing=missing, duplicates=duplicates,
                        predicted_duplicates=report["expected_duplicates"], naive_predicted=report["naive_recopy"],
                        mm1_wrote=sum(mm1_wrote.values()), mm1_committed=sum(committed.values()))
        step("measured %s" % MEASURED)
        assert missing == 0
        assert duplicates == report["expected_duplicates"] == sum(mm1_wrote.values()) - sum(committed.values())

        # -- MM2 has moved on: seeding again is refused, nothing written
        late = mm2_ambari(*seed_args)
        assert late.returncode == 2 and "MM2 already has positions for flow dc1->dc2" in late.stderr, late.stderr
        stop = mm2_driver.run("STOP")
        assert stop.exit_code == 0, stop.output[-3000:]
        step("MM2 stopped")

        # -- what a naive switch copies again: MM2 started without any position (a fresh alias, same clusters)
        before = dict((t, tgt.count(t)) for t in TOPICS)
        naive = rk.MirrorMaker(os.path.join(work, "naive"), rk.mm2_test_properties(
            {"fresh": src.bootstrap, "dc2": tgt.bootstrap}, ["fresh->dc2"],
            {"fresh->dc2.topics": "orders|payments", "dc2.offset.flush.interval.ms": "2000",
             "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"}))
        with naive:
            total = sum(sent.values())
            rk.wait_until(lambda: sum(tgt.count(t) - before[t] for t in TOPICS) >= total, 240, interval=2,
                          what="the naive MM2 to copy the topics again")
            time.sleep(3)
        recopied = sum(tgt.count(t) - before[t] for t in TOPICS)
        MEASURED.update(naive_recopied=recopied)
        step("naive switch copied %d records again (seeded: %d duplicates)" % (recopied, duplicates))
        assert recopied == total
        assert report["naive_recopy"] == sum(committed.values())
    finally:
        producers.stop()
        if mm1.poll() is None:
            rk.stop_pid(mm1.pid)
        if mm2_driver is not None:
            mm2_driver.cleanup()
        print("MEASURED %s" % json.dumps(MEASURED, sort_keys=True))
