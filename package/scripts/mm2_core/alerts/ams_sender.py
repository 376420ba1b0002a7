"""MM2's metrics to Ambari Metrics (AMS): the values of service_metrics.METRICS from one exporter scrape,
as the TimelineMetrics JSON the collector's POST /ws/v1/timeline/metrics takes.

The collector (apache/ambari-metrics, TimelineWebServices.postMetrics) reads a JSON object {"metrics": [...]}
of TimelineMetric records: metricname, appid, hostname, starttime, timestamp, type, units and metrics, a map
of epoch milliseconds (as strings) to numbers; Jackson rejects other fields. One point per series a minute,
bounded to service_metrics.MAX_SERIES_PER_HOST series.

Cost and safety: a post is one short connection whose every step is bounded by a deadline (alert_fetch.Conn);
a collector that is down, refuses, answers slowly or with an error costs at most that deadline and the
minute's points (nothing is queued for later), and the sender process is separate from MM2's JVM.
Pure stdlib, Python 2.7 and 3.
"""
import json

from mm2_core.alerts import alert_fetch
from mm2_core.alerts import metrics as m
from mm2_core.alerts import service_metrics as sm

POST_PATH = "/ws/v1/timeline/metrics"
DEFAULT_PORT = 6188
MAX_BODY_BYTES = 256 * 1024      # a full minute (MAX_SERIES_PER_HOST series) is about 40 KB
MAX_TRACKED = 4 * sm.TOP_FLOWS * 10   # flows and heartbeat topics remembered between scrapes

# The exporter families one scrape needs (the alerts' name[] filter form: the exporter's own series included).
FAMILIES = (sm.RECORD_RATE, m.SOURCE_LATENCY_AVG, m.REPLICATION_LAG, m.CONSUMER_LAG, m.SOURCE_RECORD_COUNT,
            m.CHECKPOINT_LATENCY, m.TASK_STATUS, m.CONNECTOR_STATUS, m.SCRAPE_ERROR, m.SCRAPE_DURATION)
_INTERNAL_TOPIC_PREFIXES = ("mm2-", "__")


def collector_urls(cluster_host_info, ams_site):
    """The collectors' POST URLs: one per host of clusterHostInfo/metrics_collector_hosts, on the port of
    ams-site/timeline.metrics.service.webapp.address, HTTPS when timeline.metrics.service.http.policy is
    HTTPS_ONLY. [] when the cluster has no Ambari Metrics: the sender then does nothing."""
    hosts = [h for h in (cluster_host_info or {}).get("metrics_collector_hosts") or [] if h]
    if not hosts:
        return []
    site = ams_site or {}
    address = (site.get("timeline.metrics.service.webapp.address") or "").strip()
    port = DEFAULT_PORT
    if ":" in address:
        try:
            port = int(address.rsplit(":", 1)[1])
        except ValueError:
            port = DEFAULT_PORT
    scheme = "https" if (site.get("timeline.metrics.service.http.policy") or "").strip() == "HTTPS_ONLY" else "http"
    return ["%s://%s:%d%s" % (scheme, host, port, POST_PATH) for host in sorted(hosts)]


class SenderState(object):
    """What the ages need between scrapes: when each heartbeat partition's count and each flow's checkpoint
    series last changed. Bounded: keys not seen in a scrape are dropped, and at most MAX_TRACKED are kept."""

    def __init__(self, started):
        self.started = started
        self.heartbeats = {}    # (source, target, topic) -> (count, time it last went up)
        self.checkpoints = {}   # flow key -> (signature, time it last changed)

    @staticmethod
    def _advance(table, key, value, now, started):
        prev = table.get(key)
        if prev is None:
            table[key] = (value, started)   # first sight: age counted from the sender's start at most
        elif value != prev[0]:
            table[key] = (value, now)
        return now - table[key][1]

    def heartbeat_age(self, key, count, now):
        return self._advance(self.heartbeats, key, count, now, self.started)

    def checkpoint_age(self, key, signature, now):
        return self._advance(self.checkpoints, key, signature, now, self.started)

    def prune(self, heartbeat_keys, checkpoint_keys):
        for table, keep in ((self.heartbeats, heartbeat_keys), (self.checkpoints, checkpoint_keys)):
            for key in [k for k in table if k not in keep]:
                del table[key]
            for key in sorted(table, key=lambda k: table[k][1])[:max(0, len(table) - MAX_TRACKED)]:
                del table[key]


def _source_of(labels):
    """The flow's source alias: the label (Kafka 3.5+ with the alias, 4.0) or the remote topic's prefix."""
    source = labels.get("source")
    if source:
        return source
    topic = labels.get("topic") or ""
    return topic.split(".", 1)[0] if "." in topic else None


def _flow(labels):
    source, target = _source_of(labels), labels.get("target")
    if not source or not target:
        return None
    return sm.flow_key(source, target)


def _put(values, flow, key, value, rule):
    if value is None or not m.is_number(value):
        return
    per_flow = values.setdefault(flow, {})
    if key not in per_flow:
        per_flow[key] = value
    elif rule == "sum":
        per_flow[key] += value
    else:
        per_flow[key] = max(per_flow[key], value)


def compute(snap, now, state):
    """({metric key: host value}, {flow key: {metric key: value}}) from one exporter Snapshot."""
    flows = {}
    metric = sm.BY_KEY
    for labels, value in snap.series(sm.RECORD_RATE):
        if not (labels.get("topic") or "").endswith("heartbeats"):
            _put(flows, _flow(labels), "records_rate", value, "sum")
    for labels, value in snap.series(m.SOURCE_LATENCY_AVG):
        _put(flows, _flow(labels), "latency", value * metric["latency"].scale if m.is_number(value) else None, "max")
    for labels, value in snap.series(m.REPLICATION_LAG):
        _put(flows, _flow(labels), "lag", value, "max")
    seen_heartbeats = set()
    for labels, count in snap.series(m.SOURCE_RECORD_COUNT):
        topic = labels.get("topic") or ""
        if not topic.endswith("heartbeats") or labels.get("partition") != "0" or not m.is_number(count):
            continue
        key = (_source_of(labels), labels.get("target"), topic)
        seen_heartbeats.add(key)
        _put(flows, _flow(labels), "heartbeat_age", state.heartbeat_age(key, count, now), "max")
    signatures = {}
    for labels, value in snap.series(m.CHECKPOINT_LATENCY):
        flow = _flow(labels)
        if flow and m.is_number(value):
            sig = signatures.setdefault(flow, [0, 0.0])
            sig[0] += 1
            sig[1] += value
    for flow, sig in signatures.items():
        _put(flows, flow, "checkpoint_age", state.checkpoint_age(flow, tuple(sig), now), "max")
    state.prune(seen_heartbeats, set(signatures))
    flows.pop(None, None)
    host = {}
    for flow_values in flows.values():
        for key, value in flow_values.items():
            rule = metric[key].host_rule
            host[key] = value if key not in host else (host[key] + value if rule == "sum" else max(host[key], value))
    if "lag" not in host:   # before Kafka 3.5: the host's replication consumers, no flow
        lags = [v for labels, v in snap.series(m.CONSUMER_LAG)
                if m.is_number(v) and not (labels.get("topic") or "").startswith(_INTERNAL_TOPIC_PREFIXES)
                and not (labels.get("topic") or "").endswith("internal")]
        if lags:
            host["lag"] = max(lags)
    failed = [v for fam in (m.TASK_STATUS, m.CONNECTOR_STATUS) for labels, v in snap.series(fam)
              if labels.get("status") == "failed" and v == 1]
    if snap.has(m.TASK_STATUS) or snap.has(m.CONNECTOR_STATUS) or flows:
        host["failed_tasks"] = float(len(failed))
    return host, flows


def top_flows(flows, limit=sm.TOP_FLOWS):
    """The `limit` flows with the worst latency, then lag, then name: the per-flow series sent (the bound)."""
    def badness(item):
        name, values = item
        return (-values.get("latency", 0.0), -values.get("lag", 0.0), name)
    return sorted(flows.items(), key=badness)[:limit]


def _record(name, metric, hostname, now_ms, value):
    return {"metricname": name, "appid": sm.APP_ID, "hostname": hostname, "starttime": now_ms,
            "timestamp": now_ms, "type": "GAUGE" if metric.prom_type == "gauge" else "COUNTER",
            "units": metric.unit, "metrics": {str(now_ms): float(value)}}


def payload(hostname, now, host_values, flows):
    """The TimelineMetrics object of one minute: host series, then the TOP_FLOWS worst flows' series."""
    now_ms = int(now * 1000)
    records = [_record(metric.ams_name, metric, hostname, now_ms, host_values[metric.key])
               for metric in sm.METRICS if metric.key in host_values]
    for flow, values in top_flows(flows):
        records += [_record(metric.flow_ams_name(flow), metric, hostname, now_ms, values[metric.key])
                    for metric in sm.FLOW_METRICS if metric.key in values]
    return {"metrics": records[:sm.MAX_SERIES_PER_HOST]}


def encode(obj):
    body = json.dumps(obj, separators=(",", ":"), sort_keys=True).encode("utf-8")
    if len(body) > MAX_BODY_BYTES:
        raise ValueError("%d bytes of metrics exceed the bound of %d" % (len(body), MAX_BODY_BYTES))
    return body


def post(url, body, timeout=5.0, ca_file=""):
    """POST body to one collector within `timeout` seconds in all: None when it took it (HTTP 200), else why not."""
    parts = alert_fetch.urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    host_header = "[%s]" % parts.hostname if ":" in parts.hostname else parts.hostname
    head = ["POST %s HTTP/1.1" % (parts.path or POST_PATH), "Host: %s:%d" % (host_header, port),
            "Content-Type: application/json", "Accept: */*", "Content-Length: %d" % len(body),
            "Connection: close", "User-Agent: ambari-mm2-ams-sender"]
    deadline = alert_fetch.deadline_in(timeout)
    conn = None
    try:
        conn = alert_fetch.Conn(parts.hostname, port, deadline,
                                 alert_fetch.ssl_context(ca_file, True) if https else None)
        conn.send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        status, reason, _ = alert_fetch.read_head(conn, bytearray())
    except Exception as e:   # down, refused, slow, TLS: the minute's points are dropped, never MM2's problem
        return "%s: %s" % (url, alert_fetch.classify(e)[1])
    finally:
        if conn is not None:
            conn.close()
    if status != 200:
        return "%s: HTTP %d %s" % (url, status, alert_fetch.printable(reason, 60))
    return None


def send(urls, body, timeout=5.0, ca_file=""):
    """Post to the first collector that takes it (AMS HA: the others are standbys). (url or None, errors)."""
    errors = []
    for url in urls:
        problem = post(url, body, timeout=timeout, ca_file=ca_file)
        if problem is None:
            return url, errors
        errors.append(problem)
    return None, errors
