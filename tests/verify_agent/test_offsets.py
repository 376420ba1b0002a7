"""mm2-verify's failover-offsets check without Spark, on Python 2.7 and 3: a committed partition MM2 wrote no
checkpoint for (Kafka 3.4.1-3.6.x, KAFKA-15905) is translated from the flow's offset syncs by the agent's own rule
(mm2_core.dr.translation), says where its downstream offset came from, and counts in the report's totals; one that
neither translates stays NO_CHECKPOINT and is named. Also: the binary OffsetSync record, the offset-syncs topic, and
where its location (offset-syncs.topic.location) comes from: the CLI flag, the plan, the Ambari rendering."""
import re
import struct

import pytest

from mm2_core.dr import translation
from mm2_core.kafkatools import records
from mm2_verify_job import job, offsets, plan, report as job_report

NOW = 1714557600000


def spec(**overrides):
    raw = {"flow": "primary->backup", "source": {"options": {"bootstrap.servers": "a1:9092"}},
           "target": {"options": {"bootstrap.servers": "b1:9092"}}}
    raw.update(overrides)
    return job.normalize_spec(raw, NOW)


def sync_record(topic, partition, upstream, downstream):
    """A binary OffsetSync record as MM2 writes it (OffsetSync.serializeKey/serializeValue)."""
    name = topic.encode("utf-8")
    return (struct.pack(">h", len(name)) + name + struct.pack(">i", partition),
            struct.pack(">qq", upstream, downstream))


def java_matches(pattern, name):
    return re.match(pattern.replace("\\z", "\\Z"), name) is not None


# ---------------------------------------------------------------- the record and the topic

def test_offset_sync_records_decode_in_read_order():
    key, value = sync_record("orders", 2, 500, 480)
    assert records.decode_offset_sync(key, value) == ("orders", 2, 500, 480)
    assert records.offset_sync_key("orders", 2) == key
    found = records.offset_syncs_of([sync_record("orders", 1, 0, 0), (b"\x00", b"\x01"), (None, b""),
                                     sync_record("orders", 1, 100, 98), sync_record("payments", 0, 7, 7)])
    assert found == {("orders", 1): [(0, 0), (100, 98)], ("payments", 0): [(7, 7)]}
    with pytest.raises(ValueError):
        records.decode_offset_sync(key, value[:9])


def test_the_offset_syncs_topic_under_both_internal_separators():
    pattern = offsets.offset_syncs_topic_pattern("backup", "_")
    assert java_matches(pattern, "mm2-offset-syncs.backup.internal")
    assert java_matches(pattern, "mm2-offset-syncs_backup_internal")
    assert not java_matches(pattern, "mm2-offset-syncs.primary.internal")
    assert not java_matches(pattern, "mm2-offset-syncs.backup.internal.old")


def test_only_the_wanted_partitions_keys_are_read():
    # Spark's hex() of the key: upper-case hex of exactly the bytes MM2 writes
    key, _ = sync_record("orders", 1, 0, 0)
    assert offsets.sync_key_hex("orders", 1) == "".join("%02X" % c for c in bytearray(key))


# ---------------------------------------------------------------- translation

SPAN = {("orders", 0): {"min_offset": 0, "max_offset": 999}, ("orders", 1): {"min_offset": 0, "max_offset": 999},
        ("orders", 2): {"min_offset": 0, "max_offset": 999}}
CHECKPOINTS = {("billing", "orders", 0): (300, 290)}
COMMITTED = {("billing", "orders", 0): 300, ("billing", "orders", 1): 250, ("billing", "orders", 2): 400,
             ("late", "orders", 1): 50}
# orders-1: syncs 100->98, 200->195, 300->290 (250 lies between the second and third); orders-2: 400->380 exactly
SYNCS = {("orders", 1): [(100, 98), (200, 195), (300, 290)], ("orders", 2): [(0, 0), (400, 380)]}


def planned(the_spec=None):
    the_spec = the_spec or spec()
    entries = offsets.offsets_plan(the_spec, SPAN, CHECKPOINTS, COMMITTED)
    return the_spec, entries


def test_partitions_without_a_checkpoint_are_translated_from_the_offset_syncs():
    _, entries = planned()
    assert offsets.needs_translation(entries) == [("orders", 1), ("orders", 2)]
    by = dict(((e["group"], e["partition"]), e) for e in offsets.with_translation(entries, SYNCS))
    assert (by[("billing", 0)]["translation_source"], by[("billing", 0)]["downstream"]) == ("checkpoint", 290)
    # the agent's rule, not a second one: the newest sync at or before C gives d + 1 (u < C) or d (u == C)
    assert (by[("billing", 1)]["translation_source"], by[("billing", 1)]["downstream"]) == ("offset-sync", 196)
    assert (by[("billing", 1)]["sync_upstream"], by[("billing", 1)]["reread_at_most"]) == (200, 49)
    assert (by[("billing", 2)]["translation_source"], by[("billing", 2)]["downstream"]) == ("offset-sync", 380)
    assert by[("billing", 2)]["reread_at_most"] == 0
    for key in (("billing", 1), ("billing", 2)):
        row = translation.partition_row("orders", key[1], "primary.orders", COMMITTED[("billing", "orders", key[1])],
                                        None, SYNCS[("orders", key[1])])
        assert by[key]["downstream"] == row["downstream"] and row["source"] == translation.OFFSET_SYNC
    # committed before every sync of its partition: never guessed
    assert by[("late", 1)]["downstream"] is None and by[("late", 1)]["translation_source"] is None
    # a checkpoint is MM2's answer and stays, whatever the syncs say
    assert offsets.with_translation(entries, {("orders", 0): [(300, 999)]})[0]["downstream"] == 290


def test_the_report_counts_the_sync_translated_partitions_and_names_them():
    the_spec, entries = planned()
    entries = offsets.with_translation(entries, SYNCS)
    # what failover_counts (Spark) finds against each downstream offset
    counts = {("billing", "orders", 0): {"reread": 0, "skipped": 0, "first_reread": None, "first_skipped": None},
              ("billing", "orders", 1): {"reread": 49, "skipped": 0, "first_reread": 201, "first_skipped": None},
              ("billing", "orders", 2): {"reread": 0, "skipped": 0, "first_reread": None, "first_skipped": None}}
    section = offsets.offsets_section(the_spec, entries, counts)
    by = dict(((g["group"], g["partition"]), g) for g in section["groups"])
    assert [by[k]["status"] for k in sorted(by)] == ["EXACT", "REREADS", "EXACT", "NO_CHECKPOINT"]
    assert by[("billing", 1)]["reread"] == 49 and by[("billing", 1)]["skipped"] == 0
    assert (section["reread"], section["skipped"]) == (49, 0)
    assert section["from_offset_syncs"] == ["billing orders-1", "billing orders-2"]
    assert section["untranslated"] == ["late orders-1"]
    assert section["offset_syncs_location"] == "source" and section["offset_syncs_error"] is None
    # a skip found against a sync-translated offset fails the run like a checkpoint's
    counts[("billing", "orders", 2)] = {"reread": 0, "skipped": 3, "first_reread": None, "first_skipped": 400}
    section = offsets.offsets_section(the_spec, entries, counts)
    assert section["skipped"] == 3
    partition = {"topic": "orders", "target_topic": "primary.orders", "partition": 0, "target_outside_range": 0}
    partition.update(dict((k, 0) for k in job.COUNT_FIELDS))
    partition.update(source_records=1, target_records=1, matched=1, completeness=1.0, status="OK")
    flow = job.flow_report(the_spec, [partition], NOW, 0.1, section)
    assert flow["totals"]["offsets_skipped"] == 3 and flow["totals"]["offsets_reread"] == 49
    report = job.build_report([flow])
    assert report["totals"]["offsets_skipped"] == 3 and report["exit_code"] == job.EXIT_FAILED
    text = job.format_table(report)
    assert "Translated from the offset syncs" in text and "billing orders-1, billing orders-2" in text
    assert "No checkpoint and no offset sync" in text and "late orders-1" in text
    assert "offset-sync" in text and "196" in text


def test_unreadable_offset_syncs_leave_no_checkpoint_and_say_why():
    the_spec, entries = planned()
    section = offsets.offsets_section(the_spec, offsets.with_translation(entries, {}), {},
                                      syncs_error="could not read the offset syncs: not authorized")
    assert [g["status"] for g in section["groups"]].count("NO_CHECKPOINT") == 3
    assert section["from_offset_syncs"] == []
    text = "\n".join(job_report.format_offsets(section))
    assert "Offset syncs not read: could not read the offset syncs: not authorized" in text


# ---------------------------------------------------------------- where the offset-syncs topic is

def test_the_location_flows_from_the_cli_and_the_plan_into_the_spec():
    assert spec()["offset_syncs_location"] == "source"
    assert spec(offset_syncs_location="target")["offset_syncs_location"] == "target"
    with pytest.raises(job.BadInput) as err:
        spec(offset_syncs_location="both")
    assert "offset-syncs.topic.location" in str(err.value)
    args = job.parse_args(["--flow", "a->b", "--source-bootstrap", "a:9092", "--target-bootstrap", "b:9092",
                           "--offset-syncs-location", "target"])
    assert job.specs_from_args(args, NOW)[0]["offset_syncs_location"] == "target"
    args = job.parse_args(["--flow", "a->b", "--source-bootstrap", "a:9092", "--target-bootstrap", "b:9092"])
    assert job.specs_from_args(args, NOW)[0]["offset_syncs_location"] == "source"


def test_the_ambari_rendering_gives_each_flow_its_location():
    from test_plan import rendering
    for replication, expected in (({}, "source"), ({"offset-syncs.topic.location": "target"}, "target")):
        flows, clusters = plan.view_from_rendering(*rendering(replication))
        assert [f["offset_syncs_location"] for f in flows] == [expected, expected]
        entry = plan.job_plan(plan.verify_settings({}), flows, clusters)["flows"][0]
        assert job.normalize_spec(entry, NOW)["offset_syncs_location"] == expected
