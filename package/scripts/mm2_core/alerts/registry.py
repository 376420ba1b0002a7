"""The MM2 alerts, declared once: one record per alert kind.

Each AlertKind names the alert (Ambari definition name and label, its description), the thin script
Ambari runs (package/alerts/<stub>), its two thresholds with their units, the metric families it reads
(every alert asks the exporter for all of them, so one scrape serves all), whether it reads the other
driver hosts and keeps state between runs; an alert that reads MM2's log on the host instead of the metrics
(silent_loss) has reads_log set and no families, and extra_parameters lists parameters of its own. The parameters every alert has (the run's deadline, the
shared scrape window, the state directory) are declared once in SHARED_PARAMETERS.

alerts.json is this registry written out (``definitions()``): build.py checks the file against it
(mpack_build/check_alerts.py), and alert_runner takes its tables and its dispatch from it: a new alert is a new
record here plus its evaluation module (``module``: mm2_core.alerts.<module>), nothing else. The module's
``run(alert_run)`` answers once the metrics are read (alert_runner.AlertRun: the scrape, the flows, the
thresholds, and the reads of other hosts and of the state file); an optional ``before_fetch(alert_run)`` may
answer before the endpoint is read, and ``metrics_disabled(alert_run)`` when the endpoint is switched off.
A reads_log alert's ``run`` is all there is (no endpoint).
Pure stdlib, Python 2.7 and 3.
"""
import json
from collections import OrderedDict

from mm2_core.alerts import metric_files as _metric_files
from mm2_core.alerts import metrics as m
from mm2_core.config import names

INTERVAL_MINUTES = 1
SCOPE = "HOST"

# What the lag and latency alerts read: the replicated partitions, their record age and lag, and the
# replication consumers' last poll (a blocked task stops polling).
# TASK_STATUS: partition metrics count as the flow replicating here only while a source task runs
# (tasks.task_evidence: they can outlive their task)
_PARTITION_FAMILIES = (m.HERDER_UP, m.HERDER_START, m.SOURCE_LATENCY_AVG, m.SOURCE_RECORD_AGE_AVG,
                       m.REPLICATION_LAG, m.CONSUMER_LAG, m.REPLICATION_LAST_POLL, m.CONSUMER_LAST_POLL,
                       m.TASK_STATUS)


class Parameter(object):
    """One alerts.json source parameter (AlertDefinition's ScriptSource parameter)."""

    def __init__(self, name, display_name, value, value_type, description, units=None, threshold=None,
                 visibility=None):
        self.name = name
        self.display_name = display_name
        self.value = value
        self.value_type = value_type
        self.description = description
        self.units = units
        self.threshold = threshold
        self.visibility = visibility

    def definition(self):
        out = OrderedDict([("name", self.name), ("display_name", self.display_name), ("value", self.value),
                           ("type", self.value_type), ("description", self.description)])
        for key in ("units", "threshold", "visibility"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


class AlertKind(object):
    """One alert kind; unit is how its texts print a threshold value (" s", " records", "")."""

    def __init__(self, kind, name, label, stub, description, warning, critical, unit, families, reads_peers,
                 keeps_state, module, reads_log=False, extra_parameters=(), reads_flows=True, skips_held_flows=True):
        self.kind = kind
        self.name = name
        self.label = label
        self.stub = stub
        self.description = description
        self.warning = warning
        self.critical = critical
        self.unit = unit
        self.families = families
        self.reads_peers = reads_peers
        self.keeps_state = keeps_state
        # reads_log: the alert reads MM2's log on the host, not the metrics endpoint (families is empty)
        self.reads_log = reads_log
        self.extra_parameters = tuple(extra_parameters)
        # module: the evaluation module under mm2_core.alerts that answers for this kind (see the module docstring)
        self.module = module
        # reads_flows: the run resolves the deployment's flows before `run` (False: the process alert, which
        # answers from the endpoint alone); skips_held_flows: flows an operator paused or stopped (connect mode)
        # are left out of the evaluation and named in a note
        self.reads_flows = reads_flows
        self.skips_held_flows = skips_held_flows

    @property
    def parameters(self):
        return (self.warning, self.critical) + self.extra_parameters + SHARED_PARAMETERS

    def parameter(self, name):
        """The declared Parameter `name` of this alert (its value is the default)."""
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError("alert %s has no parameter %s" % (self.kind, name))

    def definition(self):
        """This alert's entry of alerts.json."""
        path = "%s/%s/package/alerts/%s" % (names.SERVICE, names.SERVICE_VERSION, self.stub)
        return OrderedDict([
            ("name", self.name), ("label", self.label), ("description", self.description),
            ("interval", INTERVAL_MINUTES), ("scope", SCOPE), ("enabled", True),
            ("source", OrderedDict([("type", "SCRIPT"), ("path", path),
                                    ("parameters", [p.definition() for p in self.parameters])]))])


SHARED_PARAMETERS = (
    Parameter("connection.timeout", "Connection Timeout", 5.0, "NUMERIC",
              "Deadline of one alert run: connecting to the MM2 metrics endpoint (JMX exporter), reading its "
              "whole answer, waiting on the scrape the other MM2 alerts of the host share, and reading the other "
              "driver hosts when needed. Past it the alert reports UNKNOWN.",
              units="seconds", threshold="CRITICAL"),
    Parameter("metrics.cache.seconds", "Metrics Reuse Window", 20.0, "NUMERIC",
              "The MM2 alerts of one host that run within this many seconds share one scrape of the endpoint (0: "
              "every alert scrapes).",
              units="seconds", visibility="HIDDEN"),
    Parameter("state.directory", "State Directory", "", "STRING",
              "Where alerts that compare runs keep their small state file (empty: <agent tmp dir>/mm2-alerts).",
              visibility="HIDDEN"),
)

KINDS = (
    AlertKind(
        kind="process", name="mm2_driver_process", label="MirrorMaker 2 Process",
        stub="alert_mm2_process.py", unit=" s", reads_peers=False, keeps_state=False, module="process_check",
        reads_flows=False,
        families=(m.HERDER_UP, m.SCRAPE_ERROR, m.SCRAPE_DURATION),
        description=("Is MirrorMaker 2 running on this host, and does its metrics endpoint (the Prometheus JMX "
                     "exporter agent) answer? CRITICAL when the process is down; UNKNOWN, with the fix, when the "
                     "endpoint or the exporter jar is missing; WARNING/CRITICAL when the endpoint answers slower "
                     "than the thresholds."),
        warning=Parameter("response.time.warning", "Response Time Warning", 2.0, "NUMERIC",
                          "Endpoint answer time at or above which the alert is WARNING.",
                          units="seconds", threshold="WARNING"),
        critical=Parameter("response.time.critical", "Response Time Critical", 4.0, "NUMERIC",
                           "Endpoint answer time at or above which the alert is CRITICAL.",
                           units="seconds", threshold="CRITICAL")),
    AlertKind(
        kind="latency", name="mm2_replication_latency", label="MirrorMaker 2 Replication Latency",
        stub="alert_mm2_latency.py", unit=" s", reads_peers=True, keeps_state=True, module="latency",
        families=_PARTITION_FAMILIES,
        description=("Per replication flow, the worst partition's replication latency (source record timestamp to "
                     "target ack) averaged over MM2's last stat window (about a minute). Idle partitions, whose "
                     "last latency never changes and whose average is NaN, are ignored; a partition with no "
                     "record replicated in the window while its replication consumer still has lag is reported as "
                     "stalled (at least WARNING). A flow served here that no driver host replicates (target down: "
                     "its tasks are unassigned) is at least WARNING, judged by the time since it last replicated."),
        warning=Parameter("latency.warning", "Latency Warning", 30.0, "NUMERIC",
                          "Worst partition latency at or above which a flow is WARNING.",
                          units="seconds", threshold="WARNING"),
        critical=Parameter("latency.critical", "Latency Critical", 120.0, "NUMERIC",
                           "Worst partition latency at or above which a flow is CRITICAL.",
                           units="seconds", threshold="CRITICAL")),
    AlertKind(
        kind="lag", name="mm2_replication_lag", label="MirrorMaker 2 Replication Lag",
        stub="alert_mm2_lag.py", unit=" records", reads_peers=True, keeps_state=True, module="lag",
        families=_PARTITION_FAMILIES,
        description=("Per replication flow, the worst partition's record lag: records in the source partition "
                     "that the replication consumer has not fetched yet (records-lag). Flow-qualified from Kafka "
                     "3.5; before 3.5 the consumers' lag is matched to flows by topic. A flow served here that no "
                     "driver host replicates (target down: its tasks are unassigned, so no lag can be read) is "
                     "WARNING, CRITICAL after 120 s."),
        warning=Parameter("lag.warning", "Lag Warning", 10000.0, "NUMERIC",
                          "Worst partition lag at or above which a flow is WARNING.",
                          units="records", threshold="WARNING"),
        critical=Parameter("lag.critical", "Lag Critical", 100000.0, "NUMERIC",
                           "Worst partition lag at or above which a flow is CRITICAL.",
                           units="records", threshold="CRITICAL")),
    AlertKind(
        kind="heartbeat", name="mm2_heartbeat_gap", label="MirrorMaker 2 Heartbeat Gap",
        stub="alert_mm2_heartbeat.py", unit=" s", reads_peers=True, keeps_state=True, module="heartbeats",
        families=(m.HERDER_UP, m.HERDER_START, m.SOURCE_RECORD_COUNT, m.SOURCE_LATENCY_AVG),
        description=("Per replication flow into a cluster this host serves, the time since a heartbeat from the "
                     "source last arrived on the target (<source>.heartbeats advancing). Detects flows that never "
                     "delivered a heartbeat and the --clusters pitfall: heartbeats for A->B are written into A by "
                     "a herder whose target is A, so some driver host must serve A. Reads the other driver hosts "
                     "when the heartbeat partition is replicated there."),
        warning=Parameter("heartbeat.gap.warning", "Heartbeat Gap Warning", 120.0, "NUMERIC",
                          "Heartbeat gap at or above which a flow is WARNING.",
                          units="seconds", threshold="WARNING"),
        critical=Parameter("heartbeat.gap.critical", "Heartbeat Gap Critical", 300.0, "NUMERIC",
                           "Heartbeat gap at or above which a flow is CRITICAL.",
                           units="seconds", threshold="CRITICAL")),
    AlertKind(
        kind="checkpoint", name="mm2_checkpoint_age", label="MirrorMaker 2 Consumer Offset Sync",
        stub="alert_mm2_checkpoints.py", unit=" s", reads_peers=False, keeps_state=True, module="checkpoints",
        families=(m.HERDER_UP, m.CHECKPOINT_LATENCY, m.CHECKPOINT_LATENCY_AVG, m.CHECKPOINT_LATENCY_MAX,
                  m.SOURCE_RECORD_COUNT, m.TASK_STATUS),
        description=("For flows that sync consumer group offsets (sync.group.offsets.enabled), the age of the "
                     "last checkpoint MM2 emitted while records kept being replicated. MM2 checkpoints only "
                     "offsets that moved, so idle groups are not reported. CRITICAL also when the checkpoint task "
                     "FAILED."),
        warning=Parameter("checkpoint.age.warning", "Checkpoint Age Warning", 600.0, "NUMERIC",
                          "Checkpoint age at or above which a flow is WARNING.",
                          units="seconds", threshold="WARNING"),
        critical=Parameter("checkpoint.age.critical", "Checkpoint Age Critical", 1800.0, "NUMERIC",
                           "Checkpoint age at or above which a flow is CRITICAL.",
                           units="seconds", threshold="CRITICAL")),
    AlertKind(
        kind="tasks", name="mm2_connector_tasks", label="MirrorMaker 2 Connectors and Tasks",
        stub="alert_mm2_tasks.py", unit="", reads_peers=True, keeps_state=False, module="tasks",
        skips_held_flows=False,
        families=(m.HERDER_UP, m.HERDER_START, m.CONNECTOR_STATUS, m.TASK_STATUS, m.SOURCE_LATENCY_AVG),
        description=("MirrorMaker 2 connectors and tasks on this host in FAILED state (counted against the "
                     "thresholds), and those UNASSIGNED, RESTARTING, PAUSED or STOPPED (WARNING). CRITICAL when "
                     "no driver host runs a flow's replication tasks (the other driver hosts are read when this "
                     "one runs none)."),
        warning=Parameter("failed.tasks.warning", "Failed Warning", 1.0, "NUMERIC",
                          "Number of FAILED connectors and tasks at or above which the alert is WARNING.",
                          units="connectors/tasks", threshold="WARNING"),
        critical=Parameter("failed.tasks.critical", "Failed Critical", 1.0, "NUMERIC",
                           "Number of FAILED connectors and tasks at or above which the alert is CRITICAL.",
                           units="connectors/tasks", threshold="CRITICAL")),
    AlertKind(
        kind="silent_loss", name="mm2_silent_loss", label="MirrorMaker 2 Records Lost to Retention",
        stub="alert_mm2_silent_loss.py", unit=" records", reads_peers=False, keeps_state=True, reads_log=True,
        module="silent_loss",
        families=(),
        description=("Records the source cluster deleted (retention) before MirrorMaker 2 copied them: MM2's "
                     "replication consumer found its next source offset below the partition's log-start offset "
                     "and jumped forward. Read from MM2's log on this host (Kafka's consumer logs both offsets); "
                     "the records in between are missing on the target. Stays CRITICAL for the loss window."),
        warning=Parameter("lost.records.warning", "Lost Records Warning", 1.0, "NUMERIC",
                          "Records lost to retention within the loss window at or above which the alert is WARNING.",
                          units="records", threshold="WARNING"),
        critical=Parameter("lost.records.critical", "Lost Records Critical", 1.0, "NUMERIC",
                           "Records lost to retention within the loss window at or above which the alert is "
                           "CRITICAL.",
                           units="records", threshold="CRITICAL"),
        extra_parameters=(
            Parameter("loss.window.hours", "Loss Window", 24.0, "NUMERIC",
                      "How long a loss keeps the alert raised after MM2 logged it.", units="hours"),)),
)

BY_KIND = OrderedDict((k.kind, k) for k in KINDS)


def definitions():
    """alerts.json as this registry declares it."""
    return OrderedDict([(names.SERVICE, OrderedDict([
        ("service", []), (names.COMPONENT, [k.definition() for k in KINDS])]))])


def alerts_json_text():
    """The text of alerts.json (what build.py --generate-alerts writes)."""
    return json.dumps(definitions(), indent=2, separators=(",", ": ")) + "\n"


def metric_files():
    """[(path relative to the service directory, text)] of metrics.json, widgets.json, telemetry.json and the
    Grafana dashboard, written from the metric list (service_metrics.py, metric_files.py) with this registry's
    alert thresholds."""
    return _metric_files.files(KINDS)


def stub_text(kind):
    """The thin script Ambari loads for an alert kind (package/alerts/<stub>)."""
    record = BY_KIND[kind]
    return STUB_TEMPLATE % {"label": record.label, "kind": record.kind, "name": record.name}


STUB_TEMPLATE = '''"""Ambari SCRIPT alert %(name)s: %(label)s.

Generated from package/scripts/mm2_core/alerts/registry.py by `python3 build.py --generate-alerts`:
do not edit (the build fails when this file and the registry differ).

Loaded by the Ambari agent with imp.load_source(<alert name>, <this file>) and called as
execute(configurations, parameters, host_name) on Python 2.7 or 3. All logic lives in
package/scripts/mm2_core/alerts (the registry and alert_runner); this file only names its KIND.
"""
import os

KIND = "%(kind)s"
# The shared entry code (mm2_alert_loader.py, beside this file) defines get_tokens() and execute().
_LOADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mm2_alert_loader.py")
with open(_LOADER) as _source:
    exec(compile(_source.read(), _LOADER, "exec"))
'''
