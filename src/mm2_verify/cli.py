"""Entry point of `mm2-verify`: the Spark job in-process, or a plan from Ambari configurations.

    mm2-verify --flow A->B --source-dump ... --target-dump ... [job flags]   (see --help)
    mm2-verify --ambari-config configs.json [--flow A->B] [--since -2h] [outputs]
    mm2-verify --print-spark-submit [job flags]   # the same run as a spark-submit command line
    mm2-verify --version
    mm2-verify demo [--dir DIR]    # a small lossy pair of dumps, verified in about a minute

With --ambari-config the flows, topics, replication policy and each cluster's Kafka security
come from Ambari's configurations ({type: {property: value}} or a command JSON), rendered by
the same core the agent uses; the verify.* properties give the defaults of the range.
Exit status: 0 ok, 1 loss or disorder found, 2 bad input, 3 the job could not run.
"""
import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time

from mm2_ambari.version import tools_version
from mm2_verify import preflight
from mm2_verify_job import job, plan

DEFAULT_KAFKA_VERSION = "3.7.1"
EXAMPLES = (
    "mm2-verify --flow 'primary->backup' --source-dump /dumps/primary --target-dump /dumps/backup "
    "--report report.json",
    "mm2-verify --ambari-config configs.json --flow 'primary->backup' --since=-2h --summary summary.txt",
    "mm2-verify demo",
)
# Job flags a --ambari-config run may use to override the planned entries.
OVERRIDES = {"since": "since", "until": "until", "topics": "topics", "pending_window": "pending_window",
             "pending_records": "pending_records", "fail_on": "fail_on", "match_on": "match_on"}


def wrapper_parser():
    parser = argparse.ArgumentParser(prog="mm2-verify", add_help=False, usage=argparse.SUPPRESS)
    group = parser.add_argument_group("mm2-verify only (not the spark-submit job)")
    group.add_argument("--ambari-config", metavar="FILE",
                       help="flows, topics, policy and cluster security from Ambari's configurations "
                            "({type: {property: value}} or a command JSON); --flow picks one flow")
    group.add_argument("--kafka-version", default=DEFAULT_KAFKA_VERSION,
                       help="Kafka version to render the configurations for (default %(default)s)")
    group.add_argument("--print-spark-submit", action="store_true",
                       help="validate the other flags and print the spark-submit command line running them "
                            "(with --ambari-config the plan, which holds the clusters' passwords, is written "
                            "to a private 0600 file named on stderr)")
    group.add_argument("--version", action="store_true",
                       help="print the version (the mpack's, from mpack.json) and exit")
    return parser


def spark_submit_line(job_argv):
    """The spark-submit command running the same verification on a cluster.

    --kafka-connector becomes --jars/--packages; Kafka input without it gets the connector
    built for the installed pyspark (the cluster's Spark must be the same version).
    """
    args = list(job_argv)
    master = _take_flag(args, "--master")
    connector = job.kafka_connector(_take_flag(args, "--kafka-connector"))
    if connector is None and any(a.startswith(("--source-bootstrap", "--target-bootstrap", "--plan")) for a in args):
        version, scala = job.installed_spark()
        if version:
            connector = ("packages", job.connector_coordinate(version, scala))
    head = ["spark-submit"] + (["--master", master] if master else []) + job.connector_submit_args(connector)
    return " ".join(shlex.quote(a) for a in head + [os.path.abspath(job.__file__)] + args)


def _take_flag(args, flag):
    """Remove `flag VALUE` or `flag=VALUE` from args; the value or None."""
    for i, arg in enumerate(args):
        if arg == flag:
            value = args[i + 1] if i + 1 < len(args) else None
            del args[i:i + 2]
            return value
        if arg.startswith(flag + "="):
            del args[i]
            return arg[len(flag) + 1:]
    return None


def load_configurations(path):
    """Ambari's configurations ({type: {property: value}} or a command JSON), checked as
    `mm2-ambari render --configs` checks them: JSON errors with file:line, unknown types by name."""
    from mm2_ambari.common import errors, inputs
    try:
        data = inputs.load_json(path, "--ambari-config", "Ambari's configurations {config type: {property: value}} "
                                                           "or a command JSON")
        return inputs.configurations_map(data, path, "--ambari-config")
    except errors.BadInput as exc:
        raise job.BadInput("; ".join([str(exc)] + [str(p) for p in exc.problems]))


def plan_from_ambari(configurations, kafka_version, job_args):
    """The job plan for these configurations, with the command line's range and flow choice."""
    try:
        from mm2_core.formats import javaprops
        from mm2_core.rendering import render
    except ImportError as exc:
        raise job.BadInput("--ambari-config needs the rendering core (mm2_core.rendering.render): %s" % exc)
    conf_dir = tempfile.mkdtemp(prefix="mm2-verify-render-")
    try:
        rendering = render.render_mm2(configurations, kafka_version, "localhost", conf_dir)
    except Exception as exc:  # topology.ConfigError: the same messages as the agent
        raise job.BadInput("the Ambari configuration is invalid:\n%s" % exc)
    finally:
        shutil.rmtree(conf_dir, ignore_errors=True)  # only names paths in the rendering
    secrets_file = rendering.file(render.SECRETS_FILE)
    secrets = javaprops.load_dict(secrets_file.text) if secrets_file is not None else {}
    try:
        settings = plan.verify_settings(configurations)
        if job_args.flow:
            settings["flows"] = [job_args.flow.replace(" ", "")]
        flows, clusters = plan.view_from_rendering(rendering, secrets)
        result = plan.job_plan(settings, flows, clusters)
    except plan.PlanError as exc:
        raise job.BadInput(str(exc))
    for entry in result["flows"]:
        for flag, key in OVERRIDES.items():
            value = getattr(job_args, flag)
            default = job.build_parser().get_default(flag)
            if value is not None and value != default:
                entry[key] = value
    return result


def _preflight(job_args, job_argv):
    """Check what would otherwise fail only after Spark started (exit code), or None when all is
    well; a detected dump format is added to job_argv."""
    try:
        for side in ("source", "target"):
            path = getattr(job_args, side + "_dump", None)
            if path:
                given = getattr(job_args, side + "_dump_format", None)
                detected = preflight.check_dump(side, path, given)
                if detected and not given:
                    job_argv += ["--%s-dump-format" % side, detected]
        for flag in ("report", "summary", "plot"):
            preflight.check_output("--" + flag, getattr(job_args, flag, None))
        preflight.check_runtime()
    except job.BadInput as exc:
        sys.stderr.write("mm2-verify: bad input: %s\n" % exc)
        return job.EXIT_BAD_INPUT
    except preflight.Missing as exc:
        sys.stderr.write("mm2-verify: cannot run: %s\n" % exc)
        return job.EXIT_RUNTIME
    return None


def main(argv=None):
    try:
        return _main(argv)
    except KeyboardInterrupt:   # the job itself reports an interrupted comparison (mm2_verify_job.job.run)
        sys.stderr.write("mm2-verify: interrupted before the verification started; nothing was written\n")
        return job.EXIT_INTERRUPTED


def _main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        from mm2_verify import demo
        return demo.main(argv[1:])
    wrapper, job_argv = wrapper_parser().parse_known_args(argv)
    if "-h" in argv or "--help" in argv:
        sys.stdout.write(job.build_parser().format_help() + "\n" + wrapper_parser().format_help() +
                         "\nExamples (a flow is quoted: unquoted, the shell reads > as a redirect):\n" +
                         "".join("  %s\n" % e for e in EXAMPLES) +
                         "\nTry it first: `mm2-verify demo` writes a small lossy pair of dumps and verifies "
                         "it (pyspark and Java 17 needed).\n")
        return job.EXIT_OK
    if wrapper.version:
        sys.stdout.write("mm2-verify %s\n" % tools_version())
        return job.EXIT_OK
    known = [o for parser in (job.build_parser(), wrapper_parser()) for action in parser._actions
             for o in action.option_strings]
    options = job_argv[:job_argv.index("--")] if "--" in job_argv else job_argv
    unknown = [a for a in options if a.startswith("--") and not any(
        o.startswith(a.split("=", 1)[0]) for o in known)]
    if unknown:  # named with a 'did you mean'; values are never echoed (a --*-kafka value may be a secret)
        from mm2_ambari.cli import unknown_arguments
        parser = job.build_parser()
        parser._actions.extend(wrapper_parser()._actions)
        sys.stderr.write(unknown_arguments("mm2-verify", unknown, parser) + "\n")
        return job.EXIT_BAD_INPUT
    try:
        job_args = job.parse_args(job_argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else job.EXIT_BAD_INPUT
    try:
        # Every mode validates the same way before anything runs or is printed.
        now_ms = int(time.time() * 1000)
        job.kafka_connector(job_args.kafka_connector)
        if wrapper.ambari_config:
            result = plan_from_ambari(load_configurations(wrapper.ambari_config), wrapper.kafka_version, job_args)
            for entry in result["flows"]:
                job.normalize_spec(entry, now_ms)
        else:
            job.specs_from_args(job_args, now_ms)
    except job.BadInput as exc:
        sys.stderr.write("mm2-verify: bad input: %s\n" % exc)
        return job.EXIT_BAD_INPUT
    if not wrapper.ambari_config:
        if wrapper.print_spark_submit:
            sys.stdout.write(spark_submit_line(job_argv) + "\n")
            return job.EXIT_OK
        code = _preflight(job_args, job_argv)
        return code if code is not None else job.main(job_argv)
    passthrough = []
    for flag in ("report", "plot", "summary", "master", "shuffle_partitions", "app_name", "max_table_rows",
                 "kafka_connector"):
        value = getattr(job_args, flag)
        if value is not None:
            passthrough += ["--" + flag.replace("_", "-"), str(value)]
    if wrapper.print_spark_submit:
        # The plan holds the clusters' passwords: a 0600 file in a private directory, kept for the run.
        directory = tempfile.mkdtemp(prefix="mm2-verify-")
        path = os.path.join(directory, "plan.json")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(result, handle)
        sys.stderr.write("mm2-verify: the plan (with the clusters' credentials) is %s, mode 0600; "
                         "delete it after the run\n" % path)
        sys.stdout.write(spark_submit_line(["--plan", path] + passthrough) + "\n")
        return job.EXIT_OK
    code = _preflight(job_args, passthrough)
    if code is not None:
        return code
    # The plan holds the clusters' passwords: a private file, removed right after the run.
    fd, path = tempfile.mkstemp(prefix="mm2-verify-plan-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(result, handle)
        return job.main(["--plan", path] + passthrough)
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
