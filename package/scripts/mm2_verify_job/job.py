"""mm2-verify: prove that a MirrorMaker 2 flow A->B lost nothing and kept per-key order.

A PySpark job: spark-submit runs this file (its sibling modules come along in the package):

    spark-submit [--master yarn] job.py --flow A->B --topics 'orders,payments' \
        --source-dump /dumps/A --target-dump /dumps/B --report r.json --plot r.png

It compares every source partition with its mirrored partition (same partition number,
topic renamed by the replication policy) and matches records by content: a fingerprint of
key, value, headers and timestamp (MM2 keeps all four; offsets differ).  Per content it counts
the copies on each side, so the comparison is a multiset match:

    matched     min(source copies, target copies)
    duplicates  target copies beyond the source copies (at-least-once replays)
    extra       target records whose content never occurs in the source range
    missing     source copies with no target copy: before the partition's last record already on
                the target (MM2 copies in order: a hole there is lost, whatever its age), or
                outside the pending window
    pending     source copies with no target copy after that record and inside the pending
                window (in flight)
    order       a matched record whose first target copy precedes the first target copy of
                an earlier (in source order) record with the same key

Only per-partition aggregates ever reach the driver.  Exit status: 0 ok, 1 loss or disorder
found (see --fail-on), 2 bad input, 3 the job could not run (Spark or Kafka failure).

The code is cut along its seams, one direction of dependency (spec <- inputs <- offsets <-
compare -> report; this module, the command line, on top):
    spec.py     the run specification: constants, times, MM2 topic naming and selection (pure)
    inputs.py   Spark's Kafka source options, the connector, the session, dumps and their checks
    compare.py  the comparison (one shuffle) and the checks that read its aggregates
    offsets.py  failover offsets: MM2 checkpoints (else its offset syncs) against committed offsets
    report.py   counts, statuses, the JSON report, the table and the plot
This module re-exports their public names (mm2_verify_job.job.X keeps working).

Imports on Python 2.7 and 3 without pyspark (the Ambari agent and the off-cluster CLI import
its pure helpers); pyspark is imported only when a comparison runs.
"""
import argparse
import json
import os
import sys
import time
import traceback

if __name__ == "__main__" and not __package__:
    # spark-submit runs this file as a script: make its package (and mm2_core beside it) importable.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mm2_verify_job.spec import (  # noqa: F401 (the job module's public names)
    ACCEPTED_TYPES, ALWAYS_EXCLUDED, BadInput, DEFAULT_FAIL_ON, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED,
    EXIT_OK, EXIT_RUNTIME, FAIL_CHOICES, format_duration, format_ms, java_quote, java_topic_pattern,
    KAFKA_COLUMNS, MATCH_FIELDS, MM2_DEFAULT_TOPICS_EXCLUDE, normalize_spec, OFFSET_SYNCS_LOCATIONS, OPTIONAL_COLUMNS,
    parse_duration_ms, parse_flow, parse_time_ms, POLICIES, remote_topic, REPORT_VERSION,
    source_excludes, spark_subscribes, split_patterns, topic_matcher, upstream_topic)
from mm2_verify_job.inputs import (  # noqa: F401 (the job module's public names)
    first_line, build_session, connector_conf, connector_coordinate, connector_submit_args,
    CORRUPT_COLUMN, installed_spark, kafka_connector, kafka_read_options, kafka_schema, read_dump,
    schema_problems)
from mm2_verify_job.offsets import (  # noqa: F401 (the job module's public names)
    offsets_section)
from mm2_verify_job.report import (  # noqa: F401 (the job module's public names)
    build_report, completeness, COUNT_FIELDS, flow_report, format_table, status_of, write_plot)
from mm2_verify_job.compare import (  # noqa: F401 (the job module's public names)
    verify_flow)


# ---------------------------------------------------------------- command line

def build_parser():
    parser = argparse.ArgumentParser(
        prog="mm2-verify", description="Verify that a MirrorMaker 2 flow lost nothing and kept per-key order.",
        epilog="Exit status: 0 ok, 1 loss or disorder found, 2 bad input, 3 the job could not run.")
    what = parser.add_argument_group("what to compare")
    what.add_argument("--flow", help="SOURCE->TARGET cluster aliases, quoted: --flow 'primary->backup'")
    what.add_argument("--policy", choices=POLICIES, default="prefixed",
                      help="replication policy: prefixed (A.topic, default) or identity (same name)")
    what.add_argument("--separator", default=".", help="replication.policy.separator (default '.')")
    what.add_argument("--topics", default=".*", help="comma-separated regexes of source topics (default .*)")
    what.add_argument("--topics-exclude", default=None,
                      help="comma-separated regexes of source topics to skip; as in MM2, giving it replaces "
                           "MM2's default topics.exclude (%s)" % MM2_DEFAULT_TOPICS_EXCLUDE.replace("%", "%%"))
    rng = parser.add_argument_group("range (default: everything in the dumps / in Kafka)")
    rng.add_argument("--since", help="start time: ISO-8601, epoch ms, or relative like -30m")
    rng.add_argument("--until", help="end time (exclusive; default now when --since is given)")
    rng.add_argument("--starting-offsets", help="source offsets JSON {\"t\":{\"0\":23}} or @file")
    rng.add_argument("--ending-offsets", help="source offsets JSON (exclusive) or @file")
    rules = parser.add_argument_group("rules")
    rules.add_argument("--pending-window", default="60s",
                       help="source records this close to the range end that are not on the target yet "
                            "are pending, not missing (default 60s)")
    rules.add_argument("--pending-records", type=int, default=0,
                       help="also count the last N offsets of each source partition as in flight")
    rules.add_argument("--match-on", default=",".join(MATCH_FIELDS),
                       help="content fields that identify a record (default key,value,headers,timestamp)")
    rules.add_argument("--fail-on", default=",".join(DEFAULT_FAIL_ON),
                       help="which findings make the exit status 1: %s (default %s)" % (",".join(FAIL_CHOICES), ",".join(DEFAULT_FAIL_ON)))
    rules.add_argument("--allow-empty", action="store_true", help="an empty source range is OK (exit 0)")
    rules.add_argument("--check-offsets", choices=("auto", "yes", "no"), default="auto",
                       help="check MM2's translated consumer-group offsets (checkpoints, else its offset syncs) "
                            "against the source's committed offsets: records a failed-over consumer would re-read "
                            "or skip "
                            "(auto: when both sides are Kafka)")
    rules.add_argument("--offset-syncs-location", choices=OFFSET_SYNCS_LOCATIONS, default="source",
                       help="where the flow's offset-syncs topic is (its offset-syncs.topic.location, default "
                            "source): partitions without a checkpoint are translated from its offset syncs")
    inputs = parser.add_argument_group("inputs: a dump (Parquet/JSON in Spark's Kafka schema) or Kafka per side")
    for side in ("source", "target"):
        inputs.add_argument("--%s-dump" % side, help="%s dump path (.json/.jsonl = JSON, else Parquet)" % side)
        inputs.add_argument("--%s-dump-format" % side, choices=("parquet", "json"), help="override the guess")
        inputs.add_argument("--%s-bootstrap" % side, help="%s cluster bootstrap servers (read with Spark's Kafka source)" % side)
        inputs.add_argument("--%s-kafka" % side, action="append", default=[], metavar="KEY=VALUE",
                            help="%s Kafka client setting, e.g. security.protocol=SASL_SSL (repeatable)" % side)
    inputs.add_argument("--kafka-options-file", help="JSON {\"source\":{...},\"target\":{...}} of Kafka client "
                                                     "settings (keep passwords here, mode 0600, not on the command line)")
    inputs.add_argument("--target-slack", default="5m",
                        help="read the target Kafka topics this much wider than the source range (default 5m)")
    inputs.add_argument("--plan", help="JSON file {\"flows\":[{...}]} with several verifications (what the Ambari "
                                       "command writes); replaces the flags above")
    out = parser.add_argument_group("outputs")
    out.add_argument("--report", help="write the JSON report here")
    out.add_argument("--plot", help="write the completeness plot here (.png needs matplotlib, or .html)")
    out.add_argument("--summary", help="also write the summary table to this file")
    out.add_argument("--max-table-rows", type=int, default=200, help="partitions shown per flow (problems first)")
    spark = parser.add_argument_group("spark")
    spark.add_argument("--master", help="Spark master; default: spark-submit's, else spark-defaults, else local[*]")
    spark.add_argument("--shuffle-partitions", type=int, help="spark.sql.shuffle.partitions")
    spark.add_argument("--app-name", default="mm2-verify")
    spark.add_argument("--kafka-connector", metavar="DIR|JARS|COORDINATE|maven",
                       help="add Spark's Kafka connector (needed for --*-bootstrap): a directory of its jars, "
                            "a comma-separated jar list, a Maven coordinate, or 'maven' for the one matching "
                            "this pyspark; --print-spark-submit turns it into --jars/--packages")
    return parser


def parse_args(argv):
    """build_parser().parse_args, letting --since -30m through (argparse takes -30m for a flag)."""
    joined = []
    for arg in argv:
        if joined and joined[-1] in ("--since", "--until") and arg.startswith("-"):
            joined[-1] = joined[-1] + "=" + arg
        else:
            joined.append(arg)
    return build_parser().parse_args(joined)


def _key_values(pairs, flag):
    result = {}
    for pair in pairs:
        if "=" not in pair:
            raise BadInput("%s %r: expected KEY=VALUE" % (flag, pair))
        key, value = pair.split("=", 1)
        result[key.strip()] = value.strip()
    return result


def specs_from_args(args, now_ms):
    """[normalized spec] from the parsed command line (one flow, or the flows of --plan)."""
    if args.max_table_rows < 0:
        raise BadInput("--max-table-rows %d: must be 0 or more (0: each flow's totals only)" % args.max_table_rows)
    if args.shuffle_partitions is not None and args.shuffle_partitions < 1:
        raise BadInput("--shuffle-partitions %d: must be 1 or more, or leave it out (sized from the records read)"
                       % args.shuffle_partitions)
    if args.plan:
        try:
            with open(args.plan) as handle:
                plan = json.load(handle)
        except (IOError, OSError, ValueError) as exc:
            raise BadInput("--plan %s: %s" % (args.plan, exc))
        flows = plan.get("flows") if isinstance(plan, dict) else None
        if not flows:
            raise BadInput("--plan %s: expected {\"flows\": [{\"flow\": \"A->B\", ...}]}" % args.plan)
        return [normalize_spec(raw, now_ms) for raw in flows]
    if not args.flow:
        raise BadInput("--flow SOURCE->TARGET is required (or --plan FILE)")
    file_options = {}
    if args.kafka_options_file:
        try:
            with open(args.kafka_options_file) as handle:
                file_options = json.load(handle)
        except (IOError, OSError, ValueError) as exc:
            raise BadInput("--kafka-options-file %s: %s" % (args.kafka_options_file, exc))
    raw = {
        "flow": args.flow, "policy": args.policy, "separator": args.separator,
        "topics": args.topics, "topics_exclude": args.topics_exclude,
        "since": args.since, "until": args.until,
        "starting_offsets": args.starting_offsets, "ending_offsets": args.ending_offsets,
        "pending_window": args.pending_window, "pending_records": args.pending_records,
        "target_slack": args.target_slack, "match_on": args.match_on, "fail_on": args.fail_on,
        "allow_empty": args.allow_empty, "check_offsets": args.check_offsets,
        "offset_syncs_location": args.offset_syncs_location,
    }
    for side in ("source", "target"):
        dump = getattr(args, side + "_dump")
        if dump:
            raw[side] = {"path": dump, "kind": getattr(args, side + "_dump_format")}
        else:
            options = dict(file_options.get(side) or {})
            options.update(_key_values(getattr(args, side + "_kafka"), "--%s-kafka" % side))
            if getattr(args, side + "_bootstrap"):
                options["bootstrap.servers"] = getattr(args, side + "_bootstrap")
            raw[side] = {"kind": "kafka", "options": options} if options else {}
    return [normalize_spec(raw, now_ms)]


def _write_whole(path, text):
    """Write to a temporary name beside ``path``, then rename: an interrupted run leaves no half-written file."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as handle:
            handle.write(text)
        os.rename(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_outputs(report, args):
    table = format_table(report, args.max_table_rows)
    if args.report:
        _write_whole(args.report, json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.summary:
        _write_whole(args.summary, table + "\n")
    if args.plot:
        write_plot(report, args.plot)
    return table


def _quiet_py4j():
    """After Ctrl-C py4j logs every broken call with its stack trace: not what an operator should read."""
    import logging
    for name in ("py4j", "pyspark"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _note_interrupts(interrupted):
    """Note Ctrl-C before pyspark's own SIGINT handler cancels the Spark jobs and raises KeyboardInterrupt (which
    py4j may turn into 'An error occurred while calling o32.read'). Returns the handler to restore, or None."""
    import signal
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        interrupted.append(True)
        _quiet_py4j()
        if callable(previous):
            previous(signum, frame)
        raise KeyboardInterrupt()
    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:   # not the main thread: no signal to note
        return None
    return previous


def run(argv, spark=None, out=None):
    """Parse, verify every flow, write the outputs; returns (exit code, report or None).

    Pass a SparkSession to reuse it (tests, notebooks); otherwise one is built and stopped.
    """
    out = out or sys.stdout
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return (exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT), None
    own_session = spark is None
    interrupted, specs, restore = [], [], None
    try:
        specs = specs_from_args(args, int(time.time() * 1000))
        connector = kafka_connector(args.kafka_connector)
        if own_session:
            spark = build_session(args.master, args.app_name, args.shuffle_partitions, connector)
            restore = _note_interrupts(interrupted)
        report = build_report([verify_flow(spark, spec) for spec in specs])
        report["spark"] = {"master": spark.sparkContext.master, "version": spark.version,
                           "application_id": spark.sparkContext.applicationId}
        out.write(write_outputs(report, args) + "\n")
        return report["exit_code"], report
    except KeyboardInterrupt:
        interrupted.append(True)
    except BadInput as exc:
        sys.stderr.write("mm2-verify: bad input: %s\n" % exc)
        return EXIT_BAD_INPUT, None
    except Exception as exc:  # Spark or Kafka failure: say so, not "records missing"
        if not interrupted:   # after Ctrl-C py4j reports the cancelled call as a failure: it is not one
            if os.environ.get("MM2_VERIFY_TRACEBACK"):
                traceback.print_exc()
            sys.stderr.write("mm2-verify: the verification could not run: %s%s\n" % (
                first_line(exc), "" if os.environ.get("MM2_VERIFY_TRACEBACK") else
                " (set MM2_VERIFY_TRACEBACK=1 to see the stack trace)"))
            return EXIT_RUNTIME, None
    finally:
        if restore is not None:
            import signal
            signal.signal(signal.SIGINT, restore)
        if own_session and spark is not None:
            if interrupted:
                _quiet_py4j()
                try:
                    spark.stop()
                except Exception:   # the session may be half gone after Ctrl-C: stopping is all that is left
                    pass
            else:
                spark.stop()
    sys.stderr.write("mm2-verify: interrupted: the verification of %s was stopped and its Spark jobs cancelled; "
                     "no report was written\n" % (", ".join(s.get("flow", "?") for s in specs) or "the flows"))
    return EXIT_INTERRUPTED, None


def main(argv=None):
    code, _ = run(sys.argv[1:] if argv is None else argv)
    return code


if __name__ == "__main__":
    sys.exit(main())
