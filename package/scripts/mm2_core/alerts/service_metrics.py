"""The MM2 metrics an operator sees in Ambari, declared once: names, units, types and the bound on series.

Beside the alert registry (registry.py), and written out from here by `python3 build.py --generate-alerts`
(the build fails when a written file differs, like alerts.json):
- metrics.json and widgets.json of the service (Ambari Metrics, Ambari 2.7 and 3.0: the service summary page),
- telemetry.json (Ambari 3.1's Prometheus-compatible collection of the exporter's own endpoint),
- the Grafana dashboard (dashboards/grafana-dashboards/grafana-kafka-mirrormaker2.json).
The AMS sender (ams_sender.py, run on each driver host by mm2_ams_sender.py) computes exactly these series.

Each ServiceMetric is one thing an operator reads: records copied per second, replication latency, lag,
heartbeat age, checkpoint age, failed connectors/tasks. It names
- the AMS metric (`mm2.<name>`, per driver host; per flow as `mm2.flow.<flow key>.<name>`),
- how a host's value is made from the exporter's series (sum or worst over partitions and flows) and how
  the service line combines hosts (AMS's `._sum` / `._max` cluster aggregates),
- the exporter family it is read from (the Prometheus name, as Ambari 3.1 and Grafana read it),
- its unit and type, and the alert it corresponds to (whose thresholds colour the numbers).

Bounded series: per host, one series per metric (6), plus per flow the TOP_FLOWS flows with the worst
latency, then lag (at most TOP_FLOWS x 5 more: failed tasks have no flow), so one host sends at most MAX_SERIES_PER_HOST series a
minute whatever the number of flows, topics and partitions. Partitions are never a series of their own
in AMS: a flow's value is the sum (rates) or the worst (latency, lag, ages) over its partitions.

Pure stdlib, Python 2.7 and 3.
"""
from collections import OrderedDict

from mm2_core.alerts import metrics as m

APP_ID = "mirrormaker2_driver"   # AMS lower-cases the app id it queries (the component name)
AMS_PREFIX = "mm2."
FLOW_PREFIX = "mm2.flow."
TOP_FLOWS = 20                   # per-flow series per host: the worst 20 flows
SEND_INTERVAL_SECONDS = 60       # one point per series a minute (AMS's own sinks send every 60 s)
FLOW_KEY_PATTERN = "([A-Za-z0-9_-]+)"   # what a flow key may hold (flow_key() writes only these)

# The exporter families the sender reads besides those named below (the lag before Kafka 3.5).
RECORD_RATE = "mm2_source_record_rate"


class ServiceMetric(object):
    """One metric of the service page.

    host_rule: how the host's value is made from the per-flow values (sum or max);
    cluster: the AMS aggregate the service line reads (`_sum` or `_max` over hosts);
    family: the exporter (Prometheus) family it comes from; prom_type: its type there;
    alert: the alert definition name it corresponds to (None: none), whose default thresholds
    colour the NUMBER widget; scale: factor from the family's unit to this metric's unit.
    """

    def __init__(self, key, name, label, unit, host_rule, cluster, family, prom_type, alert, widget, help_text,
                 per_flow=True, scale=1.0, derived=None):
        self.key = key
        self.name = name
        self.label = label
        self.unit = unit
        self.host_rule = host_rule
        self.cluster = cluster
        self.family = family
        self.prom_type = prom_type
        self.alert = alert
        self.widget = widget
        self.help = help_text
        self.per_flow = per_flow
        self.scale = scale
        self.derived = derived

    @property
    def ams_name(self):
        return AMS_PREFIX + self.name

    def flow_ams_name(self, flow_key):
        return FLOW_PREFIX + flow_key + "." + self.name

    @property
    def metric_path(self):
        return "metrics/mm2/" + self.name.replace(".", "/")


METRICS = (
    ServiceMetric(
        "records_rate", "replication.records_per_sec", "Records copied per second", "records/s", "sum", "sum",
        RECORD_RATE, "gauge", None, "GRAPH",
        "Records MirrorMaker 2 copied to the target per second (MM2's record-rate, summed over partitions)."),
    ServiceMetric(
        "latency", "replication.latency_s", "Replication latency", "s", "max", "max",
        m.SOURCE_LATENCY_AVG, "gauge", "mm2_replication_latency", "GRAPH+NUMBER",
        "Worst partition's replication latency, source record timestamp to target ack, averaged over MM2's "
        "stat window (about a minute).", scale=0.001),
    ServiceMetric(
        "lag", "replication.lag_records", "Replication lag", "records", "max", "max",
        m.REPLICATION_LAG, "gauge", "mm2_replication_lag", "GRAPH+NUMBER",
        "Worst partition's records in the source not fetched yet by the replication consumer (records-lag; "
        "Kafka 3.5+ per flow, before 3.5 the host's consumers without a flow)."),
    ServiceMetric(
        "heartbeat_age", "heartbeat.age_s", "Heartbeat age", "s", "max", "max",
        m.SOURCE_RECORD_COUNT, "gauge", "mm2_heartbeat_gap", "NUMBER",
        "Seconds since a heartbeat of the flow last arrived on the target (<source>.heartbeats advancing), as "
        "the driver host replicating it sees it.", derived="seconds since the heartbeats partition's record "
        "count last went up"),
    ServiceMetric(
        "checkpoint_age", "checkpoint.age_s", "Checkpoint age", "s", "max", "max",
        m.CHECKPOINT_LATENCY, "gauge", "mm2_checkpoint_age", "NUMBER",
        "Seconds since MM2 last emitted a consumer-offset checkpoint for the flow (only flows that checkpoint).",
        derived="seconds since the flow's checkpoint-latency series last changed"),
    ServiceMetric(
        "failed_tasks", "tasks.failed", "Failed connectors and tasks", "connectors/tasks", "sum", "sum",
        m.TASK_STATUS, "gauge", "mm2_connector_tasks", "NUMBER",
        "MirrorMaker 2 connectors and tasks in FAILED state on the host (Connect's MBeans carry no flow, so "
        "this one is per host only).", per_flow=False),
)

BY_KEY = OrderedDict((metric.key, metric) for metric in METRICS)
FLOW_METRICS = tuple(metric for metric in METRICS if metric.per_flow)
MAX_SERIES_PER_HOST = len(METRICS) + TOP_FLOWS * len(FLOW_METRICS)


def flow_key(source, target):
    """The flow's part of an AMS metric name: 'A->B' as 'A_to_B', any other character than letters,
    digits, '_' and '-' written as '_' (AMS metric names are dotted paths)."""
    def clean(alias):
        return "".join(c if (c.isalnum() and ord(c) < 128) or c in "_-" else "_" for c in (alias or "?"))
    return "%s_to_%s" % (clean(source), clean(target))


def thresholds(metric, kinds):
    """(warning, critical) default thresholds of the metric's alert from the alert registry's KINDS, or None."""
    if not metric.alert:
        return None
    for kind in kinds:
        if kind.name == metric.alert:
            return kind.warning.value, kind.critical.value
    raise KeyError("%s names alert %s, which the alert registry does not declare" % (metric.key, metric.alert))
