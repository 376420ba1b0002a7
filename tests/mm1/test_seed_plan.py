"""seed-from-mm1's plan, without Kafka: MirrorMaker 1's next-offset-to-read becomes MM2's last-copied offset,
re-runs write nothing, positions MM2 already has are conflicts, and the counts it reports."""
from mm2_ambari.mm1 import offsets as mo
from mm2_core.kafkatools import records as kr


def test_committed_offsets_become_last_copied_positions():
    committed = {("orders", 0): 100, ("orders", 1): 0, ("pay", 0): 7}
    start = {("orders", 0): 10, ("orders", 1): 0, ("pay", 0): 0}
    end = {("orders", 0): 150, ("orders", 1): 5, ("pay", 0): 7}
    plan = mo.plan_seed("dc1", committed, start, end, {}, 25)
    written = dict((kr.parse_offsets_key(k)[2:], kr.parse_offsets_value(v)) for k, v, _ in plan.writes)
    assert written == {("orders", 0): 99, ("pay", 0): 6}     # nothing copied yet from orders-1: no record
    assert all(p == mo.partition_for(k, 25) for k, _, p in plan.writes)
    assert (plan.to_copy, plan.naive, plan.lost_to_retention, plan.conflicts) == (50 + 5 + 0, 90 + 0 + 7, 0, [])


def test_a_second_run_writes_nothing_and_a_moved_on_mm2_is_a_conflict():
    committed = {("orders", 0): 100}
    same = mo.plan_seed("dc1", committed, {}, {}, {("dc1", "orders", 0): 99}, 25)
    assert (same.writes, same.already, same.conflicts) == ([], [("orders", 0)], [])
    moved = mo.plan_seed("dc1", committed, {}, {}, {("dc1", "orders", 0): 140, ("other", "orders", 0): 3}, 25)
    assert len(moved.writes) == 1 and moved.conflicts == [
        "orders-0: MM2 already has position 140 (resumes at 141), MirrorMaker 1 committed 100"]
    extra = mo.plan_seed("dc1", committed, {}, {}, {("dc1", "new", 2): 5}, 25)
    assert "new-2: MM2 already has position 5 for a partition MirrorMaker 1 never committed" in extra.conflicts[0]


def test_retention_deleted_records_mm1_never_copied_are_reported():
    plan = mo.plan_seed("dc1", {("t", 0): 5}, {("t", 0): 20}, {("t", 0): 30}, {}, 25)
    assert (plan.lost_to_retention, plan.to_copy, plan.naive) == (15, 10, 0)


def test_offsets_topic_lines_later_records_win_and_tombstones_remove():
    key = mo.source_partition_key("dc1", "t", 0)
    other = '["MirrorCheckpointConnector",{"cluster":"dc1","partition":0,"topic":"t"}]'
    lines = "Partition:3\t%s\t{\"offset\":4}\nPartition:3\t%s\t{\"offset\":9}\nPartition:1\t%s\t{\"offset\":1}\n" % (
        key, key, other)
    assert kr.offsets_records(lines)[0] == {("dc1", "t", 0): 9}
    assert kr.offsets_records(lines + "Partition:3\t%s\tnull\n" % key)[0] == {}


def test_a_short_read_of_the_offsets_topic_is_never_taken_for_no_positions():
    key = mo.source_partition_key("dc1", "t", 0)
    lines = "Partition:3\tOffset:0\t%s\t{\"offset\":4}\nPartition:3\tOffset:7\t%s\t{\"offset\":9}\n" % (key, key)
    positions, raw, last = kr.offsets_records(lines)
    assert positions == {("dc1", "t", 0): 9} and last == {3: 7} and len(raw) == 2
    assert mo.read_complete(last, {3: 0}, {3: 8, 5: 0})          # partition 5 is empty
    assert not mo.read_complete(last, {3: 0}, {3: 8, 5: 2})      # partition 5 has records the read did not see
    assert not mo.read_complete({}, {}, {3: 8})                  # an empty read of a non-empty topic
