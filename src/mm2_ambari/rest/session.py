"""The session of one `mm2-ambari` command with Ambari: the connection options (common.cli_args) and the
deployment file's deployment.ambari section turned into the client, the request waiter and the operation Context,
and the command's errors turned into exit codes (0 ok, 1 the operation failed, 2 bad input, 130 interrupted).
Every command against Ambari runs through command(): the REST operations, disaster recovery and upgrade.
"""
import os
import socket
import ssl
import sys
import warnings
from urllib.parse import urlsplit

from mm2_ambari.common import errors, masking
from mm2_ambari.common.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, BadInput, Mm2AmbariError
from mm2_ambari.rest import deployfile
from mm2_ambari.transport import ambari_state, credentials
from mm2_ambari.transport.ambari_api import AmbariClient
from mm2_ambari.transport.waiter import Waiter


def command(fn, with_file=False):
    """An argparse func running fn(ctx, args) (fn(ctx, df, args) with_file: deploy and configure) on a session
    with Ambari opened from the connection options: each error told on one line with its exit code, Ctrl-C
    answered with what had been sent."""
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
            if with_file:
                return fn(ctx, df, args)
            return fn(ctx, args)
        except BadInput as exc:
            errors.report(err, exc)
            return EXIT_BAD_INPUT
        except Mm2AmbariError as exc:
            errors.report(err, exc)
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
