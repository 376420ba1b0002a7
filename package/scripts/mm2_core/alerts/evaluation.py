"""Decisions of the MM2 alerts, as pure functions of parsed metrics, flows, state and time: what
every alert kind shares (states, Result, Thresholds, number formats, the flow Resolver).
One module per kind holds its evaluation (lag, latency, tasks, heartbeats, checkpoints).

Pure stdlib, Python 2.7 and 3. Each evaluate_* returns a Result: an Ambari state and one text
line per flow (worst first) that names the flow, the worst partition (or connector/task) and
the value against the thresholds. Nothing here does I/O; alert_runner feeds it.

Reading MM2's metrics correctly:
- replication-latency-ms is a last-value gauge and stays forever on an idle partition; only
  its -avg (and -max) over the stat window (2 x 30 s) says something about now. A NaN -avg
  means no record was replicated on that partition for up to a minute: the partition is idle
  unless its replication consumer still reports lag, then it is stalled.
- Connect's connector/task MBeans are named by connector class only, and every herder of one
  process has the same three connectors, so with several herders per JVM a status cannot
  always be pinned to one flow; the texts then list the candidate flows.
"""

from mm2_core.alerts import metrics as m
from mm2_core.alerts.alert_config import FlowSpec

OK = "OK"
WARNING = "WARNING"
CRITICAL = "CRITICAL"
UNKNOWN = "UNKNOWN"
_RANK = {OK: 0, UNKNOWN: 1, WARNING: 2, CRITICAL: 3}
INF = float("inf")


def worst(states):
    result = OK
    for s in states:
        if _RANK[s] > _RANK[result]:
            result = s
    return result


class Result(object):
    def __init__(self, state, lines, state_data=None):
        self.state = state
        self.lines = list(lines)
        self.state_data = state_data

    @property
    def text(self):
        return "\n".join(self.lines)

    def __repr__(self):
        return "Result(%s, %r)" % (self.state, self.lines)


class Thresholds(object):
    """value >= critical -> CRITICAL, value >= warning -> WARNING (Ambari's convention)."""

    def __init__(self, warning, critical, unit="", fmt=None):
        self.warning = warning
        self.critical = critical
        self.unit = unit
        self.fmt = fmt or fmt_number

    def state(self, value):
        if value is None:
            return UNKNOWN
        if value >= self.critical:
            return CRITICAL
        if value >= self.warning:
            return WARNING
        return OK

    def show(self, value):
        return "%s%s" % (self.fmt(value), self.unit)

    def against(self, value):
        """'>= critical 120 s' / '>= warning 30 s' / '(warning 30 s, critical 120 s)'."""
        state = self.state(value)
        if state == CRITICAL:
            return ">= critical %s" % self.show(self.critical)
        if state == WARNING:
            return ">= warning %s (critical %s)" % (self.show(self.warning), self.show(self.critical))
        return "(warning %s, critical %s)" % (self.show(self.warning), self.show(self.critical))


def fmt_number(value):
    """Up to 3 decimals, no trailing zeros: 30 -> '30', 29.9995 -> '30', 29.999 -> '29.999'."""
    if value is None:
        return "?"
    if value == INF:
        return "inf"
    text = "%.3f" % value
    text = text.rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def fmt_int(value):
    return "%d" % value if value == value and value not in (INF, -INF) else str(value)


def finite(v):
    return v is not None and v == v and v != INF and v != -INF


# --- flows ----------------------------------------------------------------------------------------
class Resolver(object):
    """Pins metric labels to a flow.

    4.x (and 3.5+ with add.source.alias.to.metrics) labels carry source=; older ones only
    target= and the target topic, so the source comes from the replication policy's prefix,
    or from being the only flow into that target.
    """

    def __init__(self, flows):
        self.by_name = {}
        self.by_target = {}
        self._cache = {}
        for f in flows or []:
            self.add(f)

    def add(self, flow):
        if flow.name in self.by_name:
            return self.by_name[flow.name]
        self.by_name[flow.name] = flow
        self.by_target.setdefault(flow.target, []).append(flow)
        return flow

    def pair(self, source, target):
        flow = self.by_name.get("%s->%s" % (source, target))
        return flow if flow is not None else self.add(FlowSpec(source, target))

    def flow(self, source, target, remote_topic):
        if source:
            return self.pair(source, target)
        key = (target, remote_topic)
        flow = self._cache.get(key)
        if flow is None:
            flow = self._guess(target, remote_topic)
            self._cache[key] = flow
        return flow

    def _guess(self, target, topic):
        cands = self.by_target.get(target, [])
        owners = [f for f in cands if f.owns_remote_topic(topic) and (not f.identity or topic.endswith("heartbeats"))]
        if owners:
            return max(owners, key=lambda f: len(f.source))
        identity = [f for f in cands if f.identity]
        if len(identity) == 1:
            return identity[0]
        if len(cands) == 1:
            return cands[0]
        if not cands:
            return self.add(FlowSpec("?", target))
        names = sorted(f.name for f in cands)
        ambiguous = FlowSpec("?", target)
        ambiguous.name = "one of " + ", ".join(names)
        return self.by_name.setdefault(ambiguous.name, ambiguous)


def herders(snap):
    """{(source, target): {'version': v, 'start_ms': t}} of the herders the scrape shows."""
    found = {}
    for labels, _ in snap.series(m.HERDER_UP):
        found[(labels.get("source"), labels.get("target"))] = {"version": labels.get("version"), "start_ms": None}
    for labels, value in snap.series(m.HERDER_START):
        entry = found.setdefault((labels.get("source"), labels.get("target")), {"version": None, "start_ms": None})
        if finite(value):
            entry["start_ms"] = value
    return found


def kafka_version(snap):
    for labels, _ in snap.series(m.HERDER_UP):
        if labels.get("version"):
            return labels["version"]
    return None


def resolver_for(snap, flows):
    """The Resolver of this scrape for these flows: one per snapshot and flow list, so every reading
    of the partitions (source partitions, lag, stalls, task evidence) joins them to flows once."""
    key = tuple(f.name for f in flows or ())
    memo = snap.__dict__.setdefault("_resolvers", {})
    resolver = memo.get(key)
    if resolver is None:
        resolver = memo[key] = Resolver(flows)
        for (source, target) in herders(snap):
            if source and target:
                resolver.pair(source, target)
    return resolver


def ordered_lines(per_flow, expected_names):
    """Lines of flows, worst state first, then by name; expected flows always listed."""
    items = sorted(per_flow.items(), key=lambda kv: (-_RANK[kv[1][0]], kv[0]))
    return [line for _, (_, line) in items]


def no_task_wins(per_flow, nowhere):
    """A flow with partitions here but no source task (partition metrics outlive their task: tasks.task_evidence)
    takes the no-task verdict of evaluate_replicated_nowhere, with the worse of the two states (in place)."""
    for name, (state, line) in sorted((nowhere or {}).items()):
        if name in per_flow:
            per_flow[name] = (worst([state, per_flow[name][0]]), line)
