"""Each version of the matrix: its official distribution is what it says and replicates exactly, and no key the mpack
renders is ignored by it (MirrorMaker's own log).

Per version (all_versions(): the full case set's and the short sequence's), two one-node clusters of that version
(ZooKeeper mode for 2.x, KRaft from 3.x) and two runs of that distribution's connect-mirror-maker.sh, one after the
other, each until a topic's records arrived on the target and every connector's clients exist:

1. the baseline: a minimal hand-written configuration (realkafka.cluster.mm2_test_properties: the clusters, their
   bootstrap servers, one flow, replication factor 1), what an operator would run by hand. The distribution is what
   it says (assembled from the release's bin/ + config/ and Maven Central's jars of that release; brokers and
   MirrorMaker log that version) and the copy is exact (every record, key and value, once). What its clients log
   as "supplied but not known" (before 3.4) or "supplied but are not used yet" (3.4+) is the version's own noise
   (Connect hands each herder's worker configuration, with MirrorMaker's own additions, to its internal clients).
   (One cluster pair serves both runs: the short sequence had its own pair per version, ~1.5 min each in CI.)
2. the mpack's configuration: CONFIGURE of the built mpack under real Ambari 3 writes connect-mirror-maker.properties
   for this version, and the same script runs it, with the distribution's log4j configuration (INFO: from 3.5 Kafka
   logs unused keys at INFO, which the mpack's log4j files keep at WARN for the clients' config loggers).

Every key the second run reports beyond the baseline must come from a key we render that another config object of
the same process logged with the value we rendered (the worker, a connector, a task's client read it; the internal
clients that also got it are Connect's noise). A reported key that nothing read is one the version ignores: the test
fails naming it and the rendered key it came from (fix: the key table / feature gates in mm2_core/kafka/versions.py).
MirrorMaker also drops top-level keys its connector configuration does not define without logging anything, so the
test also asks that every rendered key appears, with the value we rendered, in a config the process logged.
The rendered configuration turns on what the version has: consumer offset sync (2.7+), exactly-once with the
internal REST server (3.5+).
"""
import contextlib
import re
import sys
import time
import uuid

import pytest

from e2e import agent
from mm2_core.config import names
from mm2_core.kafka import versions
from realkafka import cluster as rk
from realkafka import dists
from versions import logged_config
from versions.conftest import all_versions

N = 100
FULL_LINE = "trunk"


def _run_until_copied(workdir, properties, home, source, target, topic, target_topic, checkpoint_topic):
    """Run connect-mirror-maker.sh until the records and the checkpoints topic are on the target; its log."""
    with rk.MirrorMaker(workdir, properties, home=home) as mm2:
        rk.wait_until(lambda: target_topic in target.topics() and target.count(target_topic) >= N, 240, 3,
                      "%d records of %s in %s" % (N, topic, target_topic))
        rk.wait_until(lambda: checkpoint_topic in target.topics(), 120, 3, checkpoint_topic)
        time.sleep(10)           # the checkpoint and heartbeat tasks' clients
        assert mm2.running(), mm2.log_text()[-3000:]
        return mm2.log_text()


def _report(version, result):
    print("Kafka %s: noise (also with the hand-written config) %s" % (version, sorted(result["noise"])))
    for key, (source, classes) in sorted(result["read"].items()):
        print("Kafka %s: %s reported by a client, rendered as %s, read by %s" % (version, key, source,
                                                                                  ", ".join(classes)))
    print("Kafka %s: beyond the baseline, not from a rendered key: %s" % (version, sorted(result["not_ours"])))
    sys.stdout.flush()


def _assert_distribution(name, home):
    """The distribution is the release it is named for: its stamp, its Kafka, its MirrorMaker jars."""
    d = dists.dist(name)
    stamp = dists.built(name)
    assert rk.installed_version(home) == d.release == stamp["release"]
    assert stamp["jars"]["connect-mirror"] == d.release and stamp["jars"]["kafka_2.13"] == d.release
    return d.release


def _every_partition_after_a_restart(d, properties, home, a, b, topic, tmp_path, version):
    """Issue 37 on the lines MM2 loses offset syncs at a restart (3.4.1 to 3.7.0: the checkpoint task keeps only the
    syncs it read since it started, so a group behind the newest sync at that moment gets no checkpoint): a group
    committed half way through what the first run copied, then the same MirrorMaker started again on more records.
    EXPORT_TRANSLATED_OFFSETS gives every committed partition, from the offset syncs where MM2 wrote no checkpoint,
    never past the group's record (the target's record there is the source's: one copy from offset 0), and the
    cut-over gate judges the group the same way (nothing skipped, nothing left untranslated), and FAILOVER_GROUPS
    moves it to the target at those offsets."""
    target_topic = "S." + topic
    copied = a.end_offsets(topic)                  # what the first run copied: exactly these (asserted before)
    group = "behind-" + topic
    behind = dict((p, end // 2) for p, end in copied.items())
    a.commit_group_offsets(group, topic, behind)
    more = 250 * len(copied)                       # past offset.lag.max (100): the second run emits newer syncs
    a.produce_n(topic, more, prefix="late")
    expected = sum(copied.values()) + more
    exported, gate = {}, {}
    with rk.MirrorMaker(tmp_path / "restarted", properties, home=home) as mm2:
        rk.wait_until(lambda: b.count(target_topic) >= expected, 240, 3, "%d records in %s" % (expected, target_topic))

        def translated():
            run = d.run(names.CMD_EXPORT_OFFSETS, command_params={"groups": group}, timeout=200)
            assert run.exit_code == 0 and not run.timed_out, run.output[-4000:]
            (entry,) = run.structured_out["translated_offsets"]
            exported.update(entry["groups"])
            return group in exported and len(exported[group]["offsets"]) == len(behind) and run
        export = rk.wait_until(translated, 120, 5, "every partition of %s exported" % group)
        check = d.run(names.CMD_CUTOVER_CHECK, command_params={"flow": "S->T", "groups": group}, timeout=300)
        (report,) = check.structured_out["cutover_check"]
        (gate,) = [g for g in report["groups"] if g["group"] == group]
        moved = d.run(names.CMD_FAILOVER_GROUPS, command_params={"flow": "S->T", "groups": group}, timeout=300)
        assert moved.exit_code == 0 and not moved.timed_out, moved.output[-4000:]
        assert mm2.running(), mm2.log_text()[-3000:]
    answer = exported[group]
    sources = dict((tp, t["source"]) for tp, t in answer["translation"].items())
    print("Kafka %s: %s committed %s; exported %s from %s; the gate: skip %d, re-read >= %d, from offset syncs %s, "
          "untranslated %s" % (version, group, behind, answer["offsets"], sources, gate["skipped"], gate["reread"],
                               gate["from_offset_syncs"], gate["untranslated"]))
    sys.stdout.flush()
    # MM2 itself wrote no checkpoint for this group on this line: the answer is the offset syncs' (else the case
    # proves nothing about the gap); EXPORT says why
    assert set(sources.values()) == {"offset-sync"}, answer
    assert "groups behind the last restart of the drivers get no checkpoint" in export.output, export.output[-3000:]
    for partition, offset in sorted(behind.items()):
        tp = "%s-%d" % (target_topic, partition)
        start = answer["offsets"][tp]
        assert 0 <= start <= offset and offset - start <= answer["translation"][tp]["reread_at_most"], answer
        assert b.consume(target_topic, 1, partition=partition, offset=start) == \
            a.consume(topic, 1, partition=partition, offset=start)
    assert (gate["skipped"], gate["untranslated"], gate["skips"]) == (0, [], []), gate
    assert sorted(gate["from_offset_syncs"]) == sorted("%s-%d" % (topic, p) for p in behind), gate   # source names
    # FAILOVER_GROUPS moved the group to T at exactly the exported offsets
    assert dict(("%s-%d" % tp, off) for tp, off in b.group_offsets(group).items()) == answer["offsets"]


@pytest.mark.parametrize("name", all_versions())
def test_distribution_replicates_and_ignores_no_rendered_key(name, mpack, drivers, kafka_pool, tmp_path):
    reason = dists.skip_reason(name) or agent.line_skip_reason(FULL_LINE)
    if reason:
        pytest.skip(reason)
    if rk.java_home() is None:
        pytest.skip("no Java 17")
    home = rk.kafka_home(name)
    assert home, rk.dist_problem(name)
    version = _assert_distribution(name, home)
    with contextlib.nullcontext(kafka_pool("a", "b", home=home)) as clusters:   # one pair per version: both files
        a, b = clusters["a"], clusters["b"]
        assert a.zookeeper == (version < "3")
        topic = "orders-%s" % uuid.uuid4().hex[:6]    # a topic of each try: a rerun gets the same cluster pair
        a.create_topic(topic, partitions=2)
        a.create_topic(topic, partitions=2)     # again: exists, no error (also where --if-not-exists cannot be used)
        a.produce_n(topic, N)
        assert len(a.consume(topic, N, timeout_ms=5000, group="readers")) == N   # a group to checkpoint

        baseline_props = rk.mm2_test_properties({"a": a.bootstrap, "b": b.bootstrap}, ["a->b"])
        baseline = _run_until_copied(tmp_path / "baseline", baseline_props, home, a, b, topic, "a." + topic,
                                     "a.checkpoints.internal")
        # the operator's hand-written run copied exactly: every record, key and value, once
        got = b.consume("a." + topic, N + 100, timeout_ms=8000)
        assert sorted(got) == sorted(("r-%d" % i, "r-value-%d" % i) for i in range(N))
        broker_log = a.server_log_text()   # with the hourly-rolled files: a run across hh:00 has its start in server.log.<hour>
        assert "Kafka version: %s" % version in broker_log or "Kafka version : %s" % version in broker_log

        # aliases of their own: test_lifecycle ran its A->B on the same pair of this version just before
        conf = agent.simple_configurations("S", "T", a.bootstrap, b.bootstrap)
        conf[names.REPLICATION].update({"topics": topic})
        if versions.supports(version, versions.OFFSET_SYNC):
            conf[names.REPLICATION].update({"sync.group.offsets.enabled": "true",
                                            "sync.group.offsets.interval.seconds": "5"})
        if versions.supports(version, versions.EXACTLY_ONCE):
            conf[names.REPLICATION].update({"exactly.once.enabled": "true"})
        # client overrides per cluster: the producer's reach the workers' producers on every version, the consumer's
        # and admin's MM2's replication clients from 2.8 (before, the mpack writes them per flow only)
        conf[names.CUSTOM] = {"T.producer.buffer.memory": "65536", "S.consumer.max.poll.records": "421",
                              "S.admin.request.timeout.ms": "45123",
                              # an offset sync every 10 records (MM2's default 100): the first run's ~50 records a
                              # partition leave syncs past a group half way through them
                              # (_every_partition_after_a_restart)
                              "offset.lag.max": "10"}
        d = drivers.new(mpack, FULL_LINE, tmp_path / "trunk", configurations=conf, metrics=False)
        d.env["kafka_home"] = home
        run = d.run("CONFIGURE")
        assert run.exit_code == 0, run.output[-4000:]
        with open(d.properties_file) as fh:
            properties = fh.read()
        rendered = _run_until_copied(tmp_path / "rendered", properties, home, a, b, topic, "S." + topic,
                                     "S.checkpoints.internal")
        if versions.supports(version, versions.OFFSET_SYNC_HISTORY) and \
                not versions.supports(version, versions.OFFSET_SYNC_HISTORY_ACROSS_RESTARTS):
            _every_partition_after_a_restart(d, properties, home, a, b, topic, tmp_path, version)

    for log in (baseline, rendered):
        assert re.search(r"Kafka version: %s\b" % re.escape(version), log), log[-3000:]
    # the baseline's clients report MirrorMaker's own additions (group.id ...) on every version: in this version's form
    old, new = logged_config.message_forms(baseline)
    assert (old > 0, new > 0) == ((True, False) if version < "3.4" else (False, True)), (old, new)
    assert logged_config.config_dumps(rendered), rendered[-3000:]
    result = logged_config.ignored_keys(rendered, baseline, properties, ("S", "T"))
    _report(version, result)
    assert result["ignored"] == {}, "Kafka %s ignores keys the mpack rendered (reported as unknown, read by " \
                                    "nothing): %s" % (version, result["ignored"])
    # and no key is dropped without a word: every rendered key is in a config the process logged, with our value
    assert logged_config.unread_keys(rendered, properties, ("S", "T")) == {}, properties
