"""`mm2-ambari import-mm1` and `mm2-ambari seed-from-mm1`: move a MirrorMaker 1 setup to MirrorMaker 2.

import-mm1      reads MirrorMaker 1's command line (after `--`) and its consumer/producer property files,
                writes the deployment file (or Ambari configurations) of the equivalent MM2 flow and prints
                what became of every MirrorMaker 1 option. Offline. Exit 0 written, 2 bad input.
seed-from-mm1   after MirrorMaker 1 stopped and before MM2's first start: writes MirrorMaker 1's committed
                offsets into MM2's offsets topic on the target, so MM2 continues where MirrorMaker 1 stopped
                (no gap, no second copy). Runs Kafka's own tools (--kafka-home) with MirrorMaker 1's client
                files. Idempotent; refuses while MirrorMaker 1 still runs or when MM2 already has positions
                for the flow (--force overwrites). Exit 0 seeded (or already), 1 failed, 2 refused/bad input.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import yaml

from mm2_core.config import names
from mm2_core.formats import javaprops
from mm2_core.kafkatools import commands as kafka_commands, output as kafka_output, records as kafka_records
from mm2_ambari.common import cli_args, errors as cli_errors
from mm2_ambari.common.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, BadInput, OperationFailed
from mm2_ambari.mm1 import mapping as mm1_mapping, offsets as mm1_offsets

TOOL_TIMEOUT = 120


def _add_mm1_inputs(p):
    p.add_argument("--source-alias", default=mm1_mapping.DEFAULT_SOURCE_ALIAS,
                   help="MM2's name for MirrorMaker 1's source cluster (default %(default)s)")
    p.add_argument("--target-alias", default=mm1_mapping.DEFAULT_TARGET_ALIAS,
                   help="MM2's name for MirrorMaker 1's target cluster (default %(default)s)")
    p.add_argument("mm1_command", nargs=argparse_remainder(), metavar="-- MM1 COMMAND LINE",
                   help="MirrorMaker 1's command line as it runs today, after `--` (kafka-mirror-maker.sh "
                        "--consumer.config ... --producer.config ... --include ... --num.streams N ...)")


def argparse_remainder():
    import argparse
    return argparse.REMAINDER


def register(subparsers):
    doc = __doc__.split("\n\n")[1]
    p = subparsers.add_parser("import-mm1", help="write the MM2 deployment file equivalent to a MirrorMaker 1 "
                                                 "command line and its property files; print the mapping",
                              description=doc)
    p.add_argument("--kafka-version", required=True, help="Kafka version MM2 will run (3.0+ for the identity "
                                                          "policy that keeps topic names)")
    p.add_argument("--out", required=True, help="deployment file to write (YAML), or JSON with --format "
                                                "configurations")
    p.add_argument("--format", choices=("deployment", "configurations"), default="deployment",
                   help="deployment: a file for `mm2-ambari deploy`; configurations: an Ambari configurations "
                        "map (as `mm2-ambari render --configs` reads)")
    p.add_argument("--secrets-path", default=mm1_mapping.DEFAULT_SECRETS_PATH,
                   help="where the secrets file will be on every MM2 host (default %(default)s)")
    p.add_argument("--secrets-out", help="local file the secrets are written to, mode 0600 (default: "
                                         "<out>.secrets.properties)")
    p.add_argument("--instances", type=cli_args.positive_int, default=1,
                   help="number of MirrorMaker 1 processes that shared the group (tasks.max = num.streams x instances)")
    p.add_argument("--replication-factor", type=cli_args.positive_int,
                   help="replication factor of mirrored and internal topics (default: the service's, 3)")
    p.add_argument("--drop-message-handler", action="store_true",
                   help="import although --message.handler cannot carry over (MM2 copies records unchanged)")
    p.add_argument("--jaas-file", help="the JAAS file MirrorMaker 1 ran with (KAFKA_OPTS "
                                       "-Djava.security.auth.login.config=...), for SASL clusters whose property "
                                       "files have no sasl.jaas.config")
    p.add_argument("--hosts", help="comma-separated MM2 driver hosts for deployment.hosts")
    p.add_argument("--ambari-url", help="deployment.ambari.url")
    p.add_argument("--cluster", help="deployment.ambari.cluster")
    _add_mm1_inputs(p)
    p.set_defaults(func=run_import)

    s = subparsers.add_parser("seed-from-mm1", help="start MM2 where MirrorMaker 1 stopped: write MM1's committed "
                                                    "offsets into MM2's offsets topic (before MM2's first start)",
                              description=doc)
    s.add_argument("--kafka-home", default=os.environ.get("KAFKA_HOME"),
                   help="a Kafka 3.0+ installation whose bin/ tools to run (default $KAFKA_HOME)")
    s.add_argument("--replication-factor", type=cli_args.positive_int, default=3,
                   help="replication factor of the offsets topic if it must be created (MM2's "
                        "internal.topics.replication.factor; default %(default)s)")
    s.add_argument("--offsets-topic", help="MM2's offsets topic on the target (default mm2-offsets.<source "
                                           "alias>.internal)")
    s.add_argument("--connector", default=mm1_offsets.CONNECTOR,
                   help="the source connector's name in the offsets topic (default %(default)s, what a dedicated "
                        "MM2 uses; a Connect cluster names it per flow)")
    s.add_argument("--group", help="MirrorMaker 1's consumer group (default: group.id of --consumer.config)")
    s.add_argument("--dry-run", action="store_true", help="read and report, write nothing")
    s.add_argument("--force", action="store_true", help="overwrite positions MM2 already has for this flow "
                                                        "(only with MM2 stopped)")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    _add_mm1_inputs(s)
    s.set_defaults(func=run_seed)


# --- shared input reading ---------------------------------------------------------------------------
def read_mm1(args):
    """(options, consumer props, producer props) or BadInput naming what is wrong."""
    argv = list(args.mm1_command or [])
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise BadInput("give MirrorMaker 1's command line after `--`, e.g. -- kafka-mirror-maker.sh "
                       "--consumer.config consumer.properties --producer.config producer.properties "
                       "--include 'orders.*' --num.streams 4")
    try:
        options = mm1_mapping.parse_command_line(argv)
    except mm1_mapping.Mm1InputError as exc:
        raise BadInput("the MirrorMaker 1 command line is not valid", exc.problems)
    return options, _read_props(options["consumer.config"], "--consumer.config"), \
        _read_props(options["producer.config"], "--producer.config")


def _read_props(path, option):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        raise BadInput("%s %s: is a directory; give MirrorMaker 1's .properties file" % (option, path))
    except (IOError, OSError) as exc:
        raise BadInput("%s %s: cannot read it: %s" % (option, path, exc.strerror or exc))
    if b"\0" in data[:65536]:
        raise BadInput("%s %s: not a properties file (binary content); give the Java properties file MirrorMaker 1 "
                       "ran with (key=value lines)" % (option, path))
    return OrderedDict(javaprops.loads(data))


def plan(args, kafka_version, options, consumer, producer, **extra):
    try:
        return mm1_mapping.plan_import(options, consumer, producer, kafka_version, source_alias=args.source_alias,
                                       target_alias=args.target_alias, **extra)
    except mm1_mapping.Mm1InputError as exc:
        raise BadInput("MirrorMaker 1's setup cannot be imported as it is", exc.problems)


# --- import-mm1 -------------------------------------------------------------------------------------
def run_import(args):
    from mm2_ambari.common import inputs
    try:
        # the files it will write, checked before anything is read
        inputs.check_file_to_write(args.out, "--out")
        secrets_out = args.secrets_out or (args.out + ".secrets.properties")
        inputs.check_file_to_write(secrets_out, "--secrets-out" if args.secrets_out else "--secrets-out (default)")
        options, consumer, producer = read_mm1(args)
        jaas = None
        if args.jaas_file:
            try:
                with open(args.jaas_file, encoding="utf-8") as fh:
                    jaas = (args.jaas_file, fh.read())
            except OSError as exc:
                raise BadInput("--jaas-file %s: cannot read it: %s" % (args.jaas_file, exc.strerror or exc))
        imp = plan(args, args.kafka_version, options, consumer, producer, secrets_path=args.secrets_path,
                   instances=args.instances, drop_message_handler=args.drop_message_handler,
                   replication_factor=args.replication_factor, jaas_file=jaas)
        if args.hosts:
            imp.deployment["hosts"] = [h.strip() for h in args.hosts.split(",") if h.strip()]
        if args.ambari_url or args.cluster:
            imp.deployment["ambari"] = OrderedDict((k, v) for k, v in (("url", args.ambari_url),
                                                                      ("cluster", args.cluster)) if v)
        try:
            write_import(imp, args.out, args.format, secrets_out if imp.secrets else None, args.secrets_path)
        except OSError as exc:
            raise BadInput("--out %s: cannot write it (%s); give a path you can write"
                           % (args.out, exc.strerror or exc))
    except BadInput as exc:
        cli_errors.report(sys.stderr, exc)
        return EXIT_BAD_INPUT
    print_table(imp.rows, sys.stdout)
    for warning in imp.warnings:
        print("warning: %s" % warning, file=sys.stderr)
    print("\nwrote %s (%s) for flow %s, topics %s, identity replication policy" % (
        args.out, args.format, imp.flow, imp.topics_regex))
    if imp.secrets:
        print("wrote %s (mode 0600, %d secret(s)): copy it to %s on every MM2 host (owner mm2, mode 0600)"
              % (secrets_out, len(imp.secrets), args.secrets_path))
    print("next: stop MirrorMaker 1, then `mm2-ambari seed-from-mm1 --source-alias %s --target-alias %s "
          "--kafka-home <Kafka 3.0+> -- <the same MirrorMaker 1 command line>`, then deploy" % (
              imp.source, imp.target))
    return EXIT_OK


def deployment_yaml(imp, with_deployment=True):
    data = OrderedDict(imp.topology)
    if with_deployment:
        data["deployment"] = imp.deployment
    header = ("# MirrorMaker 2 flow imported from MirrorMaker 1 by `mm2-ambari import-mm1`.\n"
              "# Topic names stay as they are (identity replication policy). The identity policy cannot tell a\n"
              "# mirrored record from a local one, so never add the reverse flow (%s->%s): records would loop.\n"
              "# The validator refuses such a loop.\n" % (imp.target, imp.source))
    return header + yaml.safe_dump(_plain(data), sort_keys=False, default_flow_style=False, allow_unicode=True,
                                   width=1 << 30)


def configurations_json(imp):
    conf = OrderedDict([(names.CLUSTERS, {"topology.mode": "advanced"}),
                        (names.TOPOLOGY, {"content": deployment_yaml(imp, with_deployment=False)})])
    for ctype, props in (imp.deployment.get("configurations") or {}).items():
        conf[ctype] = dict(props)
    return json.dumps(conf, indent=2) + "\n"


def write_import(imp, out, fmt, secrets_out, secrets_path):
    """Write the file (and the secrets file) only once the result validates; nothing half-written."""
    from mm2_ambari.offline import validate_cmd
    directory = os.path.dirname(os.path.abspath(out))
    text = deployment_yaml(imp) if fmt == "deployment" else configurations_json(imp)
    fd, tmp = tempfile.mkstemp(prefix=".import-mm1-", suffix=".yaml", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(deployment_yaml(imp))
        errors = []
        try:
            validate_cmd.validate_file(tmp, imp.deployment["kafka_version"], err=_Lines(errors))
        except BadInput as exc:
            raise BadInput("the MM2 flow imported from MirrorMaker 1 does not validate for Kafka %s; nothing "
                           "written" % imp.deployment["kafka_version"], exc.problems or [str(exc)])
        if secrets_out:
            _write_private(secrets_out, javaprops.dumps(list(imp.secrets.items()),
                                                        header="secrets of the MM2 flow imported from "
                                                               "MirrorMaker 1; on every MM2 host at %s"
                                                               % secrets_path))
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)     # no secret in it: an ordinary file, not mkstemp's 0600
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class _Lines(object):
    def __init__(self, sink):
        self.sink = sink

    def write(self, text):
        self.sink.append(text)

    def flush(self):
        pass


def _write_private(path, text):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    finally:   # an error or Ctrl-C leaves no half-written secrets file
        if os.path.exists(tmp):
            os.unlink(tmp)


def _plain(value):
    if isinstance(value, dict):
        return dict((k, _plain(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def table_lines(rows):
    header = ("MirrorMaker 1", "value", "status", "MirrorMaker 2", "why")
    cells = [header] + [r.as_tuple() for r in rows]
    widths = [min(max(len(str(c[i])) for c in cells), 48) for i in range(4)]
    lines = []
    for cell in cells:
        lines.append("  ".join(str(cell[i]).ljust(widths[i]) for i in range(4)) + "  " + str(cell[4]))
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 3)
    return lines


def print_table(rows, out):
    for line in table_lines(rows):
        print(line.rstrip(), file=out)


# --- seed-from-mm1 ----------------------------------------------------------------------------------
_CLIENT_KEYS = ("bootstrap.servers", "security.protocol", "sasl.", "ssl.")


class Tools(object):
    """Kafka's bin/ tools of one installation, each run bounded, with client files in a private dir."""

    def __init__(self, kafka_home, workdir):
        if not kafka_home or not os.path.isfile(kafka_commands.tool(kafka_home, "kafka-consumer-groups.sh")):
            raise BadInput("--kafka-home %s: no Kafka installation there (bin/kafka-consumer-groups.sh); give "
                           "a Kafka 3.0+ home, e.g. the one MM2 runs from" % (kafka_home or "(not set)"))
        if not os.path.isfile(kafka_commands.tool(kafka_home, "kafka-get-offsets.sh")):
            raise BadInput("--kafka-home %s: its tools are older than Kafka 3.0 (no bin/kafka-get-offsets.sh); "
                           "use a Kafka 3.0+ installation (its tools talk to older brokers too)" % kafka_home)
        self.home, self.dir = kafka_home, workdir

    def client_file(self, name, props, extra=None):
        chosen = [(k, v) for k, v in props.items() if k.startswith(_CLIENT_KEYS)]
        chosen += list((extra or {}).items())
        path = os.path.join(self.dir, name)
        _write_private(path, javaprops.dumps(chosen))
        return path

    def run(self, argv, what, input_text=None, timeout=TOOL_TIMEOUT, with_stderr=False):
        """The tool's stdout (with_stderr: followed by its stderr, where its notices go); OperationFailed when it
        fails or does not answer in time."""
        env = dict(os.environ)
        env.setdefault("KAFKA_HEAP_OPTS", "-Xmx256m")
        env["LOG_DIR"] = os.path.join(self.dir, "logs")
        try:
            proc = subprocess.run(argv, input=input_text, capture_output=True, text=True, env=env,
                                  timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            raise OperationFailed("%s: %s did not answer within %d s" % (what, os.path.basename(argv[0]), timeout))
        if proc.returncode != 0:
            raise OperationFailed("%s: %s failed (exit %d): %s" % (
                what, os.path.basename(argv[0]), proc.returncode, _tail(proc.stderr or proc.stdout)))
        return proc.stdout + ("\n" + proc.stderr if with_stderr and proc.stderr else "")

    def read_until(self, argv, done, timeout=TOOL_TIMEOUT):
        """Run a reading tool until done(line) returns True for a line, it exits, or timeout; then stop it (its
        process group: this tool's JVM only). Returns the output read."""
        env = dict(os.environ)
        env.setdefault("KAFKA_HEAP_OPTS", "-Xmx256m")
        env["LOG_DIR"] = os.path.join(self.dir, "logs")
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                text=True, env=env, start_new_session=True)
        chunks, finished, reader = [], threading.Event(), None

        def pump():
            for line in proc.stdout:
                chunks.append(line)
                if done(line):
                    break
            finished.set()
        try:
            reader = threading.Thread(target=pump, daemon=True)
            reader.start()
            finished.wait(timeout)
        finally:   # Ctrl-C too: the tool runs in its own session, so only this stops it
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait(10)
                except (OSError, subprocess.TimeoutExpired):
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except OSError:
                        pass
                    proc.wait(10)
            if reader is not None:
                reader.join(5)
        return "".join(chunks)


def _tail(text, chars=600):
    lines = [l for l in (text or "").splitlines() if l.strip() and not l.startswith("WARNING")]
    return " | ".join(lines)[-chars:] or "(no output)"


def run_seed(args):
    out = sys.stdout
    workdir = tempfile.mkdtemp(prefix="mm2-seed-")
    os.chmod(workdir, 0o700)
    try:
        report = seed(args, workdir, log=lambda m: print(m, file=sys.stderr))
    except BadInput as exc:
        cli_errors.report(sys.stderr, exc)
        return EXIT_BAD_INPUT
    except OperationFailed as exc:
        cli_errors.report(sys.stderr, exc)
        return EXIT_FAILED
    except KeyboardInterrupt:   # the tool it ran is stopped with it (subprocess.run kills it)
        sys.stderr.write("mm2-ambari seed-from-mm1: interrupted; positions already written to MM2's offsets topic "
                         "stay, and running the same command again writes only what is missing (--dry-run shows "
                         "it)\n")
        return EXIT_INTERRUPTED
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True), file=out)
    else:
        print_seed_report(report, out)
    return EXIT_OK


def seed(args, workdir, log):
    """Read MM1's group, MM2's offsets topic and the topics' extents; write what is missing. Returns the report."""
    options, consumer, producer = read_mm1(args)
    # the same mapping as import-mm1: bootstraps, aliases and group come from the same place
    # (the version only gates the identity policy, which seeding does not need)
    imp = plan(args, "3.9.0", options, consumer, producer, drop_message_handler=True)
    group = args.group or imp.group
    tools = Tools(args.kafka_home, workdir)
    source_cfg = tools.client_file("source.properties", consumer)
    target_cfg = tools.client_file("target.properties", producer)
    src, tgt = imp.source_bootstrap, imp.target_bootstrap
    topic = args.offsets_topic or mm1_offsets.offsets_topic(imp.source)

    # 1. MirrorMaker 1 must be stopped: its group has no member left
    state = members = None
    for attempt in range(3):       # a group between two states may be described as nothing for a moment
        state, members, state_out = read_group_state(tools, src, source_cfg, group)
        if state not in (None, "Dead"):
            break
        time.sleep(2)
    groups_out = tools.run(kafka_commands.groups_describe_command(tools.home, src, source_cfg, [group], offsets=True),
                           "reading group %s" % group)
    committed = kafka_output.group_offsets(groups_out).get(group, {})
    if state in (None, "Dead"):
        if committed:
            raise OperationFailed("cannot tell whether MirrorMaker 1 still runs: the state of group %s on %s could "
                                  "not be read (%s); run the command again" % (group, src, _tail(state_out, 300)))
        raise BadInput("consumer group %s does not exist on %s: is it MirrorMaker 1's group (group.id of %s)?"
                       % (group, src, options["consumer.config"]))
    if members:
        raise BadInput("MirrorMaker 1 still runs: its group %s has %d member(s) (state %s). Stop every "
                       "MirrorMaker 1 process first; a clean stop commits what it copied" % (group, members, state))
    if not committed:
        raise BadInput("consumer group %s has no committed offsets on %s: nothing to continue from" % (group, src))

    # 2. the source topics' extents (what a naive start copies again, what MM2 still has to copy), the target's
    #    copies and MM2's offsets topic: independent reads, run side by side
    topics = sorted(set(t for t, _ in committed))
    pattern = kafka_commands.topics_pattern(topics)
    with ThreadPoolExecutor(6) as pool:
        reads = [pool.submit(_offsets, tools, bootstrap, cfg, what, spec) for bootstrap, cfg, what, spec in (
            (src, source_cfg, pattern, "-2"), (src, source_cfg, pattern, "-1"), (tgt, target_cfg, pattern, "-2"),
            (tgt, target_cfg, pattern, "-1"), (tgt, target_cfg, kafka_commands.topics_pattern([topic]), "-2"),
            (tgt, target_cfg, kafka_commands.topics_pattern([topic]), "-1"))]
        start, end, target_start, target_end, offsets_start, offsets_end = [r.result() for r in reads]

    # 3. MM2's offsets topic on the target: create it as Connect would, or read what it holds
    partitions = len(offsets_end) or None
    created = False
    stored, raw = {}, []
    connector = args.connector
    if partitions is None and not args.dry_run:
        tools.run(kafka_commands.topics_create(tools.home, tgt, target_cfg, topic,
                                               partitions=mm1_offsets.OFFSETS_TOPIC_PARTITIONS,
                                               replication_factor=args.replication_factor,
                                               configs=mm1_offsets.OFFSETS_TOPIC_CONFIGS),
                  "creating %s on %s" % (topic, tgt))
        partitions, created = mm1_offsets.OFFSETS_TOPIC_PARTITIONS, True
    elif partitions:
        stored, raw = _read_offsets_topic(tools, tgt, target_cfg, topic, connector, _by_partition(offsets_start),
                                          _by_partition(offsets_end))
    seed_plan = mm1_offsets.plan_seed(imp.source, committed, start, end, stored,
                                      partitions or mm1_offsets.OFFSETS_TOPIC_PARTITIONS, connector)
    report = _report(imp, group, topic, seed_plan, target_start, target_end, committed, start)
    report["offsets_topic_created"] = created
    if seed_plan.conflicts and not args.force:
        raise BadInput("MM2 already has positions for flow %s in %s; seeding now would make it skip or copy "
                       "again. Nothing written. Pass --force (with MM2 stopped) to replace them"
                       % (imp.flow, topic), seed_plan.conflicts)
    if args.dry_run or not seed_plan.writes:
        report["written"] = 0
        report["dry_run"] = bool(args.dry_run)
        return report

    # 4. write, then read back: every key where Connect will look for it
    lines = "".join("%s\t%s\n" % (key, value) for key, value, _ in seed_plan.writes)
    argv = kafka_commands.console_producer(tools.home, (3, 0, 0), tgt, target_cfg, topic, keyed=True)
    tools.run(argv, "writing positions to %s" % topic, input_text=lines)
    written_end = _by_partition(_offsets(tools, tgt, target_cfg, kafka_commands.topics_pattern([topic]), "-1"))
    after, raw = _read_offsets_topic(tools, tgt, target_cfg, topic, connector, _by_partition(offsets_start),
                                     written_end)
    where = dict(((k, v), p) for p, k, v in raw)
    missing = [key for key, value, part in seed_plan.writes if where.get((key, value)) != part]
    if missing:
        raise OperationFailed("wrote %d position(s) to %s but %d are not where Connect reads them: %s"
                              % (len(seed_plan.writes), topic, len(missing), missing[:3]))
    report["written"] = len(seed_plan.writes)
    report["dry_run"] = False
    return report


def read_group_state(tools, bootstrap, config_path, group):
    """(state, members, output) of a group: the tool's table, or its notices on stderr ("has no active members":
    Empty, "does not exist": Dead); state None when the output says neither."""
    out = tools.run(kafka_commands.groups_describe_command(tools.home, bootstrap, config_path, [group], state=True),
                    "reading group %s" % group, with_stderr=True)
    state, members = kafka_output.group_state(out, group)
    return state, members, out


def _offsets(tools, bootstrap, cfg, pattern, time_spec):
    """{(topic, partition): offset} at time_spec (-1 latest, -2 earliest); {} when no topic matches."""
    try:
        out = tools.run(kafka_commands.get_offsets_command(tools.home, bootstrap, cfg, time_spec, topic=pattern),
                        "reading offsets on %s" % bootstrap)
    except OperationFailed as exc:
        if kafka_output.no_topic_matched(str(exc)):
            return {}
        raise
    return kafka_output.parse_offsets(out)


def _by_partition(offsets):
    return dict((p, off) for (_t, p), off in offsets.items())


def _read_offsets_topic(tools, bootstrap, cfg, topic, connector, log_start, log_end, attempts=2):
    """The records of the offsets topic up to log_end (its end offsets before the read). The read ends as soon as it
    has seen the last record of every non-empty partition (a running MM2 writes to the topic all the time, so it is
    never idle); an empty or short read (a slow consumer start) is never taken for "MM2 has no positions"."""
    if not any(end > log_start.get(p, 0) for p, end in log_end.items()):
        return {}, []
    argv = kafka_commands.console_consumer(tools.home, (3, 0, 0), bootstrap, cfg, topic, mode="positions",
                                           timeout_ms=30000)

    for _attempt in range(attempts):
        last = {}

        def done(line):
            position = kafka_records.read_position(line)
            if position is None:
                return False
            partition, offset = position
            last[partition] = max(last.get(partition, -1), offset)
            return offset >= log_end.get(partition, 0) - 1 and mm1_offsets.read_complete(last, log_start, log_end)
        text = tools.read_until(argv, done)
        positions, raw, seen = kafka_records.offsets_records(text, connector)
        if mm1_offsets.read_complete(seen, log_start, log_end):
            return positions, raw
    raise OperationFailed("could not read %s to its end (%d attempts): run the command again (it writes only what "
                          "is missing)" % (topic, attempts))


def _report(imp, group, topic, plan_, target_start, target_end, committed, start):
    by_topic = OrderedDict()
    for pos in plan_.positions:
        row = by_topic.setdefault(pos.topic, {"partitions": 0, "mm1_committed": 0, "source_end": 0,
                                              "to_copy": 0, "naive_recopy": 0})
        row["partitions"] += 1
        if pos.log_start is not None and pos.log_end is not None:
            row["mm1_committed"] += max(pos.committed - pos.log_start, 0)
            row["source_end"] += pos.log_end
            row["to_copy"] += max(pos.log_end - max(pos.committed, pos.log_start), 0)
            row["naive_recopy"] += max(min(pos.committed, pos.log_end) - pos.log_start, 0)
    expected_dups = 0
    warnings = []
    for name, row in by_topic.items():
        target_parts = len([k for k in target_end if k[0] == name])
        source_parts = len([k for k in start if k[0] == name])
        if target_parts and target_parts < source_parts:
            warnings.append("%s has %d partition(s) on the target and %d on the source: MM2 adds the missing ones "
                            "and writes each record to its source partition number (MirrorMaker 1 chose by key "
                            "hash); consumers that rely on key -> partition on the target see that change"
                            % (name, target_parts, source_parts))
        elif not target_parts:
            warnings.append("%s does not exist on the target: MirrorMaker 1 never wrote to it" % name)
        # records MirrorMaker 1 wrote to the target topic beyond what it committed: MM2 copies them again
        on_target = sum(target_end.get(k, 0) - target_start.get(k, 0) for k in target_end if k[0] == name)
        row["target_records"] = on_target
        row["expected_duplicates"] = max(on_target - row["mm1_committed"], 0)
        expected_dups += row["expected_duplicates"]
    return {"flow": imp.flow, "group": group, "offsets_topic": topic, "topics": by_topic,
            "positions": len(plan_.positions), "to_write": len(plan_.writes), "already_seeded": len(plan_.already),
            "conflicts": plan_.conflicts, "to_copy": plan_.to_copy, "naive_recopy": plan_.naive,
            "expected_duplicates": expected_dups, "lost_to_retention": plan_.lost_to_retention,
            "warnings": warnings}


def print_seed_report(report, out):
    print("flow %s: MirrorMaker 1 group %s, MM2 positions in %s" % (
        report["flow"], report["group"], report["offsets_topic"]), file=out)
    print("%-32s %5s %14s %12s %14s %16s" % ("topic", "parts", "mm1 committed", "to copy", "naive re-copy",
                                              "expected dups"), file=out)
    for name, row in report["topics"].items():
        print("%-32s %5d %14d %12d %14d %16d" % (name, row["partitions"], row["mm1_committed"], row["to_copy"],
                                                 row["naive_recopy"], row["expected_duplicates"]), file=out)
    if report.get("dry_run"):
        print("dry run: %d position(s) would be written, %d already seeded; nothing written"
              % (report["to_write"], report["already_seeded"]), file=out)
    elif report["written"]:
        print("seeded %d position(s) (%d already there): MM2 continues where MirrorMaker 1 stopped" % (
            report["written"], report["already_seeded"]), file=out)
    else:
        print("already seeded: all %d position(s) are in %s; nothing written" % (
            report["already_seeded"], report["offsets_topic"]), file=out)
    print("a start without seeding would copy %d record(s) again; MM2 will copy %d new record(s); "
          "expected duplicates (copied by MirrorMaker 1 after its last commit): %d" % (
              report["naive_recopy"], report["to_copy"], report["expected_duplicates"]), file=out)
    for warning in report.get("warnings", []):
        print("warning: %s" % warning, file=out)
    if report.get("lost_to_retention"):
        print("warning: %d record(s) MirrorMaker 1 never copied were deleted by the source's retention"
              % report["lost_to_retention"], file=out)


def markdown_table(rows):
    """The mapping table as docs/migrate-from-mm1.md shows it (tests/mm1 checks the page against this)."""
    def cell(text):
        return str(text).replace("|", "\\|")
    lines = ["| MirrorMaker 1 | value | status | MirrorMaker 2 | why |", "|---|---|---|---|---|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(c) if c else "" for c in row.as_tuple()) + " |")
    return "\n".join(lines) + "\n"
