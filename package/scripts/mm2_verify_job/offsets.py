"""Failover offsets: MM2's checkpoints on the target against committed offsets on the source.

Per consumer group and partition: records a consumer failing over to the target would re-read
(before its committed offset, copied at or after the downstream offset) or skip (at or after it,
every copy before the downstream offset). The downstream offset is MM2's checkpoint, else (a
committed partition MM2 wrote no checkpoint for: Kafka 3.4.1-3.6.x, KAFKA-15905) the translation
from the offset syncs still in the flow's offset-syncs topic, by the agent's one rule
(mm2_core.dr.translation, as EXPORT_TRANSLATED_OFFSETS and the failover gate apply it).
"""
import binascii

from mm2_core.dr import cutover as dr_cutover
from mm2_core.dr import translation
from mm2_verify_job.spec import BadInput, java_quote, remote_topic, topic_matcher, upstream_topic
from mm2_verify_job.inputs import spark_functions, java_reason, kafka_read_options, read_kafka


# ---------------------------------------------------------------- failover offsets (checkpoints)

# MM2's default groups.exclude: consumer groups it never checkpoints.
MM2_DEFAULT_GROUPS_EXCLUDE = (r"console-consumer-.*", r"connect-.*", r"__.*")


def checkpoint_topic_pattern(source_alias, separator):
    """The checkpoints topic of source_alias on the target: A.checkpoints.internal, or with the
    policy separator inside the name (MM2 3.1+, KIP-690)."""
    names = set([source_alias + ".checkpoints.internal",
                 source_alias + separator + "checkpoints" + separator + "internal"])
    return "^(?:%s)\\z" % "|".join(java_quote(n) for n in sorted(names))


def offset_syncs_topic_pattern(target_alias, separator):
    """The offset-syncs topic of flows into target_alias (mm2_core.dr.cutover.offset_syncs_topic):
    mm2-offset-syncs.B.internal, or with the policy separator inside the name (MM2 3.1+, KIP-690)."""
    names = set(dr_cutover.offset_syncs_topic(target_alias, sep) for sep in (".", separator))
    return "^(?:%s)\\z" % "|".join(java_quote(n) for n in sorted(names))


def offsets_wanted(spec):
    """Whether this flow checks failover offsets: needs both sides in Kafka."""
    both_kafka = spec["source"]["kind"] == "kafka" and spec["target"]["kind"] == "kafka"
    if spec["check_offsets"] == "yes" and not both_kafka:
        raise BadInput("--check-offsets yes needs both sides in Kafka (the committed offsets and MM2's "
                       "checkpoints live there)")
    return both_kafka and spec["check_offsets"] != "no"


def read_checkpoints(spark, spec):
    """{(group, source topic, partition): (upstream, downstream)}: the last checkpoint per key of
    the flow's checkpoints topic on the target (compacted on that key)."""
    from mm2_core.kafkatools import records as kafka_records
    F = spark_functions()
    options = kafka_read_options(spec["target"]["options"],
                                 pattern=checkpoint_topic_pattern(spec["source_alias"], spec["separator"]),
                                 spark_version=spark.version)
    frame = read_kafka(spark, options, "target checkpoints")
    rows = frame.groupBy("key").agg(F.max(F.struct("offset", "value")).alias("last")).select(
        "key", F.col("last.value").alias("value")).collect()
    result = {}
    for row in rows:
        if row["key"] is None or row["value"] is None:
            continue
        try:
            cp = kafka_records.decode_checkpoint(bytes(row["key"]), bytes(row["value"]))
        except ValueError:
            continue
        # A checkpoint names the mirrored (target) partition; the report keys on the source topic.
        topic = upstream_topic(spec["source_alias"], cp.topic, spec["policy"], spec["separator"])
        if topic is not None:
            result[(cp.group, topic, cp.partition)] = (cp.upstream, cp.downstream)
    return result


def sync_key_hex(topic, partition):
    """The offset-syncs key of one source partition as Spark's hex() spells it (upper case)."""
    from mm2_core.kafkatools import records as kafka_records
    return binascii.hexlify(kafka_records.offset_sync_key(topic, partition)).decode("ascii").upper()


def read_offset_syncs(spark, spec, partitions):
    """{(source topic, partition): [(upstream, downstream), ...]} in read order (newest last): the offset syncs
    of these source partitions in the flow's offset-syncs topic, on the source (MM2's default) or on the target
    (offset-syncs.topic.location=target). Only their records reach the driver (filtered on the key)."""
    from mm2_core.kafkatools import records as kafka_records
    if not partitions:
        return {}
    F = spark_functions()
    side = spec[spec["offset_syncs_location"]]
    options = kafka_read_options(side["options"],
                                 pattern=offset_syncs_topic_pattern(spec["target_alias"], spec["separator"]),
                                 spark_version=spark.version)
    frame = read_kafka(spark, options, "%s offset syncs" % spec["offset_syncs_location"])
    wanted = sorted(set(sync_key_hex(t, p) for t, p in partitions))
    rows = frame.where(F.hex(F.col("key")).isin(wanted)).select(
        "topic", "partition", "offset", "key", "value").orderBy("topic", "partition", "offset").collect()
    return kafka_records.offset_syncs_of((bytes(r["key"]), bytes(r["value"])) for r in rows
                                         if r["key"] is not None and r["value"] is not None)


def committed_offsets(spark, options, groups):
    """{(group, topic, partition): committed offset} on a cluster, through the Kafka admin client
    of the connector's kafka-clients (the driver's JVM)."""
    jvm = spark.sparkContext._jvm
    props = jvm.java.util.Properties()
    for key, value in options.items():
        props.setProperty(key, value)
    props.setProperty("default.api.timeout.ms", "30000")
    admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
    try:
        if groups is None:
            groups = [str(g.groupId()) for g in admin.listConsumerGroups().all().get().toArray()]
        result = {}
        for group in groups:
            offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
            for tp in offsets.keySet().toArray():
                meta = offsets.get(tp)
                if meta is not None:
                    result[(group, str(tp.topic()), int(tp.partition()))] = int(meta.offset())
        return result
    finally:
        admin.close()


def offsets_plan(spec, span, checkpoints, committed):
    """[entry] per (group, topic, partition) of the verified topics: the source's committed offset
    and MM2's checkpoint for it (either may be absent)."""
    groups_ok = topic_matcher([".*"], list(MM2_DEFAULT_GROUPS_EXCLUDE))
    verified = set(t for t, _ in span)
    keys = set(k for k in checkpoints if k[1] in verified) | set(
        k for k in committed if k[1] in verified and groups_ok(k[0]))
    entries = []
    for group, topic, partition in sorted(keys):
        upstream, downstream = checkpoints.get((group, topic, partition), (None, None))
        stats = span.get((topic, partition))
        entries.append({"group": group, "topic": topic, "partition": partition,
                        "target_topic": remote_topic(spec["source_alias"], topic, spec["policy"], spec["separator"]),
                        "committed": committed.get((group, topic, partition)),
                        "checkpoint_upstream": upstream, "checkpoint_downstream": downstream,
                        # where a failed-over consumer starts, and what says so (with_translation)
                        "downstream": downstream,
                        "translation_source": None if downstream is None else translation.CHECKPOINT,
                        "sync_upstream": None, "reread_at_most": None,
                        "in_range": bool(stats) and committed.get((group, topic, partition)) is not None and
                        stats["min_offset"] <= committed[(group, topic, partition)] <= stats["max_offset"] + 1})
    return entries


def needs_translation(entries):
    """[(source topic, partition)] of the entries with a committed offset but no downstream offset yet."""
    return sorted(set((e["topic"], e["partition"]) for e in entries
                      if e["downstream"] is None and e["committed"] is not None))


def with_translation(entries, syncs):
    """The entries, each committed one without a checkpoint translated from the offset syncs ({(source topic,
    partition): [(u, d), ...]}, read order) by mm2_core.dr.translation.partition_row, the rule of the agent's
    EXPORT_TRANSLATED_OFFSETS and failover gate: the newest sync with u <= C gives d (u == C) or d + 1, re-reading
    at most C - u - 1 records and skipping none. No such sync: the entry keeps no downstream offset (NO_CHECKPOINT)."""
    out = []
    for e in entries:
        e = dict(e)
        if e["downstream"] is None and e["committed"] is not None:
            row = translation.partition_row(e["topic"], e["partition"], e["target_topic"], e["committed"], None,
                                            (syncs or {}).get((e["topic"], e["partition"])))
            if row["source"] == translation.OFFSET_SYNC:
                e.update(downstream=row["downstream"], translation_source=translation.OFFSET_SYNC,
                         sync_upstream=row["upstream"], reread_at_most=row["records"])
        out.append(e)
    return out


def failover_counts(spark, source, target, entries):
    """{(group, topic, partition): counts}: where a consumer failing over to the target would
    start (the downstream offset D: MM2's checkpoint or the offset-sync translation) against where
    it stopped on the source (the committed offset C).  Re-read: records before C with a copy at
    or after D.  Skipped: records at or after C whose every copy lies before D (never seen after
    failover)."""
    checked = [e for e in entries if e["in_range"] and e["downstream"] is not None]
    if not checked:
        return {}
    F = spark_functions()
    from pyspark.sql import types as T
    schema = T.StructType([T.StructField("group", T.StringType()), T.StructField("topic", T.StringType()),
                           T.StructField("partition", T.IntegerType()), T.StructField("c", T.LongType()),
                           T.StructField("d", T.LongType())])
    points = spark.createDataFrame([(e["group"], e["topic"], e["partition"], e["committed"],
                                     e["downstream"]) for e in checked], schema)
    wanted = points.select("topic", "partition").distinct()
    src = source.join(F.broadcast(wanted), ["topic", "partition"]).select(
        "topic", "partition", "fp1", "fp2", F.col("offset").alias("s_off"))
    tgt = target.join(F.broadcast(wanted), ["topic", "partition"]).select(
        "topic", "partition", "fp1", "fp2", F.col("offset").alias("t_off"))
    copies = src.join(tgt, ["topic", "partition", "fp1", "fp2"]).groupBy("topic", "partition", "s_off").agg(
        F.max("t_off").alias("t_max"))
    both = copies.join(F.broadcast(points), ["topic", "partition"])
    reread = (F.col("s_off") < F.col("c")) & (F.col("t_max") >= F.col("d"))
    skipped = (F.col("s_off") >= F.col("c")) & (F.col("t_max") < F.col("d"))
    rows = both.groupBy("group", "topic", "partition").agg(
        F.sum(F.when(reread, 1).otherwise(0)).alias("reread"),
        F.sum(F.when(skipped, 1).otherwise(0)).alias("skipped"),
        F.min(F.when(reread, F.col("s_off"))).alias("first_reread"),
        F.min(F.when(skipped, F.col("s_off"))).alias("first_skipped")).collect()
    result = dict(((r["group"], r["topic"], r["partition"]), r.asDict()) for r in rows)
    for e in checked:  # no copy on either side of the points: nothing re-read or skipped
        result.setdefault((e["group"], e["topic"], e["partition"]),
                          {"reread": 0, "skipped": 0, "first_reread": None, "first_skipped": None})
    return result


def offsets_section(spec, entries, counts, error=None, syncs_error=None):
    """The report's "offsets" part of a flow. syncs_error: why the offset syncs could not be read (the
    partitions without a checkpoint then stay NO_CHECKPOINT)."""
    groups = []
    for e in entries:
        found = counts.get((e["group"], e["topic"], e["partition"]))
        entry = dict(e)
        if e["downstream"] is None:
            entry.update(status="NO_CHECKPOINT", reread=None, skipped=None)
        elif e["committed"] is None:
            entry.update(status="NO_COMMITTED_OFFSET", reread=None, skipped=None)
        elif not found:
            entry.update(status="OUTSIDE_RANGE", reread=None, skipped=None)
        else:
            entry.update(reread=int(found["reread"]), skipped=int(found["skipped"]),
                         first_reread=found["first_reread"], first_skipped=found["first_skipped"])
            entry["status"] = "SKIPS" if entry["skipped"] else "REREADS" if entry["reread"] else "EXACT"
        entry.pop("in_range", None)
        groups.append(entry)
    named = lambda rows: ["%s %s-%d" % (g["group"], g["topic"], g["partition"]) for g in rows]  # noqa: E731
    return {"checked": error is None, "error": error,
            "checkpoints_topic": checkpoint_topic_pattern(spec["source_alias"], spec["separator"]),
            "offset_syncs_topic": offset_syncs_topic_pattern(spec["target_alias"], spec["separator"]),
            "offset_syncs_location": spec["offset_syncs_location"],
            "offset_syncs_error": syncs_error,
            "groups": groups,
            "from_offset_syncs": named(g for g in groups if g["translation_source"] == translation.OFFSET_SYNC),
            "untranslated": named(g for g in groups if g["status"] == "NO_CHECKPOINT"),
            "reread": sum(g["reread"] or 0 for g in groups),
            "skipped": sum(g["skipped"] or 0 for g in groups)}


def check_failover_offsets(spark, spec, span, source, target):
    """The offsets section of a Kafka-to-Kafka flow (checkpoints vs committed offsets)."""
    try:
        checkpoints = read_checkpoints(spark, spec)
        committed = committed_offsets(spark, spec["source"]["options"], None)
    except BadInput:
        raise
    except Exception as exc:  # the data comparison stands; say why the offsets could not be read
        return offsets_section(spec, [], {}, "could not read checkpoints or committed offsets: %s" % java_reason(exc))
    entries = offsets_plan(spec, span, checkpoints, committed)
    syncs, syncs_error = {}, None
    wanted = needs_translation(entries)
    if wanted:   # committed partitions MM2 wrote no checkpoint for (Kafka 3.4.1-3.6.x): the offset syncs
        try:
            syncs = read_offset_syncs(spark, spec, wanted)
        except BadInput:
            raise
        except Exception as exc:  # the checkpoints stand; those partitions stay NO_CHECKPOINT, saying why
            syncs_error = "could not read the offset syncs (%s): %s" % (
                offset_syncs_topic_pattern(spec["target_alias"], spec["separator"]), java_reason(exc))
    entries = with_translation(entries, syncs)
    return offsets_section(spec, entries, failover_counts(spark, source, target, entries), syncs_error=syncs_error)
