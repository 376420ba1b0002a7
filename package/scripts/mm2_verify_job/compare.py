"""The comparison itself: narrow projections, the one shuffle, per-partition counts.

Only per-partition aggregates ever reach the driver.  verify_flow runs one flow and returns its
report section; the input checks that need the data (repeated offsets, a target without the
mirrored topics) live here because they read the same aggregates.
"""
import time

from mm2_verify_job.spec import (
    BadInput, KAFKA_COLUMNS, format_ms, java_topic_pattern, remote_topic, source_excludes,
    topic_matcher, upstream_topic)
from mm2_verify_job.inputs import spark_functions, kafka_read_options, read_dump, read_kafka
from mm2_verify_job.offsets import check_failover_offsets, offsets_wanted
from mm2_verify_job.report import COUNT_FIELDS, completeness, flow_report, status_of


def fingerprint(F, columns):
    """Two hash columns (about 96 independent bits) over the content columns.

    Nulls are hashed as "skip" by Spark, so callers pass null flags next to nullable columns.
    """
    if hasattr(F, "xxhash64"):  # Spark 3.0+
        return F.xxhash64(*columns), F.hash(*columns)
    # Spark 2.x: murmur3 only; salts first so the hashes are independent.
    high = F.hash(F.lit("mm2-verify-a"), *columns).cast("long")
    low = F.hash(F.lit("mm2-verify-b"), *columns).cast("long")
    return F.shiftLeft(high, 32).bitwiseOR(low.bitwiseAND(F.lit(0xFFFFFFFF))), F.hash(F.lit("mm2-verify-c"), *columns)


def narrow(frame, spec, topic_expr):
    """The few columns the comparison needs: topic (source name), partition, offset, ts_ms,
    fp1/fp2 (content fingerprint) and kh (key hash)."""
    F = spark_functions()
    names = set(f.name for f in frame.schema.fields)
    timestamp_type = dict((f.name, f.dataType.simpleString()) for f in frame.schema.fields)["timestamp"]
    if timestamp_type == "bigint":
        ts_ms = F.col("timestamp")
    else:  # micros as double, rounded to the millisecond Kafka stores
        ts_ms = F.round(F.col("timestamp").cast("double") * 1000).cast("long")
    key, value = F.col("key"), F.col("value")
    # A side without a headers column compares like records without headers.
    headers = F.col("headers") if "headers" in names else F.lit(None).cast(dict(KAFKA_COLUMNS)["headers"])
    parts = []
    if "key" in spec["match_on"]:
        parts += [key, F.isnull(key)]
    if "value" in spec["match_on"]:
        parts += [value, F.isnull(value)]
    if "headers" in spec["match_on"]:
        # Spark's Kafka source gives null for "no headers"; a dump may hold an empty array.
        parts += [F.when(F.size(headers) > 0, headers), F.coalesce(F.when(F.size(headers) > 0, F.size(headers)), F.lit(0))]
    if "timestamp" in spec["match_on"]:
        parts += [ts_ms]
    fp1, fp2 = fingerprint(F, parts)
    kh = fingerprint(F, [key, F.isnull(key)])[0]
    return frame.select(topic_expr.alias("topic"), F.col("partition"), F.col("offset"),
                        ts_ms.alias("ts_ms"), fp1.alias("fp1"), fp2.alias("fp2"), kh.alias("kh"))


def select_source(spark, spec):
    """Narrow source records in the range.  Kafka reads only the flow's topics; for a dump the
    caller picks the topics from the span (one cheap job instead of a separate topic scan)."""
    F = spark_functions()
    src = spec["source"]
    if src["kind"] == "kafka":
        if spec["mode"] == "offsets":
            assign = dict((t, list(p)) for t, p in spec["starting_offsets"].items())
            options = kafka_read_options(src["options"], assign=assign, starting=spec["starting_offsets"],
                                         ending=spec["ending_offsets"], spark_version=spark.version)
        else:
            options = kafka_read_options(src["options"], pattern=java_topic_pattern(spec["topics"], _excludes(spec)),
                                         start_ms=spec["since_ms"], end_ms=spec["until_ms"],
                                         spark_version=spark.version)
        frame = read_kafka(spark, options, "source")
    else:
        frame = read_dump(spark, src, "source")
    if spec["mode"] == "offsets":
        frame = frame.where(_offset_condition(F, spec["starting_offsets"], spec["ending_offsets"]))
    out = narrow(frame, spec, F.col("topic"))
    if spec["mode"] == "time":
        out = out.where(_time_condition(F, spec))
    return out


def _excludes(spec):
    return source_excludes(spec["topics_exclude"], spec["target_alias"], spec["policy"], spec["separator"])


def wanted_topics(spec):
    """Predicate on source topic names: the flow's topics (or the offset range's)."""
    if spec["mode"] == "offsets":
        return set(spec["starting_offsets"]).__contains__
    return topic_matcher(spec["topics"], _excludes(spec))


def _offset_condition(F, starting, ending):
    """Rows of the listed partitions within [start, end) (-2 earliest / -1 latest = open)."""
    condition = F.lit(False)
    for topic in sorted(starting):
        for partition in sorted(starting[topic]):
            term = (F.col("topic") == topic) & (F.col("partition") == partition)
            start, end = starting[topic][partition], ending[topic].get(partition, -1)
            if start >= 0:
                term = term & (F.col("offset") >= start)
            if end >= 0:
                term = term & (F.col("offset") < end)
            condition = condition | term
    return condition


def _time_condition(F, spec):
    condition = F.lit(True)
    if spec["since_ms"] is not None:
        condition = condition & (F.col("ts_ms") >= spec["since_ms"])
    if spec["until_ms"] is not None:
        condition = condition & (F.col("ts_ms") < spec["until_ms"])
    return condition


def select_target(spark, spec, source_topics, span):
    """Narrow target records of the mirrored topics, renamed back to their source topic."""
    F = spark_functions()
    tgt = spec["target"]
    prefix = "" if spec["policy"] == "identity" else spec["source_alias"] + spec["separator"]
    if tgt["kind"] == "kafka":
        start_ms = end_ms = None
        if spec["mode"] == "time":
            start_ms = spec["since_ms"] - spec["target_slack_ms"] if spec["since_ms"] is not None else None
            end_ms = spec["until_ms"] + spec["target_slack_ms"] if spec["until_ms"] is not None else None
        elif span and "timestamp" in spec["match_on"]:
            start_ms = min(s["min_ts"] for s in span.values()) - spec["target_slack_ms"]
            end_ms = max(s["max_ts"] for s in span.values()) + spec["target_slack_ms"] + 1
        if spec["mode"] == "offsets":
            assign = dict((remote_topic(spec["source_alias"], t, spec["policy"], spec["separator"]), list(p))
                          for t, p in spec["starting_offsets"].items())
            options = kafka_read_options(tgt["options"], assign=assign, start_ms=start_ms, end_ms=end_ms,
                                         spark_version=spark.version)
        else:
            options = kafka_read_options(tgt["options"], pattern=java_topic_pattern(spec["topics"], _excludes(spec), prefix),
                                         start_ms=start_ms, end_ms=end_ms, spark_version=spark.version)
        frame = read_kafka(spark, options, "target")
    else:
        frame = read_dump(spark, tgt, "target")
        if span:  # one cheap distinct over the topic column
            present = sorted(r[0] for r in frame.select("topic").distinct().collect() if r[0] is not None)
            check_target_topics(spec, sorted(set(t for t, _ in span)), present)
    if source_topics is not None:
        mirrored = [remote_topic(spec["source_alias"], t, spec["policy"], spec["separator"]) for t in source_topics]
        frame = frame.where(F.col("topic").isin(mirrored))
    elif tgt["kind"] != "kafka":  # Kafka source, dump target: keep the dump's mirrors of wanted topics
        wanted = wanted_topics(spec)
        mirrored = []
        for (name,) in frame.select("topic").distinct().collect():
            upstream = upstream_topic(spec["source_alias"], name, spec["policy"], spec["separator"])
            if upstream is not None and wanted(upstream):
                mirrored.append(name)
        frame = frame.where(F.col("topic").isin(mirrored))
    if prefix:
        upstream = F.expr("substring(topic, %d)" % (len(prefix) + 1))
    else:
        upstream = F.col("topic")
    return narrow(frame, spec, upstream)


def compute_span(source):
    """{(topic, partition): {records, min/max offset, min/max ts}} of the source range."""
    F = spark_functions()
    rows = source.groupBy("topic", "partition").agg(
        F.count(F.lit(1)).alias("records"), F.min("offset").alias("min_offset"),
        F.max("offset").alias("max_offset"), F.min("ts_ms").alias("min_ts"),
        F.max("ts_ms").alias("max_ts")).collect()
    return dict(((r["topic"], r["partition"]), r.asDict()) for r in rows)


def flag_target_range(spark, spec, target, span):
    """Target records with in_range: whether they belong to the compared range.

    Time ranges apply as given.  Otherwise the range of each target partition is the source
    partition's timestamp span: a mirrored copy has its source record's timestamp, so nothing
    outside it can match, and it keeps target records newer than the source read out of "extra".
    Records outside are only counted (target_outside_range).
    """
    F = spark_functions()
    if spec["mode"] == "time":
        return target.withColumn("in_range", _time_condition(F, spec)).withColumn("edge", F.lit(False))
    if "timestamp" not in spec["match_on"]:  # e.g. LogAppendTime on the target
        return target.withColumn("in_range", F.lit(True)).withColumn("edge", F.lit(False))
    from pyspark.sql import types as T
    schema = T.StructType([T.StructField("topic", T.StringType()), T.StructField("partition", T.IntegerType()),
                           T.StructField("lo", T.LongType()), T.StructField("hi", T.LongType())])
    bounds = spark.createDataFrame([(t, p, s["min_ts"], s["max_ts"]) for (t, p), s in sorted(span.items())], schema)
    # On the span's first and last millisecond the target also holds copies of source records
    # just outside the offset range: unmatched ones there are outside the range, not "extra".
    return target.join(F.broadcast(bounds), ["topic", "partition"], "left").withColumn(
        "in_range", F.coalesce((F.col("ts_ms") >= F.col("lo")) & (F.col("ts_ms") <= F.col("hi")), F.lit(False))
    ).withColumn("edge", F.coalesce((F.col("ts_ms") == F.col("lo")) | (F.col("ts_ms") == F.col("hi")), F.lit(False)))


def tail_flag(spark, spec, source, span, tail_end_ms):
    """Source rows inside the pending window: the last pending_window_ms before the range end
    (timestamp) or the last pending_records offsets of the partition."""
    F = spark_functions()
    flag = F.lit(False)
    if spec["pending_window_ms"] > 0 and tail_end_ms is not None:
        flag = F.col("ts_ms") >= F.lit(tail_end_ms - spec["pending_window_ms"])
    if spec["pending_records"] > 0 and span:
        from pyspark.sql import types as T
        schema = T.StructType([T.StructField("topic", T.StringType()), T.StructField("partition", T.IntegerType()),
                               T.StructField("tail_from", T.LongType())])
        tails = spark.createDataFrame(
            [(t, p, s["max_offset"] + 1 - spec["pending_records"]) for (t, p), s in span.items()], schema)
        source = source.join(F.broadcast(tails), ["topic", "partition"], "left")
        flag = flag | (F.col("offset") >= F.col("tail_from"))
    return source.withColumn("tail", flag)


ROWS_PER_SHUFFLE_PARTITION = 1000000  # narrow rows (~70 bytes): a task's share stays small


def shuffle_partitions(spark, span):
    """spark.sql.shuffle.partitions when set explicitly, else sized from the source records
    (both sides, ~1M narrow rows per task) but never below the default parallelism.  The
    default 200 costs more in task overhead than it gains on small ranges and small clusters."""
    conf = spark.sparkContext.getConf()
    if conf.contains("spark.sql.shuffle.partitions"):
        return int(conf.get("spark.sql.shuffle.partitions"))
    rows = 2 * sum(s["records"] for s in span.values())
    return max(spark.sparkContext.defaultParallelism, -(-rows // ROWS_PER_SHUFFLE_PARTITION))


def partition_stats(source, target, partitions=None):
    """One row per (topic, partition) with every count.  The only wide dependency on the
    records is one shuffle by (topic, partition), one task per Kafka partition as in MM2
    itself: the content aggregation, the per-key order window, the partition's replicated
    range and the totals all run on that partitioning without another exchange.  (Shuffling
    by key hash too spread a hot partition, but the replicated range then needed a second
    pass over the content groups: about 20% slower on the benchmark.)  Only per-partition rows
    reach the driver."""
    from pyspark.sql import Window
    F = spark_functions()
    columns = ["topic", "partition", "kh", "fp1", "fp2", "offset", "tail", "in_range", "edge", "is_src"]
    both = source.withColumn("is_src", F.lit(1)).withColumn("in_range", F.lit(True)).withColumn(
        "edge", F.lit(False)).select(*columns).unionByName(
        target.withColumn("tail", F.lit(False)).withColumn("is_src", F.lit(0)).select(*columns))
    is_src = F.col("is_src") == 1
    is_tgt = (F.col("is_src") == 0) & F.col("in_range")
    by_partition = (F.col("topic"), F.col("partition"))
    spread = both.repartition(partitions, *by_partition) if partitions else both.repartition(*by_partition)
    groups = spread.groupBy("topic", "partition", "kh", "fp1", "fp2").agg(
        F.sum("is_src").alias("s"),
        F.sum(F.when(is_tgt, 1).otherwise(0)).alias("t"),
        F.sum(F.when(~is_src & ~F.col("in_range"), 1).otherwise(0)).alias("t_out_seen"),
        F.sum(F.when(is_tgt & F.col("edge"), 1).otherwise(0)).alias("t_edge"),
        F.sum(F.when(is_src & F.col("tail"), 1).otherwise(0)).alias("s_tail"),
        F.min(F.when(is_src, F.col("offset"))).alias("s_first"),
        F.max(F.when(is_src, F.col("offset"))).alias("s_last"),
        F.min(F.when(is_tgt, F.col("offset"))).alias("t_first"),
        F.max(F.when(is_tgt, F.col("offset"))).alias("t_last"))
    # Unmatched target records on the range's edge milliseconds lie outside the range.
    foreign_edge = F.when(F.col("s") == 0, F.col("t_edge")).otherwise(0)
    groups = groups.withColumn("t", F.col("t") - foreign_edge).withColumn("t_out", F.col("t_out_seen") + foreign_edge)
    s, t = F.col("s"), F.col("t")
    # The last source offset of the partition already on the target.  MM2 copies a partition
    # in order, so an unmatched record before it is lost, not in flight.  (A content repeated
    # in the source and only partly copied counts from its first copy: never later than true.)
    groups = groups.withColumn("matched_last", F.when((s > 0) & (t >= s), F.col("s_last")).when(
        (s > 0) & (t > 0), F.col("s_first")))
    matched = (s > 0) & (t > 0)
    earlier = Window.partitionBy("topic", "partition", "kh").orderBy("s_first").rowsBetween(
        Window.unboundedPreceding, -1)
    # Computed before the partition-wide window: its sort by (topic, partition, kh, s_first)
    # also serves the replicated range, so the groups are sorted once.
    groups = groups.withColumn("overtaken", matched & (
        F.col("t_first") < F.max(F.when(matched, F.col("t_first"))).over(earlier)))
    groups = groups.withColumn("replicated_to", F.max("matched_last").over(Window.partitionBy("topic", "partition")))
    deficit = F.greatest(s - t, F.lit(0))
    # The unmatched copies are the last `deficit` in source order: in flight only when they lie
    # after the replicated range and inside the pending window (a suffix of the partition).
    beyond = F.col("replicated_to").isNull() | (F.col("s_last") > F.col("replicated_to"))
    pending = F.when(beyond, F.least(deficit, F.col("s_tail"))).otherwise(0)
    # A dump written twice holds the same offset twice: the same content with fewer distinct
    # offsets than copies (pigeonhole on min/max, exact for the usual two copies).
    repeated = lambda n, lo, hi: (n >= 2) & ((F.col(hi) - F.col(lo) + 1) < n)  # noqa: E731
    per_group = groups.select(
        "topic", "partition", "kh", "s", "t", "t_out", "t_first", "t_last", "replicated_to",
        F.least(s, t).alias("matched"),
        (deficit - pending).alias("missing"),
        pending.alias("pending"),
        F.when(s > 0, F.greatest(t - s, F.lit(0))).otherwise(0).alias("duplicates"),
        F.when(s == 0, t).otherwise(0).alias("extra"),
        F.coalesce(F.col("overtaken"), F.lit(False)).alias("overtaken"),
        F.when(repeated(s, "s_first", "s_last"), F.col("s_first")).alias("src_repeat"),
        F.when(repeated(t, "t_first", "t_last"), F.col("t_first")).alias("tgt_repeat"))
    return per_group.groupBy("topic", "partition").agg(
        F.sum("s").alias("source_records"),
        F.sum("t").alias("target_records"),
        F.sum("t_out").alias("target_outside_range"),
        F.sum("matched").alias("matched"),
        F.sum("missing").alias("missing"),
        F.sum("pending").alias("pending"),
        F.sum("duplicates").alias("duplicates"),
        F.sum("extra").alias("extra"),
        F.sum(F.col("overtaken").cast("long")).alias("order_violations"),
        F.countDistinct(F.when(F.col("overtaken"), F.col("kh"))).alias("keys_out_of_order"),
        F.min("t_first").alias("target_min_offset"),
        F.max("t_last").alias("target_max_offset"),
        F.max("replicated_to").alias("replicated_to"),
        F.min("src_repeat").alias("source_repeated_offset"),
        F.min("tgt_repeat").alias("target_repeated_offset"))


def verify_flow(spark, spec):
    """Run one flow's comparison; returns its report section (a dict)."""
    F = spark_functions()
    started = time.time()
    source = select_source(spark, spec)
    cached = []
    if spec["source"]["kind"] == "kafka":  # read Kafka once; dumps are cheaper to re-read
        source = source.persist()
        cached.append(source)
    try:
        span = compute_span(source)
        if spec["source"]["kind"] != "kafka":
            wanted = wanted_topics(spec)
            topics = sorted(set(t for t, _ in span if wanted(t)))
            span = dict((k, v) for k, v in span.items() if k[0] in topics)
            source = source.where(F.col("topic").isin(topics))
        else:
            topics = None
        if not span and not spec["allow_empty"]:
            raise BadInput("nothing to verify: no source records of topics %s (excluding %s) in the range "
                           "for flow %s; check --topics and the range, or pass --allow-empty"
                           % (",".join(spec["topics"]), ",".join(spec["topics_exclude"]) or "-", spec["flow"]))
        check_span_offsets(spec, span)
        if not span and spec["mode"] != "time":
            # Nothing to compare against: the range has no source records and no time bounds,
            # so reading the target would only count records outside it.
            return flow_report(spec, [], None, time.time() - started)
        target = select_target(spark, spec, topics, span)
        if spec["target"]["kind"] == "kafka":
            target = target.persist()
            cached.append(target)
        target = flag_target_range(spark, spec, target, span)
        if spec["mode"] == "time" and spec["until_ms"] is not None:
            tail_end_ms = spec["until_ms"]
        else:
            tail_end_ms = max(s["max_ts"] for s in span.values()) + 1 if span else None
        offsets = None
        if offsets_wanted(spec) and span:
            offsets = check_failover_offsets(spark, spec, span, source, target)
        source = tail_flag(spark, spec, source, span, tail_end_ms)
        rows = partition_stats(source, target, shuffle_partitions(spark, span)).collect()
    finally:
        for frame in cached:
            frame.unpersist()
    check_repeated_offsets(spec, rows)
    if spec["target"]["kind"] == "kafka" and span and not any(
            (r["target_records"] or r["target_outside_range"]) for r in rows):
        check_target_topics(spec, sorted(set(t for t, _ in span)), kafka_topic_names(spark, spec["target"]))
    partitions = merge_partitions(spec, span, rows)
    return flow_report(spec, partitions, tail_end_ms, time.time() - started, offsets)


def check_span_offsets(spec, span):
    """More records than distinct offsets in a source partition: the dump holds some twice."""
    for (topic, partition), stats in sorted(span.items()):
        if stats["records"] > stats["max_offset"] - stats["min_offset"] + 1:
            raise BadInput(
                "source: %s[%d] has %d records for the %d offsets %d..%d: the same offsets are in the input "
                "more than once (a dump directory written twice?). Keep one copy of each record."
                % (topic, partition, stats["records"], stats["max_offset"] - stats["min_offset"] + 1,
                   stats["min_offset"], stats["max_offset"]))


def check_repeated_offsets(spec, rows):
    """The same record at the same offset twice, on either side: the input repeats itself."""
    for row in rows:
        for side, column in (("source", "source_repeated_offset"), ("target", "target_repeated_offset")):
            offset = row[column]
            if offset is not None:
                topic = row["topic"] if side == "source" else remote_topic(
                    spec["source_alias"], row["topic"], spec["policy"], spec["separator"])
                raise BadInput(
                    "%s: offset %d of %s[%d] is in the input more than once (a dump directory written "
                    "twice?). Keep one copy of each record." % (side, offset, topic, row["partition"]))


def kafka_topic_names(spark, input_spec):
    """The topic names of a Kafka cluster through the Kafka client on the driver (None when
    the client is not reachable from Python): only used to explain an empty target."""
    try:
        jvm = spark.sparkContext._jvm
        props = jvm.java.util.Properties()
        for key, value in input_spec["options"].items():
            props.setProperty(key, value)
        props.setProperty("request.timeout.ms", "15000")
        props.setProperty("default.api.timeout.ms", "20000")
        admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
        try:
            return sorted(str(t) for t in admin.listTopics().names().get())
        finally:
            admin.close()
    except Exception:
        return None


def check_target_topics(spec, source_topics, present):
    """Exit 2 when the target has none of the mirrored topics the flow should have made:
    a wrong alias, swapped inputs or a wrong policy, not a total loss.  Names what it looked
    for, what is there, and the likely fix."""
    expected = [remote_topic(spec["source_alias"], t, spec["policy"], spec["separator"]) for t in source_topics]
    if present is not None and set(expected) & set(present):
        return
    if present is None:
        return  # cannot tell a wrong name from an empty topic: the counts speak
    hints = []
    sep = spec["separator"]
    prefix = spec["source_alias"] + sep
    if source_topics and all(t.startswith(prefix) for t in source_topics) and \
            set(t[len(prefix):] for t in source_topics) & set(present):
        hints.append("the source holds the mirrored names and the target the originals: are the source "
                     "and target inputs swapped?")
    aliases = sorted(set(p[:-len(sep + t)] for p in present for t in source_topics
                         if p.endswith(sep + t) and len(p) > len(sep + t)))
    if aliases:
        hints.append("the target mirrors these topics from %s: is the source alias in --flow %s?"
                     % (" or ".join(aliases), " or ".join("'%s->%s'" % (a, spec["target_alias"]) for a in aliases)))
    if spec["policy"] == "prefixed" and set(source_topics) & set(present):
        hints.append("the target has them under their own names: use --policy identity")
    shown = present[:20] + (["..."] if len(present) > 20 else [])
    raise BadInput("flow %s: the target has none of the topics it should mirror: looked for %s "
                   "(policy %s, separator '%s'); the target has %s. %s" % (
                       spec["flow"], ", ".join(expected[:20]) + (", ..." if len(expected) > 20 else ""),
                       spec["policy"], sep, ", ".join(shown) or "no topics",
                       " ".join(hints) or "Check the aliases in --flow, --policy and --separator."))


def merge_partitions(spec, span, rows):
    by_key = {}
    for row in rows:
        by_key[(row["topic"], row["partition"])] = row.asDict()
    keys = set(span) | set(by_key)
    result = []
    for topic, partition in sorted(keys):
        stats = dict((k, 0) for k in COUNT_FIELDS)
        stats.update(dict((k, v) for k, v in by_key.get((topic, partition), {}).items()
                          if k in COUNT_FIELDS and v is not None))
        src = span.get((topic, partition))
        entry = {
            "topic": topic,
            "target_topic": remote_topic(spec["source_alias"], topic, spec["policy"], spec["separator"]),
            "partition": partition,
        }
        entry.update(dict((k, int(stats[k])) for k in COUNT_FIELDS))
        entry["target_outside_range"] = int(by_key.get((topic, partition), {}).get("target_outside_range") or 0)
        entry["source_offsets"] = [src["min_offset"], src["max_offset"]] if src else None
        entry["source_timestamps"] = [format_ms(src["min_ts"]), format_ms(src["max_ts"])] if src else None
        target_row = by_key.get((topic, partition), {})
        entry["target_offsets"] = ([target_row.get("target_min_offset"), target_row.get("target_max_offset")]
                                   if target_row.get("target_min_offset") is not None else None)
        # The last source offset already on the target: unmatched records before it are missing.
        entry["replicated_to"] = target_row.get("replicated_to")
        entry["completeness"] = completeness(entry)
        entry["status"] = status_of(entry, spec["fail_on"])
        result.append(entry)
    return result
