"""Decisions of the MM2 alerts, as pure functions of parsed metrics, flows, state and time.

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
import time

from mm2_core import metrics as m
from mm2_core.alert_config import FlowSpec

OK = "OK"
WARNING = "WARNING"
CRITICAL = "CRITICAL"
UNKNOWN = "UNKNOWN"
_RANK = {OK: 0, UNKNOWN: 1, WARNING: 2, CRITICAL: 3}
_INF = float("inf")


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
    if value == _INF:
        return "inf"
    text = "%.3f" % value
    text = text.rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def fmt_int(value):
    return "%d" % value if value == value and value not in (_INF, -_INF) else str(value)


def _finite(v):
    return v is not None and v == v and v != _INF and v != -_INF


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
        if _finite(value):
            entry["start_ms"] = value
    return found


def kafka_version(snap):
    for labels, _ in snap.series(m.HERDER_UP):
        if labels.get("version"):
            return labels["version"]
    return None


def resolver_for(snap, flows):
    resolver = Resolver(flows)
    for (source, target) in herders(snap):
        if source and target:
            resolver.pair(source, target)
    return resolver


def _ordered(per_flow, expected_names):
    """Lines of flows, worst state first, then by name; expected flows always listed."""
    items = sorted(per_flow.items(), key=lambda kv: (-_RANK[kv[1][0]], kv[0]))
    return [line for _, (_, line) in items]


# --- lag ------------------------------------------------------------------------------------------
FLOW_QUALIFIED = "flow-qualified consumer metrics (Kafka 3.5+)"
JOINED_BY_TOPIC = "consumer metrics joined to flows by topic and consumer (before Kafka 3.5)"
_tag = m.kafka_topic_tag


def source_partitions(snap, resolver):
    """[(flow, target topic, partition, source topic, latency avg)] of the replicated partitions,
    computed once per scrape (the latency and lag evaluations both need it). Series without a
    topic or partition label are left out and counted per flow in snap._bad_series."""
    memo = getattr(snap, "_source_partitions", None)
    if memo is not None and memo[0] is resolver:
        return memo[1]
    out = []
    bad = {}
    flow_of = resolver.flow
    for (source, target, topic, partition), avg in m.fields(snap.raw(m.SOURCE_LATENCY_AVG),
                                                            ("source", "target", "topic", "partition")):
        if not topic or partition is None or not target:
            name = flow_of(source, target, "").name if target else "%s->?" % (source or "?")
            bad[name] = bad.get(name, 0) + 1
            continue
        flow = flow_of(source, target, topic)
        out.append((flow, topic, partition, flow.upstream_topic(topic), avg))
    snap._source_partitions = (resolver, out)
    snap._bad_series = bad
    return out


def polled_recently(snap, resolver):
    """{(flow name, target topic, partition)} of the partitions whose record-age window holds a
    sample: MirrorSourceTask records a record's age when it POLLS it from the source, and its
    replication latency only when the target ACKNOWLEDGES it. Polled but never acknowledged
    within the window means the records are stuck on the way to the target."""
    memo = getattr(snap, "_polled_recently", None)
    if memo is not None and memo[0] is resolver:
        return memo[1]
    found = set()
    for (source, target, topic, partition), avg in m.fields(snap.raw(m.SOURCE_RECORD_AGE_AVG),
                                                            ("source", "target", "topic", "partition")):
        if _finite(avg) and topic and target and partition is not None:
            found.add((resolver.flow(source, target, topic).name, topic, partition))
    snap._polled_recently = (resolver, found)
    return found


class Lags(object):
    """Replication consumer lag per flow partition, as far as the metrics allow.

    by_key: {(flow name, source topic, partition): lag}; mode: FLOW_QUALIFIED, JOINED_BY_TOPIC
    or None (no lag metrics); unattributed: [(source topic, partition, lag, candidate flow
    names)] of partitions that several flows of this process replicate and no consumer
    evidence pins to one. Kafka's client metrics write '.' as '_' in topic tags, so the
    joins use that form and the texts the real names (from MirrorSourceConnector's metrics).
    """

    def __init__(self, by_key, mode, unattributed=(), poll_age=None):
        self.by_key = by_key
        self.mode = mode
        self.unattributed = list(unattributed)
        self.poll_age = poll_age or {}

    def get(self, flow_name, topic, partition):
        return self.by_key.get((flow_name, topic, partition))

    def seconds_since_poll(self, flow_name, topic, partition):
        """Seconds since the consumer replicating this partition last polled (None: unknown)."""
        return self.poll_age.get((flow_name, topic, partition))


def _partition_names(snap, resolver):
    """{(flow name, topic tag, partition): real source topic} and
    {(topic tag, partition): {flow name: real source topic}} of the replicated partitions."""
    names = {}
    owners = {}
    for flow, _, partition, upstream, _ in source_partitions(snap, resolver):
        tag = _tag(upstream)
        names[(flow.name, tag, partition)] = upstream
        owners.setdefault((tag, partition), {})[flow.name] = upstream
    return names, owners


def _attribute_consumers(rows, owners):
    """Before 3.5 the replication consumers have generated client ids, but each one belongs to
    one task of one flow, and a flow's source partition is read by one consumer. So a consumer
    belongs to the flows that replicate every one of its partitions, minus the flows another
    consumer was already pinned to for the same partition. -> {client id: flow name or None}."""
    by_client = {}
    for client, tag, partition, _ in rows:
        if (tag, partition) in owners:
            by_client.setdefault(client, set()).add((tag, partition))
    cands = {}
    for client, tps in by_client.items():
        common = None
        for tp in tps:
            flows = set(owners[tp])
            common = flows if common is None else common & flows
        cands[client] = common or set()
    pinned = {}
    changed = True
    while changed:
        changed = False
        taken = {}
        for client, flow in pinned.items():
            for tp in by_client[client]:
                taken.setdefault(tp, set()).add(flow)
        for client, flows in cands.items():
            if client in pinned:
                continue
            left = set(flows)
            for tp in by_client[client]:
                left -= taken.get(tp, set())
            if len(left) == 1:
                pinned[client] = left.pop()
                changed = True
            elif left != flows:
                cands[client] = left
    return dict((client, pinned.get(client)) for client in by_client), cands


def lag_by_partition(snap, resolver):
    """Lags of this scrape (see Lags).

    3.5+: the replication consumer's client.id names the flow. Before: the consumers have
    generated ids, so a consumer partition belongs to the flows that replicate a partition of
    that source topic here (MirrorSourceConnector metrics), narrowed down per consumer
    (_attribute_consumers); consumers of internal topics match no flow and are ignored.
    """
    names, owners = _partition_names(snap, resolver)
    lags = {}
    poll_age = {}
    raw = snap.raw(m.REPLICATION_LAG)
    if raw:
        polls = dict((key, value) for key, value in m.fields(snap.raw(m.REPLICATION_LAST_POLL),
                                                             ("source", "target", "task")) if _finite(value))
        pair_names = {}
        for (source, target, task, tag, partition), value in m.fields(
                raw, ("source", "target", "task", "topic", "partition")):
            if not _finite(value) or tag is None:
                continue
            pair = (source, target)
            name = pair_names.get(pair)
            if name is None:
                name = pair_names[pair] = resolver.pair(source, target).name
            key = (name, names.get((name, tag, partition), tag), partition)
            if value > lags.get(key, -1.0):
                lags[key] = value
            polled = polls.get((source, target, task))
            if polled is not None:
                poll_age[key] = polled
        return Lags(lags, FLOW_QUALIFIED, poll_age=poll_age)
    raw = snap.raw(m.CONSUMER_LAG)
    if not raw:
        return Lags(lags, None)
    polls = dict((client, value) for (client,), value in m.fields(snap.raw(m.CONSUMER_LAST_POLL), ("client_id",))
                 if _finite(value))
    rows = [(client, tag, partition, value)
            for (client, tag, partition), value in m.fields(raw, ("client_id", "topic", "partition"))
            if _finite(value) and tag is not None]
    pinned, cands = _attribute_consumers(rows, owners)
    unattributed = {}
    for client, tag, partition, value in rows:
        flows = owners.get((tag, partition))
        if not flows:
            continue
        if len(flows) == 1:
            name = list(flows)[0]
        else:
            name = pinned.get(client)
        if name is None:
            topic = sorted(flows.values())[0]
            key = (topic, partition)
            if value > unattributed.get(key, (-1.0,))[0]:
                unattributed[key] = (value, tuple(sorted(cands.get(client) or flows)))
            continue
        key = (name, flows[name], partition)
        if value > lags.get(key, -1.0):
            lags[key] = value
        if client in polls:
            poll_age[key] = polls[client]
    return Lags(lags, JOINED_BY_TOPIC,
                [(t, p, v, c) for (t, p), (v, c) in sorted(unattributed.items())], poll_age)


# A replication consumer polls about once a second (MirrorSourceTask's consumer.poll.timeout.ms
# defaults to 1 s) while its task runs; one that has not polled for a whole stat window is blocked.
POLL_STALL_SECONDS = m.STAT_WINDOW_SECONDS

WAITING = "waiting"      # lag > 0: records wait on the source
UNWRITTEN = "unwritten"  # polled in the window, none acknowledged by the target
BLOCKED = "blocked"      # the replication consumer stopped polling (task blocked on the target)


def stall_reason(snap, resolver, lags, flow, topic, partition, upstream):
    """Why a partition that replicated nothing in the stat window is stalled, or None if idle.

    With the target unreachable, MM2's tasks keep their assignment for a while (until the
    herder loses its Connect group on the target, which takes from seconds to never): records are
    polled into the producer's buffer and never acknowledged, so the replication latency window
    empties and the consumer lag stays near zero. The record-age window (recorded at poll time)
    still shows them; once the buffer is full the task blocks and its consumer stops polling."""
    lag = lags.get(flow.name, upstream, partition)
    if lag is not None and lag > 0:
        return WAITING
    polled = lags.seconds_since_poll(flow.name, upstream, partition)
    if polled is not None and polled > POLL_STALL_SECONDS:
        return BLOCKED
    if (flow.name, topic, partition) in polled_recently(snap, resolver):
        return UNWRITTEN
    return None


class Stalls(object):
    """The stalled partitions of one flow: how many, and the one the text shows (records waiting
    first, by lag; then a blocked task; then records polled and never written)."""
    _RANK = {UNWRITTEN: 0, BLOCKED: 1, WAITING: 2}

    def __init__(self):
        self.count = 0
        self.tps = set()         # (target topic, partition) of every stalled partition
        self.reason = self.tp = self.polled = None
        self.lag = -1.0
        self.blocked_for = 0.0   # the longest time a blocked task's consumer has not polled

    def add(self, reason, tp, lag, polled):
        self.count += 1
        self.tps.add(tp)
        lag = lag or 0.0
        if reason == BLOCKED:
            self.blocked_for = max(self.blocked_for, polled)
        if self.tp is None or (self._RANK[reason], lag, self.tp) > (self._RANK[self.reason], self.lag, tp):
            self.reason, self.tp, self.lag, self.polled = reason, tp, lag, polled

    def text(self):
        where = "%s-%s" % self.tp
        if self.reason == WAITING:
            return ("STALLED: %d partition(s) replicated nothing in the last minute while records wait, worst %s "
                    "with a lag of %s records" % (self.count, where, fmt_int(self.lag)))
        if self.reason == BLOCKED:
            return ("STALLED: %d partition(s) replicated nothing in the last minute; the replication consumer of %s "
                    "has not polled for %s s (its task is blocked writing to the target: target unreachable? see "
                    "mirrormaker.log)" % (self.count, where, fmt_int(self.polled)))
        return ("STALLED: %d partition(s) had records read from the source in the last minute but none written "
                "to the target, e.g. %s (target unreachable or refusing writes? see mirrormaker.log)"
                % (self.count, where))


def stalled_partitions(snap, resolver, lags):
    """{flow name: Stalls} of the partitions that replicated nothing in the stat window and
    are stalled, not idle (see stall_reason)."""
    found = {}
    for flow, topic, partition, upstream, avg in source_partitions(snap, resolver):
        if _finite(avg):
            continue
        reason = stall_reason(snap, resolver, lags, flow, topic, partition, upstream)
        if reason is not None:
            found.setdefault(flow.name, Stalls()).add(reason, (topic, partition), lags.get(flow.name, upstream, partition),
                                                      lags.seconds_since_poll(flow.name, upstream, partition))
    return found


# --- replication latency ----------------------------------------------------------------------------
class _LatencyStats(object):
    __slots__ = ("flow", "active", "idle", "unsure", "worst", "worst_tp", "skewed", "skew")

    def __init__(self, flow):
        self.flow = flow
        self.active = self.idle = self.unsure = self.skewed = 0
        self.worst = None
        self.worst_tp = None
        self.skew = 0.0


def evaluate_latency(snap, flows, expected_names, thresholds, nowhere=None, held=()):
    """Worst partition latency (windowed average, seconds) per flow; idle partitions ignored,
    stalled ones (no record replicated in the window while lag remains) at least WARNING.

    Each flow stands on its own evidence: a negative latency (the MM2 host's clock is behind
    the producers') or a series without its labels makes only that flow's line say so.
    nowhere: {flow name: (state, line)} of evaluate_replicated_nowhere for flows without partitions here."""
    resolver = resolver_for(snap, flows)
    lags = lag_by_partition(snap, resolver)
    unsure = set()
    for topic, partition, value, names in lags.unattributed:
        if value > 0:
            for name in names:
                unsure.add((name, topic, partition))
    stalls = stalled_partitions(snap, resolver, lags)
    stats = {}
    for flow, topic, partition, upstream, avg in source_partitions(snap, resolver):
        st = stats.get(flow.name)
        if st is None:
            st = stats[flow.name] = _LatencyStats(flow)
        if avg is not None and avg == avg and avg != _INF:
            st.active += 1
            if avg < 0:
                st.skewed += 1
                st.skew = min(st.skew, avg)
            elif st.worst is None or avg > st.worst:
                st.worst = avg
                st.worst_tp = (topic, partition)
            continue
        if flow.name in stalls and (topic, partition) in stalls[flow.name].tps:
            continue   # counted in stalls
        if (flow.name, upstream, partition) in unsure:
            st.unsure += 1
        else:
            st.idle += 1
    bad = getattr(snap, "_bad_series", {})
    per_flow = {}
    for name, st in stats.items():
        stalled = stalls.get(name)
        counts = "%d active, %d idle, %d stalled partitions here" % (st.active, st.idle,
                                                                   stalled.count if stalled else 0)
        skew = ("clock skew: the MM2 host is %s ms behind the producers (%d partition(s) report a negative "
                "replication latency; sync the clocks with NTP)" % (fmt_number(-st.skew), st.skewed))
        if st.worst is not None:
            seconds = st.worst / 1000.0
            state = thresholds.state(seconds)
            line = "%s: worst partition %s-%s replication latency %s %s; averaged over the last minute; %s" % (
                name, st.worst_tp[0], st.worst_tp[1], thresholds.show(seconds), thresholds.against(seconds), counts)
            if st.skewed:
                line += "; " + skew
        elif st.skewed:
            state = UNKNOWN
            line = "%s: replication latency cannot be judged: %s; %s" % (name, skew, counts)
        else:
            state = OK
            line = "%s: no record replicated in the last minute; %s (the stale last latency of idle " \
                   "partitions is ignored)" % (name, counts)
        if stalled:
            # nothing was written for at least as long as a blocked task has not polled
            state = worst([state, WARNING, thresholds.state(stalled.blocked_for)])
            line += "; " + stalled.text()
        elif lags.mode is None and st.idle:
            line += "; no consumer lag metrics, so idle cannot be told from stalled"
        if st.unsure:
            line += ("; %d idle partition(s) have lag that cannot be attributed to one flow (before Kafka 3.5), "
                     "see the lag alert" % st.unsure)
        per_flow[name] = (state, line)
    for name, count in bad.items():
        state, line = per_flow.get(name, (OK, None))
        note = ("%d latency series without topic/partition labels were ignored (an exporter rules file other "
                "than the mpack's jmx_exporter_mm2.yaml?)" % count)
        if line is None:
            per_flow[name] = (UNKNOWN, "%s: %s" % (name, note))
        else:
            per_flow[name] = (state, line + "; " + note)
    for name in expected_names:
        if name not in per_flow:
            per_flow[name] = (nowhere or {}).get(name) or (
                OK, "%s: no partition of this flow is replicated by this host (its tasks run on another driver "
                    "host, or it has no topic to replicate)" % name)
    for name in held:   # connect mode: a flow an operator paused or stopped is not judged (its series are stale)
        per_flow.pop(name, None)
    if not per_flow:
        return Result(OK, ["No replication flow runs on this host"])
    return Result(worst(s for s, _ in per_flow.values()), _ordered(per_flow, expected_names))


# --- replication lag ----------------------------------------------------------------------------------
def evaluate_lag(snap, flows, expected_names, thresholds, nowhere=None, held=()):
    """Worst partition lag (records the replication consumer has not fetched yet) per flow.
    nowhere: {flow name: (state, line)} of evaluate_replicated_nowhere for flows without partitions here."""
    nowhere = nowhere or {}
    resolver = resolver_for(snap, flows)
    lags = lag_by_partition(snap, resolver)
    mode = lags.mode
    has_partitions = bool(snap.raw(m.SOURCE_LATENCY_AVG))
    if mode is None:
        if has_partitions:
            return Result(UNKNOWN, ["This host replicates partitions but exports no consumer lag "
                                    "(%s / %s): the exporter does not use the mpack's rules file "
                                    "jmx_exporter_mm2.yaml" % (m.REPLICATION_LAG, m.CONSUMER_LAG)])
        per_flow = dict((n, nowhere.get(n) or (OK, "%s: no partition of this flow is replicated by this host" % n))
                        for n in expected_names)
        if not per_flow:
            return Result(OK, ["No replication flow runs on this host"])
        return Result(worst(s for s, _ in per_flow.values()), _ordered(per_flow, expected_names))
    per = {}
    for (name, topic, partition), lag in sorted(lags.by_key.items()):   # ties: the same text on every line
        entry = per.get(name)
        if entry is None:
            entry = per[name] = [0, 0.0, -1.0, None]
        entry[0] += 1
        entry[1] += lag
        if lag > entry[2]:
            entry[2] = lag
            entry[3] = (topic, partition)
    stalls = stalled_partitions(snap, resolver, lags)
    per_flow = {}
    for name, (count, total, top, tp) in per.items():
        flow = resolver.by_name.get(name)
        remote = flow.remote_topic(tp[0]) if flow is not None and flow.source != "?" else None
        where = "%s-%s" % tp + (" (%s on the target)" % remote if remote and remote != tp[0] else "")
        state = thresholds.state(top)
        line = "%s: worst partition %s lag %s %s; %d partitions here, %s records behind in total; %s" % (
            name, where, thresholds.show(top), thresholds.against(top), count, fmt_int(total), mode)
        stalled = stalls.get(name)
        if stalled is not None:
            # A lag under the thresholds is no comfort when nothing was written for a minute.
            state = worst([state, WARNING])
            line += "; " + stalled.text()
            if stalled.reason != WAITING:
                # the lag counts records not fetched yet; these were fetched (or the consumer froze)
                line += "; the lag above does not count records stuck on the way to the target"
        per_flow[name] = (state, line)
    for name in expected_names:
        if name not in per_flow:
            per_flow[name] = nowhere.get(name) or (OK, "%s: no partition of this flow is replicated by this host"
                                                   % name)
    for name in held:   # connect mode: a flow an operator paused or stopped is not judged (its series are stale)
        per_flow.pop(name, None)
    lines = _ordered(per_flow, expected_names)
    states = [s for s, _ in per_flow.values()]
    lagging = [u for u in lags.unattributed if u[2] > 0]
    if lagging:
        topic, partition, top, names = max(lagging, key=lambda u: u[2])
        state = thresholds.state(top)
        states.append(state)
        line = ("Cannot attribute %d lagging partition(s) to one flow: worst %s-%s lag %s %s belongs to one of %s "
                "(before Kafka 3.5 the replication consumers have generated client ids, and these consumers read "
                "only topics several flows of this process replicate)" % (
                    len(lagging), topic, partition, thresholds.show(top), thresholds.against(top), ", ".join(names)))
        if state == OK:
            lines.append(line)
        else:
            lines.insert(0, line)
    if not per_flow and not lagging:
        return Result(OK, ["No replication flow runs on this host"])
    return Result(worst(states), lines)


# --- connectors and tasks ----------------------------------------------------------------------------
CONNECTORS = ("MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector")
_DEGRADED = ("unassigned", "restarting", "paused", "stopped")


def _candidates(connector, here, enabled):
    """Flows a connector/task of this process may belong to."""
    if connector == "MirrorHeartbeatConnector":
        names = here
    else:
        names = [n for n in here if n in enabled] or here
    return sorted(names)


def _who(connector, task, here, enabled):
    names = _candidates(connector, here, enabled)
    what = connector if task is None else "%s task %s" % (connector, task)
    if len(names) == 1:
        return "%s: %s" % (names[0], what)
    if not names:
        return what
    return "%s (one of %s: connector names repeat in every herder of this process)" % (what, ", ".join(names))


def evaluate_tasks(snap, flows, thresholds):
    """FAILED connectors/tasks (count against the thresholds); other non-running states WARNING."""
    here = sorted("%s->%s" % k for k in herders(snap) if k[0] and k[1])
    enabled = set(f.name for f in flows or [])
    failed = []
    degraded = []
    running = 0
    for labels, value in snap.series(m.CONNECTOR_STATUS):
        if value != 1:
            continue
        status = labels.get("status", "")
        who = _who(labels.get("connector", "?"), None, here, enabled)
        if status == "failed":
            failed.append(who)
        elif status in _DEGRADED:
            degraded.append("%s is %s" % (who, status.upper()))
        else:
            running += 1
    for labels, value in snap.series(m.TASK_STATUS):
        if value != 1:
            continue
        status = labels.get("status", "")
        who = _who(labels.get("connector", "?"), labels.get("task", "?"), here, enabled)
        if status == "failed":
            failed.append(who)
        elif status in _DEGRADED:
            degraded.append("%s is %s" % (who, status.upper()))
        else:
            running += 1
    lines = []
    if failed:
        state = thresholds.state(len(failed))
        if state == OK:
            state = WARNING
        lines.append("%d connector(s)/task(s) FAILED %s: %s (mirrormaker.log has the stack trace; restart the "
                     "MirrorMaker 2 Driver once the cause is fixed)"
                     % (len(failed), thresholds.against(len(failed)), "; ".join(sorted(failed))))
    else:
        state = OK
    if degraded:
        state = worst([state, WARNING])
        lines.append("Not running: " + "; ".join(sorted(degraded)))
    if not failed and not degraded:
        if running:
            lines.append("All %d connectors/tasks on this host are RUNNING (herders: %s)" % (running, ", ".join(here) or "none"))
        else:
            lines.append("No MM2 connector or task runs on this host yet (herders: %s); tasks may be assigned "
                         "to other driver hosts" % (", ".join(here) or "none"))
    return Result(state, lines)


def _running_entries(snap):
    """(running connector/task entries, running MirrorSourceConnector tasks) of one scrape."""
    running = source_tasks = 0
    for family in (m.CONNECTOR_STATUS, m.TASK_STATUS):
        for labels, value in snap.series(family):
            if value == 1 and labels.get("status") == "running":
                running += 1
                if family == m.TASK_STATUS and labels.get("connector") == "MirrorSourceConnector":
                    source_tasks += 1
    return running, source_tasks


def task_evidence(snap, flows):
    """(flow names whose replication tasks run in this scrape's process, running entries, herders).

    Evidence: a MirrorSourceConnector partition of the flow (its task replicates here), or
    running MirrorSourceConnector tasks in a process with that flow's herder only (the task
    MBeans do not name the herder)."""
    resolver = resolver_for(snap, flows)
    names = set(flow.name for flow, _, _, _, _ in source_partitions(snap, resolver) if flow.source != "?")
    running, source_tasks = _running_entries(snap)
    pairs = sorted("%s->%s" % k for k in herders(snap) if k[0] and k[1])
    if source_tasks and len(pairs) == 1:
        names.add(pairs[0])
    return names, running, pairs


TASKS_STARTUP_GRACE = 120.0   # s after a herder starts: Connect is still assigning connectors and tasks


def evaluate_task_placement(local, expected, views, errors, hosts_known, thresholds, started_ago=None):
    """Lines for the flows whose tasks run on no driver host read.

    local: Result of evaluate_tasks on this host; expected: FlowSpecs that must replicate;
    views: [(host, (evidence names, running entries, herder names))], this host first;
    errors: {host: why unreadable}; hosts_known: the driver host list was available."""
    seen = set()
    running_anywhere = 0
    herder_hosts = {}
    for host, (names, running, pairs) in views:
        seen |= names
        running_anywhere += running
        for pair in pairs:
            herder_hosts.setdefault(pair, []).append(host)
    missing = [f for f in expected if f.name not in seen]
    if not missing:
        return local
    read = ", ".join(h for h, _ in views)
    lines = []
    states = [local.state]
    if errors:
        states.append(UNKNOWN)
        lines.append("%s: no replication task of %s runs on the driver hosts read (%s), and %s could not be read: %s"
                     % (", ".join(f.name for f in missing), "this flow" if len(missing) == 1 else "these flows",
                        read, ", ".join(sorted(errors)), "; ".join("%s: %s" % kv for kv in sorted(errors.items()))))
    elif not hosts_known:
        lines.append("Note: the driver host list (clusterHostInfo) was not available, so whether another driver "
                     "host runs the tasks of %s was not checked" % ", ".join(f.name for f in missing))
    elif not running_anywhere:
        states.append(CRITICAL)
        lines.insert(0, "No driver host runs any MirrorMaker 2 connector or task (hosts read: %s): nothing "
                        "replicates for %s. After a rebalance Connect waits up to scheduled.rebalance.max.delay.ms "
                        "(5 min by default) before reassigning; if this lasts, see mirrormaker.log on the driver "
                        "hosts and restart the MirrorMaker 2 Driver" % (read, ", ".join(f.name for f in missing)))
    else:
        for flow in missing:
            emitters = [p for p in herder_hosts if p.endswith("->" + flow.source)]
            if flow.name not in herder_hosts:
                states.append(CRITICAL)
                lines.append("%s: no driver host runs this flow's herder (hosts read: %s): check "
                             "kafka-mm2-driver/target.clusters of the config groups" % (flow.name, read))
            elif flow.heartbeats and emitters:
                # heartbeats into the source are emitted, so the flow has at least that partition to replicate
                states.append(CRITICAL)
                lines.append("%s: no driver host runs a replication task of this flow (hosts read: %s), although "
                             "%s has heartbeats to replicate: Connect has not assigned its MirrorSourceConnector "
                             "tasks" % (flow.name, read, flow.source))
            else:
                lines.append("%s: no driver host replicates a partition of this flow (hosts read: %s); it may have "
                             "no topic matching topics/topics.exclude" % (flow.name, read))
    if started_ago is not None and started_ago < TASKS_STARTUP_GRACE and CRITICAL in states:
        # right after a start Connect has not assigned anything yet: not a fault before the grace ends
        states = [WARNING if x == CRITICAL else x for x in states]
        lines.append("MirrorMaker 2 started %s s ago here: CRITICAL only after %s s, while Connect assigns "
                     "connectors and tasks" % (fmt_number(started_ago), fmt_number(TASKS_STARTUP_GRACE)))
    if lines and lines[0].startswith("No driver host"):
        return Result(worst(states), lines + local.lines)
    return Result(worst(states), local.lines + lines)


UNREPLICATED_CRITICAL_AFTER = 120.0   # s without any task of a flow on any driver host: lag CRITICAL


def _utc(ts):
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def evaluate_replicated_nowhere(by_time, missing, last_seen, herder_starts, errors, hosts_known, now, thresholds,
                                hosts_read):
    """{flow name: (state, line)} for flows served here whose partitions no driver host replicates.

    A real MM2 whose target is down loses the herder's Connect group (its internal topics live on the
    target): the tasks are unassigned and their metrics vanish, so "no partition here" is not OK once
    the flow replicated before (last_seen: {name: time}) or its herder has run past the startup grace
    (a flow with heartbeats always has a partition to replicate). by_time: judge the time since then
    against the thresholds (latency, seconds); else WARNING, CRITICAL after UNREPLICATED_CRITICAL_AFTER."""
    result = {}
    read = ", ".join(hosts_read)
    for flow in missing:
        if errors:
            result[flow.name] = (OK, "%s: no partition of this flow is replicated by this host, and %s could not "
                                     "be read to tell whether another driver host does: %s" % (
                                         flow.name, ", ".join(sorted(errors)),
                                         "; ".join("%s: %s" % kv for kv in sorted(errors.items()))))
            continue
        if not hosts_known:
            continue
        since = last_seen.get(flow.name)
        start_ms = herder_starts.get((flow.source, flow.target))
        if since is None and start_ms and flow.heartbeats and now - start_ms / 1000.0 >= TASKS_STARTUP_GRACE:
            since = start_ms / 1000.0 + TASKS_STARTUP_GRACE
        if since is None:
            continue
        seconds = max(0.0, now - since)
        if by_time:
            state = worst([WARNING, thresholds.state(seconds)])
            against = thresholds.against(seconds)
        else:
            state = CRITICAL if seconds >= UNREPLICATED_CRITICAL_AFTER else WARNING
            against = "(CRITICAL after %s s)" % fmt_number(UNREPLICATED_CRITICAL_AFTER)
        result[flow.name] = (state, "%s: no task replicates it on any driver host since %s, %s s ago %s (hosts "
                                    "read: %s; target unreachable? see mirrormaker.log: the herder's tasks are "
                                    "unassigned while it cannot reach its Connect group on the target)" % (
                                        flow.name, _utc(since), fmt_number(seconds), against, read))
    return result


# --- heartbeats --------------------------------------------------------------------------------------
def heartbeat_samples(snap):
    """{(source label or None, target, topic): (record count, latency avg)} of heartbeat partitions."""
    found = {}
    labels_of = snap.labels
    avgs = {}
    for text, value in snap.raw(m.SOURCE_LATENCY_AVG):
        if "heartbeats" in text:
            avgs[text] = value
    for text, count in snap.raw(m.SOURCE_RECORD_COUNT):
        if "heartbeats" not in text:
            continue
        lab = labels_of(text)
        topic = lab.get("topic", "")
        if not topic.endswith("heartbeats") or lab.get("partition") != "0":
            continue
        found[(lab.get("source") or None, lab.get("target"), topic)] = (count, avgs.get(text))
    return found


def _find_heartbeat(flow, views):
    """(host, count, avg) of the flow's heartbeat partition on the first view that has it."""
    topic = flow.heartbeat_topic
    for host, samples in views:
        for source in (flow.source, None):
            hit = samples.get((source, flow.target, topic))
            if hit is not None:
                return host, hit[0], hit[1]
    return None


def evaluate_heartbeats(flows_here, views, herder_map, errors, now, state, thresholds, own_targets,
                        all_hosts_read):
    """Heartbeat gap per flow served by this host: seconds since the count of <source>.heartbeats
    replicated into the target last went up (observed at each run; state keeps the last time).

    views: [(host, heartbeat_samples)] with this host first; herder_map: {(source, target):
    {'start_ms'...}} over every host read; errors: {host: why it could not be read}.
    """
    new_state = {}
    per_flow = {}
    for flow in flows_here:
        if not flow.heartbeats:
            per_flow[flow.name] = (OK, "%s: heartbeats are disabled (emit.heartbeats.enabled or "
                                       "heartbeats.replication.enabled is false), so this flow is not "
                                       "checked" % flow.name)
            continue
        prev = state.get(flow.name) or {}
        st = dict(prev)
        hit = _find_heartbeat(flow, views)
        emitters = sorted("%s->%s" % k for k in herder_map if k[1] == flow.source)
        topic = flow.heartbeat_topic
        if hit is not None:
            host, count, avg = hit
            count = count if _finite(count) else 0.0
            recent = _finite(avg)
            if prev.get("host") == host and prev.get("count") is not None:
                before = prev["count"]
                if count > before or (count < before and count > 0):
                    st["advanced_at"] = now
            else:
                st["first_seen"] = now - (0.0 if recent else m.STAT_WINDOW_SECONDS)
                if recent:
                    st["advanced_at"] = now
            st["host"] = host
            st["count"] = count
            st.pop("missing_since", None)
            last = st.get("advanced_at")
            if last is not None:
                gap = max(0.0, now - last)
                seen = "last heartbeat from %s seen on %s %s s ago" % (flow.source, flow.target, fmt_number(gap))
            else:
                gap = max(0.0, now - st.get("first_seen", now))
                seen = ("no heartbeat has arrived since the replication task started" if count == 0
                        else "no new heartbeat since the alert started watching")
            where = "%s-0 on %s" % (topic, host)
            state_now = thresholds.state(gap)
            line = "%s: heartbeat gap %s %s; %s; %s" % (
                flow.name, thresholds.show(gap), thresholds.against(gap), seen, where)
        else:
            if errors:
                per_flow[flow.name] = (UNKNOWN, "%s: %s-0 is not replicated by the driver hosts read, and %s "
                                                "could not be read: %s" % (
                                           flow.name, topic, ", ".join(sorted(errors)),
                                           "; ".join("%s: %s" % kv for kv in sorted(errors.items()))))
                new_state[flow.name] = prev
                continue
            herder = herder_map.get((flow.source, flow.target))
            since = prev.get("advanced_at")
            if since is None and herder and herder.get("start_ms"):
                since = herder["start_ms"] / 1000.0
            if since is None:
                since = prev.get("missing_since", now)
            st = {"missing_since": prev.get("missing_since", now)}
            for kept in ("advanced_at", "host"):
                if prev.get(kept) is not None:
                    st[kept] = prev[kept]
            if herder is None:
                gap = _INF
                why = "no driver host runs the %s herder (check the tasks and process alerts)" % flow.name
            elif prev.get("advanced_at") is not None or prev.get("host"):
                gap = max(0.0, now - since)
                why = ("heartbeats were seen before (%s), but no driver host replicates %s into %s any more"
                       % ("last on %s" % prev["host"] if prev.get("host") else "earlier run", topic, flow.target))
            else:
                gap = max(0.0, now - since)
                why = "no heartbeat ever: no driver host replicates %s into %s" % (topic, flow.target)
            state_now = thresholds.state(gap)
            line = "%s: heartbeat gap %s %s; %s" % (flow.name, thresholds.show(gap), thresholds.against(gap), why)
        if state_now != OK:
            if not emitters and all_hosts_read:
                line += (". No driver host runs a herder into %s, so nothing writes heartbeats into %s's "
                         "heartbeats topic and %s on %s cannot advance (the --clusters pitfall): add %s to "
                         "kafka-mm2-driver/target.clusters of at least one driver host (config group) or leave "
                         "it empty there" % (flow.source, flow.source, topic, flow.target, flow.source))
                if own_targets and flow.source not in own_targets:
                    line += "; this host serves only %s" % ", ".join(own_targets)
            elif not emitters:
                line += (". No herder into %s on the hosts read; hosts not read may run one" % flow.source)
            elif emitters:
                line += ". Heartbeats are emitted into %s by %s: check that %s->%s replicates (tasks alert, " \
                        "topics.exclude must not exclude 'heartbeats')" % (flow.source, ", ".join(emitters),
                                                                           flow.source, flow.target)
        per_flow[flow.name] = (state_now, line)
        new_state[flow.name] = st
    if not per_flow:
        served = ", ".join(own_targets) if own_targets else "all clusters"
        return Result(OK, ["This host serves %s and runs no replication flow into it; heartbeats of other flows "
                           "are checked on the hosts serving their targets" % served], new_state)
    return Result(worst(s for s, _ in per_flow.values()), _ordered(per_flow, ()), new_state)


# --- checkpoints / consumer offset sync ----------------------------------------------------------------
def _failed_checkpoint_tasks(snap):
    """Task numbers of FAILED MirrorCheckpointConnector tasks in this process (the task MBeans
    name the connector class only, not the herder, so several flows share these names)."""
    return sorted(labels.get("task", "?") for labels, value in snap.series(m.TASK_STATUS)
                  if value == 1 and labels.get("connector") == "MirrorCheckpointConnector"
                  and labels.get("status") == "failed")


def evaluate_checkpoints(snap, flows_here, now, state, thresholds):
    """Age of the last checkpoint emitted per flow with consumer offset sync on.

    MM2 emits a checkpoint only when a group's committed offset moved, so silence is a fault
    only while records keep being replicated; without local replication the alert cannot tell
    an idle group from a stuck checkpoint task and stays at WARNING at most.
    """
    resolver = resolver_for(snap, flows_here)
    here = sorted("%s->%s" % k for k in herders(snap) if k[0] and k[1])
    sync_flows = [f for f in flows_here if f.sync_group_offsets and f.emit_checkpoints]
    if not sync_flows:
        return Result(OK, ["Consumer offset sync is off for every flow served here "
                           "(sync.group.offsets.enabled): checkpoints are not checked"], dict(state))
    last = {}
    windowed = {}
    worst_max = {}
    for labels, value in snap.series(m.CHECKPOINT_LATENCY):
        key = "%s->%s" % (labels.get("source"), labels.get("target"))
        entry = last.setdefault(key, [0, 0.0])
        entry[0] += 1
        entry[1] += value if _finite(value) else 0.0
    for labels, value in snap.series(m.CHECKPOINT_LATENCY_AVG):
        key = "%s->%s" % (labels.get("source"), labels.get("target"))
        windowed[key] = windowed.get(key, False) or _finite(value)
    for labels, value in snap.series(m.CHECKPOINT_LATENCY_MAX):
        key = "%s->%s" % (labels.get("source"), labels.get("target"))
        if _finite(value) and value > worst_max.get(key, (-1.0,))[0]:
            worst_max[key] = (value, labels.get("group"), labels.get("topic"), labels.get("partition"))
    records = {}
    for (source, target, topic), count in m.fields(snap.raw(m.SOURCE_RECORD_COUNT), ("source", "target", "topic")):
        if topic is None or topic.endswith("heartbeats"):
            continue  # heartbeats flow even when every consumer group is idle
        name = resolver.flow(source, target, topic).name
        records[name] = records.get(name, 0.0) + (count if _finite(count) else 0.0)
    failed_tasks = _failed_checkpoint_tasks(snap)
    new_state = {}
    per_flow = {}
    flowing = {}
    for flow in sync_flows:
        name = flow.name
        prev = state.get(name) or {}
        st = dict(prev)
        sig = last.get(name)
        new_state[name] = st
        if not sig:
            flowing[name] = False
            per_flow[name] = (OK, "%s: no checkpoint emitted by this host yet (no consumer group matched "
                                  "groups/groups.exclude or committed since the start, or the checkpoint task "
                                  "runs on another driver host)" % name, None)
            continue
        rec = records.get(name)
        active = windowed.get(name, False) or (prev.get("sig") is not None and list(prev["sig"]) != list(sig))
        flowing[name] = bool(active)
        if active or "cp_at" not in prev:
            st["cp_at"] = now if active else now - m.STAT_WINDOW_SECONDS
            st["records_at_cp"] = rec
        st["sig"] = list(sig)
        age = max(0.0, now - st["cp_at"])
        moved = None
        if rec is not None and st.get("records_at_cp") is not None:
            moved = rec - st["records_at_cp"]
        top = worst_max.get(name)
        detail = ("worst checkpoint write latency %s ms for group %s on %s-%s" % (fmt_number(top[0]), top[1], top[2], top[3])
                  if top else "no checkpoint in the last minute")
        state_now = thresholds.state(age)
        if state_now == OK:
            why = "checkpoints flowing"
        elif moved is None:
            state_now = WARNING
            why = ("at most WARNING: this host replicates no partition of %s, so an idle consumer group cannot "
                   "be told from a stuck checkpoint task" % name)
        elif moved > 0:
            why = ("%s records were replicated since, so either the source consumer groups stopped committing or "
                   "checkpointing is stuck (check groups/groups.exclude and the MirrorCheckpointConnector log)"
                   % fmt_int(moved))
        else:
            state_now = OK
            why = "no record was replicated since either, so the groups are idle (MM2 checkpoints only moved offsets)"
        head = "%s: last checkpoint %s ago %s; " % (name, thresholds.show(age), thresholds.against(age))
        tail = "; %d group partitions checkpointed here; %s" % (sig[0], detail)
        per_flow[name] = (state_now, head + why + tail, (head, tail))
    lines_extra = []
    if failed_tasks:
        # Pin the FAILED task(s) to a flow only on evidence: the flows with a herder here that sync
        # offsets, minus those whose checkpoints are still flowing.
        here_set = set(here)
        cands = [f.name for f in sync_flows if f.name in here_set] or [f.name for f in sync_flows]
        stuck = [n for n in cands if not flowing.get(n)]
        pinned = cands[0] if len(cands) == 1 else (stuck[0] if len(stuck) == 1 else None)
        what = "MirrorCheckpointConnector task %s FAILED on this host" % ", ".join(failed_tasks)
        if pinned is not None:
            _, line, parts = per_flow[pinned]
            if parts is None:
                line = "%s: %s and no checkpoint was emitted: consumer offsets are not synced" % (pinned, what)
            elif flowing.get(pinned):
                line = parts[0] + what + "; the flow's other checkpoint tasks still emit checkpoints" + parts[1]
            else:
                line = parts[0] + what + "; consumer offsets are not synced" + parts[1]
            per_flow[pinned] = (CRITICAL, line, parts)
        else:
            lines_extra.append("%s, for one of %s (Connect's task metrics do not name the herder; the flows "
                               "whose checkpoints still flow are left out); consumer offsets of that flow are "
                               "not synced" % (what, ", ".join(sorted(stuck or cands))))
    ordered = _ordered(dict((n, (st_, line)) for n, (st_, line, _) in per_flow.items()), ())
    states = [st_ for st_, _, _ in per_flow.values()] + [CRITICAL] * len(lines_extra)
    return Result(worst(states), lines_extra + ordered, new_state)
