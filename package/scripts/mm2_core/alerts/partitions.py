"""Per-partition reading shared by the lag and latency alerts: the replicated partitions of each
flow, the replication consumers' lag joined to them (flow-qualified from Kafka 3.5, by topic and
consumer before), and why a partition without replicated records is stalled."""
from mm2_core.alerts import metrics as m
from mm2_core.alerts.evaluation import finite, fmt_int


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
    upstream_of = {}   # (source, target, target topic) -> (flow, source topic): topics have many partitions
    for (source, target, topic, partition), avg in m.fields(snap.raw(m.SOURCE_LATENCY_AVG),
                                                            ("source", "target", "topic", "partition")):
        if not topic or partition is None or not target:
            name = flow_of(source, target, "").name if target else "%s->?" % (source or "?")
            bad[name] = bad.get(name, 0) + 1
            continue
        key = (source, target, topic)
        joined = upstream_of.get(key)
        if joined is None:
            flow = flow_of(source, target, topic)
            joined = upstream_of[key] = (flow, flow.upstream_topic(topic))
        out.append((joined[0], topic, partition, joined[1], avg))
    snap._source_partitions = (resolver, out)
    snap._bad_series = bad
    return out


def bad_series(snap):
    """{flow name: series} of the scrape's latency series without a topic or partition label (source_partitions
    counts them; {} before it ran)."""
    return getattr(snap, "_bad_series", {})


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
        if finite(avg) and topic and target and partition is not None:
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
                                                             ("source", "target", "task")) if finite(value))
        pair_names = {}
        for (source, target, task, tag, partition), value in m.fields(
                raw, ("source", "target", "task", "topic", "partition")):
            if not finite(value) or tag is None:
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
                 if finite(value))
    rows = [(client, tag, partition, value)
            for (client, tag, partition), value in m.fields(raw, ("client_id", "topic", "partition"))
            if finite(value) and tag is not None]
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
        if finite(avg):
            continue
        reason = stall_reason(snap, resolver, lags, flow, topic, partition, upstream)
        if reason is not None:
            found.setdefault(flow.name, Stalls()).add(reason, (topic, partition), lags.get(flow.name, upstream, partition),
                                                      lags.seconds_since_poll(flow.name, upstream, partition))
    return found
