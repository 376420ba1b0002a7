# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""Inputs of the verification job on real local Spark: the Kafka source schema, JSON dumps,
time and offset ranges, the identity policy, and bad input (exit status 2)."""
import io
import json

import pytest
from pyspark.sql import functions as F
from pyspark.sql import types as T

from mm2_verify import naive, synth
from mm2_verify_job import job

from verify_pairs import FLOW, LAYOUT, Pair, totals


def spark_kafka_source_schema():
    """The schema as Spark's Kafka source declares it (KafkaRecordToRowConverter): the seven
    base fields plus headers, every field nullable (StructField's default)."""
    base = [T.StructField("key", T.BinaryType()), T.StructField("value", T.BinaryType()),
            T.StructField("topic", T.StringType()), T.StructField("partition", T.IntegerType()),
            T.StructField("offset", T.LongType()), T.StructField("timestamp", T.TimestampType()),
            T.StructField("timestampType", T.IntegerType())]
    headers = T.ArrayType(T.StructType([T.StructField("key", T.StringType()),
                                        T.StructField("value", T.BinaryType())]))
    return T.StructType(base + [T.StructField("headers", headers)])


def test_schema_matches_sparks_kafka_source_and_generated_dumps(spark, tmp_path):
    assert job.kafka_schema() == spark_kafka_source_schema()
    # The checker's table describes the same schema.
    assert [(f.name, f.dataType.simpleString()) for f in job.kafka_schema().fields] == list(job.KAFKA_COLUMNS)
    source, target = synth.mirrored_pair(spark, LAYOUT, synth.Faults())
    for frame in (source, target):
        assert [(f.name, f.dataType) for f in frame.schema.fields] == \
               [(f.name, f.dataType) for f in spark_kafka_source_schema().fields]
    # A Parquet dump written from such a frame reads back through the dump reader unchanged.
    source.write.parquet(str(tmp_path / "dump"))
    dump = job.read_dump(spark, {"kind": "parquet", "path": str(tmp_path / "dump")}, "source")
    assert [(f.name, f.dataType) for f in dump.schema.fields] == \
           [(f.name, f.dataType) for f in spark_kafka_source_schema().fields]


def test_kafka_input_without_the_connector_is_bad_input_with_the_fix(spark, tmp_path, capsys):
    # This Spark has no spark-sql-kafka connector (none is available offline): the Kafka
    # reader path must say how to add it instead of failing obscurely.
    code, report = job.run(FLOW + ["--source-bootstrap", "a1:9092", "--target-bootstrap", "b1:9092",
                                   "--topics", "orders"], spark=spark, out=io.StringIO())
    assert code == job.EXIT_BAD_INPUT and report is None
    err = capsys.readouterr().err
    assert "Kafka connector is not on the classpath" in err and "spark-sql-kafka-0-10" in err


def test_json_dumps_and_html_plot_agree_with_the_naive_comparator(spark, tmp_path):
    faults = synth.Faults(drops=2, duplicates=2, reorders=2, extras=2, tail=4)
    pair = Pair(spark, tmp_path, faults, fmt="json")
    plot = tmp_path / "completeness.html"
    code, report, _ = pair.verify("--plot", str(plot))
    assert code == job.EXIT_FAILED
    assert totals(report) == pair.expected
    # An independent single-process implementation of the same rules finds the same per partition.
    expected, outside = naive.compare(naive.read_json_dump(pair.source), naive.read_json_dump(pair.target),
                                      "primary", pending_window_ms=faults.tail * LAYOUT.step_ms)
    got = dict(((p["topic"], p["partition"]), dict((k, p[k]) for k in job.COUNT_FIELDS))
               for p in report["flows"][0]["partitions"])
    assert got == expected and not outside
    html = plot.read_text()
    assert html.startswith("<!DOCTYPE html>") and "primary-&gt;backup t0[0]" in html


def test_time_range_compares_only_records_inside_it(spark, tmp_path):
    pair = Pair(spark, tmp_path, synth.Faults(drops=3))  # drops at records 101, 1098 and 2095
    since, until = LAYOUT.base_ms + 1000, LAYOUT.base_ms + 2000
    code, report, table = pair.verify("--since", str(since), "--until", job.format_ms(until), pending_window="0")
    assert code == job.EXIT_FAILED
    t = report["totals"]
    assert (t["source_records"], t["missing"], t["matched"]) == (1000, 1, 999)
    assert t["target_outside_range"] == LAYOUT.records - 3 - 999
    assert report["flows"][0]["range"]["since"] == "2023-11-14T22:13:21.000Z"
    assert "2023-11-14T22:13:21.000Z .. 2023-11-14T22:13:22.000Z" in table


def test_offset_range_from_a_file_limits_the_source_partitions(spark, tmp_path):
    pair = Pair(spark, tmp_path, synth.Faults(drops=3))
    # Records 101 (t1[0] offset 25) and 1098 (t0[1] offset 274) fall in [10, 500); 2095 does not.
    start = {"t0": {"0": 10, "1": 10}, "t1": {"0": 10, "1": 10}}
    end = {"t0": {"0": 500, "1": 500}, "t1": {"0": 500, "1": 500}}
    (tmp_path / "start.json").write_text(json.dumps(start))
    code, report, _ = pair.verify("--starting-offsets", "@" + str(tmp_path / "start.json"),
                                  "--ending-offsets", json.dumps(end), pending_window="0")
    assert code == job.EXIT_FAILED
    t = report["totals"]
    assert (t["source_records"], t["missing"]) == (4 * 490, 2)
    assert sorted((p["topic"], p["partition"]) for p in report["flows"][0]["partitions"] if p["missing"]) == \
           [("t0", 1), ("t1", 0)]
    assert all(p["source_offsets"] == [10, 499] for p in report["flows"][0]["partitions"])
    # Target records beyond the source read are outside the range, not "extra".
    assert t["extra"] == 0 and t["target_outside_range"] > 0


def test_identity_policy_pairs_same_named_topics_and_topic_filters_apply(spark, tmp_path):
    layout = synth.Layout(records=3000, topics=2, partitions=2, keys=10, policy="identity")
    pair = Pair(spark, tmp_path, synth.Faults(drops=1), layout=layout)
    code, report, _ = pair.verify("--topics", "t.*", "--topics-exclude", "t1", pending_window="0")
    assert code == job.EXIT_OK
    partitions = report["flows"][0]["partitions"]
    assert set((p["topic"], p["target_topic"]) for p in partitions) == {("t0", "t0")}
    # Record 101 went to t1, which is excluded: nothing of t1 is compared.
    assert report["totals"]["source_records"] == 1500 and report["totals"]["missing"] == 0
    code, report, _ = pair.verify(pending_window="0")
    assert report["totals"]["missing"] == 1 and code == job.EXIT_FAILED


@pytest.mark.parametrize("problem, message", [
    ("partition as string", "column partition is string, expected int"),
    ("no value", "column value (binary) is missing"),
])
def test_dump_with_the_wrong_schema_is_bad_input(spark, tmp_path, capsys, problem, message):
    source, _ = synth.mirrored_pair(spark, LAYOUT, synth.Faults())
    if problem == "partition as string":
        source = source.withColumn("partition", source["partition"].cast("string"))
    else:
        source = source.drop("value")
    source.write.parquet(str(tmp_path / "bad"))
    code, _ = job.run(FLOW + ["--source-dump", str(tmp_path / "bad"), "--target-dump", str(tmp_path / "bad")],
                      spark=spark, out=io.StringIO())
    assert code == job.EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_missing_dump_and_empty_selection(spark, tmp_path, capsys):
    code, _ = job.run(FLOW + ["--source-dump", str(tmp_path / "nope"), "--target-dump", str(tmp_path / "nope")],
                      spark=spark, out=io.StringIO())
    assert code == job.EXIT_BAD_INPUT and "source dump" in capsys.readouterr().err
    pair = Pair(spark, tmp_path, synth.Faults())
    code, _, _ = pair.verify("--topics", "payments")
    assert code == job.EXIT_BAD_INPUT and "nothing to verify" in capsys.readouterr().err
    code, report, table = pair.verify("--topics", "payments", "--allow-empty")
    assert code == job.EXIT_OK and report["totals"]["source_records"] == 0


def test_optional_columns_may_be_missing_from_a_dump(spark, tmp_path):
    # A dump made without includeHeaders has no headers column: its records compare like records
    # that have no headers.
    source, target = synth.mirrored_pair(spark, LAYOUT, synth.Faults())
    source = source.withColumn("headers", F.lit(None).cast(synth.HEADERS_TYPE))
    source.write.parquet(str(tmp_path / "source"))
    target.drop("headers", "timestampType").write.parquet(str(tmp_path / "target"))
    code, report = job.run(FLOW + ["--source-dump", str(tmp_path / "source"), "--target-dump",
                                   str(tmp_path / "target"), "--pending-window", "0"], spark=spark, out=io.StringIO())
    assert code == job.EXIT_OK
    assert report["totals"]["matched"] == report["totals"]["source_records"] == LAYOUT.records
