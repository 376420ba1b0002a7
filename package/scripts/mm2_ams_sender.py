"""MM2's metrics to Ambari Metrics: once a minute, scrape this driver host's exporter and post the service's
series (mm2_core/alerts/service_metrics.py) to the AMS collector's /ws/v1/timeline/metrics.

A process of its own beside MM2 (like the healer), as the MM2 user, at a lower CPU priority: it only reads the
exporter MM2 already serves, so neither a down or slow collector nor this process's end can touch MM2's
replication. Every scrape and post is bounded by --timeout; a failed minute is dropped, not queued. It ends
by itself when the MM2 process it watches (--pid) is gone, and on SIGTERM. It logs a line when posting starts
failing and when it works again, not every minute. Python 2.7 and 3, stdlib + mm2_core.

  mm2_ams_sender.py --exporter-url http://h:9405/metrics --collector http://c:6188/ws/v1/timeline/metrics \\
      --hostname h --pid 1234
"""
import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mm2_core.alerts import alert_fetch, ams_sender  # noqa: E402
from mm2_core.alerts import metrics as m  # noqa: E402
from mm2_core.alerts import service_metrics as sm  # noqa: E402
from mm2_core.host import process  # noqa: E402

RUNNING = [True]


def log(message):
    sys.stdout.write("%s %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), message))
    sys.stdout.flush()


def one_minute(args, state, auth, now=None):
    """Scrape, compute, post once. Returns (collector that took it or None, problems)."""
    now = time.time() if now is None else now
    fetched = alert_fetch.fetch(alert_fetch.with_names(args.exporter_url, ams_sender.FAMILIES),
                                timeout=args.timeout, ca_file=args.exporter_ca_file or "",
                                verify=not args.exporter_no_verify, username=auth[0], password=auth[1])
    if not fetched.ok:
        return None, ["exporter %s: %s" % (args.exporter_url, fetched.error)]
    snap = m.Snapshot(fetched.text, ams_sender.FAMILIES, fetched_at=now, url=args.exporter_url)
    host_values, flows = ams_sender.compute(snap, now, state)
    body = ams_sender.encode(ams_sender.payload(args.hostname, now, host_values, flows))
    return ams_sender.send(args.collector, body, timeout=args.timeout, ca_file=args.ca_file or "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exporter-url", required=True)
    parser.add_argument("--collector", action="append", required=True,
                        help="a collector's POST URL (repeat for AMS HA: the first that answers takes it)")
    parser.add_argument("--hostname", required=True, help="the host name the series are filed under")
    parser.add_argument("--pid", type=int, required=True, help="the MM2 process: the sender ends with it")
    parser.add_argument("--interval", type=float, default=float(sm.SEND_INTERVAL_SECONDS))
    parser.add_argument("--timeout", type=float, default=5.0, help="bound of one scrape and of one post")
    parser.add_argument("--ca-file", help="HTTPS collector: PEM CA file (default: the system's)")
    parser.add_argument("--exporter-ca-file", help="HTTPS exporter: PEM CA file")
    parser.add_argument("--exporter-no-verify", action="store_true",
                        help="HTTPS exporter: do not verify its certificate (mm2_metrics_ssl_verify=false)")
    parser.add_argument("--exporter-credentials-file", help="exporter Basic auth: the 0600 user=password file")
    parser.add_argument("--once", action="store_true", help="one scrape and post, then exit (0: posted)")
    args = parser.parse_args(argv)

    def stop(signum, frame):
        RUNNING[0] = False
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        os.nice(10)
    except (AttributeError, OSError):
        pass
    auth = ("", "")
    if args.exporter_credentials_file:
        from mm2_core.connect import rest_security
        auth = rest_security.read_credentials(args.exporter_credentials_file)
    state = ams_sender.SenderState(time.time())
    if args.once:
        took, problems = one_minute(args, state, auth)
        for problem in problems:
            log("not sent: %s" % problem)
        return 0 if took else 1
    log("AMS sender started (pid %d): %s -> %s every %ss, at most %d series"
        % (os.getpid(), args.exporter_url, ", ".join(args.collector), args.interval, sm.MAX_SERIES_PER_HOST))
    failing = False
    next_run = time.time()
    while RUNNING[0]:
        if not process.is_alive(args.pid):
            log("the MM2 process (pid %d) is gone: AMS sender exits" % args.pid)
            break
        if time.time() >= next_run:
            next_run = time.time() + args.interval
            try:
                took, problems = one_minute(args, state, auth)
            except Exception as e:   # never die on one bad minute
                took, problems = None, ["%s: %s" % (type(e).__name__, e)]
            if took and failing:
                log("metrics reach %s again" % took)
            elif not took and not failing:
                log("metrics not sent (retried each minute, logged again when it works): %s" % "; ".join(problems))
            failing = not took
        time.sleep(min(1.0, max(0.0, next_run - time.time())))
    log("AMS sender stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
