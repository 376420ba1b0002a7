#!/usr/bin/env python
"""Timing of the MM2 process lifecycle (not a test: it prints numbers).

    python benchmarks/lifecycle_bench.py [--cycles 200] [--seed 4242] [--driver-runs 5]

1. The soak of tests/agent/soak.py: start/stop/kill cycles of real (fake-MM2) processes through
   the decisions START and STOP make, with reboots, pid reuse, lost pid files, double starts and
   SIGTERM-deaf processes; prints the counts (wrong status answers, leaked processes) and the
   start/stop latencies.
2. STATUS, START and STOP as the agent runs them (execute mode: a Python process per command,
   the Ambari test double), --driver-runs times each; the status command is what every driver
   host runs every minute.
Python 2.7 and 3.
"""
from __future__ import print_function

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (os.path.join(REPO, "tests", "agent"), os.path.join(REPO, "tests"), os.path.join(REPO, "package", "scripts"),
          os.path.join(REPO, "tests", "ambari_double"), os.path.join(REPO, "tests", "fixtures", "fake_kafka")):
    if p not in sys.path:
        sys.path.insert(0, p)

from agent_support import FakeSite, ProcessGuard, set_subreaper  # noqa: E402
from soak import Soak  # noqa: E402


def stats(values):
    values = sorted(values)
    if not values:
        return "n/a"
    return "median %.3fs, p95 %.3fs, max %.3fs (n=%d)" % (
        values[len(values) // 2], values[int(len(values) * 0.95) - 1 if len(values) > 1 else 0], values[-1],
        len(values))


def soak(cycles, seed):
    guard = ProcessGuard()
    site = FakeSite(tempfile.mkdtemp(prefix="mm2-soak-"))
    guard.watch_state_dir(site.state)
    try:
        result = Soak(site, seed=seed).run(cycles)
    finally:
        guard.cleanup()
    print("soak: " + result.summary())
    print("  start (plan + launch + wait): " + stats(result.start_seconds))
    print("  stop (SIGTERM, escalation):   " + stats(result.stop_seconds))
    print("  wrong status answers: %d, leaked processes: %d" % (len(result.wrong_status), len(result.leaked)))
    return result


def driver_commands(runs):
    from driver_fixture import Driver
    guard = ProcessGuard()
    site = FakeSite(tempfile.mkdtemp(prefix="mm2-driver-"))
    guard.watch_state_dir(site.state)
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    driver = Driver(site)
    timings = {"STATUS (stopped)": [], "START": [], "STATUS (running)": [], "STOP": []}
    try:
        for _ in range(runs):
            for name, command in (("STATUS (stopped)", "STATUS"), ("START", "START"),
                                  ("STATUS (running)", "STATUS"), ("STOP", "STOP")):
                t0 = time.time()
                run = driver.run(command)
                timings[name].append(time.time() - t0)
                expected = 0 if name != "STATUS (stopped)" else 1
                if run.exit_code != expected:
                    print(run)
                    raise SystemExit("%s exited %s" % (command, run.exit_code))
    finally:
        guard.cleanup()
    for name in ("STATUS (stopped)", "START", "STATUS (running)", "STOP"):
        print("  %-17s %s" % (name, stats(timings[name])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--driver-runs", type=int, default=5)
    args = parser.parse_args()
    set_subreaper(True)
    print("Python %s" % sys.version.split()[0])
    soak(args.cycles, args.seed)
    if args.driver_runs:
        print("agent commands in execute mode (one Python process each, Ambari test double):")
        driver_commands(args.driver_runs)


if __name__ == "__main__":
    main()
