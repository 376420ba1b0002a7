"""One-way DR on real Kafka, the built mpack's scripts driven as the agent drives them, on Ambari 2.7.8.

Ambari 2.7.8 (Python 2.7) runs the identity policy through the full lifecycle: INSTALL (existing Kafka home),
CONFIGURE, START, STATUS, exact counts under the policy's names, SERVICE_CHECK, REPLICATION_STATUS,
EXPORT_TRANSLATED_OFFSETS, the six alerts on the real exporter's metrics (healthy, process killed), STOP/START with
nothing lost, kill -9 and recovery. The same sequence under trunk (Python 3.9) and the default (prefixed) policy,
with VERIFY_REPLICATION and the target stopped, is tests/versions/test_lifecycle.py's on the oldest and newest
Kafka lines (each fact proven once: docs/development-and-testing.md, "What proves each capability").
"""
import os
import re
import time
import uuid

import pytest

from conftest import require_line
from e2e import agent
from mm2_core.config import names
from mm2_core.kafka import versions
from realkafka import cluster as rk

N = 600
# The thresholds an operator sets for a small loopback flow (Ambari lets them edit these per alert).
THRESHOLDS = {"mm2_replication_latency": {"latency.warning": 5.0, "latency.critical": 15.0},
              "mm2_replication_lag": {"lag.warning": 20.0, "lag.critical": 200.0}}
ALL_ALERTS = ("mm2_driver_process", "mm2_replication_latency", "mm2_replication_lag", "mm2_heartbeat_gap",
              "mm2_checkpoint_age", "mm2_connector_tasks", "mm2_silent_loss")
CASES = [("2.7.8", "identity")]


def mirrored(policy, source, topic):
    return topic if policy == "identity" else "%s.%s" % (source, topic)


T0 = [time.time()]


def step(what):
    print("[%6.1fs] %s" % (time.time() - T0[0], what))


def ok(run, what):
    step(what)
    assert run.exit_code == 0 and not run.timed_out, "%s failed:\n%s" % (what, run.output[-6000:])
    return run


def keys(cluster, topic, count, **kwargs):
    return [k for k, _ in cluster.consume(topic, count, timeout_ms=5000, **kwargs)]


def wait_count(cluster, topic, expected, timeout=120):
    rk.wait_until(lambda: cluster.count(topic) >= expected, timeout,
                  what="%d records in %s on %s (have %s)" % (expected, topic, cluster.name, cluster.count(topic)))
    time.sleep(3)   # nothing more must arrive: exact, no duplicates
    assert cluster.count(topic) == expected


@pytest.mark.parametrize("line,policy", CASES, ids=["%s-%s" % c for c in CASES])
def test_one_way_dr_full_lifecycle(line, policy, mpack, kafka_pool, drivers, tmp_path):
    require_line(line)
    T0[0] = time.time()
    clusters = kafka_pool("a", "b")
    step("clusters")
    a, b = clusters["a"], clusters["b"]
    version = rk.installed_version(a.home)      # MM2_TEST_KAFKA_VERSION (default official 3.9)
    if policy == "identity" and not versions.supports(version, versions.IDENTITY_POLICY):
        policy = "prefixed"                     # the validation refuses identity before 3.0
    step("Kafka %s, %s policy" % (version, policy))
    # a topic of this attempt only: the clusters are shared by the cases and by a rerun of this one
    topic = "dr-%s-%s" % (line.replace(".", ""), uuid.uuid4().hex[:6])
    target_topic = mirrored(policy, "A", topic)
    a.create_topic(topic, partitions=2)
    conf = agent.simple_configurations("A", "B", a.bootstrap, b.bootstrap, policy=policy)
    # this case's topics only (the clusters are shared); the check topic so the service check uses a marker
    conf[names.REPLICATION].update({"topics": "%s, %s" % (topic, names.SERVICE_CHECK_TOPIC),
                                    "sync.group.offsets.enabled": "true",
                                    "sync.group.offsets.interval.seconds": "5",
                                    # groups committed while MM2 runs are found within seconds, not 10 minutes
                                    "refresh.groups.interval.seconds": "10"})
    # A small producer buffer towards B: with B down the source task then stops fetching soon and the
    # replication consumer's lag (what the lag and latency alerts read) grows; with the default 32 MB
    # it grows only once 32 MB of records wait in memory.
    conf[names.CUSTOM] = {"B.producer.buffer.memory": "65536"}
    d = drivers.new(mpack, line, tmp_path, configurations=conf)

    # -- INSTALL with the existing Kafka home, CONFIGURE, START, STATUS
    ok(d.run("INSTALL"), "INSTALL")
    configure = ok(d.run("CONFIGURE"), "CONFIGURE")
    if not versions.supports(version, versions.SIMPLE_GROUP_CHECKPOINTS):
        # 2.4-2.7: the operator is told which groups this MM2 cannot checkpoint
        assert "commit offsets with assign()" in configure.output, configure.output[-3000:]
    assert os.path.isfile(d.properties_file)
    ok(d.run("START"), "START")
    ok(d.run("STATUS"), "STATUS")
    assert d.mm2_pids() == [d.pid()]

    step('N records')
    # -- N records counted exactly on the target under the policy's name
    a.produce_n(topic, N, prefix="p1")
    wait_count(b, target_topic, N)
    assert sorted(keys(b, target_topic, N)) == sorted("p1-%d" % i for i in range(N))

    if versions.supports(version, versions.LOG4J2):
        # 4.x: log4j2 only, on Java 17; the rendered YAML is what MM2 logs through
        assert os.path.isfile(os.path.join(d.conf_dir, "log4j2.yaml"))
        assert not os.path.exists(os.path.join(d.conf_dir, "log4j.properties"))
        with open("/proc/%d/cmdline" % d.pid()) as fh:
            assert "-Dlog4j2.configurationFile=" in fh.read()
    # what MM2 of this version says it ignored: keys it was given but no config of it defines
    with open(d.log_file) as fh:
        unknown = sorted(set(re.findall(r"The configuration '([^']+)' was supplied but isn't a known config", fh.read())))
    step("MM2 %s: supplied but not known: %s" % (version, ", ".join(unknown) or "none"))

    step('SERVICE_CHECK')
    # -- SERVICE_CHECK (marker record through the flow)
    check = ok(d.service_check(), "SERVICE_CHECK")
    assert "marker produced to %s on A arrived in %s on B" % (
        names.SERVICE_CHECK_TOPIC, mirrored(policy, "A", names.SERVICE_CHECK_TOPIC)) in check.output

    # -- REPLICATION_STATUS
    status = ok(d.run(names.CMD_REPLICATION_STATUS), "REPLICATION_STATUS")
    (report,) = status.structured_out["replication_status"]
    assert report["problems"] == [], report
    assert topic in report["matched_topics"] and report.get("not_yet_mirrored") == []
    assert report["connectors"]["MirrorSourceConnector"]["state"] == "RUNNING"
    # the age when the command read it: reading each flow's heartbeats takes a while on a loaded host, so the
    # first flow's beat is older than a minute by the time the command ends (seen: 51 s between two flows)
    assert re.match(r"\d+s ago$", report["last_heartbeat"]) and int(report["last_heartbeat"][:-5]) < 60

    step('EXPORT_TRANSLATED')
    # -- EXPORT_TRANSLATED_OFFSETS: a group that consumed everything, and one that stopped mid-partition
    ends = a.end_offsets(topic)
    # group names of this case only: the clusters are shared, and a group another case left behind is listed by
    # MM2 at start without this case's topic, so it would be checkpointed only after the next group refresh
    done_group, mid_group = "e2e-done-%s" % topic, "e2e-mid-%s" % topic
    if versions.supports(version, versions.SIMPLE_GROUP_CHECKPOINTS):
        # groups committed without the group protocol (as assign() applications do)
        a.commit_group_offsets(done_group, topic, ends)
        a.commit_group_offsets(mid_group, topic, dict((p, off // 2) for p, off in ends.items()))
    else:
        # before 2.8 only groups of the group protocol are checkpointed: subscribing consumers commit them
        assert len(a.consume(topic, N, timeout_ms=5000, group=done_group)) == N
        assert len(a.consume(topic, N // 2, timeout_ms=5000, group=mid_group)) == N // 2
    committed = {done_group: a.group_offsets(done_group), mid_group: a.group_offsets(mid_group)}
    assert committed[done_group] == dict(((topic, p), off) for p, off in ends.items()), committed
    exported = {}
    lagging = versions.supports(version, versions.OFFSET_SYNC_HISTORY)   # the driver started once: no restart

    def translated():
        run = ok(d.run(names.CMD_EXPORT_OFFSETS), "EXPORT_TRANSLATED_OFFSETS")
        (entry,) = run.structured_out["translated_offsets"]
        exported.update(entry["groups"])
        mid = mid_group in exported and len(exported[mid_group]["offsets"]) == len(committed[mid_group])
        return done_group in exported and len(exported[done_group]["offsets"]) == 2 and (mid or not lagging) and run
    export = rk.wait_until(translated, 300, interval=5, what="checkpoints of %s and %s" % (done_group, mid_group))
    done = exported[done_group]["offsets"]
    target_ends = dict(("%s-%d" % (target_topic, p), off) for p, off in b.end_offsets(target_topic).items())
    if versions.supports(version, versions.OFFSET_SYNCS_AT_COMMIT) or \
            not versions.supports(version, versions.OFFSET_SYNC_HISTORY):
        assert done == target_ends
    else:   # 3.4.1-3.6.x: the latest offset sync + 1, said by EXPORT
        assert all(end - 101 <= done[p] <= end for p, end in target_ends.items()), (done, target_ends)
        assert "translated offsets stop at the partition's latest offset sync" in export.output
    if not lagging:
        # before 3.4.1 a group behind the latest offset sync gets no checkpoint; EXPORT says so
        assert mid_group not in exported, exported
        assert "groups behind the latest offset sync get no checkpoint" in export.output, export.output[-3000:]
    for (_, partition), offset in sorted(committed[mid_group].items() if lagging else ()):
        mid = exported[mid_group]["offsets"]["%s-%d" % (target_topic, partition)]
        # never ahead of the group (nothing skipped); the record there is the same record as on the source
        assert 0 <= mid <= offset
        step("translated offset of the mid group on partition %d: committed %d, exported %d: %d records re-read "
             "after a failover" % (partition, offset, mid, offset - mid))
        assert keys(b, target_topic, 1, partition=partition, offset=mid) == \
            keys(a, topic, 1, partition=partition, offset=mid)
    with open(exported[done_group]["csv"]) as fh:
        assert "%s,0,%d" % (target_topic, ends[0]) in fh.read()

    step('the six alerts')
    # -- the six alerts on the real exporter's metrics: all OK while healthy
    a.produce_n(topic, 50, prefix="p2")     # fresh records: latency is an average over the last minute
    wait_count(b, target_topic, N + 50)
    # all OK once the fresh records are through (a loaded host may need a few scrapes for the averages)
    healthy = []

    def all_ok():
        states = d.alerts(THRESHOLDS)
        healthy[:] = [states]
        return sorted(states) == sorted(ALL_ALERTS) and all(state == "OK" for state, _ in states.values())
    try:
        rk.wait_until(all_ok, 120, interval=10, what="the six alerts to be OK")
    except TimeoutError:
        raise AssertionError("not all alerts OK while healthy: %s" % (healthy[0],))

    step('STOP leaves')
    # -- STOP leaves no JVM, STATUS says not running; START resumes with nothing lost
    ok(d.run("STOP"), "STOP")
    assert d.mm2_pids() == []
    assert d.run("STATUS").exit_code != 0
    total = N + 50
    a.produce_n(topic, 200, prefix="p4")
    ok(d.run("START"), "START again")
    wait_count(b, target_topic, total + 200)

    step('kill -9')
    # -- kill -9: the process alert goes CRITICAL, STATUS says not running, START recovers, nothing lost
    time.sleep(3)   # offsets flushed (offset.flush.interval.ms) before the kill
    pid = d.pid()
    os.kill(pid, 9)
    rk.wait_until(lambda: not d.mm2_pids(), 30, what="the killed JVM to go")
    assert d.alerts(THRESHOLDS)["mm2_driver_process"][0] == "CRITICAL"
    assert d.run("STATUS").exit_code != 0
    a.produce_n(topic, 100, prefix="p5")
    ok(d.run("START"), "START after kill -9")
    assert d.pid() != pid
    wait_count(b, target_topic, total + 300)
    all_keys = keys(b, target_topic, total + 300)
    assert len(all_keys) == len(set(all_keys)) == total + 300
    total += 300

    ok(d.run("STOP"), "final STOP")
    assert d.mm2_pids() == []
