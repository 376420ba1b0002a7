#!/usr/bin/env python3
"""Catch-up after a target outage vs. the raw pipe on the same hosts, in the same run (not a test: it prints numbers).

    python3 benchmarks/dr_catchup_bench.py [--records 200000] [--record-size 512] [--partitions 4] [--line trunk]
                                           [--replication tasks.max=4] [--custom B.producer.batch.size=262144]

On loopback, with fresh one-node KRaft clusters a and b (../shared/kafka or MM2_TEST_KAFKA_HOME):
1. MM2 through the managed service (the built mpack's scripts as the agent runs them, tests/e2e/agent.py) replicates
   A->B (prefixed policy, the mpack's defaults plus the loopback settings of the e2e suite);
2. B goes down; N records are written to A (the backlog); B comes back;
3. drain: the copy of the backlog on B, from the first to the last record's LogAppendTime there (the target stamps
   them), and the time from B's return to its first copied record;
4. raw pipe, same hosts, same run: kafka-consumer-perf-test reading the N records from A (its fetch time) and
   kafka-producer-perf-test writing N records of the same size to B (its own rate); the pipe can go no faster than
   the slower of the two.

Prints drain time, pipe time and the ratio pipe/drain (goal >= 0.8), and the MM2 settings that bound the drain.
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
for p in (HERE, os.path.join(REPO, "tests"), os.path.join(REPO, "package", "scripts")):
    if p not in sys.path:
        sys.path.insert(0, p)

from e2e import agent  # noqa: E402
from e2e_bench import record_timestamp  # noqa: E402
from mm2_core.config import names  # noqa: E402
from realkafka import cluster as rk  # noqa: E402

TOPIC = "backlog"
TARGET_PROPS = {"log.message.timestamp.type": "LogAppendTime"}
SETTINGS_SHOWN = ("tasks.max", "batch.size", "linger.ms", "compression.type", "max.in.flight.requests.per.connection",
                  "consumer.fetch.max.bytes", "consumer.max.poll.records", "offset.flush.interval.ms")


def produce_perf(cluster, topic, records, size):
    out = cluster.tool("kafka-producer-perf-test", "--topic", topic, "--num-records", str(records), "--record-size",
                       str(size), "--throughput", "-1", "--producer-props", "bootstrap.servers=%s" % cluster.bootstrap,
                       "acks=1", "linger.ms=5", "batch.size=262144", timeout=1800).stdout
    m = re.findall(r"(\d+) records sent, ([\d.]+) records/sec", out)
    sent, rate = int(m[-1][0]), float(m[-1][1])
    return sent / rate


def consume_perf(cluster, topic, records):
    out = cluster.tool("kafka-consumer-perf-test", "--bootstrap-server", cluster.bootstrap, "--topic", topic,
                       "--messages", str(records), "--timeout", "60000", timeout=1800).stdout
    rows = [l.split(", ") for l in out.splitlines() if l and l[0].isdigit()]
    # start.time, end.time, MB, MB.sec, nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, ...
    return int(rows[-1][7]) / 1000.0


def drain_span(b, topic, partitions, base):
    """(first, last) LogAppendTime of the copied backlog on B (records after the warm-up's `base` offsets)."""
    ends = b.end_offsets(topic)
    firsts, lasts = [], []
    for p in range(partitions):
        if ends.get(p, 0) > base.get(p, 0):
            firsts.append(record_timestamp(b, topic, p, base.get(p, 0)))
            lasts.append(record_timestamp(b, topic, p, ends[p] - 1))
    return min(firsts), max(lasts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200000)
    ap.add_argument("--record-size", type=int, default=512)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--line", default="trunk", choices=sorted(agent.LINES))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--replication", action="append", default=[], metavar="KEY=VALUE",
                    help="a kafka-mm2-replication property for this run (e.g. tasks.max=4)")
    ap.add_argument("--custom", action="append", default=[], metavar="KEY=VALUE",
                    help="a kafka-mm2-custom property for this run (e.g. B.producer.batch.size=262144)")
    args = ap.parse_args()
    reason = agent.line_skip_reason(args.line)
    if reason:
        sys.exit("cannot run: %s" % reason)
    work = tempfile.mkdtemp(prefix="dr-bench-")
    a = rk.KafkaCluster("a", work)
    b = rk.KafkaCluster("b", work, broker_props=TARGET_PROPS)
    d = None
    try:
        a.start(wait=False)
        b.start(wait=False)
        a.wait_started()
        b.wait_started()
        mpack = agent.build_mpack(os.path.join(work, "mpack"))
        a.create_topic(TOPIC, partitions=args.partitions)
        conf = agent.simple_configurations("A", "B", a.bootstrap, b.bootstrap)
        conf[names.REPLICATION]["topics"] = TOPIC
        conf[names.REPLICATION].update(dict(kv.split("=", 1) for kv in args.replication))
        if args.custom:
            conf[names.CUSTOM] = dict(kv.split("=", 1) for kv in args.custom)
        d = agent.Driver(mpack, args.line, work, configurations=conf, metrics=False, heap="-Xms512m -Xmx1g")
        for command in ("INSTALL", "START"):
            run = d.run(command, timeout=600)
            if run.exit_code != 0:
                sys.exit("%s failed:\n%s" % (command, run.output[-3000:]))
        mirrored = "A." + TOPIC
        a.produce_n(TOPIC, 1000, prefix="warm")
        rk.wait_until(lambda: b.count(mirrored) >= 1000, 600, interval=2, what="the warm-up on B")
        base = b.end_offsets(mirrored)
        b.stop()
        produce_perf(a, TOPIC, args.records, args.record_size)
        returned = time.time()
        b.start()
        total = 1000 + args.records
        rk.wait_until(lambda: b.count(mirrored) >= total, 3600, interval=2, what="the backlog on B")
        first, last = drain_span(b, mirrored, args.partitions, base)
        drain = last - first
        mib = args.records * args.record_size / 1048576.0

        read = consume_perf(a, TOPIC, args.records)
        b.create_topic("raw", partitions=args.partitions)
        write = produce_perf(b, "raw", args.records, args.record_size)
        pipe = max(read, write)
        props = dict(l.split("=", 1) for l in open(d.properties_file).read().splitlines()
                     if "=" in l and not l.startswith("#"))
        print("records %d x %d B (%.0f MiB), %d partitions, Ambari line %s" % (
            args.records, args.record_size, mib, args.partitions, args.line))
        print("drain after the target outage: %.1f s (%.0f records/s, %.1f MiB/s); B back -> first copied record %.1f s"
              % (drain, args.records / drain, mib / drain, first - returned))
        print("raw pipe: read A %.1f s (consumer-perf fetch time), write B %.1f s (producer-perf); pipe %.1f s" % (
            read, write, pipe))
        print("ratio pipe/drain: %.2f (goal >= 0.8)" % (pipe / drain))
        print("MM2 settings: %s" % ", ".join("%s=%s" % (k, v) for k, v in sorted(props.items())
                                             if any(k.endswith(s) for s in SETTINGS_SHOWN)) or "(defaults)")
    finally:
        if d is not None:
            d.cleanup()
        a.stop()
        b.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
