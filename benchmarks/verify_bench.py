"""Benchmark of mm2-verify: throughput, peak driver memory and scaling, next to a naive
single-process comparator, on generated mirrored data with injected faults.

    .venv3/bin/python benchmarks/verify_bench.py            # 1M and 10M records per side
    .venv3/bin/python benchmarks/verify_bench.py --sizes 200000 --keep

For each size it
  1. generates a source and a target dump with Spark (Parquet for the job, JSON Lines for the
     naive comparator): drops, replayed duplicates, reordered same-key records, target-only
     records and an in-flight tail, in numbers that scale with the size;
  2. runs the shipped job file with spark-submit --master local[2] --driver-memory 1g (a fresh
     JVM; peak RSS of the driver JVM and of the Python driver sampled from /proc);
  3. runs the naive comparator (mm2_verify.naive: Python dicts, JSON input) in a fresh process;
  4. asserts that both report exactly the injected faults, per kind and per partition.
It prints one table and writes benchmarks/results/verify_bench.json.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(ROOT, "package", "scripts"), os.path.join(ROOT, "src")]

from mm2_verify import synth  # noqa: E402
from mm2_verify_job import job  # noqa: E402

DRIVER_MEMORY = "1g"
MASTER = "local[2]"


MIN_RECORDS = 10000


def layout_for(records):
    # 2 topics x 6 partitions, up to 5000 keys per partition (fewer on small sizes, so that every
    # fault fits after the first same-key predecessor), 100-byte values.
    keys = max(10, min(5000, records // 200))
    return synth.Layout(records=records, topics=2, partitions=6, keys=keys, value_bytes=100,
                        first_fault=keys * 12)


def faults_for(records):
    per_kind = max(5, records // 100000)  # 10 per kind at 1M, 100 at 10M
    return synth.Faults(drops=per_kind, duplicates=per_kind, reorders=per_kind, extras=per_kind, tail=2 * per_kind)


def size_problem(text):
    """None when the benchmark runs at this size, else why not."""
    try:
        records = int(text)
    except ValueError:
        return "%r is not a whole number of records" % text
    if records < MIN_RECORDS:
        return "%d records: the smallest size is %d (the injected faults need room)" % (records, MIN_RECORDS)
    try:
        synth.check_layout(layout_for(records), faults_for(records))
    except ValueError as exc:
        return "%d records: %s" % (records, exc)
    return None


def environment():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "package", "scripts"), os.path.join(ROOT, "src")]
                                        + [p for p in [env.get("PYTHONPATH")] if p])
    env["PYSPARK_PYTHON"] = sys.executable
    return env


# ---------------------------------------------------------------- memory sampling

def _status_kb(pid, field):
    try:
        with open("/proc/%d/status" % pid) as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (IOError, OSError):
        pass
    return 0


def _children(pid):
    """Children of every thread (the JVM starts the Python driver from a non-main thread)."""
    found = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return found
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as handle:
                found.extend(int(c) for c in handle.read().split())
        except (IOError, OSError):
            pass
    return found


class PeakSampler(threading.Thread):
    """Peak resident memory (VmHWM) of a process and, separately, of its descendants."""

    def __init__(self, pid, interval=0.25):
        threading.Thread.__init__(self, daemon=True)
        self.pid, self.interval = pid, interval
        self.root_kb = 0
        self.children_kb = {}
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            self.root_kb = max(self.root_kb, _status_kb(self.pid, "VmHWM"))
            stack = list(_children(self.pid))
            while stack:
                child = stack.pop()
                self.children_kb[child] = max(self.children_kb.get(child, 0), _status_kb(child, "VmHWM"))
                stack.extend(_children(child))
            self.done.wait(self.interval)


def timed(argv, env=None):
    """(exit code, seconds, stdout, stderr, root peak KB, largest child peak KB)."""
    started = time.time()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = PeakSampler(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.time() - started
    sampler.done.set()
    sampler.join()
    return proc.returncode, seconds, out, err, sampler.root_kb, max(sampler.children_kb.values() or [0])


# ---------------------------------------------------------------- the steps (each in its own process)

def generate(directory, records):
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master(MASTER).appName("mm2-verify-bench-generate")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "2g").config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        layout, faults = layout_for(records), faults_for(records)
        for fmt in ("parquet", "json"):
            synth.write_pair(spark, layout, faults, os.path.join(directory, "source." + fmt),
                             os.path.join(directory, "target." + fmt), fmt)
    finally:
        spark.stop()


def naive_run(directory, window_ms):
    from mm2_verify import naive
    results, outside = naive.compare(naive.read_json_dump(os.path.join(directory, "source.json")),
                                     naive.read_json_dump(os.path.join(directory, "target.json")),
                                     "primary", pending_window_ms=window_ms)
    json.dump({"partitions": [[t, p, c] for (t, p), c in sorted(results.items())], "outside": len(outside)},
              sys.stdout)


# ---------------------------------------------------------------- checks

def expected_partitions(layout, faults):
    """{(topic, partition): {kind: count}} of the injected faults."""
    expected = {}
    kinds = (("drops", "missing"), ("duplicates", "duplicates"), ("reorders", "order_violations"),
             ("extras", "extra"))
    for name, field in kinds:
        for i in layout.fault_indexes(name, getattr(faults, name)):
            where = layout.position(i)[:2]
            expected.setdefault(where, {}).setdefault(field, 0)
            expected[where][field] += 1
    for i in range(layout.records - faults.tail, layout.records):
        where = layout.position(i)[:2]
        expected.setdefault(where, {}).setdefault("pending", 0)
        expected[where]["pending"] += 1
    return expected


def check(name, layout, faults, totals, partitions):
    """Assert exactly the injected faults; returns a one-line description."""
    want = synth.expected(layout, faults)
    got = dict((k, totals[k]) for k in want)
    assert got == want, "%s totals %s != injected %s" % (name, got, want)
    fields = ("missing", "pending", "duplicates", "extra", "order_violations")
    found = dict(((t, p), dict((f, c[f]) for f in fields if c[f])) for t, p, c in partitions)
    found = dict((k, v) for k, v in found.items() if v)
    assert found == expected_partitions(layout, faults), "%s: faults found in other partitions" % name
    return "%d missing, %d pending, %d duplicates, %d extra, %d order violations" % tuple(want[f] for f in fields)


# ---------------------------------------------------------------- one size

def du_mb(path):
    total = 0
    for base, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(base, f)) for f in files)
    return total / 1e6


def bench_size(records, work, naive_limit):
    import pyspark
    directory = os.path.join(work, "n%d" % records)
    layout, faults = layout_for(records), faults_for(records)
    window_ms = faults.tail * layout.step_ms
    row = {"records_per_side": records, "faults": faults.__dict__}

    code, seconds, out, err, _, _ = timed([sys.executable, __file__, "--generate", directory, str(records)],
                                          environment())
    assert code == 0, err[-3000:]
    row["generate_seconds"] = round(seconds, 1)
    row["parquet_mb_per_side"] = round(du_mb(os.path.join(directory, "source.parquet")), 1)
    row["json_mb_per_side"] = round(du_mb(os.path.join(directory, "source.json")), 1)

    report_path = os.path.join(directory, "report.json")
    spark_submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    argv = [spark_submit, "--master", MASTER, "--driver-memory", DRIVER_MEMORY,
            "--conf", "spark.ui.enabled=false", job.__file__, "--flow", "primary->backup",
            "--source-dump", os.path.join(directory, "source.parquet"),
            "--target-dump", os.path.join(directory, "target.parquet"),
            "--pending-window", "%dms" % window_ms, "--report", report_path]
    code, seconds, out, err, jvm_kb, python_kb = timed(argv, environment())
    assert code == job.EXIT_FAILED, "the job must fail on the injected loss: exit %s\n%s" % (code, err[-3000:])
    report = json.loads(open(report_path).read())
    flow = report["flows"][0]
    row["spark"] = {
        "wall_seconds": round(seconds, 1), "job_seconds": flow["seconds"],
        "records_per_second": int(2 * records / flow["seconds"]),
        "peak_driver_jvm_rss_mb": round(jvm_kb / 1024.0), "peak_python_driver_rss_mb": round(python_kb / 1024.0),
        "found": check("spark", layout, faults, flow["totals"],
                       [(p["topic"], p["partition"], p) for p in flow["partitions"]]),
    }
    if records <= naive_limit:
        code, seconds, out, err, naive_kb, _ = timed(
            [sys.executable, __file__, "--naive", directory, str(window_ms)], environment())
        assert code == 0, err[-3000:]
        result = json.loads(out)
        totals = dict((k, sum(c[k] for _, _, c in result["partitions"])) for k in job.COUNT_FIELDS)
        row["naive"] = {"seconds": round(seconds, 1), "records_per_second": int(2 * records / seconds),
                        "peak_rss_mb": round(naive_kb / 1024.0),
                        "found": check("naive", layout, faults, totals, result["partitions"])}
    return row


def print_table(rows):
    print("")
    print("mm2-verify benchmark: spark-submit --master %s --driver-memory %s, Parquet dumps; naive: one Python "
          "process, dicts, JSON Lines dumps (%d CPUs)" % (MASTER, DRIVER_MEMORY, os.cpu_count() or 0))
    head = ("records/side", "parquet MB/side", "spark job s", "spark wall s", "spark rec/s", "driver JVM peak MB",
            "naive s", "naive rec/s", "naive peak MB")
    print(" | ".join(head))
    for r in rows:
        s, n = r["spark"], r.get("naive", {})
        cells = (r["records_per_side"], r["parquet_mb_per_side"], s["job_seconds"], s["wall_seconds"],
                 s["records_per_second"], s["peak_driver_jvm_rss_mb"], n.get("seconds", "-"),
                 n.get("records_per_second", "-"), n.get("peak_rss_mb", "-"))
        print(" | ".join(str(c) for c in cells))
    for small, large in zip(rows, rows[1:]):  # each size against the next (1M -> 10M by default)
        factor = float(large["records_per_side"]) / small["records_per_side"]
        ratio = large["spark"]["job_seconds"] / small["spark"]["job_seconds"]
        line = "scaling %d -> %d records (x%g): spark job time x%.2f (%s x%.1f)" % (
            small["records_per_side"], large["records_per_side"], factor, ratio,
            "<=" if ratio <= factor * 1.1 else ">", factor * 1.1)
        if "naive" in small and "naive" in large:
            line += ", naive time x%.2f" % (large["naive"]["seconds"] / small["naive"]["seconds"])
        print(line)
        print("  driver JVM peak: %d MB -> %d MB" % (small["spark"]["peak_driver_jvm_rss_mb"],
                                                    large["spark"]["peak_driver_jvm_rss_mb"]))
    for r in rows:
        if "naive" in r:
            print("%d/side: spark wall %.1f s vs naive %.1f s: spark %s" % (
                r["records_per_side"], r["spark"]["wall_seconds"], r["naive"]["seconds"],
                "faster" if r["spark"]["wall_seconds"] < r["naive"]["seconds"] else "SLOWER"))
    for r in rows:
        print("%d/side: both found exactly the injected faults: %s" % (r["records_per_side"], r["spark"]["found"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,10000000", help="records per side, comma-separated")
    parser.add_argument("--work-dir", help="where the dumps go (default: a temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the dumps")
    parser.add_argument("--naive-limit", type=int, default=10000000, help="skip the naive run above this size")
    parser.add_argument("--generate", nargs=2, metavar=("DIR", "RECORDS"), help=argparse.SUPPRESS)
    parser.add_argument("--naive", nargs=2, metavar=("DIR", "WINDOW_MS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not (args.generate or args.naive):
        problems = [p for p in (size_problem(t.strip()) for t in args.sizes.split(",")) if p]
        if problems:
            parser.error("--sizes: " + "; ".join(problems))
    if args.generate:
        return generate(args.generate[0], int(args.generate[1]))
    if args.naive:
        return naive_run(args.naive[0], int(args.naive[1]))
    work = args.work_dir or tempfile.mkdtemp(prefix="mm2-verify-bench-")
    rows = []
    try:
        for records in [int(s) for s in args.sizes.split(",")]:
            row = bench_size(records, work, args.naive_limit)
            rows.append(row)
            print("done %d/side: %s" % (records, json.dumps(row)), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_table(rows)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "verify_bench.json"), "w") as handle:
        json.dump({"rows": rows, "load_average": os.getloadavg()}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main() or 0)
