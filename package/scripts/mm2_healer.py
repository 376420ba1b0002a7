"""The healer of connect mode: restarts FAILED MirrorMaker 2 connectors and tasks with back-off and a limit.

Started by the driver's START (connect mode) as the MM2 user, stopped by STOP through its pid file. It
also ends by itself as soon as the Connect worker it watches (--worker-pid) is gone, so it can never
outlive the driver. Every few seconds it reads GET /connectors?expand=status on the loopback REST API,
asks flow_control.plan_restarts what is due, restarts it (POST .../restart?includeTasks=true&onlyFailed=true
on 3.0+, the connector and each failed task before), logs one line per restart and writes its state file
(read by the tasks alert and REPLICATION_STATUS). Python 2.7 and 3, stdlib + mm2_core.
"""
import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mm2_core.connect import connect_rest, flow_control, rest_security  # noqa: E402
from mm2_core.host import process  # noqa: E402

RUNNING = [True]


def log(message):
    sys.stdout.write("%s %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), message))
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--kafka-version", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--worker-pid", type=int, required=True)
    parser.add_argument("--unit", type=float, default=60.0)
    parser.add_argument("--max-restarts", type=int, default=10)
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--credentials-file", help="HTTPS: the 0600 user=password file of the REST listener")
    parser.add_argument("--ca-file", help="HTTPS: the PEM CA file the listener's certificate is verified with")
    args = parser.parse_args(argv)

    def stop(signum, frame):
        RUNNING[0] = False
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    auth = rest_security.read_credentials(args.credentials_file) if args.credentials_file else None
    client = connect_rest.ConnectRest(args.url, args.kafka_version, timeout=10, auth=auth, ca_file=args.ca_file)
    state = flow_control.HealerState.load(args.state)
    state.pid = os.getpid()
    log("healer started (pid %d) for %s: back-off %ss x n(n+1), at most %d restarts per connector"
        % (os.getpid(), args.url, args.unit, args.max_restarts))
    while RUNNING[0]:
        if not process.is_alive(args.worker_pid):
            log("the Connect worker (pid %d) is gone: healer exits" % args.worker_pid)
            break
        try:
            listing = client.connectors()
        except connect_rest.ConnectError as e:
            log("worker did not answer: %s" % e)
            listing = None
        if listing is not None:
            now = time.time()
            fresh = flow_control.HealerState.load(args.state)   # an operator's action may have reset a flow
            state.connectors, state.events = fresh.connectors, fresh.events
            given_up_before = set(n for n, e in state.connectors.items() if e.get("gave_up"))
            for name, number, why in flow_control.plan_restarts(listing, state, now, args.unit, args.max_restarts):
                try:
                    client.restart(name, only_failed=True)
                    text = "restarted %s (automatic restart %d of at most %d): %s" % (name, number, args.max_restarts,
                                                                                      why)
                except connect_rest.ConnectError as e:
                    text = "restart %d of %s failed: %s" % (number, name, e)
                state.event(now, text)
                log(text)
            for name, entry in state.connectors.items():
                if entry.get("gave_up") and name not in given_up_before:
                    log("gave up on %s after %d restarts: %s" % (name, entry["restarts"], entry.get("last_failure")))
            try:
                state.save(args.state)
            except (IOError, OSError) as e:
                log("cannot write %s: %s" % (args.state, e))
        deadline = time.time() + args.interval
        while RUNNING[0] and time.time() < deadline:
            time.sleep(0.2)
    log("healer stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
