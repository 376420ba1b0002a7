"""REST subcommands of mm2-ambari: deploy, configure, restart, status, alerts, check, run, upgrade,
remove-host, remove.

Exit codes: 0 ok, 1 the operation failed (Ambari error, failed request, unreachable server),
2 bad input (file, options, missing credentials).
"""
import argparse
import os
import socket
import ssl
import sys
import warnings
from urllib.parse import urlsplit

from mm2_core.config import names
from mm2_ambari import ambari_state, credentials, deployfile, host_cmds, masking, ops, upgrade_cmd
from mm2_ambari.ambari_api import AmbariClient
from mm2_ambari.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, BadInput, Mm2AmbariError
from mm2_ambari.waiter import Waiter


def register(subparsers):
    common = _common_parser()
    file_opts = _file_parser()
    conn_file = argparse.ArgumentParser(add_help=False)
    conn_file.add_argument("-f", "--file", dest="conn_file", metavar="TOPOLOGY.yaml",
                           help="take --url/--cluster from this deployment file's deployment.ambari section")

    p = subparsers.add_parser(
        "deploy", parents=[common, file_opts],
        help="add %s to a cluster from a topology file, install and start it" % names.SERVICE,
        description="Add the service, its component and host components, create the kafka-mm2-* "
                    "config types (stack defaults merged with the file), install and start. "
                    "Re-running with the same file changes nothing.")
    p.add_argument("--no-service-check", action="store_true",
                   help="do not run %s after the deploy changed something (the web UI runs it after "
                        "adding a service)" % names.SERVICE_CHECK_ROLE)
    p.set_defaults(func=_command(_deploy))

    p = subparsers.add_parser(
        "configure", parents=[common, file_opts],
        help="apply a changed topology file: diff, new config version, restart affected hosts",
        description="Show the diff against Ambari's current desired configs, write one new service "
                    "config version with a note, and restart only the driver hosts whose configs are stale.")
    p.set_defaults(func=_command(_configure))

    p = subparsers.add_parser("restart", parents=[common, conn_file, _batch_parser()], help="restart %s" % names.COMPONENT,
                              description="Hosts and components in maintenance mode are skipped, as the "
                                          "web UI does.")
    p.add_argument("--rolling", action="store_true",
                   help="rolling restart through Ambari's request schedule (batches, see below)")
    p.add_argument("--hosts", type=_host_list, help="comma-separated hosts (default: all driver hosts)")
    p.add_argument("--stale-only", action="store_true", help="only hosts whose configs are stale")
    p.set_defaults(func=_command(ops.restart))

    p = subparsers.add_parser("status", parents=[common, conn_file], help="components per host with their states",
                              description="Exit 1 when the service is missing or a component is not in "
                                          "the state Ambari wants (maintenance mode excepted).")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_command(ops.status))

    p = subparsers.add_parser("alerts", parents=[common, conn_file], help="this service's alerts with state and text",
                              description="List the alerts of %s on every driver host (the process, latency, "
                                          "lag, heartbeat gap, offset sync, connectors and tasks) with their "
                                          "state and text. With --fail-on a pipeline can gate on them."
                                          % names.SERVICE)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--fail-on", choices=("WARNING", "CRITICAL"),
                   help="exit 1 when an alert (not in maintenance) is at this state or worse")
    p.set_defaults(func=_command(ops.alerts))

    p = subparsers.add_parser("check", parents=[common, conn_file], help="run %s and wait" % names.SERVICE_CHECK_ROLE,
                              description="Run the service check (%s): it writes a marker on each source "
                                          "cluster and waits until it is mirrored on the target. Exit 0 when "
                                          "it passes, 1 when it fails (its output is shown)."
                                          % names.SERVICE_CHECK_ROLE)
    p.set_defaults(func=_command(ops.check))

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
    p.set_defaults(func=_command(ops.run_command))

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
    p.set_defaults(func=_command(ops.flow_command))
    upgrade_cmd.register(subparsers, common, conn_file).set_defaults(
        func=upgrade_cmd.release_first(_command(upgrade_cmd.upgrade), report))
    host_cmds.register(subparsers, common).set_defaults(func=_command(host_cmds.remove_host))

    p = subparsers.add_parser("remove", parents=[common, conn_file], help="stop and delete the service",
                              description="Stop %s, delete its host components and the service (Ambari "
                                          "drops its configs and config groups with it)." % names.SERVICE)
    p.add_argument("--yes", action="store_true", help="confirm the removal (not needed with --dry-run)")
    p.set_defaults(func=_command(_remove))


def _common_parser():
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("Ambari connection")
    g.add_argument("--url", help="Ambari server, e.g. https://ambari.example.com:8443 (default: AMBARI_URL, "
                                 "or deployment.ambari.url of the file)")
    g.add_argument("--cluster", help="cluster name (default: AMBARI_CLUSTER, or deployment.ambari.cluster)")
    g.add_argument("--user", help="Ambari user (default: AMBARI_USER, ~/.netrc, or a prompt); the password "
                                  "comes from AMBARI_PASSWORD, ~/.netrc or a prompt, never from the command line")
    g.add_argument("--ca-bundle", metavar="PEM", help="CA certificates to verify Ambari's TLS certificate")
    g.add_argument("--insecure", action="store_true", help="do not verify Ambari's TLS certificate (unsafe)")
    g.add_argument("--connect-timeout", type=_positive, default=10.0, metavar="S", help="default 10")
    g.add_argument("--read-timeout", type=_positive, default=60.0, metavar="S", help="default 60")
    g.add_argument("--retries", type=_non_negative_int, default=6, metavar="N",
                   help="retries on connection errors, with exponential backoff (default 6)")
    g.add_argument("--retry-backoff", type=_non_negative, default=1.0, metavar="S",
                   help="first backoff delay, doubled each retry up to 30 s (default 1)")
    g = p.add_argument_group("waiting for Ambari requests")
    g.add_argument("--poll-interval", type=_non_negative, default=2.0, metavar="S", help="default 2")
    g.add_argument("--wait-timeout", type=_positive, default=3600.0, metavar="S",
                   help="give up waiting for one request after this long (default 3600)")
    g.add_argument("--no-progress", action="store_true", help="status lines instead of a progress bar")
    p.add_argument("--dry-run", action="store_true",
                   help="read Ambari's state and print the calls that would change it, without sending them")
    return p


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
    g.add_argument("--batch-size", type=_positive_int, metavar="N",
                   help="hosts restarted together (default 1; a tenth of the hosts above 10)")
    g.add_argument("--batch-pause", type=_non_negative_int, metavar="S",
                   help="seconds Ambari waits between batches (default 120)")
    g.add_argument("--failure-tolerance", type=_non_negative_int, metavar="N",
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


def _at_least(convert, low, strict=False):
    """An argparse type: a number (int or float) >= low, or > low when strict."""
    def check(text):
        value = convert(text)
        if value < low or (strict and value == low):
            raise argparse.ArgumentTypeError("must be %s %s" % (">" if strict else ">=", low))
        return value
    check.__name__ = convert.__name__  # argparse names the type in its errors
    return check


_positive = _at_least(float, 0, strict=True)
_non_negative = _at_least(float, 0)
_positive_int = _at_least(int, 1)
_non_negative_int = _at_least(int, 0)


# --- command plumbing ------------------------------------------------------------------------------
def _command(fn):
    def run(args):
        out, err = sys.stdout, sys.stderr
        client = None
        try:
            df = deployfile.load(args.topology) if getattr(args, "topology", None) else None
            if df is None and getattr(args, "conn_file", None):
                df = deployfile.load(args.conn_file)
            url, cluster = _target(args, df)
            _resolve_host(url)
            verify = _verify(args, err)
            user, password = credentials.resolve(url, args.user)
            client = AmbariClient(url, (user, password), verify=verify, connect_timeout=args.connect_timeout,
                                  read_timeout=args.read_timeout, retries=max(args.retries, 0),
                                  backoff=args.retry_backoff, dry_run=args.dry_run, out=out,
                                  log=lambda m: print(m, file=err))
            waiter = Waiter(client, cluster, poll_interval=args.poll_interval, timeout=args.wait_timeout,
                            progress=False if args.no_progress else None, stream=err)
            ctx = ambari_state.Context(client, cluster, waiter, out, err, dry_run=args.dry_run)
            if fn in (_deploy, _configure):
                return fn(ctx, df, args)
            return fn(ctx, args)
        except BadInput as exc:
            report(err, exc)
            return EXIT_BAD_INPUT
        except Mm2AmbariError as exc:
            report(err, exc)
            return exc.exit_code
        except KeyboardInterrupt:
            print(interrupted_line(args, client), file=err)
            return EXIT_INTERRUPTED
        finally:
            if client is not None:
                client.close()
    return run


def interrupted_line(args, client):
    """One line after Ctrl-C: the command interrupted, and what it had already sent to Ambari."""
    command = "mm2-ambari " + " ".join(
        w for w in (getattr(args, "command", None), getattr(args, "cutover_command", None)) if w)
    sent = [c for c in (client.planned if client is not None else []) if not getattr(client, "dry_run", False)]
    if not sent:
        return "%s: interrupted; nothing was sent to Ambari" % command
    resumable = getattr(args, "command", None) in ("failover", "failback", "upgrade")
    return ("%s: interrupted after %d change(s) sent to Ambari (the last: %s %s): requests already sent go on "
            "there (Background operations); %s" % (
                command, len(sent), sent[-1][0], sent[-1][1],
                "run the same command again: it resumes" if resumable else "check `mm2-ambari status` before "
                "running it again"))


def _deploy(ctx, df, args):
    return ops.deploy(ctx, df, args)


def _configure(ctx, df, args):
    return ops.configure(ctx, df, args)


def _remove(ctx, args):
    if not args.yes and not args.dry_run:
        raise BadInput("remove stops %s and deletes it with its configs: pass --yes to confirm "
                       "(or --dry-run to see the calls)" % names.SERVICE)
    return ops.remove(ctx, args)


def _target(args, df):
    url = args.url or os.environ.get("AMBARI_URL") or (df.ambari_url if df else None)
    cluster = args.cluster or os.environ.get("AMBARI_CLUSTER") or (df.cluster if df else None)
    missing = [what for what, value in (("--url (or AMBARI_URL, deployment.ambari.url)", url),
                                         ("--cluster (or AMBARI_CLUSTER, deployment.ambari.cluster)", cluster))
               if not value]
    if missing:
        raise BadInput("which Ambari? set %s" % " and ".join(missing))
    source = "--url" if args.url else "AMBARI_URL" if os.environ.get("AMBARI_URL") else "deployment.ambari.url"
    problem = masking.url_password_problem(url)
    if problem:  # before anything else names the URL: it would show in `ps`, shell history and errors
        raise BadInput("%s: %s" % (source, problem))
    if not url.startswith(("http://", "https://")):
        raise BadInput("%s must start with http:// or https:// (e.g. https://ambari.example.com:8443)" % source)
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # 'Invalid IPv6 URL'
        raise BadInput("%s is not a URL (%s); e.g. https://ambari.example.com:8443" % (source, exc))
    try:
        parts.port
    except ValueError:
        raise BadInput("%s: the port is not a number 1-65535 (e.g. https://ambari.example.com:8443)" % source)
    if not parts.hostname:
        raise BadInput("%s: no host name (e.g. https://ambari.example.com:8443)" % source)
    return url, cluster


def _resolve_host(url):
    """Fail at once when Ambari's host name does not resolve, before any retry (also for --dry-run)."""
    parts = urlsplit(url)
    try:
        socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                           type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) and exc.strerror else "not a valid host name"
        raise BadInput("cannot resolve Ambari's host %r (%s): check --url, AMBARI_URL or "
                       "deployment.ambari.url" % (parts.hostname, reason))


def _verify(args, err):
    if args.insecure and args.ca_bundle:
        raise BadInput("--insecure and --ca-bundle contradict each other; use one")
    if args.ca_bundle:
        if not os.path.isfile(args.ca_bundle):
            raise BadInput("--ca-bundle %s: no such file" % args.ca_bundle)
        try:
            ssl.create_default_context(cafile=args.ca_bundle)
        except (ssl.SSLError, OSError, ValueError):
            raise BadInput("--ca-bundle %s: holds no PEM CA certificate (-----BEGIN CERTIFICATE-----); give the "
                           "CA certificates that signed Ambari's certificate, in PEM" % args.ca_bundle)
        return args.ca_bundle
    if args.insecure:
        print("warning: --insecure: Ambari's TLS certificate is not verified; credentials can be "
              "intercepted", file=err)
        try:
            from urllib3.exceptions import InsecureRequestWarning
            warnings.simplefilter("ignore", InsecureRequestWarning)
        except ImportError:  # pragma: no cover - urllib3 always comes with requests
            pass
        return False
    return True


def report(err, exc):
    print("error: %s" % exc, file=err)
    for problem in getattr(exc, "problems", []) or []:
        print("  - %s" % problem, file=err)
