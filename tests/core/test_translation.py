"""Where a failed-over group starts on the target (mm2_core.dr.translation): MM2's checkpoint, else the offset syncs
still in the offset-syncs topic (Kafka's own OffsetSyncStore.translateDownstream rule), else none; never past a
record that was not copied. The parser of the records is the Kafka boundary's (tests/core/test_kafkatools.py)."""
import random

import pytest

from mm2_core.dr import cutover, failover, translation as tr
from mm2_core.kafkatools import records as kr
from mm2_core.kafkatools.records import Checkpoint


def mirrored(topic):
    return "A." + topic


# ---------------------------------------------------------------- the offset-sync rule

def test_the_newest_sync_at_or_before_the_group_gives_its_offset_plus_one_unless_it_is_the_groups_record():
    syncs = [(0, 0), (100, 100), (200, 200)]
    # the group's next record is the synced one: its copy, nothing re-read
    assert tr.sync_translation(100, syncs) == (100, 0, (100, 100))
    # past the sync: one after the copy of the sync's record (u+1..C-1 may or may not have been copied)
    assert tr.sync_translation(150, syncs) == (101, 49, (100, 100))
    assert tr.sync_translation(101, syncs) == (101, 0, (100, 100))
    assert tr.sync_translation(10 ** 6, syncs) == (201, 10 ** 6 - 201, (200, 200))
    # before every sync still in the topic: not translated, never guessed
    assert tr.sync_translation(5, [(10, 3), (20, 13)]) is None
    assert tr.sync_translation(5, []) is None and tr.sync_translation(5, None) is None


def test_the_newest_sync_wins_as_in_kafka_even_after_a_restart_copied_records_again():
    # MM2 copied 0..150 to 0..150, restarted from its committed 95 and copied 95.. again from 151 on
    syncs = [(0, 0), (100, 100), (95, 151)]
    assert tr.sync_translation(120, syncs) == (152, 24, (95, 151))
    # the older sync is used where the newer one lies after the group
    assert tr.sync_translation(97, [(90, 90), (100, 100)]) == (91, 6, (90, 90))


def test_a_sync_pointing_past_the_targets_end_or_negative_is_not_used():
    assert tr.sync_translation(150, [(100, 100)], target_end=100) is None
    assert tr.sync_translation(150, [(100, 100)], target_end=101) == (101, 49, (100, 100))
    # a sync written after the target's end offsets were read: the one before it answers
    assert tr.sync_translation(150, [(50, 50), (100, 100)], target_end=100) == (51, 99, (50, 50))
    assert tr.sync_translation(150, [(100, -1)]) is None


def _replicate(rng, n):
    """A source partition of n offsets copied by MM2: some offsets never copied (transaction markers, filtered),
    restarts that copy again from an earlier offset, a sync at some copies. Returns (copies [(source offset,
    target offset)] in target order, syncs in the order written)."""
    gaps = set(o for o in range(n) if rng.random() < 0.15)   # no record at these source offsets
    copies, syncs, down, up = [], [], rng.randint(0, 5), 0
    while up < n:
        if up in gaps:
            up += 1
            continue
        copies.append((up, down))
        if rng.random() < 0.1 or not syncs:
            syncs.append((up, down))
        down += 1
        if rng.random() < 0.02 and up > 5:   # a restart: copy again from an earlier committed offset
            up = rng.randint(max(0, up - 20), up)
            continue
        up += 1
    return copies, syncs


@pytest.mark.parametrize("seed", range(40))
def test_the_translation_never_skips_a_copied_record_and_rereads_within_its_bound(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 300)
    copies, syncs = _replicate(rng, n)
    restarted = len(copies) != len(set(u for u, _ in copies))
    for committed in range(0, n + 2):
        found = tr.sync_translation(committed, syncs)
        if found is None:
            assert all(u > committed for u, _ in syncs)
            continue
        start, bound, _sync = found
        # every record at or after the group's offset that was copied has a copy the group reads
        for up in set(u for u, _ in copies if u >= committed):
            assert any(d >= start for u, d in copies if u == up), (seed, committed, up, start)
        if not restarted:
            reread = [u for u, d in copies if d >= start and u < committed]
            assert len(reread) <= bound, (seed, committed, reread, bound)


# ---------------------------------------------------------------- per partition: checkpoint, offset sync, none

def test_the_issue_case_every_committed_partition_gets_an_answer_and_its_source():
    # real 3.4.1/3.6.2: committed {0: 1696, 1: 617, 2: 608}, MM2 checkpointed partition 0 only
    committed = {("t", 0): 1696, ("t", 1): 617, ("t", 2): 608}
    cps = [Checkpoint("g", "A.t", 0, 1696, 1600)]
    syncs = kr.parse_offset_syncs("\n".join([
        "OffsetSync{topicPartition=t-0, upstreamOffset=1599, downstreamOffset=1599}",
        "OffsetSync{topicPartition=t-1, upstreamOffset=0, downstreamOffset=0}",
        "OffsetSync{topicPartition=t-1, upstreamOffset=600, downstreamOffset=600}",
        "OffsetSync{topicPartition=t-1, upstreamOffset=700, downstreamOffset=700}",
        "OffsetSync{topicPartition=t-2, upstreamOffset=608, downstreamOffset=590}"]))
    rows = tr.group_rows(committed, cps, mirrored, syncs)
    assert [(r["partition"], r["source"], r["status"], r["downstream"], r["records"]) for r in rows] == [
        (0, "checkpoint", "REREADS", 1600, 96),     # the checkpoint's offset holds source 1600: 96 re-read
        (1, "offset-sync", "REREADS", 601, 16),     # 600 -> 600: start at 601, re-read 601..616 at most
        (2, "offset-sync", "EXACT", 590, 0)]        # the synced record is the group's next one
    applied = tr.applicable("g", rows, cps)
    assert [(c.topic, c.partition, c.downstream, c.metadata) for c in applied] == [
        ("A.t", 0, 1600, "checkpoint"), ("A.t", 1, 601, "offset-sync"), ("A.t", 2, 590, "offset-sync")]
    assert failover.offsets_csv_rows(applied, "g") == "A.t,0,1600\nA.t,1,601\nA.t,2,590\n"


def test_a_partition_without_checkpoint_or_usable_sync_cannot_be_translated():
    rows = tr.group_rows({("t", 0): 5, ("t", 1): 9}, [], mirrored, {("t", 0): [(10, 10)]})
    assert [(r["status"], r["source"], r["downstream"]) for r in rows] == [("UNTRANSLATED", "none", None)] * 2
    assert tr.names(rows, tr.UNTRANSLATED) == ["t-0", "t-1"] and tr.applicable("g", rows, []) == []
    assert "t-0: committed 5, cannot be translated" in tr.describe(rows)


def test_a_group_that_read_everything_starts_at_the_targets_end_read_before_the_sources():
    # an empty partition (a consumer commits 0 for it) or a group at the end, with no checkpoint and no sync
    rows = tr.group_rows({("t", 0): 0, ("t", 1): 40, ("t", 2): 39}, [], mirrored, {},
                         target_ends={("A.t", 0): 0, ("A.t", 1): 38, ("A.t", 2): 38},
                         source_ends={("t", 0): 0, ("t", 1): 40, ("t", 2): 40})
    assert [(r["source"], r["status"], r["downstream"], r["records"]) for r in rows] == [
        ("target-end", "EXACT", 0, 0), ("target-end", "EXACT", 38, 0), ("none", "UNTRANSLATED", None, None)]
    # without the source's ends (read after the target's) the rule is not used
    assert tr.names(tr.group_rows({("t", 0): 0}, [], mirrored, {}, target_ends={("A.t", 0): 0}),
                    tr.UNTRANSLATED) == ["t-0"]


def test_a_checkpoint_that_would_skip_gives_way_to_an_offset_sync_that_does_not():
    # the group was reset back to 80 on the source after MM2 checkpointed it at 110
    cps = [Checkpoint("g", "A.t", 0, 110, 110)]
    rows = tr.group_rows({("t", 0): 80}, cps, mirrored, {("t", 0): [(50, 50), (110, 110)]})
    assert [(r["source"], r["status"], r["downstream"], r["records"]) for r in rows] == [
        ("offset-sync", "REREADS", 51, 29)]
    # no sync before the group: the checkpoint's skip stays, and nothing is applied for the partition
    rows = tr.group_rows({("t", 0): 80}, cps, mirrored, {("t", 0): [(110, 110)]})
    assert [(r["source"], r["status"], r["records"]) for r in rows] == [("checkpoint", "SKIPS", 30)]
    assert tr.applicable("g", rows, cps) == [] and "SKIPS 30 record(s)" in tr.describe(rows)


def test_checkpoints_of_partitions_without_a_committed_offset_are_applied_as_mm2_wrote_them():
    cps = [Checkpoint("g", "A.t", 0, 5, 5), Checkpoint("g", "A.u", 0, 7, 7), Checkpoint("h", "A.t", 0, 1, 1)]
    rows = tr.group_rows({("t", 0): 5}, cps[:2], mirrored)
    assert [(c.topic, c.downstream) for c in tr.applicable("g", rows, cps)] == [("A.t", 5), ("A.u", 7)]


# ---------------------------------------------------------------- the export's structured output

def test_the_export_says_per_partition_where_the_answer_came_from_and_the_reread_bound():
    cps = [Checkpoint("g", "A.t", 0, 10, 10), Checkpoint("other", "A.t", 0, 3, 3)]
    committed = {"g": {("t", 0): 10, ("t", 1): 50, ("t", 2): 1}}
    exports = tr.export_groups(committed, cps, mirrored, {("t", 1): [(40, 41)]})
    assert sorted(exports) == ["g", "other"]
    entry = tr.export_entry(*exports["g"])
    assert entry["offsets"] == {"A.t-0": 10, "A.t-1": 42} and entry["partitions"] == 2
    assert entry["translation"]["A.t-1"] == {"source": "offset-sync", "status": "REREADS", "committed": 50,
                                             "offset": 42, "reread_at_most": 9, "skipped": 0}
    assert entry["translation"]["A.t-2"]["source"] == "none" and entry["translation"]["A.t-2"]["offset"] is None
    assert entry["untranslated"] == ["t-2"] and entry["reread_at_most"] == 9
    assert entry["sources"] == {"checkpoint": 1, "offset-sync": 1, "none": 1}
    # the group filter of the command
    assert sorted(tr.export_groups(committed, cps, mirrored, {}, wanted=["other"])) == ["other"]


def test_without_the_sources_committed_offsets_the_checkpoints_are_exported_as_they_are():
    cps = [Checkpoint("g", "A.t", 0, 10, 10)]
    exports = tr.export_groups(None, cps, mirrored, {})
    rows, applied = exports["g"]
    assert rows == [] and applied == cps
    assert tr.export_entry(rows, applied)["offsets"] == {"A.t-0": 10}


# ---------------------------------------------------------------- the gate and FAILOVER_GROUPS

def _facts(**over):
    facts = {"source_ends": {("t", 0): 100, ("t", 1): 100, ("t", 2): 100},
             "source_starts": {("t", 0): 0, ("t", 1): 0, ("t", 2): 0},
             "replicated": {("t", 0): 99, ("t", 1): 99, ("t", 2): 99}, "target_partitions": {"A.t": 3},
             "heartbeat_ms": 99000, "checkpoint_ms": 90000,
             "committed": {"g": {("t", 0): 100, ("t", 1): 60, ("t", 2): 30}},
             "checkpoints": [Checkpoint("g", "A.t", 0, 100, 100)],
             "offset_syncs": {("t", 1): [(50, 50)], ("t", 2): [(40, 40)]}}
    facts.update(over)
    return facts


def _evaluate(**over):
    return cutover.evaluate_flow("A->B", "A", "B", _facts(**over), cutover.thresholds(), 100000, mirrored, ())


def test_the_gate_counts_the_partitions_it_cannot_translate_and_names_them():
    report = _evaluate()
    (g,) = report["groups"]
    assert report["verdict"] == "NOT_READY"
    assert (g["untranslated"], g["from_offset_syncs"], g["no_checkpoint"]) == (["t-2"], ["t-1"], ["t-1", "t-2"])
    assert g["reread"] == 9 and g["skipped"] == 0 and g["sources"] == {"checkpoint": 1, "offset-sync": 1, "none": 1}
    assert report["reasons"] == [
        "A->B: group g is NOT READY for failover: 1 partition(s) cannot be translated (no checkpoint of MM2 and no "
        "offset sync at or before the group's offset): t-2; a failover would leave them to the group's "
        "auto.offset.reset on B (a skip or a full re-read)"]
    assert "from offset syncs (no checkpoint): t-1; cannot be translated: t-2" in cutover.format_report(report)
    # every partition translated (t-2 from a sync now): READY, though MM2 checkpointed one only
    ready = _evaluate(offset_syncs={("t", 1): [(50, 50)], ("t", 2): [(0, 0), (30, 31)]})
    assert ready["verdict"] == "READY" and ready["groups"][0]["untranslated"] == []


def test_the_gate_translates_a_caught_up_partition_to_the_targets_end_only_when_read_in_that_order():
    facts = dict(committed={"g": {("t", 0): 100, ("t", 1): 60, ("t", 2): 100}},
                 target_ends={("A.t", 2): 97}, offset_syncs={("t", 1): [(50, 50)]})
    report = _evaluate(target_ends_ms=1000, source_ends_ms=2000, **facts)
    assert report["verdict"] == "READY" and report["groups"][0]["sources"] == {"checkpoint": 1, "offset-sync": 1,
                                                                                "target-end": 1}
    late = _evaluate(target_ends_ms=3000, source_ends_ms=2000, **facts)
    assert late["verdict"] == "NOT_READY" and late["groups"][0]["untranslated"] == ["t-2"]


def test_a_skip_is_named_by_partition():
    report = _evaluate(committed={"g": {("t", 0): 90}})
    assert "A->B: group g would skip 10 record(s) on t-0 (max.skipped.records=0)" in report["reasons"]


def test_failover_refuses_a_group_that_would_skip_or_cannot_be_translated_naming_the_partitions():
    rows = tr.group_rows({("t", 0): 80, ("t", 1): 5, ("t", 2): 7}, [Checkpoint("g", "A.t", 0, 110, 110)], mirrored,
                         {("t", 0): [(110, 110)], ("t", 2): [(7, 3)]})
    why = failover.failover_refusal("A->B", "B", cutover.group_entry("g", rows))
    assert why == ("group g of A->B is not moved to B: it would skip 30 record(s) on t-0 and cannot translate t-1 "
                   "(no checkpoint of MM2 and no offset sync at or before the group's offset); nothing was changed "
                   "for it (wait for MM2 to checkpoint it, or move it by hand with kafka-consumer-groups "
                   "--reset-offsets)")
    fine = tr.group_rows({("t", 2): 7}, [], mirrored, {("t", 2): [(7, 3)]})
    assert failover.failover_refusal("A->B", "B", cutover.group_entry("g", fine)) is None


def test_failover_judges_each_group_and_plans_its_reset_capped_where_a_failback_must_not_pass():
    cps = [Checkpoint("g", "A.t", 0, 100, 100), Checkpoint("busy", "A.t", 0, 50, 50)]
    committed = {"g": {("t", 0): 100, ("t", 1): 7}, "busy": {("t", 0): 50}}
    judged = failover.judge_groups(["g", "busy"], committed, cps, mirrored, {("t", 1): [(7, 3)]})
    assert [(c.topic, c.partition, c.downstream, c.metadata) for c in judged["g"]["apply"]] == [
        ("A.t", 0, 100, "checkpoint"), ("A.t", 1, 3, "offset-sync")]
    assert judged["g"]["skipped"] == 0 and judged["g"]["sources"] == {"checkpoint": 1, "offset-sync": 1}
    rows, capped, why = failover.group_plan("g", "A->B", "B", "Empty", 0, judged["g"], [], {("A.t", 0): 90})
    assert (rows, capped, why) == ("A.t,0,90\nA.t,1,3\n", ["A.t-0: 100 -> 90"], None)
    assert failover.group_plan("busy", "A->B", "B", "Stable", 2, judged["busy"], [], {})[:2] == (None, [])
    assert "has 2 active member(s) on B" in failover.group_plan("busy", "A->B", "B", "Stable", 2, None, [], {})[2]
    # the source could not be read: MM2's checkpoints of the group, as written
    assert failover.group_plan("busy", "A->B", "B", "Empty", 0, None, cps, {}) == ("A.t,0,50\n", [], None)


@pytest.mark.parametrize("policy,expected", [
    ("", {"east.orders-0": 5, "east.orders-1": 6}),                      # prefixed: only the copies of east's topics
    ("identity", {"orders-0": 9, "east.orders-0": 5, "east.orders-1": 6})])   # identity: every matched topic
def test_a_failback_starts_the_reverse_flow_at_the_ends_of_the_flows_topics_on_its_target(policy, expected):
    from mm2_core.rendering import render
    configs = {"kafka-mm2-clusters": {"source.alias": "east", "source.bootstrap.servers": "e1:9092",
                                      "target.alias": "west", "target.bootstrap.servers": "w1:9092"}}
    if policy:
        configs["kafka-mm2-replication"] = {"replication.policy": policy}
    topo = render.render_mm2(configs, "3.6.2", "h", "/etc/kafka-mm2/conf").topology
    (flow,) = topo.enabled_flows
    ends = {("orders", 0): 9, ("east.orders", 0): 5, ("east.orders", 1): 6, ("east.heartbeats", 0): 3,
            ("heartbeats", 0): 2, ("mm2-offsets.east.internal", 0): 4, ("__consumer_offsets", 0): 1}
    assert failover.flow_target_ends(ends, topo, flow) == expected


def test_the_offset_syncs_are_read_through_mm2s_formatter_and_parsed_by_the_boundary():
    from mm2_core.kafkatools import commands as kc
    argv = kc.console_consumer("/k", (3, 4, 1), "b:9092", "/c", "mm2-offset-syncs.B.internal", mode="offset-sync",
                               timeout_ms=3000, max_messages=7, partition=0, offset=0)
    assert argv[-2:] == ["--formatter", "org.apache.kafka.connect.mirror.formatters.OffsetSyncFormatter"]
    assert argv[argv.index("--max-messages") + 1] == "7"
    # OffsetSync.toString, the formatter's line (a topic with dashes; the partition is after the last one)
    assert kr.parse_offset_syncs("OffsetSync{topicPartition=my-orders-1, upstreamOffset=5, downstreamOffset=2}\n"
                                 "Processed a total of 1 messages\n") == {("my-orders", 1): [(5, 2)]}
