# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""The verification job on real local Spark, one fault type per test (plus a clean run).

Each test generates a mirrored pair with Spark (mm2_verify.synth), injects one kind of fault at
known records, runs the job exactly as the CLI does, and checks the report counts, the exit
status and where the fault was found.
"""
import json

from mm2_verify import synth
from mm2_verify_job import job

from verify_pairs import LAYOUT, Pair, totals


def hit_partitions(layout, name, count):
    return sorted(set(layout.position(i)[:2] for i in layout.fault_indexes(name, count)))


def partitions_with(report, field):
    return sorted((p["topic"], p["partition"]) for f in report["flows"] for p in f["partitions"] if p[field])


def test_clean_mirror_verifies_ok_with_report_table_and_plot(spark, tmp_path):
    plot = tmp_path / "completeness.png"
    pair = Pair(spark, tmp_path, synth.Faults())
    code, report, table = pair.verify("--plot", str(plot))
    assert code == job.EXIT_OK
    assert totals(report) == pair.expected
    assert report["status"] == "OK" and report["totals"]["completeness"] == 1.0
    assert len(report["flows"][0]["partitions"]) == LAYOUT.topics * LAYOUT.partitions
    assert all(p["status"] == "OK" for p in report["flows"][0]["partitions"])
    # The file is the same report, and the names follow the prefixed policy.
    on_disk = json.loads((tmp_path / "report.json").read_text())
    assert on_disk["totals"] == report["totals"] and on_disk["report_version"] == job.REPORT_VERSION
    assert set(p["target_topic"] for p in on_disk["flows"][0]["partitions"]) == {"primary.t0", "primary.t1"}
    assert "OK: 3000 of 3000 source records verified" in table and "(exit 0)" in table
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_dropped_records_are_missing_and_fail(spark, tmp_path):
    pair = Pair(spark, tmp_path, synth.Faults(drops=3))
    code, report, table = pair.verify()
    assert code == job.EXIT_FAILED
    assert totals(report) == pair.expected and report["totals"]["missing"] == 3
    assert partitions_with(report, "missing") == hit_partitions(LAYOUT, "drops", 3)
    assert report["flows"][0]["totals"]["status"] == "FAILED(missing)"
    assert "FAILED (primary->backup): 3 missing" in table


def test_replayed_duplicates_are_reported_but_do_not_fail_or_break_order(spark, tmp_path):
    # Replayed copies land after newer same-key records: first copies are still in order.
    pair = Pair(spark, tmp_path, synth.Faults(duplicates=3))
    code, report, _ = pair.verify()
    assert code == job.EXIT_OK
    assert totals(report) == pair.expected and report["totals"]["duplicates"] == 3
    assert report["totals"]["order_violations"] == 0 and report["totals"]["missing"] == 0
    assert partitions_with(report, "duplicates") == hit_partitions(LAYOUT, "duplicates", 3)
    code, _, _ = pair.verify("--fail-on", "missing,order,duplicates")
    assert code == job.EXIT_FAILED


def test_target_only_records_are_extra(spark, tmp_path):
    pair = Pair(spark, tmp_path, synth.Faults(extras=2))
    code, report, _ = pair.verify()
    assert code == job.EXIT_OK  # extra is reported, not a loss
    assert totals(report) == pair.expected and report["totals"]["extra"] == 2
    assert partitions_with(report, "extra") == hit_partitions(LAYOUT, "extras", 2)
    code, report, _ = pair.verify("--fail-on", "extra")
    assert code == job.EXIT_FAILED and report["flows"][0]["totals"]["status"] == "FAILED(extra)"


def test_reordered_same_key_records_are_order_violations(spark, tmp_path):
    pair = Pair(spark, tmp_path, synth.Faults(reorders=3))
    code, report, table = pair.verify()
    assert code == job.EXIT_FAILED
    assert totals(report) == pair.expected and report["totals"]["order_violations"] == 3
    assert report["totals"]["keys_out_of_order"] == 3 and report["totals"]["missing"] == 0
    assert partitions_with(report, "order_violations") == hit_partitions(LAYOUT, "reorders", 3)
    assert "3 out of order" in table


def test_in_flight_tail_is_pending_not_missing(spark, tmp_path):
    pair = Pair(spark, tmp_path, synth.Faults(tail=5))
    code, report, table = pair.verify()
    assert code == job.EXIT_OK
    assert totals(report) == pair.expected and report["totals"]["pending"] == 5 and report["totals"]["missing"] == 0
    assert "PENDING" in set(p["status"] for p in report["flows"][0]["partitions"])
    assert "5 still in flight (pending)" in table
    # The same gap with no pending window is a loss ...
    code, report, _ = pair.verify(pending_window="0")
    assert code == job.EXIT_FAILED and report["totals"]["missing"] == 5 and report["totals"]["pending"] == 0
    # ... and a window in offsets (the last 2 of each partition) covers the 5 newest records too.
    code, report, _ = pair.verify("--pending-records", "2", pending_window="0")
    assert code == job.EXIT_OK and report["totals"]["pending"] == 5 and report["totals"]["missing"] == 0
