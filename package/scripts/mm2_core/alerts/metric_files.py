"""The service's metrics files, written from the one list (service_metrics.py) by `build.py --generate-alerts`.

- metrics.json: Ambari's metric paths of MIRRORMAKER2_DRIVER, type "ganglia" (served by Ambari Metrics from
  Ambari 2.0 on), per component (the service's lines, AMS cluster aggregates) and per host component; the
  per-flow series as one pattern entry per metric ($1 is the flow key).
- widgets.json: the summary page's layout (section KAFKA_MIRRORMAKER2_SUMMARY): rates and latency/lag as
  graphs over the last hour, worst values as numbers coloured by the corresponding alert's default thresholds.
- telemetry.json: Ambari 3.1's descriptor of the driver's exporter endpoint (prometheus_text, /metrics, the port
  and the HTTPS switch from kafka-mm2-env).
- the Grafana dashboard (Prometheus datasource).
Pure stdlib, Python 2.7 and 3.
"""
import json
from collections import OrderedDict

from mm2_core.alerts import metrics as m
from mm2_core.alerts import service_metrics as sm
from mm2_core.config import names

DASHBOARD_REL = "dashboards/grafana-dashboards/grafana-kafka-mirrormaker2.json"
SECTION = names.SERVICE + "_SUMMARY"

# Ambari 3.1 (service telemetry contract): the exporter endpoint, from the service's own configuration.
TELEMETRY_PATH = "/metrics"
METRICS_PORT = "mm2_metrics_port"            # in names.ENV
METRICS_HTTPS = "mm2_metrics_ssl_enabled"
DEFAULT_METRICS_PORT = 9405


def _text(obj):
    return json.dumps(obj, indent=2, separators=(",", ": ")) + "\n"


def _entry(ams_metric):
    return OrderedDict([("metric", ams_metric), ("pointInTime", True), ("temporal", True)])


def metrics_json():
    """metrics.json: component lines (service page, cluster aggregates over hosts) and host components."""
    host = OrderedDict()
    for metric in sm.METRICS:
        host[metric.metric_path] = _entry(metric.ams_name)
    for metric in sm.FLOW_METRICS:
        host["metrics/mm2/flow/$1/" + metric.name.replace(".", "/")] = _entry(
            sm.FLOW_PREFIX + sm.FLOW_KEY_PATTERN + "." + metric.name)
    component = OrderedDict((metric.metric_path, _entry(metric.ams_name)) for metric in sm.METRICS)

    def block(metrics):
        return [OrderedDict([("type", "ganglia"), ("metrics", OrderedDict([("default", metrics)]))])]
    return OrderedDict([(names.COMPONENT, OrderedDict([("Component", block(component)),
                                                      ("HostComponent", block(host))]))])


def _widget_metric(metric):
    suffix = "._" + metric.cluster
    return OrderedDict([("name", metric.ams_name + suffix), ("metric_path", metric.metric_path + suffix),
                        ("service_name", names.SERVICE), ("component_name", names.COMPONENT)])


def _widget(metric, kind, kinds):
    ref = "${%s._%s}" % (metric.ams_name, metric.cluster)
    if kind == "GRAPH":
        title = metric.label
        properties = OrderedDict([("graph_type", "LINE"), ("time_range", "1")])
    else:
        title = ("Worst " + metric.label[0].lower() + metric.label[1:]) if metric.host_rule == "max" else metric.label
        properties = OrderedDict([("display_unit", metric.unit)])
        limits = sm.thresholds(metric, kinds)
        if limits:
            properties["warning_threshold"] = _number(limits[0])
            properties["error_threshold"] = _number(limits[1])
    description = metric.help
    if metric.alert:
        description += " Alert: %s." % metric.alert
    return OrderedDict([
        ("widget_name", title), ("description", description), ("widget_type", kind), ("is_visible", True),
        ("metrics", [_widget_metric(metric)]),
        ("values", [OrderedDict([("name", metric.label), ("value", ref)])]),
        ("properties", properties)])


def _number(value):
    return ("%d" % value) if float(value).is_integer() else ("%s" % value)


def widgets_json(kinds):
    """widgets.json: numbers first (the worst values an operator reads at a glance), then the graphs."""
    widgets = []
    for metric in sm.METRICS:
        if "NUMBER" in metric.widget:
            widgets.append(_widget(metric, "NUMBER", kinds))
    for metric in sm.METRICS:
        if "GRAPH" in metric.widget:
            widgets.append(_widget(metric, "GRAPH", kinds))
    return OrderedDict([("layouts", [OrderedDict([
        ("layout_name", "default_mirrormaker2_dashboard"), ("display_name", "Standard MirrorMaker 2 Dashboard"),
        ("section_name", SECTION), ("widgetLayoutInfo", widgets)])])])


def _config_ref(name, **more):
    return OrderedDict([("configType", names.ENV), ("property", name)] + sorted(more.items()))


def telemetry_json():
    """telemetry.json (Ambari 3.1): the driver's exporter endpoint, scraped as native Prometheus text.

    The layout is the one Ambari's server reads (TelemetryAssignmentCompiler in apache/ambari; the schema
    derived from it is mpack_build/schemas/ambari-3.1-telemetry.schema.json): components keyed by component
    name; every configuration reference a configType and a property; the policy's property switches to the
    https entry when its value equals one of httpsValues (case-insensitive); the port is the property's value,
    or defaultPort when the property is unset.
    No auth block: the exporter speaks HTTP or HTTPS, optionally with Basic auth, never SPNEGO, so there is
    no Kerberos principal or keytab for the scraper to use (the descriptor carries references, not secrets).
    """
    endpoint = OrderedDict([
        ("policy", _config_ref(METRICS_HTTPS, httpsValues=["true"])),
        ("http", _config_ref(METRICS_PORT, defaultPort=DEFAULT_METRICS_PORT)),
        ("https", _config_ref(METRICS_PORT, defaultPort=DEFAULT_METRICS_PORT)),
    ])
    component = OrderedDict([("format", "prometheus_text"), ("path", TELEMETRY_PATH), ("endpoint", endpoint)])
    return OrderedDict([("schemaVersion", 1), ("components", OrderedDict([(names.COMPONENT, component)]))])


# --- Grafana: one panel per metric, the Prometheus form of what the AMS sender computes --------------------
_SEL = '{instance=~"$instance"}'
_HEARTBEATS = '{instance=~"$instance",topic=~".*heartbeats",partition="0"}'
_PANELS = {
    "records_rate": ("Records copied / s (per flow)", "records/s",
                     'sum by (source, target) (%s%s)' % (sm.RECORD_RATE, _SEL)),
    "latency": ("Worst partition replication latency (avg over MM2's window)", "s",
                'max by (instance, source, target) (%s%s) / 1000' % (m.SOURCE_LATENCY_AVG, _SEL)),
    "lag": ("Replication lag, worst partition (records not fetched yet)", "records",
            'max by (source, target) (%s%s)' % (m.REPLICATION_LAG, _SEL)),
    "heartbeat_age": ("Heartbeats arriving on the target (per 5 min; 0: the heartbeat age grows)", "heartbeats",
                      'sum by (instance, source, target, topic) (increase(%s%s[5m]))' % (m.SOURCE_RECORD_COUNT,
                                                                                       _HEARTBEATS)),
    "checkpoint_age": ("Checkpoints emitted (per 10 min; 0 while records flow: the checkpoint age grows)",
                       "checkpoints", 'sum by (source, target) (changes(%s%s[10m]))' % (m.CHECKPOINT_LATENCY, _SEL)),
    "failed_tasks": ("FAILED connectors/tasks", "connectors/tasks",
                     'sum(%s{instance=~"$instance",status="failed"}) + sum(%s{instance=~"$instance",'
                     'status="failed"}) or vector(0)' % (m.TASK_STATUS, m.CONNECTOR_STATUS)),
}
# The exporter's own health and the tables of the worst offenders: not AMS metrics (Grafana only).
_EXTRA_STATS = (
    ("Herders running", 'count(%s%s)' % (m.HERDER_UP, _SEL)),
    ("Bytes replicated / s", 'sum(mm2_source_byte_rate%s)' % _SEL),
)
_EXTRA_TABLES = (
    ("Top %d lagging partitions" % sm.TOP_FLOWS,
     'topk(%d, %s%s > 0) or topk(%d, %s{instance=~"$instance",topic!~"mm2-.*|.*[.-]internal|__.*"} > 0)'
     % (sm.TOP_FLOWS, m.REPLICATION_LAG, _SEL, sm.TOP_FLOWS, m.CONSUMER_LAG)),
    ("Connectors and tasks not RUNNING",
     '%s{instance=~"$instance",status!="running"} == 1 or %s{instance=~"$instance",status!="running"} == 1'
     % (m.TASK_STATUS, m.CONNECTOR_STATUS)),
)
_EXTRA_SERIES = (
    ("JMX scrape duration", "s", '%s%s' % (m.SCRAPE_DURATION, _SEL)),
    ("Outstanding records per source task", "records",
     'sum by (instance, connector) (mm2_source_task_source_record_active_count%s)' % _SEL),
    ("Tasks per worker", "tasks", 'mm2_worker_task_count%s' % _SEL),
)
_GRAFANA_UNITS = {"s": "s", "records/s": "rps", "records": "short", "connectors/tasks": "short",
                  "heartbeats": "short", "checkpoints": "short", "tasks": "short"}


class _Panels(object):
    def __init__(self):
        self.panels = []
        self.y = 0

    def row(self, title):
        self.panels.append(OrderedDict([("id", len(self.panels) + 1), ("type", "row"), ("title", title),
                                        ("collapsed", False), ("gridPos", self._pos(0, 24, 1)), ("panels", [])]))
        self.y += 1

    def _pos(self, x, w, h):
        return OrderedDict([("h", h), ("w", w), ("x", x), ("y", self.y)])

    def add(self, kind, title, exprs, x, w, h, unit=None, description=None, legend=None):
        targets = [OrderedDict([("refId", chr(ord("A") + i)), ("expr", expr)] +
                               ([("legendFormat", legend)] if legend else []) +
                               ([("format", "table"), ("instant", True)] if kind == "table" else []))
                   for i, expr in enumerate(exprs)]
        panel = OrderedDict([("id", len(self.panels) + 1), ("type", kind), ("title", title)])
        if description:
            panel["description"] = description
        panel["datasource"] = OrderedDict([("type", "prometheus"), ("uid", "${datasource}")])
        panel["gridPos"] = self._pos(x, w, h)
        if unit:
            panel["fieldConfig"] = OrderedDict([("defaults", OrderedDict([("unit", _GRAFANA_UNITS.get(unit, unit))])),
                                                ("overrides", [])])
        panel["targets"] = targets
        self.panels.append(panel)


def grafana_dashboard(kinds):
    """The Grafana dashboard: the overview numbers, one graph per metric of the list, the exporter's health."""
    p = _Panels()
    p.row("Overview")
    stats = [(title, expr, None, None) for title, expr in _EXTRA_STATS]
    stats += [(_PANELS[k][0], _PANELS[k][2], _PANELS[k][1], sm.BY_KEY[k]) for k in ("failed_tasks", "records_rate")]
    width = 24 // len(stats)
    for i, (title, expr, unit, metric) in enumerate(stats):
        desc = None
        if metric is not None:
            desc = metric.help + (" Ambari: %s; alert %s." % (metric.ams_name, metric.alert) if metric.alert
                                  else " Ambari: %s." % metric.ams_name)
        p.add("stat", title, [expr], i * width, width, 4, unit=unit, description=desc)
    p.y += 4
    p.row("Replication flows")
    graphs = [k for k in sm.BY_KEY if k != "failed_tasks"]
    for i, key in enumerate(graphs):
        metric = sm.BY_KEY[key]
        title, unit, expr = _PANELS[key]
        desc = metric.help + " Ambari: %s (per flow %s)." % (metric.ams_name, metric.flow_ams_name("<flow>"))
        if metric.alert:
            desc += " Alert: %s." % metric.alert
        p.add("timeseries", title, [expr], (i % 2) * 12, 12, 8, unit=unit, description=desc,
              legend="{{source}}->{{target}}")
        if i % 2 == 1:
            p.y += 8
    if len(graphs) % 2:
        p.y += 8
    for i, (title, expr) in enumerate(_EXTRA_TABLES):
        p.add("table", title, [expr], i * 12, 12, 8)
    p.y += 8
    p.row("Exporter and workers")
    for i, (title, unit, expr) in enumerate(_EXTRA_SERIES):
        p.add("timeseries", title, [expr], i * 8, 8, 8, unit=unit)
    p.y += 8
    missing = set(sm.BY_KEY) - set(_PANELS)
    if missing:
        raise KeyError("no Grafana panel for metrics %s of service_metrics.METRICS" % sorted(missing))
    return OrderedDict([
        ("title", "Kafka MirrorMaker 2"), ("uid", "kafka-mm2-ambari"),
        ("description", "MirrorMaker 2 replication health from the mpack's JMX exporter rules (Prometheus "
                        "datasource). Generated from package/scripts/mm2_core/alerts/service_metrics.py."),
        ("tags", ["kafka", "mirrormaker2", "ambari"]), ("timezone", "browser"), ("schemaVersion", 39),
        ("version", 1), ("editable", True), ("refresh", "1m"),
        ("time", OrderedDict([("from", "now-6h"), ("to", "now")])),
        ("templating", OrderedDict([("list", [
            OrderedDict([("name", "datasource"), ("label", "Prometheus"), ("type", "datasource"),
                         ("query", "prometheus"), ("current", {}), ("hide", 0)]),
            OrderedDict([("name", "instance"), ("label", "Driver"), ("type", "query"),
                         ("datasource", OrderedDict([("type", "prometheus"), ("uid", "${datasource}")])),
                         ("query", "label_values(%s, instance)" % m.HERDER_UP), ("refresh", 2),
                         ("includeAll", True), ("multi", True), ("allValue", ".*"),
                         ("current", OrderedDict([("text", "All"), ("value", "$__all")]))])])])),
        ("panels", p.panels)])


def files(kinds):
    """[(path relative to the service directory, text)] of every file written from the list."""
    return [("metrics.json", _text(metrics_json())), ("widgets.json", _text(widgets_json(kinds))),
            ("telemetry.json", _text(telemetry_json())), (DASHBOARD_REL, _text(grafana_dashboard(kinds)))]
