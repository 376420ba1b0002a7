"""Command-line pieces every `mm2-ambari` command against Ambari shares: the argparse number types, the
Ambari connection options and `-f FILE` for --url/--cluster (REST operations, disaster recovery, upgrade,
MirrorMaker 1 migration)."""
import argparse


def at_least(convert, low, strict=False):
    """An argparse type: a number (int or float) >= low, or > low when strict."""
    def check(text):
        value = convert(text)
        if value < low or (strict and value == low):
            raise argparse.ArgumentTypeError("must be %s %s" % (">" if strict else ">=", low))
        return value
    check.__name__ = convert.__name__  # argparse names the type in its errors
    return check


positive = at_least(float, 0, strict=True)
non_negative = at_least(float, 0)
positive_int = at_least(int, 1)
non_negative_int = at_least(int, 0)


def connection_parser():
    """The options of every command that talks to Ambari: where, who, TLS, timeouts, retries, waiting, --dry-run."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("Ambari connection")
    g.add_argument("--url", help="Ambari server, e.g. https://ambari.example.com:8443 (default: AMBARI_URL, "
                                 "or deployment.ambari.url of the file)")
    g.add_argument("--cluster", help="cluster name (default: AMBARI_CLUSTER, or deployment.ambari.cluster)")
    g.add_argument("--user", help="Ambari user (default: AMBARI_USER, ~/.netrc, or a prompt); the password "
                                  "comes from AMBARI_PASSWORD, ~/.netrc or a prompt, never from the command line")
    g.add_argument("--ca-bundle", metavar="PEM", help="CA certificates to verify Ambari's TLS certificate")
    g.add_argument("--insecure", action="store_true", help="do not verify Ambari's TLS certificate (unsafe)")
    g.add_argument("--connect-timeout", type=positive, default=10.0, metavar="S", help="default 10")
    g.add_argument("--read-timeout", type=positive, default=60.0, metavar="S", help="default 60")
    g.add_argument("--retries", type=non_negative_int, default=6, metavar="N",
                   help="retries on connection errors, with exponential backoff (default 6)")
    g.add_argument("--retry-backoff", type=non_negative, default=1.0, metavar="S",
                   help="first backoff delay, doubled each retry up to 30 s (default 1)")
    g = p.add_argument_group("waiting for Ambari requests")
    g.add_argument("--poll-interval", type=non_negative, default=2.0, metavar="S", help="default 2")
    g.add_argument("--wait-timeout", type=positive, default=3600.0, metavar="S",
                   help="give up waiting for one request after this long (default 3600)")
    g.add_argument("--no-progress", action="store_true", help="status lines instead of a progress bar")
    p.add_argument("--dry-run", action="store_true",
                   help="read Ambari's state and print the calls that would change it, without sending them")
    return p


def conn_file_parser():
    """-f FILE: --url and --cluster from a deployment file's deployment.ambari section."""
    conn_file = argparse.ArgumentParser(add_help=False)
    conn_file.add_argument("-f", "--file", dest="conn_file", metavar="TOPOLOGY.yaml",
                           help="take --url/--cluster from this deployment file's deployment.ambari section")
    return conn_file
