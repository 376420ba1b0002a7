"""`mm2-verify demo`: try mm2-verify in a minute, without Kafka.

Writes a small mirrored pair of Parquet dumps in Spark's Kafka schema (source `primary`, target
`backup`, prefixed policy) with known faults (dropped records, an at-least-once replay, a record
out of order, a record only the target has), verifies it with the real job in the same Spark
session, and checks that the report finds exactly the planted faults. The dumps stay in --dir, with
the command line that verifies them again.

Exit status: 0 the report found exactly the planted faults, 3 it could not run (pyspark or Java
missing, Spark failed), 1 the report differs from the planted faults (a bug: please report it).
"""
import argparse
import os
import shlex
import sys
import tempfile
import time

from mm2_verify import preflight
from mm2_verify_job.spec import EXIT_FAILED, EXIT_OK, EXIT_RUNTIME

FAULTS = dict(drops=3, duplicates=2, reorders=1, extras=1)
COUNTS = ("source_records", "target_records", "matched", "missing", "duplicates", "extra", "order_violations")


def parser():
    p = argparse.ArgumentParser(prog="mm2-verify demo", description=__doc__.split("\n\n")[1])
    p.add_argument("--dir", help="where the dumps, report.json and summary.txt go (default: a new directory "
                                 "under the system's temporary directory)")
    p.add_argument("--records", type=int, default=5000, help="source records (default %(default)s, at least 5000)")
    p.add_argument("--master", default="local[2]", help="Spark master (default %(default)s)")
    return p


def command_line(source, target, out_dir):
    return " ".join(shlex.quote(a) for a in (
        "mm2-verify", "--flow", "primary->backup", "--source-dump", source, "--target-dump", target,
        "--pending-window", "0", "--report", os.path.join(out_dir, "report.json"),
        "--summary", os.path.join(out_dir, "summary.txt")))


def main(argv):
    args = parser().parse_args(argv)
    if args.records < 5000:
        sys.stderr.write("mm2-verify demo: --records %d: use at least 5000 (the faults sit about 1000 records "
                         "apart)\n" % args.records)
        return 2
    try:
        preflight.check_runtime()
    except preflight.Missing as exc:
        sys.stderr.write("mm2-verify demo: cannot run: %s\n" % exc)
        return EXIT_RUNTIME
    if args.dir:
        out_dir = os.path.abspath(args.dir)
        if os.path.exists(out_dir) and (not os.path.isdir(out_dir) or os.listdir(out_dir)):
            sys.stderr.write("mm2-verify demo: --dir %s: exists and is not an empty directory; give a new one\n"
                             % args.dir)
            return 2
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as exc:
            sys.stderr.write("mm2-verify demo: --dir %s: cannot create it (%s)\n" % (args.dir, exc.strerror or exc))
            return 2
    else:
        out_dir = tempfile.mkdtemp(prefix="mm2-verify-demo-")
    source, target = os.path.join(out_dir, "dumps", "primary"), os.path.join(out_dir, "dumps", "backup")
    started = time.time()
    sys.stderr.write("mm2-verify demo: starting Spark (%s) and writing %d records per side to %s\n"
                     % (args.master, args.records, out_dir))
    from mm2_verify import synth
    from mm2_verify_job import job
    spark = None
    try:
        spark = job.build_session(args.master, "mm2-verify-demo", shuffle_partitions=2, ui=False)
        spark.sparkContext.setLogLevel("ERROR")
        layout = synth.Layout(records=args.records, topics=2, partitions=2, keys=50)
        faults = synth.Faults(**FAULTS)
        expected = synth.write_pair(spark, layout, faults, source, target)
        argv = ["--flow", "primary->backup", "--source-dump", source, "--target-dump", target,
                "--source-dump-format", "parquet", "--target-dump-format", "parquet", "--pending-window", "0",
                "--report", os.path.join(out_dir, "report.json"), "--summary", os.path.join(out_dir, "summary.txt")]
        code, report = job.run(argv, spark=spark)
    except Exception as exc:  # Spark could not start or write: say so in one line
        sys.stderr.write("mm2-verify demo: Spark failed: %s\n" % str(exc).strip().splitlines()[0][:300])
        return EXIT_RUNTIME
    finally:
        if spark is not None:
            spark.stop()
    if report is None:
        return EXIT_RUNTIME
    got = dict((name, report["totals"].get(name)) for name in COUNTS)
    wrong = ["%s: expected %s, reported %s" % (n, expected[n], got[n]) for n in COUNTS if got[n] != expected[n]]
    print("")
    print("The demo planted %d missing records, %d duplicates (at-least-once replays), %d record out of order and "
          "%d record only the target has. mm2-verify exited %d (%s) and found %s, in %.0f s."
          % (FAULTS["drops"], FAULTS["duplicates"], FAULTS["reorders"], FAULTS["extras"], code,
             "1 = records missing or out of order" if code == EXIT_FAILED else "see above",
             "exactly these" if not wrong else "something else: " + "; ".join(wrong), time.time() - started))
    print("Dumps, report.json and summary.txt: %s" % out_dir)
    print("Verify them again (about as long as Spark takes to start):")
    print("  " + command_line(source, target, out_dir))
    return EXIT_OK if not wrong and code == EXIT_FAILED else EXIT_FAILED
