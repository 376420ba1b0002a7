"""The end-to-end case set on each Kafka of the matrix, under the real Ambari libraries, from official jars.

One setup per version (two one-node clusters of that version: ZooKeeper mode for 2.x, KRaft from 3.x; the versions
run one after the other), one sequence through the built mpack's scripts as the Ambari agent runs them:

1. Ambari 2.7.8 (Python 2.7; the HDP 3.1 way: a Kafka tarball, kafka_install_source=tarball): INSTALL unpacks the
   official distribution's tarball, CONFIGURE, START, STATUS, N records exact on the target, STOP.
2. Ambari 3 (trunk, Python 3.9), the same Kafka as an existing home (kafka_install_source=path): INSTALL, CONFIGURE,
   START, STATUS, exact counts (the records of step 1 are not copied again); what MM2 said it ignored; log4j2 and
   Java 17 on 4.x; SERVICE_CHECK, REPLICATION_STATUS, EXPORT_TRANSLATED_OFFSETS, VERIFY_REPLICATION (Spark);
   the six alerts on the real JMX exporter: OK while healthy, the lag and latency alerts joined to this host's
   partitions (Kafka 3.2 and 3.4 name the replication consumer's metrics differently); mm2-verify's failover check
   of the committed groups (0 skipped, every partition from the same source as EXPORT's answer); two outages without
   restarting MM2 (issue 37): the target stopped with records flowing (lag and latency leave OK) and back, then the
   source's broker stopped (the heartbeat gap alert names the flow) and back: each time nothing lost, every alert OK
   again within 3 alert intervals, the same MM2 process; STOP. (kill -9 and START: tests/e2e's two-driver case.)
3. Multi-node (KIP-710) and exactly-once (KIP-618): from 3.5, two driver hosts with exactly.once.enabled share the
   tasks of a new topic and copy it exactly once (read_committed); before 3.5 START with two driver hosts and
   CONFIGURE with exactly-once refuse, naming the version and the fix.

MM2_TEST_KAFKA_VERSIONS picks the versions (versions/conftest.py: CI default 2.8.2 and the newest 4.x; tests/e2e runs
the case set under Ambari 2.7.8 and the identity policy on the default 3.9). The clusters of a version are the
session's (kafka_pool), shared with test_logged_config.py. Per-step times are printed (-s), never asserted.
"""
import contextlib
import concurrent.futures
import json
import os
import re
import sys
import tarfile
import time
import uuid

import pytest

from e2e import agent
from mm2_core.alerts import alert_config, alert_fetch, alert_runner, evaluation, metrics as m
from mm2_core.alerts import partitions as partition_reading
from mm2_core.alerts.registry import INTERVAL_MINUTES
from mm2_core.config import names
from mm2_core.kafka import versions
from realkafka import artifacts
from realkafka import cluster as rk
from realkafka import dists
from versions import logged_config
from versions.conftest import matrix_versions

N = 400
# The bounds of the waits below end as soon as their state is reached; they allow for a host at load 20+ (the CI
# runs five real-Kafka lanes beside the doubles on 2 cores): the 2.8.2 case took 4.6 min on a quiet host, 11 min there.
THRESHOLDS = agent.TEST_THRESHOLDS
ALL_ALERTS = ("mm2_driver_process", "mm2_replication_latency", "mm2_replication_lag", "mm2_heartbeat_gap",
              "mm2_checkpoint_age", "mm2_connector_tasks", "mm2_silent_loss")
# the source down: the heartbeat gap alert warns at 30 s (120 s by default), so the case ends within a minute
SOURCE_DOWN_THRESHOLDS = dict(THRESHOLDS, mm2_heartbeat_gap={"heartbeat.gap.warning": 30.0,
                                                             "heartbeat.gap.critical": 600.0})
FAULT_ALERTS = ("mm2_replication_latency", "mm2_replication_lag")
NOT_JOINED = agent.NOT_JOINED
# how long the target stays down at least (once lag and latency fired): 0 in CI; a long outage (MM2's producers
# blocked past request and delivery timeouts) with MM2_TEST_OUTAGE_SECONDS
OUTAGE_SECONDS = int(os.environ.get("MM2_TEST_OUTAGE_SECONDS", "0"))
FAULT_SECONDS = agent.TARGET_DOWN_SECONDS   # 180 s was short at load 25 in the CI rehearsal (2.8.2)
TARBALL_LINE = "2.7.8"
FULL_LINE = "trunk"


class Steps(object):
    """Prints what ran and how long it took (the per-version report); never asserted."""

    def __init__(self, version):
        self.version = version
        self.t0 = self.last = time.time()

    def __call__(self, what):
        now = time.time()
        print("[Kafka %s %6.1fs +%5.1fs] %s" % (self.version, now - self.t0, now - self.last, what))
        sys.stdout.flush()
        self.last = now


def ok(run, what, steps):
    assert run.exit_code == 0 and not run.timed_out, "%s failed (exit %s):\n%s" % (what, run.exit_code,
                                                                                  run.output[-6000:])
    steps(what)
    return run


def keys(cluster, topic, count, **kwargs):
    return [k for k, _ in cluster.consume(topic, count, timeout_ms=6000, **kwargs)]


def wait_exact(cluster, topic, expected, timeout=300):
    """The topic's end offsets reach `expected`, and stay there (nothing doubled)."""
    rk.wait_until(lambda: topic in cluster.topics() and cluster.count(topic) >= expected, timeout, interval=2,
                  what="%d records in %s on %s" % (expected, topic, cluster.name))
    time.sleep(3)
    assert cluster.count(topic) == expected


def committed_keys(cluster, topic, max_records):
    """Keys a read_committed consumer reads (exactly-once: end offsets also count transaction markers)."""
    return [key for _, _, key, _ in cluster.records(topic, max_records, isolation="read_committed")]


def official_tarball(home, release, directory):
    """kafka_2.13-<release>.tgz as Apache publishes it (one top directory), made from the official distribution."""
    top = "kafka_2.13-%s" % release
    path = os.path.join(directory, top + ".tgz")
    os.makedirs(directory, exist_ok=True)
    with tarfile.open(path, "w:gz", compresslevel=1) as tar:
        for name in ("bin", "config", "libs"):
            tar.add(os.path.join(home, name), arcname="%s/%s" % (top, name))
    return path


def started_tasks(driver, source, target):
    pattern = re.compile(r"\[Worker clientId=%s->%s, [^\]]*\] Starting task (\S+)" % (source, target))
    try:
        with open(driver.log_file, "rb") as fh:
            return set(pattern.findall(fh.read().decode("utf-8", "replace")))
    except IOError:
        return set()


def in_parallel(step, *drivers):
    with concurrent.futures.ThreadPoolExecutor(len(drivers)) as pool:
        for future in [pool.submit(step, d) for d in drivers]:
            future.result()


def exported_now(d):
    """The exporter's heartbeat, task and herder series of this driver (what the alerts read), for a failure's
    message."""
    scrape = alert_fetch.fetch("http://127.0.0.1:%d/metrics" % d.metrics_port, timeout=10)
    if not scrape.ok:
        return scrape.error
    return "\n".join(line for line in scrape.text.splitlines() if not line.startswith("#") and re.search(
        r"heartbeats|mm2_task_status|mm2_connector_status|mm2_herder", line))[:8000]


def verify_replication(d, topic, target_topic, expected, steps, groups=None, exported=None):
    """VERIFY_REPLICATION (Spark): every record there once; and mm2-verify's failover check of each committed
    group ({group: {(topic, partition): C}}): every partition checked (none NO_CHECKPOINT), 0 skipped, from the
    same source as EXPORT's answer (exported: its groups)."""
    reason = artifacts.skip_reason("spark-kafka")
    if reason:
        steps("VERIFY_REPLICATION skipped: %s" % reason)
        return
    import pyspark
    replication = {"verify.topics": topic, "verify.spark.mode": "local",
                   "verify.spark.home": os.path.dirname(os.path.abspath(pyspark.__file__)),
                   "verify.spark.submit.args": "--jars %s --conf spark.sql.shuffle.partitions=4"
                                               % ",".join(artifacts.spark_kafka_jars())}
    run = ok(d.run(names.CMD_VERIFY, timeout=600, env={"PYSPARK_PYTHON": sys.executable},
                   configurations={names.REPLICATION: replication}), "VERIFY_REPLICATION", steps)
    result = run.structured_out["verify_replication"]
    assert result["status"] == "OK", result
    totals = result["flows"]["A->B"]
    assert (totals["source_records"], totals["matched"], totals["missing"], totals["duplicates"]) == \
        (expected, expected, 0, 0), (target_topic, totals)
    assert totals["offsets_skipped"] == 0, totals
    with open(result["report"]) as fh:
        (flow,) = [f for f in json.load(fh)["flows"] if f["flow"] == "A->B"]
    checked = {}
    for group, committed in sorted((groups or {}).items()):
        rows = dict((r["partition"], r) for r in flow["offsets"]["groups"] if r["group"] == group
                    and r["topic"] == topic)
        assert sorted(rows) == sorted(p for _, p in committed), (group, rows)
        for partition, row in sorted(rows.items()):
            assert row["status"] in ("EXACT", "REREADS") and row["skipped"] == 0, row
            said = exported[group]["translation"]["%s-%d" % (target_topic, partition)]["source"]
            assert row["translation_source"] == said, (row, said)
        checked[group] = sorted(set(r["translation_source"] for r in rows.values()))
    steps("mm2-verify: 0 skipped; every committed partition checked, translated from %s" % checked)


def _prerequisites(name):
    reason = dists.skip_reason(name)
    if reason:
        return reason
    for line in (TARBALL_LINE, FULL_LINE):
        reason = agent.line_skip_reason(line)
        if reason:
            return reason
    return None


@pytest.mark.parametrize("name", matrix_versions())
def test_case_set_on_the_version(name, mpack, drivers, kafka_pool, tmp_path):
    reason = _prerequisites(name)
    if reason:
        pytest.skip(reason)
    home = rk.kafka_home(name)
    assert home, rk.dist_problem(name)
    version = rk.installed_version(home)
    steps = Steps(version)
    with contextlib.nullcontext(kafka_pool("a", "b", home=home)) as clusters:   # one pair per version: both files
        a, b = clusters["a"], clusters["b"]
        assert a.zookeeper == (version < "3")
        steps("clusters (%s)" % ("ZooKeeper" if a.zookeeper else "KRaft"))
        topic = "orders-%s" % uuid.uuid4().hex[:6]
        target_topic = "A.%s" % topic            # the default (prefixed) policy: every version has it
        a.create_topic(topic, partitions=2)
        conf = agent.simple_configurations("A", "B", a.bootstrap, b.bootstrap)
        conf[names.REPLICATION].update({"topics": "%s, %s" % (topic, names.SERVICE_CHECK_TOPIC),
                                        "sync.group.offsets.enabled": "true",
                                        "sync.group.offsets.interval.seconds": "5"})
        if not versions.supports(version, versions.OFFSET_SYNC):
            # before 2.7 MM2 has no consumer offset sync: CONFIGURE refuses the key instead of writing one it ignores
            refused = drivers.new(mpack, FULL_LINE, tmp_path / "no-sync", configurations=conf, metrics=False)
            refused.env["kafka_home"] = home
            run = refused.run("CONFIGURE")
            assert run.exit_code != 0 and "consumer offset sync needs Kafka 2.7 or newer, this MM2 is %s" % version \
                in run.output, run.output[-3000:]
            steps("before 2.7: sync.group.offsets.enabled refused")
            conf[names.REPLICATION].update({"sync.group.offsets.enabled": "false"})
            del conf[names.REPLICATION]["sync.group.offsets.interval.seconds"]
        # with the target down the source task soon stops fetching, and the lag the alerts read grows
        conf[names.CUSTOM] = {"B.producer.buffer.memory": "65536"}

        # ---- 1. Ambari 2.7.8, Kafka from the official tarball (HDP 3.1 hosts)
        tarball = official_tarball(home, version, str(tmp_path / "repo"))
        t = drivers.new(mpack, TARBALL_LINE, tmp_path / "hdp31", configurations=conf, metrics=False)
        t.env.update({"kafka_install_source": "tarball", "kafka_tarball_url": tarball,
                      "kafka_home": t.path("/opt/kafka-mm2/current")})
        install = ok(t.run("INSTALL"), "Ambari 2.7.8: INSTALL from %s" % os.path.basename(tarball), steps)
        assert "MirrorMaker 2 will run from %s (Kafka %s" % (t.env["kafka_home"], version) in install.output, \
            install.output[-3000:]
        assert os.readlink(t.env["kafka_home"]) == "kafka_2.13-%s" % version
        ok(t.run("CONFIGURE"), "Ambari 2.7.8: CONFIGURE", steps)
        ok(t.run("START"), "Ambari 2.7.8: START", steps)
        ok(t.run("STATUS"), "Ambari 2.7.8: STATUS", steps)
        assert t.mm2_pids() == [t.pid()]
        with open("/proc/%d/cmdline" % t.pid()) as fh:
            cmdline = fh.read().replace("\0", " ")
        # the unpacked tarball runs (through the kafka_home link or the directory it points at)
        assert re.search(r"(%s|%s)(/bin/\.\.)?/libs/connect-mirror-%s\.jar" % (
            re.escape(t.env["kafka_home"]), re.escape(os.path.realpath(t.env["kafka_home"])), re.escape(version)),
            cmdline), cmdline[-2000:]
        a.produce_n(topic, N, prefix="t")
        wait_exact(b, target_topic, N)
        before_restart = a.end_offsets(topic)
        steps("Ambari 2.7.8: %d records exact on B" % N)
        ok(t.run("STOP"), "Ambari 2.7.8: STOP", steps)
        assert t.mm2_pids() == [] and t.run("STATUS").exit_code != 0

        # ---- 2. Ambari 3, the same Kafka as an existing home: the full case set
        d = drivers.new(mpack, FULL_LINE, tmp_path / "trunk", configurations=conf)
        d.env["kafka_home"] = home
        ok(d.run("INSTALL"), "INSTALL (path)", steps)
        ok(d.run("CONFIGURE"), "CONFIGURE", steps)
        start = ok(d.run("START"), "START", steps)
        if not versions.supports(version, versions.SIMPLE_GROUP_CHECKPOINTS):
            # START logs the validation's warnings (the advisor shows them when the configuration is saved)
            assert "commit offsets with assign()" in start.output, start.output[-3000:]
        ok(d.run("STATUS"), "STATUS", steps)
        assert d.mm2_pids() == [d.pid()]
        a.produce_n(topic, N, prefix="p1")
        total = 2 * N
        wait_exact(b, target_topic, total)           # resumes where the 2.7.8 host stopped: nothing copied twice
        assert sorted(keys(b, target_topic, total + 10)) == sorted(
            ["t-%d" % i for i in range(N)] + ["p1-%d" % i for i in range(N)])
        steps("%d records exact on B" % total)

        with open("/proc/%d/cmdline" % d.pid()) as fh:
            cmdline = fh.read().replace("\0", " ")
        java = os.path.realpath(os.readlink("/proc/%d/exe" % d.pid()))
        assert java.startswith(os.path.realpath(d.env["mm2_java_home"]) + os.sep), java   # kafka-mm2-env's Java
        if versions.supports(version, versions.LOG4J2):
            with open(os.path.join(d.env["mm2_java_home"], "release")) as fh:
                assert re.search(r'JAVA_VERSION="(1[7-9]|[2-9]\d)', fh.read())       # Kafka 4 needs Java 17+
            assert os.path.isfile(os.path.join(d.conf_dir, "log4j2.yaml"))
            assert not os.path.exists(os.path.join(d.conf_dir, "log4j.properties"))
            assert "-Dlog4j2.configurationFile=" in cmdline and "log4j.configuration=" not in cmdline
            with open(d.log_file) as fh:
                assert "Kafka version: %s" % version in fh.read()   # MM2 logs through the rendered log4j2 file
        else:
            assert "-Dlog4j.configuration=" in cmdline
        with open(d.log_file) as fh:
            unknown = sorted(logged_config.reported_unknown(fh.read()))
        # printed only: test_logged_config.py asserts that none of them is a key this version ignores (from 3.5 Kafka
        # logs them at INFO, which the mpack's log4j keeps at WARN for the clients' config loggers)
        steps("supplied but not known / not used, as MM2 %s logged them: %s" % (version, ", ".join(unknown) or "none"))

        check = ok(d.service_check(), "SERVICE_CHECK", steps)
        assert "marker produced to %s on A arrived in A.%s on B" % (
            names.SERVICE_CHECK_TOPIC, names.SERVICE_CHECK_TOPIC) in check.output, check.output[-3000:]

        status = ok(d.run(names.CMD_REPLICATION_STATUS), "REPLICATION_STATUS", steps)
        (report,) = status.structured_out["replication_status"]
        assert report["problems"] == [], report
        assert topic in report["matched_topics"] and report.get("not_yet_mirrored") == []
        assert report["connectors"]["MirrorSourceConnector"]["state"] == "RUNNING"
        # the age when the command read it: reading each flow's heartbeats takes a while on a loaded host, so the
        # first flow's beat is older than a minute by the time the command ends (seen: 51 s between two flows)
        assert re.match(r"\d+s ago$", report["last_heartbeat"]) and int(report["last_heartbeat"][:-5]) < 60

        # a group that consumed everything, and one that stopped mid-partition before the drivers' restart (the
        # 2.7.8 host's STOP, this host's START): what MM2 translates of it depends on the version
        ends = a.end_offsets(topic)
        mid_offsets = dict((p, off // 2) for p, off in before_restart.items())
        done_group, mid_group = "done-%s" % topic, "mid-%s" % topic
        if versions.supports(version, versions.SIMPLE_GROUP_CHECKPOINTS):
            a.commit_group_offsets(done_group, topic, ends)
            a.commit_group_offsets(mid_group, topic, mid_offsets)
        else:
            # before 2.8 only groups of the group protocol are checkpointed: a subscribing consumer commits the done
            # group; a subscribing consumer cannot stop at chosen offsets, so no mid group here
            assert len(a.consume(topic, total, timeout_ms=5000, group=done_group)) == total
            mid_offsets = None
        committed = {done_group: a.group_offsets(done_group), mid_group: a.group_offsets(mid_group) if mid_offsets
                     else {}}
        exported = {}
        lagging = versions.supports(version, versions.OFFSET_SYNC_HISTORY_ACROSS_RESTARTS)

        def translated():
            run = d.run(names.CMD_EXPORT_OFFSETS, timeout=200)
            assert run.exit_code == 0 and not run.timed_out, run.output[-4000:]
            (entry,) = run.structured_out["translated_offsets"]
            exported.update(entry["groups"])
            # the caught-up group's answer is MM2's own checkpoint on every line: until MM2 has written it, EXPORT
            # translates from the offset syncs (conservative: from the latest sync, re-reading what follows it; seen
            # on 2.8.2 in CI: 201 for an end of 406), so wait for the checkpoint itself
            done = done_group in exported and len(exported[done_group]["offsets"]) == 2 and all(
                t["source"] == "checkpoint" for t in exported[done_group]["translation"].values())
            mid = mid_group in exported and len(exported[mid_group]["offsets"]) == len(committed[mid_group])
            # every committed partition of the mid group is exported on every line: MM2's checkpoint, else (before
            # 3.7.1 MM2 has none for a group behind its restart) the offset syncs (mm2_core.dr.translation)
            return done and (mid or not mid_offsets) and run
        export = rk.wait_until(translated, 300, interval=5, what="checkpoints of %s and %s" % (done_group, mid_group))
        steps("EXPORT_TRANSLATED_OFFSETS (groups %s)" % sorted(g for g in exported if g in committed))
        target_ends = dict(("%s-%d" % (target_topic, p), off) for p, off in b.end_offsets(target_topic).items())
        if versions.supports(version, versions.OFFSET_SYNCS_AT_COMMIT) or \
                not versions.supports(version, versions.OFFSET_SYNC_HISTORY):
            assert exported[done_group]["offsets"] == target_ends
        else:
            # 3.4.1-3.6.x: the latest offset sync + 1 (a failed-over group re-reads at most offset.lag.max records)
            for partition, end in target_ends.items():
                assert end - 101 <= exported[done_group]["offsets"][partition] <= end, (exported, target_ends)
            assert "translated offsets stop at the partition's latest offset sync" in export.output
        if mid_offsets and not lagging:
            # before 3.4.1 MM2 translates a group only at or past the latest offset sync, before 3.7.1 only from the
            # syncs since its checkpoint task started: the group behind the restart has no checkpoint; EXPORT says
            # why, and translates it from the offset syncs still in the offset-syncs topic
            sources = set(t["source"] for t in exported[mid_group]["translation"].values())
            assert sources == {"offset-sync"}, exported[mid_group]
            why = "groups behind the %s get no checkpoint" % (
                "last restart of the drivers" if versions.supports(version, versions.OFFSET_SYNC_HISTORY)
                else "latest offset sync")
            assert why in export.output, export.output[-3000:]
        for (_, partition), offset in sorted(committed[mid_group].items() if mid_offsets else ()):
            tp = "%s-%d" % (target_topic, partition)
            mid = exported[mid_group]["offsets"][tp]
            # source and target offsets are the same here (one copy from offset 0): skipping nothing is mid <= the
            # group's offset, and the re-read bound said covers what lies between
            assert 0 <= mid <= offset
            assert offset - mid <= exported[mid_group]["translation"][tp]["reread_at_most"], exported[mid_group]
            assert keys(b, target_topic, 1, partition=partition, offset=mid) == \
                keys(a, topic, 1, partition=partition, offset=mid)

        verify_replication(d, topic, target_topic, total, steps, groups=dict(
            (g, c) for g, c in committed.items() if c), exported=exported)

        # -- the six alerts on the real exporter: OK while healthy, lag and latency joined to this host's partitions
        a.produce_n(topic, 50, prefix="p2")
        total += 50
        wait_exact(b, target_topic, total)
        seen = []

        def healthy():
            states = d.alerts(THRESHOLDS)
            seen[:] = [states]
            return sorted(states) == sorted(ALL_ALERTS) and all(s == "OK" for s, _ in states.values()) \
                and not any(NOT_JOINED in states[n][1] for n in FAULT_ALERTS)
        try:
            rk.wait_until(healthy, 300, interval=10, what="the six alerts OK")
        except TimeoutError:
            raise AssertionError("Kafka %s: not all alerts OK and joined while healthy: %s" % (version, seen[0]))
        # the join itself, on this version's real exporter output: every partition of the topic has its
        # replication consumer's lag attributed to the flow A->B (3.5+ by client id, before by elimination)
        scrape = alert_fetch.fetch("http://127.0.0.1:%d/metrics" % d.metrics_port, timeout=10)
        assert scrape.ok, scrape.error
        configs = d.command("STATUS")["configurations"]
        tokens = dict(("{{%s}}" % t, configs.get(t, {})) for t in names.OWN_CONFIG_TYPES)
        flows, problem = alert_config.expected_flows(alert_config.configurations(tokens), version)
        assert flows, problem
        snap = m.Snapshot(scrape.text, alert_runner.ALL_FAMILIES)
        lags = partition_reading.lag_by_partition(snap, evaluation.resolver_for(snap, flows))
        joined = sorted(key for key in lags.by_key if key[1] == topic)
        assert joined == [("A->B", topic, "0"), ("A->B", topic, "1")], (lags.mode, sorted(lags.by_key))
        steps("alerts OK; lag joined (%s) on %s; lag %r; latency %r" % (
            lags.mode, joined, seen[0]["mm2_replication_lag"][1][:120], seen[0]["mm2_replication_latency"][1][:120]))

        # (kill -9 and START, nothing lost, the process alert CRITICAL: tests/e2e's two-driver case, once)

        # -- lag and latency fault: the target stopped with records flowing
        sent, fired = 0, None
        b.stop()
        down_since = time.time()
        try:
            deadline = time.time() + max(FAULT_SECONDS, OUTAGE_SECONDS + 60)
            while time.time() < deadline:
                a.produce_n(topic, 2000, prefix="p4", start=sent)
                sent += 2000
                current = d.alerts(THRESHOLDS)
                assert current["mm2_driver_process"][0] == "OK", current
                if all(current[n][0] in ("WARNING", "CRITICAL") for n in FAULT_ALERTS):
                    fired = fired or current
                    if time.time() - down_since >= OUTAGE_SECONDS:
                        break
                time.sleep(5)
        finally:
            b.start()
        assert fired, "Kafka %s: lag and latency stayed OK with the target down: %s" % (
            version, dict((n, current[n]) for n in FAULT_ALERTS))
        # each alert that fired names the flow it is about; connectors-and-tasks is not OK while the tasks cannot
        # run (the herder lost its group on the target: UNASSIGNED, or no task anywhere), unless Connect kept them
        # assigned and RUNNING, blocked writing: then the latency alert names the stalled partitions
        assert all("A->B" in text for st, text in fired.values() if st != "OK"), fired
        tasks_state = fired["mm2_connector_tasks"][0]
        assert tasks_state != "OK" or re.search(r"STALLED|has not polled", fired["mm2_replication_latency"][1]), fired
        steps("fault: " + "; ".join("%s %s: %s" % (n, fired[n][0], fired[n][1][:160]) for n in sorted(fired)
                                    if n != "mm2_driver_process"))
        # -- the target back and MM2 NOT restarted (issue 37): replication resumes by itself, nothing is lost, and
        # every alert is OK again within 3 alert intervals of the records arriving
        pid = d.pid()
        rk.wait_until(lambda: b.count(target_topic) >= total + sent, 300, interval=3,
                      what="%d records in %s on B after the fault, MM2 not restarted" % (total + sent, target_topic))
        lost = set("p4-%d" % i for i in range(sent)) - set(keys(b, target_topic, b.count(target_topic) + 10))
        assert not lost, "%d records produced while the target was down were lost" % len(lost)
        resumed = time.time()
        timeline = []

        def recovered():
            ok_now = healthy()
            timeline.append("%+ds %s" % (time.time() - resumed, ",".join(
                "%s=%s" % (n[4:], s) for n, (s, _) in sorted(seen[0].items()) if s != "OK") or "all OK"))
            return ok_now
        try:
            rk.wait_until(recovered, 3 * 60 * INTERVAL_MINUTES, interval=10, what="every alert OK again")
        except TimeoutError:
            raise AssertionError("Kafka %s: alerts not OK %d s after replication resumed (MM2 not restarted): %s; %s;"
                                 " the heartbeat and task series MM2 exports now:\n%s"
                                 % (version, time.time() - resumed, "; ".join(timeline), seen[0], exported_now(d)))
        assert d.pid() == pid
        steps("recovered after the fault without a restart: %d records, none lost; alerts: %s" % (
            sent, "; ".join(timeline)))
        total += sent

        # -- the source down and back (its one broker restarted), MM2 not restarted: nothing new reaches B, so the
        # heartbeat gap alert names the flow (a warning at 30 s here, 120 s by default); A back: replication
        # resumes, nothing lost, every alert OK again within 3 alert intervals, the same MM2 process
        a.stop()
        down_since, fired = time.time(), None
        try:
            while time.time() < down_since + FAULT_SECONDS and not fired:
                time.sleep(5)
                current = d.alerts(SOURCE_DOWN_THRESHOLDS)
                assert current["mm2_driver_process"][0] == "OK", current
                if current["mm2_heartbeat_gap"][0] != "OK":
                    fired = current
        finally:
            a.start()
        assert fired, "Kafka %s: the heartbeat gap stayed OK %d s with the source down: %s" % (
            version, time.time() - down_since, current)
        assert fired["mm2_heartbeat_gap"][1].startswith("A->B: "), fired["mm2_heartbeat_gap"]
        steps("source down: " + "; ".join("%s %s: %s" % (n, st, text[:160]) for n, (st, text) in sorted(fired.items())
                                          if st != "OK"))
        a.produce_n(topic, 100, prefix="p5")
        total += 100
        rk.wait_until(lambda: b.count(target_topic) >= total, 300, interval=3,
                      what="%d records in %s on B after the source came back" % (total, target_topic))
        assert set("p5-%d" % i for i in range(100)) <= set(keys(b, target_topic, b.count(target_topic) + 10))
        resumed, timeline[:] = time.time(), []
        try:
            rk.wait_until(recovered, 3 * 60 * INTERVAL_MINUTES, interval=10, what="every alert OK again")
        except TimeoutError:
            raise AssertionError("Kafka %s: alerts not OK %d s after the source came back (MM2 not restarted): %s; "
                                 "%s" % (version, time.time() - resumed, "; ".join(timeline), seen[0]))
        assert d.pid() == pid
        steps("recovered after the source's restart without restarting MM2: alerts: %s" % "; ".join(timeline))
        ok(d.run("STOP"), "STOP", steps)
        assert d.mm2_pids() == [] and d.run("STATUS").exit_code != 0

        # ---- 3. multi-node (KIP-710) and exactly-once (KIP-618)
        hosts = ["127.0.0.1", "localhost"]
        mn_topic = "mn-%s" % topic
        a.create_topic(mn_topic, partitions=4)
        mn = agent._merge(dict((k, dict(v)) for k, v in conf.items()), {
            names.REPLICATION: {"topics": "%s, %s" % (mn_topic, names.SERVICE_CHECK_TOPIC), "tasks.max": "4",
                                "exactly.once.enabled": "true"},
            names.CUSTOM: {"B.scheduled.rebalance.max.delay.ms": "10000"}})
        first, second = [drivers.new(mpack, FULL_LINE, tmp_path / ("node-%d" % i), configurations=mn, hostname=h,
                                     driver_hosts=hosts, metrics=False) for i, h in enumerate(hosts)]
        for node in (first, second):
            node.env["kafka_home"] = home
        if not versions.supports(version, versions.MULTI_NODE):
            refused = first.run("CONFIGURE")
            assert refused.exit_code != 0
            assert "exactly-once replication needs Kafka 3.5 or newer, this MM2 is %s" % version in refused.output, \
                refused.output[-3000:]
            single = {names.REPLICATION: {"exactly.once.enabled": "false"}}
            ok(first.run("INSTALL", configurations=single), "INSTALL (two driver hosts)", steps)
            refused = first.run("START", configurations=single)
            assert refused.exit_code != 0
            assert "loses task reconfigurations with several drivers per target (KAFKA-9981)" in refused.output, \
                refused.output[-3000:]
            assert first.mm2_pids() == []
            steps("before 3.5: exactly-once and two driver hosts refused")
            return

        def start(node):
            for command in ("INSTALL", "CONFIGURE", "START", "STATUS"):
                ok(node.run(command), "%s on %s" % (command, node.hostname), steps)
        in_parallel(start, first, second)
        with open(first.properties_file) as fh:
            rendered = fh.read()
        assert "exactly.once.source.support=enabled" in rendered and "dedicated.mode.enable.internal.rest=true" \
            in rendered, rendered
        copied = 2000
        a.produce_n(mn_topic, copied, prefix="mn")
        target_mn = "A.%s" % mn_topic

        def all_there():
            got = committed_keys(b, target_mn, 2 * copied)
            return got if len(set(got)) >= copied else None
        got = rk.wait_until(all_there, 300, interval=5, what="%d records of %s read_committed on B" % (copied, target_mn))
        assert len(got) == len(set(got)) == copied, "exactly once: %d read, %d distinct, %d produced" % (
            len(got), len(set(got)), copied)
        steps("exactly-once: %d records read_committed, none twice" % copied)
        rk.wait_until(lambda: started_tasks(first, "A", "B") and started_tasks(second, "A", "B"), 240, interval=3,
                      what="tasks on both driver hosts")
        steps("tasks on both hosts: %s / %s" % (sorted(started_tasks(first, "A", "B")),
                                                sorted(started_tasks(second, "A", "B"))))
        in_parallel(lambda node: ok(node.run("STOP"), "STOP on %s" % node.hostname, steps), first, second)
        assert first.mm2_pids() == [] and second.mm2_pids() == []
