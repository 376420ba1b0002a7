# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""Exact verdicts at cut-over, on hand-written JSON Lines dumps (real local Spark).

A hole inside the replicated range of a partition is a loss whatever its age; only records
after the last record already on the target, inside the pending window, are in flight.
"""
import base64
import io
import json

import pytest

from mm2_verify_job import job

BASE_MS = 1714557600000  # 2024-05-01T10:00:00Z
RECORDS = 20             # per partition, one second apart
WINDOW = "5s"            # the range end is the newest timestamp + 1 ms: records 15..19 are in the window


def b64(text):
    return base64.b64encode(text.encode()).decode()


def record(topic, partition, offset, i, ts_form="ms"):
    ts = BASE_MS + i * 1000
    stamp = ts if ts_form == "ms" else job.format_ms(ts) if ts_form == "iso" else str(ts)
    return {"key": b64("k%d" % (i % 3)), "value": b64("v%d-%d" % (partition, i)), "topic": topic,
            "partition": partition, "offset": offset, "timestamp": stamp, "timestampType": 0}


def write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path), "w") as handle:
        for row in rows:
            handle.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return str(path)


def dumps(tmp_path, holes, ts_form="ms", source_alias="primary"):
    """Partition 0 of `orders` loses the records in `holes` (source record numbers); partition 1
    is complete.  Target offsets are dense (what MM2 writes)."""
    source, target = [], []
    for partition in (0, 1):
        copied = 0
        for i in range(RECORDS):
            source.append(record("orders", partition, i, i, ts_form))
            if partition == 1 or i not in holes:
                target.append(record(source_alias + ".orders", partition, copied, i, ts_form))
                copied += 1
    return (write_jsonl(tmp_path / "source" / "part-0.json", source),
            write_jsonl(tmp_path / "target" / "part-0.json", target))


def run(spark, argv):
    out = io.StringIO()
    code, report = job.run(argv, spark=spark, out=out)
    return code, report, out.getvalue()


def verify(spark, tmp_path, holes, *extra, **kw):
    source, target = dumps(tmp_path, holes, kw.get("ts_form", "ms"))
    return run(spark, ["--flow", "primary->backup", "--source-dump", source, "--target-dump", target,
                       "--pending-window", WINDOW] + list(extra))


@pytest.mark.parametrize("holes, missing, pending", [
    ((), 0, 0),
    ((3,), 1, 0),                      # old hole, later records copied: lost
    ((14,), 1, 0),                     # just before the window, later records copied: lost
    ((15,), 1, 0),                     # inside the window but 16..19 are on the target: lost, not in flight
    ((17,), 1, 0),                     # inside the window, later records copied: lost
    ((18, 19), 0, 2),                  # the tail inside the window, nothing after it copied: in flight
    ((19,), 0, 1),                     # only the newest record: in flight
    ((12, 13, 14, 15, 16, 17, 18, 19), 3, 5),  # a gap from before the window to the end: 12..14 lost, 15..19 in flight
    ((16, 18, 19), 1, 2),              # a hole before the last copied record, then the tail
    ((2, 9, 17, 19), 3, 1),            # holes everywhere: only the trailing one is in flight
    (tuple(range(RECORDS)), 15, 5),    # nothing of the partition copied yet: the window is in flight
])
def test_holes_at_every_position_relative_to_the_window(spark, tmp_path, holes, missing, pending):
    code, report, table = verify(spark, tmp_path, holes)
    part0 = [p for p in report["flows"][0]["partitions"] if p["partition"] == 0][0]
    assert (part0["missing"], part0["pending"], part0["matched"]) == (missing, pending, RECORDS - len(holes))
    assert report["totals"]["missing"] == missing and report["totals"]["pending"] == pending
    assert code == (job.EXIT_FAILED if missing else job.EXIT_OK)
    copied = [i for i in range(RECORDS) if i not in holes]
    assert part0["replicated_to"] == (copied[-1] if copied else None)


@pytest.mark.parametrize("ts_form", ["ms", "iso", "digits-as-text"])
def test_every_timestamp_form_of_a_json_dump_reads_as_the_same_instant(spark, tmp_path, ts_form):
    # Epoch milliseconds were read as seconds (year 56302): a range then found "nothing to verify".
    since, until = job.format_ms(BASE_MS + 5000), job.format_ms(BASE_MS + 10000)
    code, report, table = verify(spark, tmp_path, (7,), "--since", since, "--until", until, ts_form=ts_form)
    assert code == job.EXIT_FAILED, table
    assert report["totals"]["source_records"] == 2 * 5 and report["totals"]["missing"] == 1
    part0 = [p for p in report["flows"][0]["partitions"] if p["partition"] == 0][0]
    assert part0["source_timestamps"] == [job.format_ms(BASE_MS + 5000), job.format_ms(BASE_MS + 9000)]


def test_offset_range_does_not_count_same_millisecond_copies_as_extra(spark, tmp_path):
    # Records 9 and 10 share a millisecond; the range ends after 9: the copy of 10 is outside it.
    source, target = [], []
    for i in range(RECORDS):
        row = record("orders", 0, i, i)
        if i == 10:
            row["timestamp"] = BASE_MS + 9 * 1000
        source.append(row)
        target.append(dict(row, topic="primary.orders"))
    src = write_jsonl(tmp_path / "s.json", source)
    tgt = write_jsonl(tmp_path / "t.json", target)
    code, report, _ = run(spark, ["--flow", "primary->backup", "--source-dump", src, "--target-dump", tgt,
                                  "--starting-offsets", '{"orders":{"0":2}}', "--ending-offsets",
                                  '{"orders":{"0":10}}', "--pending-window", "0", "--fail-on", "missing,extra"])
    assert code == job.EXIT_OK
    t = report["totals"]
    assert (t["source_records"], t["matched"], t["extra"]) == (8, 8, 0)
    assert t["target_outside_range"] == RECORDS - 8


# ---------------------------------------------------------------- bad input: exit 2, named

def test_a_dump_written_twice_is_bad_input_not_missing(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    write_jsonl(tmp_path / "source" / "part-1.json", [json.loads(l) for l in open(source)])
    code, report, _ = run(spark, ["--flow", "primary->backup", "--source-dump", str(tmp_path / "source"),
                                  "--source-dump-format", "json", "--target-dump", target])
    assert code == job.EXIT_BAD_INPUT and report is None
    err = capsys.readouterr().err
    assert "more than once" in err and "orders[0]" in err and "written twice" in err


def test_a_target_dump_written_twice_is_bad_input(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    write_jsonl(tmp_path / "target" / "part-1.json", [json.loads(l) for l in open(target)][:3])
    code, _, _ = run(spark, ["--flow", "primary->backup", "--source-dump", source,
                             "--target-dump", str(tmp_path / "target"), "--target-dump-format", "json"])
    assert code == job.EXIT_BAD_INPUT
    assert "target: offset 0 of primary.orders[0] is in the input more than once" in capsys.readouterr().err


def test_swapped_source_and_target_are_named_as_such(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    code, _, _ = run(spark, ["--flow", "primary->backup", "--source-dump", target, "--target-dump", source])
    assert code == job.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "none of the topics it should mirror: looked for primary.primary.orders" in err
    assert "swapped" in err


def test_a_wrong_source_alias_names_the_alias_the_target_mirrors_from(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    code, _, _ = run(spark, ["--flow", "prim->backup", "--source-dump", source, "--target-dump", target])
    assert code == job.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "looked for prim.orders" in err and "the target has primary.orders" in err
    assert "'primary->backup'" in err


def test_a_malformed_json_line_names_the_file_and_the_record(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    with open(source, "a") as handle:
        handle.write('{"topic": "orders", "partition": 0, "offset": 99, "timest\n')
    code, report, _ = run(spark, ["--flow", "primary->backup", "--source-dump", source, "--target-dump", target])
    assert code == job.EXIT_BAD_INPUT and report is None
    err = capsys.readouterr().err
    assert "unreadable records" in err and "part-0.json" in err and 'not a JSON record: {"topic": "orders"' in err
    assert "Traceback" not in err


def test_an_unreadable_timestamp_names_the_record(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    with open(target, "a") as handle:
        handle.write(json.dumps(dict(record("primary.orders", 1, 20, 20), timestamp="yesterday")) + "\n")
    code, _, _ = run(spark, ["--flow", "primary->backup", "--source-dump", source, "--target-dump", target])
    assert code == job.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "record topic=primary.orders partition=1 offset=20 has no timestamp" in err and "epoch milliseconds" in err


def test_a_corrupt_parquet_file_is_named(spark, tmp_path, capsys):
    source, target = dumps(tmp_path, ())
    good = tmp_path / "pq"
    job.read_dump(spark, {"kind": "json", "path": source}, "source").drop(job.CORRUPT_COLUMN).write.parquet(str(good))
    corrupt = good / "part-99999-corrupt.snappy.parquet"
    corrupt.write_bytes(b"PAR1" + b"\x00garbage" * 50 + b"PAR1")
    code, report, _ = run(spark, ["--flow", "primary->backup", "--source-dump", str(good), "--target-dump", target,
                                  "--target-dump-format", "json"])
    assert code == job.EXIT_BAD_INPUT and report is None
    err = capsys.readouterr().err
    assert "part-99999-corrupt.snappy.parquet" in err and "error occurred while calling" not in err
