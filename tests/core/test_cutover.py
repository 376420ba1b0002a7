"""The cut-over gate's pure rules (mm2_core.dr.cutover): the verdict, the silent-loss rule (the parsers of the tools'
output it reads are the Kafka boundary's: tests/core/test_kafkatools.py)."""
import pytest

from mm2_core.dr import cutover, failover, translation
from mm2_core.kafkatools.records import Checkpoint

def test_refusal_names_the_group_and_what_to_do():
    assert failover.refusal("idle", "A->B", "B", "Empty", 0) is None
    assert failover.refusal("gone", "A->B", "B", "Dead", 0) is None
    why = failover.refusal("busy", "A->B", "B", "Stable", 1)
    assert why.startswith("group busy has 1 active member(s) on B (state Stable): stop its consumers on B")


def test_retention_gap_is_what_the_source_deleted_before_mm2_copied_it():
    replicated = {("t", 0): 99, ("t", 1): 500}
    starts = {("t", 0): 150, ("t", 1): 0, ("t", 2): 10}
    assert cutover.silent_loss(starts, replicated) == [("t", 0, 100, 150, 50)]
    rows = cutover.unreplicated({("t", 0): 200, ("t", 1): 501, ("t", 2): 30}, starts, replicated)
    assert rows == [("t", 0, 200, 100, 50, 50), ("t", 1, 501, 501, 0, 0), ("t", 2, 30, 10, 20, 0)]
    # the oldest unreplicated record still on the source: after the gap, at the log start
    assert cutover.rpo_probes(rows) == [("t", 0, 150), ("t", 2, 10)]


def test_a_checkpoint_is_judged_by_the_record_its_target_offset_holds():
    cps = [Checkpoint("g", "A.t", 0, 120, 102), Checkpoint("g", "A.t", 1, 40, 41)]
    syncs = {("t", 0): [(0, 0), (101, 101)], ("t", 1): [(50, 41)]}
    rows = translation.group_rows({("t", 0): 120, ("t", 1): 40, ("t", 2): 5}, cps, lambda t: "A." + t, syncs)
    assert [(r["topic"], r["partition"], r["committed"], r["upstream"], r["downstream"], r["status"], r["records"],
             r["source"]) for r in rows] == [
        ("t", 0, 120, 120, 102, "REREADS", 18, "checkpoint"), ("t", 1, 40, 40, 41, "SKIPS", 10, "checkpoint"),
        ("t", 2, 5, None, None, "UNTRANSLATED", None, "none")]
    # no sync known: the checkpoint's upstream offset stands in
    (row,) = translation.group_rows({("t", 0): 120}, cps[:1], lambda t: "A." + t)
    assert (row["status"], row["records"]) == ("EXACT", 0)


def _facts(**over):
    facts = {"source_ends": {("t", 0): 100}, "source_starts": {("t", 0): 0}, "replicated": {("t", 0): 99},
             "target_partitions": {"A.t": 1}, "source_configs": {"t": {"retention.ms": "1000"}},
             "target_configs": {"A.t": {"retention.ms": "1000"}}, "heartbeat_ms": 99000, "checkpoint_ms": 90000,
             "committed": {"g": {("t", 0): 100}}, "checkpoints": [Checkpoint("g", "A.t", 0, 100, 100)],
             "offset_syncs": {}, "source_reachable": True, "target_reachable": True}
    facts.update(over)
    return facts


def _evaluate(limits=None, groups=("g",), **over):
    return cutover.evaluate_flow("A->B", "A", "B", _facts(**over), cutover.thresholds(limits), 100000,
                                 lambda t: "A." + t, groups)


def test_a_caught_up_flow_is_ready():
    report = _evaluate()
    assert (report["verdict"], report["reasons"], report["unreplicated_records"], report["rpo_seconds"]) == \
        ("READY", [], 0, 0.0)
    assert report["heartbeat_age_seconds"] == 1.0 and report["checkpoint_age_seconds"] == 10.0
    # measured when the topic was read, not when the slowest other fact arrived
    assert _evaluate(heartbeat_read_ms=99500)["heartbeat_age_seconds"] == 0.5


def test_each_threshold_blocks_by_name():
    report = _evaluate(replicated={("t", 0): 89}, oldest_unreplicated_ms={("t", 0): 70000})
    assert report["verdict"] == "NOT_READY" and report["unreplicated_records"] == 10 and report["rpo_seconds"] == 30.0
    assert any("10 record(s) on A not yet replicated (max.unreplicated.records=0)" in r for r in report["reasons"])
    assert any("RPO 30 s" in r and "max.rpo.seconds=0" in r for r in report["reasons"])
    relaxed = _evaluate({"max.unreplicated.records": "10", "max.rpo.seconds": "30"}, replicated={("t", 0): 89},
                        oldest_unreplicated_ms={("t", 0): 70000})
    assert relaxed["verdict"] == "READY"
    old = _evaluate({"max.heartbeat.age.seconds": "0"})
    assert any("the last heartbeat is 1 s old (max.heartbeat.age.seconds=0)" in r for r in old["reasons"])
    gap = _evaluate(source_starts={("t", 0): 120}, source_ends={("t", 0): 130}, oldest_unreplicated_ms={("t", 0): 1})
    assert any("t-0 lost 20 record(s): the source deleted offsets 100..119 before MM2 copied them" in r
               for r in gap["reasons"])


def test_drift_reports_every_property_and_blocks_only_the_chosen_ones():
    facts = dict(target_partitions={"A.t": 2}, target_configs={"A.t": {"retention.ms": "5"}})
    report = _evaluate(**facts)
    assert sorted(d["property"] for d in report["drift"]) == ["partitions", "retention.ms"]
    assert [r for r in report["reasons"] if "blocking.drift" in r] == [
        "A->B: partitions differs between t on A (1) and A.t on B (2) (blocking.drift)"]
    assert _evaluate({"blocking.drift": ""}, **facts)["verdict"] == "READY"
    assert len([r for r in _evaluate({"blocking.drift": "partitions,retention.ms"}, **facts)["reasons"]
                if "blocking.drift" in r]) == 2


def test_groups_that_would_skip_or_lack_a_checkpoint_block():
    report = _evaluate(checkpoints=[Checkpoint("g", "A.t", 0, 110, 110)], offset_syncs={("t", 0): [(110, 110)]})
    assert report["groups"][0]["skipped"] == 10
    assert any("group g would skip 10 record(s) on t-0 (max.skipped.records=0)" in r for r in report["reasons"])
    missing = _evaluate(groups=("g", "other"))
    assert any("group other has no checkpoint for (no committed offsets on A)" in r for r in missing["reasons"])


def test_an_unreachable_source_makes_the_verdict_unknown_not_ready():
    report = _evaluate(errors=["A (h:1) is unreachable: timed out"], source_reachable=False, source_ends={},
                       committed={})
    assert report["verdict"] == "UNKNOWN" and report["rpo_seconds"] is None and report["source_reachable"] is False


@pytest.mark.parametrize("given,message", [
    ({"max.rpo": "1"}, "unknown cut-over threshold max.rpo"),
    ({"max.rpo.seconds": "soon"}, "max.rpo.seconds='soon' is not a whole number"),
    ({"max.rpo.seconds": "-5"}, "max.rpo.seconds=-5: use a number >= 0 (-1: no limit)"),
    ({"blocking.drift": "segment.bytes"}, "blocking.drift: segment.bytes is not compared"),
])
def test_bad_thresholds_are_refused_by_name(given, message):
    with pytest.raises(cutover.ThresholdError) as info:
        cutover.thresholds(given)
    assert message in str(info.value)


def test_partition_offsets_parameter_is_parsed_and_bad_items_named():
    assert failover.parse_partition_offsets(" orders-0=12, my-topic-3=0 ,") == {("orders", 0): 12, ("my-topic", 3): 0}
    assert failover.parse_partition_offsets("") == {}
    for bad in ("orders=1", "orders-x=1", "orders-0=-1", "orders-0"):
        with pytest.raises(ValueError) as info:
            failover.parse_partition_offsets(bad)
        assert "'%s': give topic-partition=offset" % bad in str(info.value)


def test_translated_offsets_are_capped_where_the_source_has_records_never_replicated():
    rows = "orders,0,120\norders,1,40\nother,0,9\n"
    capped_rows, capped = failover.cap_rows(rows, {("orders", 0): 100, ("orders", 1): 50})
    assert capped_rows == "orders,0,100\norders,1,40\nother,0,9\n"
    assert capped == ["orders-0: 120 -> 100"]
    assert failover.cap_rows(rows, {}) == (rows, [])


def test_each_group_is_judged_on_its_own_checkpoints_among_many_groups():
    """The checkpoints of all groups come in one list, interleaved; each group's outlook reads only its own."""
    groups = ["g%02d" % i for i in range(12)]
    cps = [Checkpoint(g, "A.t", p, 100 + i, 100 + i) for p in range(3) for i, g in enumerate(groups)]
    committed = dict((g, dict((("t", p), 100 + i + (1 if g == "g05" else 0)) for p in range(3)))
                     for i, g in enumerate(groups))
    report = _evaluate(groups=("g00", "lonely"), committed=committed, checkpoints=cps,
                       source_ends={("t", p): 200 for p in range(3)}, replicated={("t", p): 199 for p in range(3)},
                       target_partitions={"A.t": 3})
    by_name = dict((g["group"], g) for g in report["groups"])
    assert sorted(by_name) == groups + ["lonely"]
    assert [(p["upstream"], p["status"]) for p in by_name["g07"]["partitions"]] == [(107, "EXACT")] * 3
    assert (by_name["g05"]["reread"], by_name["g05"]["skipped"]) == (3, 0)
    assert sum(g["reread"] for g in report["groups"]) == 3
    assert by_name["lonely"]["no_checkpoint"] == ["(no committed offsets on A)"]
    assert any("group lonely has no checkpoint" in r for r in report["reasons"])
