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


def payload(n, naming, layout="1.x"):
    """Exporter text (families and labels sorted; 0.x: trailing comma in label sets) for n
    replicated partitions of A->B."""
    new = naming == "4.x"
    parts = []
    for i in range(n):
        topic = "sales.topic-%04d" % (i // TOPIC_PARTITIONS)
        p = i % TOPIC_PARTITIONS
        idle = i % 20 == 7            # ~5% idle
        stalled = i % 500 == 11       # a few stalled: idle window, lag left
        parts.append((topic, p, idle or stalled, 5000.0 if stalled else 0.0, 20.0 + (i % 97)))
    parts.append(("heartbeats", 0, False, 0.0, 8.0))
    lines = []

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
    lines.append('mm2_herder_start_time_ms{source="A",target="B"} 1.7E12')
    lines.append('mm2_herder_start_time_ms{source="B",target="A"} 1.7E12')
    family("mm2_herder_up")
    lines.append('mm2_herder_up{source="A",target="B",version="%s"} 1.0' % ("4.0.0" if new else "3.4.1"))
    lines.append('mm2_herder_up{source="B",target="A",version="%s"} 1.0' % ("4.0.0" if new else "3.4.1"))
    # consumer lag: 4.x flow-qualified replication consumers; 3.4 generated ids
    lag_families = (("mm2_replication_consumer_records_lag", "mm2_replication_consumer_records_lag_max",
                     "mm2_replication_consumer_records_lead") if new else
                    ("mm2_consumer_records_lag", "mm2_consumer_records_lag_max"))
    for fam in sorted(lag_families):
        family(fam)
        for idx, (topic, p, idle, records_lag, lat) in enumerate(parts):
            task = idx % 8
            if new:
                lines.append('%s{partition="%d",source="A",target="B",task="%d",topic="%s"} %s'
                             % (fam, p, task, metrics.kafka_topic_tag(topic), _fmt(records_lag)))
            else:
                lines.append('%s{client_id="consumer-%d",partition="%d",topic="%s"} %s'
                             % (fam, task + 1, p, metrics.kafka_topic_tag(topic), _fmt(records_lag)))
    for attr in SOURCE_ATTRS:
        fam = "mm2_source_" + attr
        family(fam)
        windowed = attr.endswith("_avg") or attr.endswith("_max")
        for idx, (topic, p, idle, records_lag, lat) in enumerate(parts):
            value = float("nan") if (windowed and idle) else (lat if "latency" in attr or "age" in attr else 1000.0 + idx)
            labels = ('partition="%d",source="A",target="B",topic="A.%s"' % (p, topic) if new
                      else 'partition="%d",target="B",topic="A.%s"' % (p, topic))
            lines.append("%s{%s} %s" % (fam, labels, _fmt(value)))
    family("mm2_task_status")
    for t in range(8):
        lines.append('mm2_task_status{connector="MirrorSourceConnector",status="running",task="%d"} 1.0' % t)
    lines.append('mm2_task_status{connector="MirrorHeartbeatConnector",status="running",task="0"} 1.0')
    family("jvm_threads_current")
    lines.append("jvm_threads_current 187.0")
    text = "\n".join(lines) + "\n"
    if layout == "0.x":
        text = text.replace("} ", ",} ")
    return text


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
    if not args.no_http and 10000 in sizes:
        from metrics_server import MetricsServer
        print()
        print("Full alert runs at 10,000 partitions (HTTP fetch from a local server + parse + evaluate; the server")
        print("ignores name[], so the whole payload travels; best wall ms / CPU ms of the alert's process):")
        for naming in ("3.x", "4.x"):
            server = MetricsServer(payload(10000, naming, layouts[-1]), honor_names=False).start()
            try:
                tokens = {"{{kafka-mm2-env}}": {"mm2_metrics_port": str(server.port)},
                          "{{kafka-mm2-clusters}}": {"source.alias": "A", "target.alias": "B",
                                                     "source.bootstrap.servers": "a:9092",
                                                     "target.bootstrap.servers": "b:9092"}}
                params = {"metrics.cache.seconds": 0, "state.directory": os.path.join(HERE, "results", "state")}
                row = []
                for kind in ("latency", "lag", "tasks"):
                    ms = best_ms(lambda: alert_runner.execute(kind, tokens, params, "127.0.0.1"), args.repeat)
                    state = alert_runner.execute(kind, tokens, params, "127.0.0.1")[0]
                    row.append("%s %.0f / %.0f (%s)" % (kind, ms[0], ms[1], state))
                print("  %s naming: %s" % (naming, ", ".join(row)))
            finally:
                server.stop()


if __name__ == "__main__":
    main()
