#!/usr/bin/env python3
"""Real MirrorMaker 2 through the managed service vs. started by hand (not a test: it prints numbers).

    python3 benchmarks/e2e_bench.py [--records 300000] [--record-size 512] [--partitions 4]
                                    [--line 2.7.8|trunk] [--rounds 1] [--keep] [--kafka-versions 2.8.2,3.9,4]

Each round, on loopback, with fresh one-node clusters a and b per run of the official Kafka distribution of each
--kafka-versions entry (tests/realkafka/dists.py; ZooKeeper mode for 2.x, KRaft from 3.x; default
MM2_TEST_KAFKA_VERSION or 3.9), or MM2_TEST_KAFKA_HOME:
1. managed: the built mpack's scripts as the Ambari agent runs them (tests/e2e/agent.py, the real
   Ambari library of --line): INSTALL, CONFIGURE, START, then STOP;
2. by hand: the properties file the managed run rendered (bootstrap servers swapped for the new
   clusters) started with connect-mirror-maker.sh, the same heap and JVM options, stopped with SIGTERM.
The source topic is filled first (kafka-producer-perf-test), so both runs copy the same backlog.
The target broker stamps records with LogAppendTime (MM2 does not sync message.timestamp.type), so
the first and last append times on the target give the copy rate and the time to the first
replicated record without polling.

Prints: copy throughput of each run (records/s, MB/s) and their ratio, START command time, START ->
first replicated record, STOP command time (and the hand-started SIGTERM -> exit time).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (os.path.join(REPO, "tests"), os.path.join(REPO, "package", "scripts")):
    if p not in sys.path:
        sys.path.insert(0, p)

from e2e import agent  # noqa: E402
from mm2_core.config import names  # noqa: E402
from realkafka import cluster as rk  # noqa: E402

TOPIC = "bench"
TARGET_PROPS = {"log.message.timestamp.type": "LogAppendTime"}


def fill(cluster, records, size, partitions):
    cluster.create_topic(TOPIC, partitions=partitions)
    began = time.monotonic()
    cluster.tool("kafka-producer-perf-test", "--topic", TOPIC, "--num-records", str(records), "--record-size",
                 str(size), "--throughput", "-1", "--producer-props", "bootstrap.servers=%s" % cluster.bootstrap,
                 "acks=1", "linger.ms=5", "batch.size=262144", timeout=900)
    return time.monotonic() - began


def record_timestamp(cluster, topic, partition, offset):
    out = cluster.tool("kafka-console-consumer", "--bootstrap-server", cluster.bootstrap, "--topic", topic,
                       "--partition", str(partition), "--offset", str(offset), "--max-messages", "1",
                       "--timeout-ms", "20000", "--property", "print.timestamp=true", "--property",
                       "print.value=false", timeout=90, check=False).stdout
    match = re.search(r"LogAppendTime:(\d+)", out)
    if not match:
        raise RuntimeError("no LogAppendTime for %s-%d@%d: %r" % (topic, partition, offset, out[-300:]))
    return int(match.group(1)) / 1000.0


def copy_window(target, topic):
    """(first, last) broker append time of the mirrored topic on the target, in epoch seconds."""
    ends = target.end_offsets(topic)
    firsts = [record_timestamp(target, topic, p, 0) for p, end in ends.items() if end > 0]
    lasts = [record_timestamp(target, topic, p, end - 1) for p, end in ends.items() if end > 0]
    return min(firsts), max(lasts)


def wait_mirrored(target, topic, expected, timeout):
    def done():
        return topic in target.topics() and target.count(topic) >= expected
    rk.wait_until(done, timeout, interval=2, what="%d records in %s on %s" % (expected, topic, target.name))


def managed_run(mpack, line, work, args):
    with rk.kafka_clusters(work, names=("a", "b"), broker_props=TARGET_PROPS) as clusters:
        src, dst = clusters["a"], clusters["b"]
        produce_s = fill(src, args.records, args.record_size, args.partitions)
        driver = agent.Driver(mpack, line, os.path.join(work, "managed"), configurations={
            names.CLUSTERS: {"source.alias": "a", "source.bootstrap.servers": src.bootstrap,
                             "target.alias": "b", "target.bootstrap.servers": dst.bootstrap}},
            heap=args.heap)
        try:
            for command in ("INSTALL", "CONFIGURE"):
                run = driver.run(command)
                assert run.exit_code == 0, run.output[-3000:]
            start_wall = time.time()
            began = time.monotonic()
            run = driver.run("START")
            start_s = time.monotonic() - began
            assert run.exit_code == 0, run.output[-3000:]
            wait_mirrored(dst, "a." + TOPIC, args.records, args.timeout)
            first, last = copy_window(dst, "a." + TOPIC)
            with open(driver.properties_file) as fh:
                properties = fh.read()
            env_file = os.path.join(driver.conf_dir, "mm2-env.sh")
            with open(env_file) as fh:
                env_text = fh.read()
            began = time.monotonic()
            run = driver.run("STOP")
            stop_s = time.monotonic() - began
            assert run.exit_code == 0 and not driver.mm2_pids(), run.output[-3000:]
        finally:
            driver.cleanup()
        return {"produce_s": produce_s, "start_cmd_s": start_s, "first_record_s": first - start_wall,
                "copy_s": last - first, "stop_cmd_s": stop_s,
                "properties": properties.replace(src.bootstrap, "@A@").replace(dst.bootstrap, "@B@"),
                "env": env_text}


def exported(env_text, name):
    match = re.search(r'^export %s="(.*)"$' % name, env_text, re.M)
    return match.group(1) if match else ""


def hand_run(work, managed, args):
    with rk.kafka_clusters(work, names=("a", "b"), broker_props=TARGET_PROPS) as clusters:
        src, dst = clusters["a"], clusters["b"]
        fill(src, args.records, args.record_size, args.partitions)
        properties = managed["properties"].replace("@A@", src.bootstrap).replace("@B@", dst.bootstrap)
        # what the managed JVM got from mm2-env.sh, minus Ambari's logging and metrics agent
        env = {"KAFKA_JVM_PERFORMANCE_OPTS": exported(managed["env"], "KAFKA_JVM_PERFORMANCE_OPTS")}
        mm2 = rk.MirrorMaker(os.path.join(work, "by-hand"), properties, env=env,
                             heap=exported(managed["env"], "KAFKA_HEAP_OPTS"))
        start_wall = time.time()
        mm2.start()
        try:
            wait_mirrored(dst, "a." + TOPIC, args.records, args.timeout)
            first, last = copy_window(dst, "a." + TOPIC)
            began = time.monotonic()
            mm2.stop()
            stop_s = time.monotonic() - began
        finally:
            mm2.stop()
        return {"first_record_s": first - start_wall, "copy_s": last - first, "stop_s": stop_s}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300000)
    parser.add_argument("--record-size", type=int, default=512)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--line", default="2.7.8", choices=sorted(agent.LINES))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--heap", default="-Xms256m -Xmx1g")
    parser.add_argument("--timeout", type=int, default=600, help="bound on each copy (s)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (brokers' and MM2's logs)")
    parser.add_argument("--kafka-versions", default=os.environ.get(rk.KAFKA_VERSION_ENV) or "",
                        help="comma-separated versions of the matrix (tests/realkafka/dists.py list); one ratio each")
    args = parser.parse_args()
    kafka_versions = [v for v in args.kafka_versions.split(",") if v.strip()] or [rk.kafka_version_name()]
    summary = []
    for version in kafka_versions:
        os.environ[rk.KAFKA_VERSION_ENV] = version.strip()
        ratios = run_version(args)
        summary.append((version, rk.installed_version(rk.kafka_home()), ratios))
    print("managed / by hand throughput ratio per Kafka version:")
    for version, release, ratios in summary:
        print("  %-6s (%s): %s (median %.3f)" % (version, release, ", ".join("%.3f" % r for r in ratios),
                                                 sorted(ratios)[len(ratios) // 2]))


def run_version(args):
    reason = agent.line_skip_reason(args.line)
    if reason:
        sys.exit("cannot run: %s" % reason)
    work = tempfile.mkdtemp(prefix="mm2-e2e-bench-")
    megabytes = args.records * args.record_size / 1e6
    try:
        mpack = agent.build_mpack(os.path.join(work, "mpack"))
        print("records %d x %d B (%.0f MB), %d partitions, Ambari %s, Kafka %s, %d CPU(s)"
              % (args.records, args.record_size, megabytes, args.partitions, args.line, rk.kafka_home(),
                 os.cpu_count()))
        ratios = []
        for round_no in range(1, args.rounds + 1):
            managed = managed_run(mpack, args.line, os.path.join(work, "r%d-managed" % round_no), args)
            by_hand = hand_run(os.path.join(work, "r%d-hand" % round_no), managed, args)
            rate_m = args.records / managed["copy_s"]
            rate_h = args.records / by_hand["copy_s"]
            ratios.append(rate_m / rate_h)
            print("round %d" % round_no)
            print("  managed : copy %7.0f rec/s %6.1f MB/s | START command %5.1fs | START -> first record %5.1fs"
                  " | STOP command %5.1fs" % (rate_m, megabytes / managed["copy_s"], managed["start_cmd_s"],
                                             managed["first_record_s"], managed["stop_cmd_s"]))
            print("  by hand : copy %7.0f rec/s %6.1f MB/s | launch -> first record %5.1fs | SIGTERM -> exit %5.1fs"
                  % (rate_h, megabytes / by_hand["copy_s"], by_hand["first_record_s"], by_hand["stop_s"]))
            print("  throughput ratio managed / by hand: %.3f" % ratios[-1])
        if len(ratios) > 1:
            print("ratio over %d rounds: min %.3f, median %.3f" % (len(ratios), min(ratios),
                                                                   sorted(ratios)[len(ratios) // 2]))
        return ratios
    finally:
        if args.keep:
            print("work directory kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
