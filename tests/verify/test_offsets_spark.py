"""The failover-offsets check in real Spark: partitions MM2 wrote no checkpoint for (Kafka 3.4.1-3.6.x) are
translated from the flow's offset-syncs topic (read with Spark like the checkpoints, on the side
offset-syncs.topic.location names, only the wanted partitions' keys) and counted against that downstream offset
exactly as a checkpoint's; the Kafka reads are replaced by DataFrames of Spark's Kafka schema."""
import datetime
import struct

from mm2_verify_job import inputs, job, offsets

NOW = 1714557600000
RECORDS = 100
SHIFT = 3   # each source record s is copied to target offset s + 3


def sync_record(topic, partition, upstream, downstream):
    name = topic.encode("utf-8")
    return (bytearray(struct.pack(">h", len(name)) + name + struct.pack(">i", partition)),
            bytearray(struct.pack(">qq", upstream, downstream)))


# orders-0: MM2's checkpoint; orders-1 and -2: none (the 3.4.1-3.6.x case), only offset syncs
CHECKPOINTS = {("billing", "orders", 0): (60, 60 + SHIFT)}
COMMITTED = {("billing", "orders", 0): 60, ("billing", "orders", 1): 50, ("billing", "orders", 2): 80,
             ("late", "orders", 2): 30}
SYNCS = [("orders", 1, 0, SHIFT), ("orders", 2, 80, 80 + SHIFT), ("orders", 1, 40, 40 + SHIFT),
         ("payments", 0, 10, 10), ("orders", 1, 70, 70 + SHIFT)]


def frames(spark):
    rows = [("orders", p, p * 1000 + o, 0, o) for p in range(3) for o in range(RECORDS)]
    source = spark.createDataFrame(rows, "topic string, partition int, fp1 long, fp2 long, offset long")
    target = spark.createDataFrame([(t, p, f1, f2, o + SHIFT) for t, p, f1, f2, o in rows],
                                   "topic string, partition int, fp1 long, fp2 long, offset long")
    span = dict((("orders", p), {"min_offset": 0, "max_offset": RECORDS - 1}) for p in range(3))
    return source, target, span


def test_partitions_without_a_checkpoint_are_counted_from_the_offset_syncs(spark, monkeypatch):
    reads = []
    stamp = datetime.datetime(2024, 5, 1)

    def read_kafka(spark_, options, where):
        reads.append(dict(options))
        records = [sync_record(*s) + ("mm2-offset-syncs.backup.internal", 0, n, stamp, 0, [])
                   for n, s in enumerate(SYNCS)]
        return spark_.createDataFrame(records, inputs.kafka_schema())

    monkeypatch.setattr(offsets, "read_checkpoints", lambda spark_, spec: dict(CHECKPOINTS))
    monkeypatch.setattr(offsets, "committed_offsets", lambda spark_, options, groups: dict(COMMITTED))
    monkeypatch.setattr(offsets, "read_kafka", read_kafka)
    spec = job.normalize_spec({"flow": "primary->backup", "offset_syncs_location": "target",
                               "source": {"options": {"bootstrap.servers": "a1:9092"}},
                               "target": {"options": {"bootstrap.servers": "b1:9092"}}}, NOW)
    source, target, span = frames(spark)
    section = offsets.check_failover_offsets(spark, spec, span, source, target)

    # read once, from the target (offset-syncs.topic.location=target), the flow's offset-syncs topic
    assert len(reads) == 1 and reads[0]["kafka.bootstrap.servers"] == "b1:9092"
    assert reads[0]["subscribePattern"] == offsets.offset_syncs_topic_pattern("backup", ".")
    by = dict(((g["group"], g["partition"]), g) for g in section["groups"])
    assert (by[("billing", 0)]["translation_source"], by[("billing", 0)]["status"]) == ("checkpoint", "EXACT")
    # orders-1: committed 50, newest sync at or before it 40 -> 43: starts at 44, re-reads 41..49, skips nothing
    one = by[("billing", 1)]
    assert (one["translation_source"], one["downstream"], one["status"]) == ("offset-sync", 44, "REREADS")
    assert (one["reread"], one["skipped"], one["first_reread"]) == (9, 0, 41) and one["reread_at_most"] == 9
    # orders-2: committed 80, a sync exactly there: exact
    two = by[("billing", 2)]
    assert (two["translation_source"], two["downstream"], two["reread"], two["skipped"]) == ("offset-sync", 83, 0, 0)
    # committed before every sync of orders-2: not translated, named
    assert by[("late", 2)]["status"] == "NO_CHECKPOINT" and by[("late", 2)]["translation_source"] is None
    assert section["from_offset_syncs"] == ["billing orders-1", "billing orders-2"]
    assert section["untranslated"] == ["late orders-2"]
    assert (section["reread"], section["skipped"]) == (9, 0)


def test_with_every_partition_checkpointed_the_offset_syncs_are_not_read(spark, monkeypatch):
    monkeypatch.setattr(offsets, "read_checkpoints",
                        lambda spark_, spec: dict(((g, t, p), (c, c + SHIFT)) for (g, t, p), c in COMMITTED.items()))
    monkeypatch.setattr(offsets, "committed_offsets", lambda spark_, options, groups: dict(COMMITTED))

    def no_read(*args):
        raise AssertionError("the offset syncs were read")
    monkeypatch.setattr(offsets, "read_kafka", no_read)
    spec = job.normalize_spec({"flow": "primary->backup", "source": {"options": {"bootstrap.servers": "a1:9092"}},
                               "target": {"options": {"bootstrap.servers": "b1:9092"}}}, NOW)
    source, target, span = frames(spark)
    section = offsets.check_failover_offsets(spark, spec, span, source, target)
    assert set(g["status"] for g in section["groups"]) == set(["EXACT"])
    assert set(g["translation_source"] for g in section["groups"]) == set(["checkpoint"])
