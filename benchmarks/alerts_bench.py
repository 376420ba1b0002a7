#!/usr/bin/env python
"""Timing of the MM2 alerts over large metrics payloads (not a test: it prints numbers).

    python benchmarks/alerts_bench.py [--partitions 1000,10000,100000] [--repeat 5]
    bash benchmarks/alerts_bench.sh      # both Python lines (.venv3 and Python 2.7)

Builds the text the JMX exporter serves with the mpack's rules for one MM2 process replicating N
partitions of dotted topics (so the lag joins go through Kafka's '.' -> '_' topic tags), in both
exporter text layouts (1.x; 0.x with a comma after every label set) and both namings (Kafka 3.4:
no source= and generated consumer ids; Kafka 4.0: source= and flow-qualified replication
consumers), ~5% of partitions idle and a few stalled, and times, per alert kind:
  - parse + evaluate (mm2_core.alerts.metrics.Snapshot + the per-kind evaluation in mm2_core.alerts),
    the work of one alert run;
  - a full run through alert_runner.execute against a local HTTP server (fetch included);
and, on the same payload in the same run, prometheus_client's text parser
(text_string_to_metric_families) when it is installed (the .venv3 line has it).
Python 2.7 and 3.
"""
from __future__ import print_function

import argparse
import gc
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (os.path.join(REPO, "package", "scripts"), os.path.join(REPO, "tests", "alerts")):
    if p not in sys.path:
        sys.path.insert(0, p)

from mm2_core.alerts import alert_config, alert_fetch, alert_runner, metrics  # noqa: E402
from mm2_core.alerts import checkpoints, evaluation, heartbeats, lag, latency, tasks  # noqa: E402

clock = getattr(time, "perf_counter", time.time)
# CPU time of this process: on a shared machine the wall clock also counts other programs' turns
cpu_clock = getattr(time, "process_time", None) or time.clock

SOURCE_ATTRS = ("byte_count", "byte_rate", "record_age_ms", "record_age_ms_avg", "record_age_ms_max",
                "record_count", "record_rate", "replication_latency_ms", "replication_latency_ms_avg",
                "replication_latency_ms_max")
TOPIC_PARTITIONS = 50


def _fmt(v):
    if v != v:
        return "NaN"
    return repr(float(v))


def flow_pairs(flows):
    """(source, target) of `flows` flows: A->B alone, else flows-1 sources into one target T plus the
    reverse flow T->S00 (aggregation with a way back), every flow replicating topics of the same names."""
    if flows == 1:
        return [("A", "B")]
    return [("S%02d" % i, "T") for i in range(flows - 1)] + [("T", "S00")]


def payload(n, naming, layout="1.x", flows=1):
    """Exporter text (families and labels sorted; 0.x: trailing comma in label sets) for n
    replicated partitions spread over the flows of flow_pairs(flows)."""
    new = naming == "4.x"
    pairs = flow_pairs(flows)
    parts = []   # (flow index, topic, partition, idle, lag, latency)
    for f in range(len(pairs)):
        count = n // len(pairs) + (1 if f < n % len(pairs) else 0)
        for i in range(count):
            topic = "sales.topic-%04d" % (i // TOPIC_PARTITIONS)
            p = i % TOPIC_PARTITIONS
            idle = i % 20 == 7            # ~5% idle
            stalled = i % 500 == 11       # a few stalled: idle window, lag left
            parts.append((f, topic, p, idle or stalled, 5000.0 if stalled else 0.0, 20.0 + (i % 97)))
        parts.append((f, "heartbeats", 0, False, 0.0, 8.0))
    lines = []
    version = "4.0.0" if new else "3.4.1"

    def family(name):
        lines.append("# HELP %s %s" % (name, name))
        lines.append("# TYPE %s gauge" % name)

    family("jmx_scrape_duration_seconds")
    lines.append("jmx_scrape_duration_seconds 2.41")
    family("jmx_scrape_error")
    lines.append("jmx_scrape_error 0.0")
    family("mm2_connector_status")
    for c in ("MirrorCheckpointConnector", "MirrorHeartbeatConnector", "MirrorSourceConnector"):
        lines.append('mm2_connector_status{connector="%s",status="running"} 1.0' % c)
    family("mm2_herder_start_time_ms")
    for source, target in sorted(pairs):
        lines.append('mm2_herder_start_time_ms{source="%s",target="%s"} 1.7E12' % (source, target))
    family("mm2_herder_up")
    for source, target in sorted(pairs):
        lines.append('mm2_herder_up{source="%s",target="%s",version="%s"} 1.0' % (source, target, version))
    # consumer lag: 4.x flow-qualified replication consumers; 3.4 generated ids (8 tasks per flow)
    lag_families = (("mm2_replication_consumer_records_lag", "mm2_replication_consumer_records_lag_max",
                     "mm2_replication_consumer_records_lead") if new else
                    ("mm2_consumer_records_lag", "mm2_consumer_records_lag_max"))
    for fam in sorted(lag_families):
        family(fam)
        for idx, (f, topic, p, idle, records_lag, lat) in enumerate(parts):
            task = idx % 8
            source, target = pairs[f]
            if new:
                lines.append('%s{partition="%d",source="%s",target="%s",task="%d",topic="%s"} %s'
                             % (fam, p, source, target, task, metrics.kafka_topic_tag(topic), _fmt(records_lag)))
            else:
                lines.append('%s{client_id="consumer-%d",partition="%d",topic="%s"} %s'
                             % (fam, f * 8 + task + 1, p, metrics.kafka_topic_tag(topic), _fmt(records_lag)))
    for attr in SOURCE_ATTRS:
        fam = "mm2_source_" + attr
        family(fam)
        windowed = attr.endswith("_avg") or attr.endswith("_max")
        for idx, (f, topic, p, idle, records_lag, lat) in enumerate(parts):
            source, target = pairs[f]
            value = float("nan") if (windowed and idle) else (lat if "latency" in attr or "age" in attr else 1000.0 + idx)
            labels = ('partition="%d",source="%s",target="%s",topic="%s.%s"' % (p, source, target, source, topic)
                      if new else 'partition="%d",target="%s",topic="%s.%s"' % (p, target, source, topic))
            lines.append("%s{%s} %s" % (fam, labels, _fmt(value)))
    family("mm2_task_status")
    for t in range(8 * len(pairs)):
        lines.append('mm2_task_status{connector="MirrorSourceConnector",status="running",task="%d"} 1.0' % t)
    lines.append('mm2_task_status{connector="MirrorHeartbeatConnector",status="running",task="0"} 1.0')
    family("jvm_threads_current")
    lines.append("jvm_threads_current 187.0")
    text = "\n".join(lines) + "\n"
    if layout == "0.x":
        text = text.replace("} ", ",} ")
    return text


def tokens_for(port, flows):
    """The alert's configurations for the flows of flow_pairs(flows): simple mode for one flow, else an
    advanced topology."""
    env = {"mm2_metrics_port": str(port), "mm2_pid_dir": "/nonexistent/mm2-pid"}
    if flows == 1:
        return {"{{kafka-mm2-env}}": env,
                "{{kafka-mm2-clusters}}": {"source.alias": "A", "target.alias": "B",
                                           "source.bootstrap.servers": "a:9092", "target.bootstrap.servers": "b:9092"},
                "{{kafka-mm2-replication}}": {"sync.group.offsets.enabled": "true"}}
    pairs = flow_pairs(flows)
    aliases = sorted(set(a for pair in pairs for a in pair))
    content = "clusters:\n" + "".join('  %s: {bootstrap.servers: "%s:9092"}\n' % (a, a.lower()) for a in aliases)
    content += "flows:\n" + "".join("  - {source: %s, target: %s}\n" % pair for pair in pairs)
    return {"{{kafka-mm2-env}}": env, "{{kafka-mm2-clusters}}": {"topology.mode": "advanced"},
            "{{kafka-mm2-replication}}": {"sync.group.offsets.enabled": "true"},
            "{{kafka-mm2-topology}}": {"content": content}}


def _flows():
    configs = {"kafka-mm2-clusters": {"topology.mode": "simple", "source.alias": "A", "target.alias": "B",
                                      "source.bootstrap.servers": "a:9092", "target.bootstrap.servers": "b:9092"},
               "kafka-mm2-replication": {"sync.group.offsets.enabled": "true"}}
    flows, _ = alert_config.expected_flows(configs, "3.7.1")
    return flows


def parse_and_evaluate(kind, text, flows, state):
    snap = metrics.Snapshot(text, alert_runner.FAMILIES[kind])
    th = alert_runner.thresholds_for(kind, {})
    names = [f.name for f in flows]
    if kind == "latency":
        return latency.evaluate_latency(snap, flows, names, th)
    if kind == "lag":
        return lag.evaluate_lag(snap, flows, names, th)
    if kind == "tasks":
        return tasks.evaluate_tasks(snap, flows, th)
    if kind == "checkpoint":
        return checkpoints.evaluate_checkpoints(snap, flows, 1.8e9, state, th)
    if kind == "heartbeat":
        return heartbeats.evaluate_heartbeats(flows, [("h", heartbeats.heartbeat_samples(snap))],
                                              evaluation.herders(snap), {}, 1.8e9, state, th, [], True)
    raise ValueError(kind)


def best_ms(fn, repeat):
    """(best wall ms, best CPU ms) over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        gc.collect()
        start, cpu = clock(), cpu_clock()
        fn()
        cpus.append((cpu_clock() - cpu) * 1000.0)
        walls.append((clock() - start) * 1000.0)
    return min(walls), min(cpus)


def _cpus():
    try:
        import multiprocessing
        return multiprocessing.cpu_count()
    except Exception:
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--partitions", default="1000,10000,100000")
    ap.add_argument("--layouts", default="1.x,0.x", help="exporter text layouts to time")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-http", action="store_true", help="skip the full runs through a local HTTP server")
    ap.add_argument("--flows", default="1,4,16", help="numbers of flows of the full runs")
    ap.add_argument("--full-partitions", type=int, default=10000, help="partitions of the full runs")
    args = ap.parse_args()
    sizes = [int(x) for x in args.partitions.split(",")]
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        text_string_to_metric_families = None
    flows = _flows()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print("Python %s on %s, %d CPUs, load %.1f; best of %d runs, wall ms / CPU ms" % (
        platform.python_version(), platform.machine(), _cpus(), load, args.repeat))
    layouts = args.layouts.split(",")
    print("%-6s %-6s %-7s %6s %8s  %-19s %-19s %-19s %s" % ("layout", "naming", "parts", "MB", "lines",
                                                            "latency alert", "lag alert", "prometheus_client",
                                                            "ratio"))
    results = {}
    for layout, naming, n in [(l, nm, n) for l in layouts for nm in ("3.x", "4.x") for n in sizes]:
            text = payload(n, naming, layout)
            lat = best_ms(lambda: parse_and_evaluate("latency", text, flows, {}), args.repeat)
            lag = best_ms(lambda: parse_and_evaluate("lag", text, flows, {}), args.repeat)
            if text_string_to_metric_families is not None:
                # a full parse is slow: fewer runs at the largest size
                ref = best_ms(lambda: list(text_string_to_metric_families(text)), 1 if n >= 100000 else min(args.repeat, 3))
                ref_s = "%8.0f / %8.0f" % ref
                ratio = "%.0fx faster (CPU)" % (ref[1] / max(lat[1], lag[1], 1e-9))
            else:
                ref, ref_s, ratio = None, "(not installed)", ""
            results[(layout, naming, n)] = (lat, lag, ref)
            print("%-6s %-6s %-7d %6.1f %8d  %8.1f / %8.1f %8.1f / %8.1f %s %s" % (
                layout, naming, n, len(text) / 1e6, text.count("\n"), lat[0], lat[1], lag[0], lag[1], ref_s, ratio))
            sys.stdout.flush()
    if 10000 in sizes:
        print()
        print("All alert kinds at 10,000 partitions (parse + evaluate, best CPU ms):")
        for layout, naming in [(l, nm) for l in layouts for nm in ("3.x", "4.x")]:
            text = payload(10000, naming, layout)
            row = []
            for kind in ("latency", "lag", "heartbeat", "checkpoint", "tasks"):
                row.append("%s %.1f" % (kind, best_ms(lambda: parse_and_evaluate(kind, text, flows, {}), args.repeat)[1]))
            print("  %s layout, %s naming: %s" % (layout, naming, ", ".join(row)))
    if 1000 in sizes and 10000 in sizes:
        for naming in ("3.x", "4.x"):
            per = [results[(layouts[0], naming, n)][0][1] / n * 1000.0 for n in sizes]
            print("Scaling (%s, latency alert, CPU): %s microseconds per partition" % (
                naming, " -> ".join("%.1f" % x for x in per)))
    if not args.no_http:
        full_runs(args, layouts)


KINDS = ("lag", "latency", "tasks", "heartbeat", "checkpoint")


def full_runs(args, layouts):
    """Whole alert runs (HTTP fetch of the whole payload from a local server, configuration, parse,
    evaluate) at --full-partitions partitions, per number of flows, layout and naming."""
    import tempfile
    from metrics_server import MetricsServer
    n = args.full_partitions
    flow_counts = [int(x) for x in args.flows.split(",")]
    print()
    print("Full alert runs at %d partitions (HTTP fetch of the whole payload from a local server + configuration"
          % n)
    print("+ parse + evaluate), best CPU ms of the alert's process; flows: %s" % ", ".join(
        "%d = %s" % (k, ", ".join("%s->%s" % p for p in flow_pairs(k)[:3]) + (", ..." if k > 3 else ""))
        for k in flow_counts))
    print("%-6s %-6s %-5s %s  %s" % ("layout", "naming", "flows", "  ".join("%10s" % k for k in KINDS),
                                     "worst / 1 flow"))
    state_dir = tempfile.mkdtemp(prefix="mm2-alerts-bench-")
    base = {}
    for layout in layouts:
        for naming in ("3.x", "4.x"):
            for k in flow_counts:
                server = MetricsServer(payload(n, naming, layout, k), honor_names=False).start()
                try:
                    tokens = tokens_for(server.port, k)
                    params = {"metrics.cache.seconds": 0, "state.directory": state_dir}
                    row, states = [], []
                    for kind in KINDS:
                        ms = best_ms(lambda: alert_runner.execute(kind, tokens, params, "127.0.0.1"), args.repeat)
                        row.append(ms[1])
                        states.append(alert_runner.execute(kind, tokens, params, "127.0.0.1")[0])
                finally:
                    server.stop()
                worst = max(row)
                base.setdefault((layout, naming), worst)
                print("%-6s %-6s %-5d %s  %.2f  (%s)" % (layout, naming, k, "  ".join("%10.0f" % v for v in row),
                                                        worst / base[(layout, naming)], " ".join(states)))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
