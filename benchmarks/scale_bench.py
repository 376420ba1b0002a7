#!/usr/bin/env python3
"""Cost of every operation against the size of the estate, at 1x, 10x and 100x of a base (not a test: it prints
numbers; issue 35, item 5).

    nice -n 19 .venv3/bin/python benchmarks/scale_bench.py [--scales 1,10,100] [--only render,advisor,...]

The base estate is a typical one: 3 clusters, 4 flows, 1,000 partitions, 100 consumer groups, 5 MM2 driver
hosts (brokers: 3 per cluster). Every size is a multiple k of all five at once. Per operation and size it prints
the wall and the CPU time of this process (best of --repeat at sizes below --single-from, one run above) and the
peak RSS, then the growth 10x/1x and 100x/10x; a step whose ratio is above 1.2 times the size step (12 for a 10x
step) is flagged SUPERLINEAR. Operations (simulated where real brokers cannot hold the size):

- render: mm2_core.rendering.render.validate + render_mm2 of the estate's advanced topology for one driver host
  (its kafka-mm2-driver/target.clusters), Kafka 3.7.1;
- advisor: the service advisor's recommendConfigurations + validateConfigurations, loaded from the assembled
  mpack the way tests/advisor load it (the stack advisor double), services.json with one config group per host;
- alerts: one run of every alert kind (latency, lag, tasks, heartbeat, checkpoint: parse + evaluate) over the
  exporter text of the estate's partitions and flows (benchmarks/alerts_bench.payload, 4.x naming; its flows are
  aggregation-shaped: flows-1 sources into one target and the way back);
- cutover: the agent side of one cut-over check of a flow carrying all the estate's partitions and groups:
  parsing the generated output of kafka-get-offsets (end and start offsets), kafka-consumer-groups --describe
  (every group's committed offsets), the checkpoints and offset syncs read by the console consumer
  (mm2_core.kafkatools), then mm2_core.dr.cutover.evaluate_flow (each group commits on one topic of 50
  partitions; 4 checkpoints and 2 offset syncs per partition, as a compacted topic is read before compaction);
- deploy, configure --dry-run, failover --dry-run, drill, upgrade --dry-run: mm2-ambari in this process against the
  fake Ambari of tests/rest (a real HTTP socket), the estate's hosts and topology (config groups placing each
  host near one target); the drill's and the check's agent answers hold every group (the agent side itself is
  the 'cutover' row).

Nothing here is a timed test; run it niced on a shared machine and read CPU next to wall.
"""
import argparse
import contextlib
import gc
import io
import json
import os
import platform
import resource
import shutil
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (os.path.join(REPO, "src"), os.path.join(REPO, "tests", "rest"), os.path.join(REPO, "tests", "advisor"),
          os.path.join(REPO, "tests", "alerts"), HERE, os.path.join(REPO, "package", "scripts")):
    if p not in sys.path:
        sys.path.insert(0, p)

from mm2_core.config import names  # noqa: E402
from mm2_core.dr import cutover  # noqa: E402
from mm2_core.kafkatools import output as tool_output, records  # noqa: E402
from mm2_core.rendering import render  # noqa: E402

import alerts_bench  # noqa: E402

BASE = (("clusters", 3), ("flows", 4), ("partitions", 1000), ("groups", 100), ("hosts", 5))
KAFKA = "3.7.1"
TOPIC_PARTITIONS = 50
BROKERS_PER_CLUSTER = 3
ONCE = ("deploy",)   # measured once per size: a second deploy has nothing left to do
OPS = ("render", "advisor", "alerts", "cutover", "deploy", "configure", "failover", "drill", "upgrade")


class Estate(object):
    """The sizes of one estate, its cluster aliases, flows and host placement."""

    def __init__(self, k):
        self.k = k
        for name, base in BASE:
            setattr(self, name, base * k)
        self.aliases = ["K%03d" % i for i in range(self.clusters)]
        self.pairs = flow_pairs(self.clusters, self.flows)
        self.driver_hosts = ["mm2-%04d.example.com" % i for i in range(self.hosts)]
        self.placement = dict((h, self.aliases[i % self.clusters]) for i, h in enumerate(self.driver_hosts))

    def label(self):
        return "%dx" % self.k

    def topology_yaml(self):
        lines = ["clusters:"]
        for a in self.aliases:
            lines.append("  %s:" % a)
            lines.append("    bootstrap.servers: %s" % ",".join(
                "kafka-%d.%s.example.com:9092" % (b, a.lower()) for b in range(1, BROKERS_PER_CLUSTER + 1)))
        lines.append("flows:")
        for source, target in self.pairs:
            lines.append("  - source: %s" % source)
            lines.append("    target: %s" % target)
            lines.append("    topics: sales\\..*")
        return "\n".join(lines) + "\n"

    def configurations(self, host):
        return {names.CLUSTERS: {"topology.mode": "advanced"}, names.TOPOLOGY: {"content": self.topology_yaml()},
                names.DRIVER: {"target.clusters": self.placement[host]}}


def flow_pairs(clusters, flows):
    """`flows` distinct (source, target) pairs over `clusters` aliases: rings i -> i+1, then i -> i+2, ..."""
    pairs = []
    step = 1
    while len(pairs) < flows:
        for i in range(clusters):
            if len(pairs) == flows:
                break
            pairs.append(("K%03d" % i, "K%03d" % ((i + step) % clusters)))
        step += 1
        if step >= clusters and len(pairs) < flows:
            raise ValueError("%d flows do not fit %d clusters" % (flows, clusters))
    return pairs


# ---------------------------------------------------------------- render + validate

def op_render(estate, work):
    host = estate.driver_hosts[0]
    configurations = estate.configurations(host)

    def run():
        problems = render.validate(configurations, KAFKA)
        if [p for p in problems if getattr(p, "level", "ERROR") == "ERROR"]:
            raise RuntimeError("validate: %s" % problems[:3])
        render.render_mm2(configurations, KAFKA, host, "/etc/kafka-mm2/conf")
    return run


# ---------------------------------------------------------------- advisor

_ADVISOR = {}


def _advisor(work):
    if not _ADVISOR:
        from advisor_harness import load_source
        # tests/advisor/conftest.py: the mpack's assembly and the stack advisor double
        advisor_conftest = load_source("mm2_advisor_conftest", os.path.join(REPO, "tests", "advisor", "conftest.py"))
        service = advisor_conftest.assemble_service(os.path.join(work, "mpack-advisor"))
        stacks = advisor_conftest.ambari_stacks_dir()
        _ADVISOR["module"] = load_source("stack_advisor", os.path.join(stacks, "stack_advisor.py"))
        os.environ["BASE_SERVICE_ADVISOR"] = os.path.join(stacks, "service_advisor.py")
        os.environ["MM2_ADVISOR_STRICT"] = "1"
        _ADVISOR["path"] = os.path.join(service, "service_advisor.py")
    return _ADVISOR


def op_advisor(estate, work):
    import advisor_inputs as inputs
    from advisor_harness import recommended, validation_items
    adv = _advisor(work)
    brokers = ["kafka-%04d.example.com" % i for i in range(BROKERS_PER_CLUSTER)]
    mm2 = estate.configurations(estate.driver_hosts[0])
    del mm2[names.DRIVER]
    by_target = {}
    for h in estate.driver_hosts:
        by_target.setdefault(estate.placement[h], []).append(h)
    groups = [inputs.config_group(hosts, {"target.clusters": t}) for t, hosts in sorted(by_target.items())]
    services = inputs.services_json(adv["path"], brokers=brokers, drivers=estate.driver_hosts, mm2=mm2,
                                    config_groups=groups, kafka_version=KAFKA)
    hosts = inputs.hosts_json(brokers + estate.driver_hosts)

    def run():
        sa = adv["module"].DefaultStackAdvisor()
        recommended(sa, services, hosts)
        items = validation_items(sa, services, hosts)
        errors = [i for i in items if i.get("level") == "ERROR"]
        if errors:
            raise RuntimeError("advisor validation errors: %s" % errors[:2])
    return run


# ---------------------------------------------------------------- alerts

def op_alerts(estate, work):
    from mm2_core.alerts import alert_config
    text = alerts_bench.payload(estate.partitions, "4.x", "1.x", estate.flows)
    tokens = alerts_bench.tokens_for(9999, estate.flows)
    configs = dict((key.strip("{}"), value) for key, value in tokens.items())
    flows, problem = alert_config.expected_flows(configs, KAFKA)
    if problem:
        raise RuntimeError(problem)

    def run():
        for kind in alerts_bench.KINDS:
            alerts_bench.parse_and_evaluate(kind, text, flows, {})
    return run


# ---------------------------------------------------------------- cut-over check (agent side)

def cutover_outputs(estate, source="K000", now_ms=1800000000000):
    """What Kafka's tools print for a flow carrying the estate's partitions and groups: get-offsets (end,
    start), consumer-groups --describe, checkpoints and offset syncs (console consumer formatter lines)."""
    topics = ["sales.topic-%04d" % i for i in range(estate.partitions // TOPIC_PARTITIONS)]
    tps = [(t, p) for t in topics for p in range(TOPIC_PARTITIONS)]
    ends = "\n".join("%s:%d:%d" % (t, p, 100000 + p) for t, p in tps)
    starts = "\n".join("%s:%d:%d" % (t, p, 0) for t, p in tps)
    describe = ["GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID"]
    checkpoints, syncs = [], []
    for g in range(estate.groups):
        group, topic = "group-%05d" % g, topics[g % len(topics)]
        for p in range(TOPIC_PARTITIONS):
            describe.append("%s %s %d %d %d %d - - -" % (group, topic, p, 90000 + p, 100000 + p, 10000))
            for r in range(4):   # read before compaction: older checkpoints of the same key first
                checkpoints.append("Checkpoint{consumerGroupId=%s, topicPartition=%s.%s-%d, upstreamOffset=%d, "
                                   "downstreamOffset=%d, metadata=}" % (group, source, topic, p, 89000 + p + 300 * r,
                                                                        88000 + p + 300 * r))
    for t, p in tps:
        for r in range(2):
            syncs.append("OffsetSync{topicPartition=%s-%d, upstreamOffset=%d, downstreamOffset=%d}"
                         % (t, p, 80000 + 5000 * r, 79000 + 5000 * r))
    return {"ends": ends, "starts": starts, "describe": "\n".join(describe), "checkpoints": "\n".join(checkpoints),
            "syncs": "\n".join(syncs), "now_ms": now_ms, "source": source}


def op_cutover(estate, work):
    out = cutover_outputs(estate)
    source, target = out["source"], "K001"
    limits = cutover.thresholds()

    def mirrored(topic):
        return "%s.%s" % (source, topic)

    def run():
        ends = tool_output.parse_offsets(out["ends"])
        facts = {"source_ends": ends, "source_starts": tool_output.parse_offsets(out["starts"]),
                 "replicated": dict((tp, end - 1) for tp, end in ends.items()),
                 "target_partitions": dict((mirrored(t), TOPIC_PARTITIONS) for t, _ in ends),
                 "heartbeat_ms": out["now_ms"] - 2000, "checkpoint_ms": out["now_ms"] - 5000,
                 "committed": tool_output.group_offsets(out["describe"]),
                 "checkpoints": records.latest_checkpoints(records.parse_checkpoints(out["checkpoints"])),
                 "offset_syncs": records.parse_offset_syncs(out["syncs"])}
        report = cutover.evaluate_flow("%s->%s" % (source, target), source, target, facts, limits, out["now_ms"],
                                       mirrored)
        if len(report["groups"]) != estate.groups or len(report["partitions"]) != estate.partitions:
            raise RuntimeError("cut-over report of the wrong size")
    return run


# ---------------------------------------------------------------- mm2-ambari against the fake Ambari

FAST = ["--poll-interval", "0", "--retry-backoff", "0.02", "--no-progress"]


class Cli(object):
    """mm2-ambari in this process, its output captured; one fake Ambari per estate."""

    def __init__(self, estate, work):
        from rest_fake_ambari import FakeAmbari
        from mm2_ambari import cli
        os.environ.update({"AMBARI_USER": "admin", "AMBARI_PASSWORD": "admin-secret",
                           "NETRC": os.path.join(work, "no-netrc")})
        self.parser = cli.build_parser()
        self.estate, self.work = estate, work
        brokers = ["kafka-%d.example.com" % b for b in range(1, BROKERS_PER_CLUSTER + 1)]
        self.fake = FakeAmbari(hosts=estate.driver_hosts + brokers).start()
        self.deploy_file = os.path.join(work, "estate-%d.yaml" % estate.k)
        with open(self.deploy_file, "w") as fh:
            fh.write(self.deploy_text(8))
        self.flow = "%s->%s" % estate.pairs[0]

    def deploy_text(self, tasks):
        e = self.estate
        by_target = {}
        for h in e.driver_hosts:
            by_target.setdefault(e.placement[h], []).append(h)
        lines = [e.topology_yaml(), "deployment:", "  ambari: {url: %s, cluster: prod}" % self.fake.url,
                 '  kafka_version: "%s"' % KAFKA, "  hosts: [%s]" % ", ".join(e.driver_hosts),
                 "  configurations:", "    kafka-mm2-replication: {tasks.max: %d}" % tasks, "  config_groups:"]
        for target, hosts in sorted(by_target.items()):
            lines.append("    - {name: mm2-%s, hosts: [%s], configurations: {kafka-mm2-driver: {target.clusters: %s}}}"
                         % (target.lower(), ", ".join(hosts), target))
        return "\n".join(lines) + "\n"

    def __call__(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                args = self.parser.parse_args(list(argv) + FAST)
                code = args.func(args)
            except SystemExit as exc:
                code = exc.code
        if code not in (0, None):
            raise RuntimeError("mm2-ambari %s: exit %s\n%s\n%s" % (argv[0], code, out.getvalue()[-2000:],
                                                                   err.getvalue()[-2000:]))
        return out.getvalue()

    def stop(self):
        self.fake.stop()


_CLIS = {}


def _cli(estate, work):
    if estate.k not in _CLIS:
        _CLIS[estate.k] = Cli(estate, work)
    return _CLIS[estate.k]


def op_deploy(estate, work):
    cli = _cli(estate, work)
    return lambda: cli("deploy", cli.deploy_file, "--url", cli.fake.url)


def _deployed(estate, work):
    cli = _cli(estate, work)
    if names.TOPOLOGY not in cli.fake.desired:
        cli("deploy", cli.deploy_file, "--url", cli.fake.url)
    return cli


def op_configure(estate, work):
    cli = _deployed(estate, work)
    edited = os.path.join(work, "estate-%d-edited.yaml" % estate.k)
    with open(edited, "w") as fh:
        fh.write(cli.deploy_text(16))
    return lambda: cli("configure", edited, "--url", cli.fake.url, "--dry-run")


def _groups(estate):
    return ",".join("group-%05d" % g for g in range(estate.groups))


def op_failover(estate, work):
    cli = _deployed(estate, work)
    state = os.path.join(work, "failover-%d.json" % estate.k)
    return lambda: cli("failover", "--flow", cli.flow, "--groups", _groups(estate), "--stop-flow", "--dry-run",
                       "--state-file", state, "--url", cli.fake.url, "--cluster", "prod")


def op_drill(estate, work):
    cli = _deployed(estate, work)
    cli.fake.custom_output[names.CMD_DRILL] = {"structured_out": {"drill": {"groups": dict(
        ("group-%05d" % g, {"rto_seconds": 1.5, "records_read": 100, "reread": 12, "skipped": 0,
                            "shadow": "group-%05d-drill" % g, "shadow_deleted": True})
        for g in range(estate.groups)), "problems": [], "unreplicated_records": 0, "rpo_seconds": 0.0}}}
    runs = {"n": 0}

    def run():   # a new history file each run: one earlier drill of the flow to compare with
        runs["n"] += 1
        history = os.path.join(work, "drills-%d-%d.jsonl" % (estate.k, runs["n"]))
        cli("drill", "--flow", cli.flow, "--groups", _groups(estate), "--history", history,
            "--url", cli.fake.url, "--cluster", "prod")
    return run


_RELEASE = {}


def _release(work):
    if not _RELEASE:
        from source_loader import load_source
        build = load_source("mm2_mpack_build_bench", os.path.join(REPO, "build.py"))
        _RELEASE["dir"] = build.assemble(os.path.join(work, "mpack-release"), REPO)
    return _RELEASE["dir"]


def op_upgrade(estate, work):
    cli = _deployed(estate, work)
    release = _release(work)
    with open(os.path.join(release, "common-services", names.SERVICE, names.SERVICE_VERSION, "alerts.json")) as fh:
        alerts = json.load(fh)
    fake = cli.fake
    if not fake.alert_definitions:
        fake.load_alert_definitions(alerts)
    env = fake.configs[names.ENV][fake.desired[names.ENV]]["properties"]
    env.pop("mpack_version", None)   # as the previous release left it: a diff to show
    return lambda: cli("upgrade", "--url", fake.url, "--cluster", "prod", "--mpack", release, "--dry-run")


# ---------------------------------------------------------------- measuring

clock = time.perf_counter


def measure(fn, repeat, least=0.05):
    """(best wall s, best CPU s) of one call over `repeat` rounds; a round repeats a call that took less than
    `least` CPU seconds until it has, and counts the mean (the clocks' resolution and noise at small sizes)."""
    walls, cpus = [], []
    for _ in range(repeat):
        gc.collect()
        start, cpu, calls = clock(), time.process_time(), 0
        while True:
            fn()
            calls += 1
            if time.process_time() - cpu >= least or repeat == 1:
                break
        cpus.append((time.process_time() - cpu) / calls)
        walls.append((clock() - start) / calls)
    return min(walls), min(cpus)


class OverLimit(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds):
    """Raise OverLimit in this (main) thread after `seconds` of this process's CPU time (ITIMER_PROF: a loaded
    host stretches the wall clock, not the work)."""
    def expired(signum, frame):
        raise OverLimit()
    previous = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def growth(results, op, scales):
    """[(step, wall ratio, CPU ratio, flagged)] between consecutive sizes measured."""
    rows = []
    for a, b in zip(scales, scales[1:]):
        if (op, a) not in results or (op, b) not in results:
            continue
        (wa, ca), (wb, cb) = results[(op, a)][:2], results[(op, b)][:2]
        step = float(b) / a
        cpu_ratio = cb / ca if ca > 0 else float("inf")
        wall_ratio = wb / wa if wa > 0 else float("inf")
        rows.append(("%d/%d" % (b, a), wall_ratio, cpu_ratio, cpu_ratio > 1.2 * step))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", default="1,10,100", help="multiples of the base estate")
    ap.add_argument("--only", default=",".join(OPS), help="operations to measure (%s)" % ",".join(OPS))
    ap.add_argument("--repeat", type=int, default=3, help="runs per point below --single-from (best is kept)")
    ap.add_argument("--single-from", type=int, default=100, help="from this multiple on, one run per point")
    ap.add_argument("--limit", type=float, default=300.0,
                    help="CPU seconds one operation may take at one size (setup and runs): one stopped there has met "
                         "its limit and is not tried at the larger sizes")
    args = ap.parse_args()
    scales = [int(x) for x in args.scales.split(",")]
    ops = [o for o in args.only.split(",") if o]
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        ap.error("unknown operation(s): %s" % ", ".join(unknown))
    base = ", ".join("%d %s" % (v, n) for n, v in BASE)
    print("Python %s, %d CPUs, load %s at start; base estate (1x): %s; Kafka %s"
          % (platform.python_version(), os.cpu_count() or 0, "/".join("%.1f" % x for x in os.getloadavg()),
             base, KAFKA))
    print("time of one call: best of %d rounds below %dx (a round repeats a call until 0.05 CPU s), one call from "
          "there; wall s / CPU s of this process; RSS: peak of the process" % (args.repeat, args.single_from))
    work = tempfile.mkdtemp(prefix="mm2-scale-bench-")
    results, skipped = {}, {}
    estates = dict((k, Estate(k)) for k in scales)
    print("%-10s %-5s %8s %8s %8s %9s %8s  %s" % ("operation", "size", "wall s", "CPU s", "RSS MB", "setup s",
                                                 "load", "estate"))
    try:
        for k in scales:
            e = estates[k]
            for op in ops:
                if op in skipped:
                    continue
                t0, cpu0 = clock(), time.process_time()
                try:
                    with time_limit(args.limit):
                        fn = globals()["op_" + op](e, work)
                        setup = clock() - t0
                        wall, cpu = measure(fn, 1 if k >= args.single_from or op in ONCE else args.repeat)
                except OverLimit:
                    skipped[op] = "%dx stopped at the limit: %.0f CPU s (%.0f s wall), setup included" % (
                        k, time.process_time() - cpu0, clock() - t0)
                    print("%-10s %-5s  over the limit: %s" % (op, e.label(), skipped[op]))
                    sys.stdout.flush()
                    continue
                results[(op, k)] = (wall, cpu)
                print("%-10s %-5s %8.3f %8.3f %8.0f %9.1f %8.1f  %d clusters, %d flows, %d partitions, %d groups, "
                      "%d hosts" % (op, e.label(), wall, cpu, peak_rss_mb(), setup, os.getloadavg()[0],
                                    e.clusters, e.flows, e.partitions, e.groups, e.hosts))
                sys.stdout.flush()
            if k in _CLIS:
                _CLIS.pop(k).stop()
    finally:
        for c in _CLIS.values():
            c.stop()
        shutil.rmtree(work, ignore_errors=True)
    print()
    print("Growth (CPU; wall in brackets); SUPERLINEAR: above 1.2x the size step")
    flagged = []
    for op in ops:
        rows = growth(results, op, scales)
        text = ", ".join("%s: %.1f (%.1f)%s" % (step, c, w, " SUPERLINEAR" if bad else "")
                         for step, w, c, bad in rows)
        flagged += [op for _, _, _, bad in rows if bad]
        print("  %-10s %s%s" % (op, text or "-", ("  [%s]" % skipped[op]) if op in skipped else ""))
    largest = max(scales)
    print()
    print("Largest size tried: %dx (%s); superlinear: %s; load at the end %s" % (
        largest, ", ".join("%d %s" % (v * largest, n) for n, v in BASE), ", ".join(sorted(set(flagged))) or "none",
        "/".join("%.1f" % x for x in os.getloadavg())))


if __name__ == "__main__":
    main()
