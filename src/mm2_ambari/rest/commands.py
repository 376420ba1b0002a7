"""REST subcommands of mm2-ambari: deploy, configure, restart, status, alerts, check, run, flow (register), and
remove-host, remove (register_removal; `upgrade` sits between them in the command list, from mm2_ambari.upgrade).

Exit codes: 0 ok, 1 the operation failed (Ambari error, failed request, unreachable server),
2 bad input (file, options, missing credentials).
"""
import argparse

from mm2_core.config import names
from mm2_ambari.common import cli_args
from mm2_ambari.common.errors import BadInput
from mm2_ambari.rest import host_cmds, ops
from mm2_ambari.rest.session import command


def register(subparsers):
    common = cli_args.connection_parser()
    file_opts = _file_parser()
    conn_file = cli_args.conn_file_parser()

    p = subparsers.add_parser(
        "deploy", parents=[common, file_opts],
        help="add %s to a cluster from a topology file, install and start it" % names.SERVICE,
        description="Add the service, its component and host components, create the kafka-mm2-* "
                    "config types (stack defaults merged with the file), install and start. "
                    "Re-running with the same file changes nothing.")
    p.add_argument("--no-service-check", action="store_true",
                   help="do not run %s after the deploy changed something (the web UI runs it after "
                        "adding a service)" % names.SERVICE_CHECK_ROLE)
    p.set_defaults(func=command(_deploy, with_file=True))

    p = subparsers.add_parser(
        "configure", parents=[common, file_opts],
        help="apply a changed topology file: diff, new config version, restart affected hosts",
        description="Show the diff against Ambari's current desired configs, write one new service "
                    "config version with a note, and restart only the driver hosts whose configs are stale.")
    p.set_defaults(func=command(_configure, with_file=True))

    p = subparsers.add_parser("restart", parents=[common, conn_file, _batch_parser()], help="restart %s" % names.COMPONENT,
                              description="Hosts and components in maintenance mode are skipped, as the "
                                          "web UI does.")
    p.add_argument("--rolling", action="store_true",
                   help="rolling restart through Ambari's request schedule (batches, see below)")
    p.add_argument("--hosts", type=_host_list, help="comma-separated hosts (default: all driver hosts)")
    p.add_argument("--stale-only", action="store_true", help="only hosts whose configs are stale")
    p.set_defaults(func=command(ops.restart))

    p = subparsers.add_parser("status", parents=[common, conn_file], help="components per host with their states",
                              description="Exit 1 when the service is missing or a component is not in "
                                          "the state Ambari wants (maintenance mode excepted).")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=command(ops.status))

    p = subparsers.add_parser("alerts", parents=[common, conn_file], help="this service's alerts with state and text",
                              description="List the alerts of %s on every driver host (the process, latency, "
                                          "lag, heartbeat gap, offset sync, connectors and tasks) with their "
                                          "state and text. With --fail-on a pipeline can gate on them."
                                          % names.SERVICE)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--fail-on", choices=("WARNING", "CRITICAL"),
                   help="exit 1 when an alert (not in maintenance) is at this state or worse")
    p.set_defaults(func=command(ops.alerts))

    p = subparsers.add_parser("check", parents=[common, conn_file], help="run %s and wait" % names.SERVICE_CHECK_ROLE,
                              description="Run the service check (%s): it writes a marker on each source "
                                          "cluster and waits until it is mirrored on the target. Exit 0 when "
                                          "it passes, 1 when it fails (its output is shown)."
                                          % names.SERVICE_CHECK_ROLE)
    p.set_defaults(func=command(ops.check))

    p = subparsers.add_parser("run", parents=[common, conn_file], help="run a custom command and show its output",
                              description="Run one of the service's custom commands (the Service Actions of "
                                          "the web UI) on driver hosts and print its output: %s." % ", ".join(
                                              names.CUSTOM_COMMANDS))
    p.add_argument("custom_command", metavar="COMMAND", choices=names.CUSTOM_COMMANDS,
                   help=", ".join(names.CUSTOM_COMMANDS))
    group = p.add_mutually_exclusive_group()
    group.add_argument("--hosts", type=_host_list, help="comma-separated driver hosts (default: one started host)")
    group.add_argument("--all-hosts", action="store_true", help="run on every driver host")
    p.add_argument("--param", dest="parameters", action="append", type=_parameter, metavar="NAME=VALUE",
                   help="a command parameter (repeatable), e.g. --param groups=g1,g2 for "
                        "EXPORT_TRANSLATED_OFFSETS; the script reads it as commandParams/NAME")
    p.set_defaults(func=command(ops.run_command))

    p = subparsers.add_parser("flow", parents=[common, conn_file],
                              help="pause, resume, stop one flow, or move where it copies from (connect mode)",
                              description="Pause, resume or stop one replication flow on the running drivers "
                                          "(kafka-mm2-env/mm2_run_mode=connect): the other flows keep running. "
                                          "seed moves where the flow copies from (FLOW_SEED): through Connect's "
                                          "offsets API on a running worker (Kafka 3.6+), else before it starts.")
    p.add_argument("action", choices=sorted(names.FLOW_COMMANDS), help="what to do with the flow")
    p.add_argument("--flow", required=True, metavar="SOURCE->TARGET", help="the flow, quoted: --flow 'A->B'")
    p.add_argument("--at", choices=["end"], help="seed: the source's end offsets now (skip what is not copied yet)")
    p.add_argument("--offsets", metavar="TOPIC-P=NEXT,...",
                   help="seed: the next source offset to copy per partition, e.g. orders-0=0,orders-1=0 (replay)")
    p.set_defaults(func=command(ops.flow_command))


def register_removal(subparsers):
    common = cli_args.connection_parser()
    conn_file = cli_args.conn_file_parser()
    host_cmds.register(subparsers, common).set_defaults(func=command(host_cmds.remove_host))

    p = subparsers.add_parser("remove", parents=[common, conn_file], help="stop and delete the service",
                              description="Stop %s, delete its host components and the service (Ambari "
                                          "drops its configs and config groups with it)." % names.SERVICE)
    p.add_argument("--yes", action="store_true", help="confirm the removal (not needed with --dry-run)")
    p.set_defaults(func=command(_remove))


def _file_parser():
    p = argparse.ArgumentParser(add_help=False, parents=[_batch_parser()])
    p.add_argument("topology", metavar="TOPOLOGY.yaml", help="advanced topology YAML with a deployment: section")
    p.add_argument("--kafka-version", help="Kafka version MM2 runs, for validation (default: "
                                           "deployment.kafka_version, kafka_version_override, the stack's Kafka)")
    p.add_argument("--note", help="service config version note (default: deployment.note or the file name)")
    p.add_argument("--rotate-secrets", action="store_true",
                   help="send the file's passwords even where Ambari already stores one (Ambari never "
                        "returns passwords, so they cannot be compared)")
    p.add_argument("--rolling", action="store_true",
                   help="restart affected hosts through Ambari's rolling restart request schedule")
    p.add_argument("--no-restart", action="store_true", help="do not restart hosts with stale configs")
    return p


def _batch_parser():
    """Rolling restart batches, with the web UI's defaults (rolling_restart_view.js)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("rolling restart (--rolling)")
    g.add_argument("--batch-size", type=cli_args.positive_int, metavar="N",
                   help="hosts restarted together (default 1; a tenth of the hosts above 10)")
    g.add_argument("--batch-pause", type=cli_args.non_negative_int, metavar="S",
                   help="seconds Ambari waits between batches (default 120)")
    g.add_argument("--failure-tolerance", type=cli_args.non_negative_int, metavar="N",
                   help="failed tasks tolerated before Ambari stops the restart (default: the batch size)")
    return p


def _parameter(text):
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError("expected NAME=VALUE, got %r" % text)
    return name.strip(), value


def _host_list(text):
    hosts = [h.strip() for h in text.split(",") if h.strip()]
    if not hosts:
        raise argparse.ArgumentTypeError("expected comma-separated host names")
    return hosts


def _deploy(ctx, df, args):
    return ops.deploy(ctx, df, args)


def _configure(ctx, df, args):
    return ops.configure(ctx, df, args)


def _remove(ctx, args):
    if not args.yes and not args.dry_run:
        raise BadInput("remove stops %s and deletes it with its configs: pass --yes to confirm "
                       "(or --dry-run to see the calls)" % names.SERVICE)
    return ops.remove(ctx, args)
