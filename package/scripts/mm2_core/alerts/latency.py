"""The replication latency alert: worst windowed partition latency per flow, idle partitions
ignored, stalled ones at least WARNING."""
from mm2_core.alerts.evaluation import no_task_wins, INF, OK, UNKNOWN, WARNING, Result, fmt_number, ordered_lines, resolver_for, worst
from mm2_core.alerts.partitions import bad_series, lag_by_partition, source_partitions, stalled_partitions


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
        if avg is not None and avg == avg and avg != INF:
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
    bad = bad_series(snap)
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
    no_task_wins(per_flow, nowhere)
    for name in expected_names:
        if name not in per_flow:
            per_flow[name] = (nowhere or {}).get(name) or (
                OK, "%s: no partition of this flow is replicated by this host (its tasks run on another driver "
                    "host, or it has no topic to replicate)" % name)
    for name in held:   # connect mode: a flow an operator paused or stopped is not judged (its series are stale)
        per_flow.pop(name, None)
    if not per_flow:
        return Result(OK, ["No replication flow runs on this host"])
    return Result(worst(s for s, _ in per_flow.values()), ordered_lines(per_flow, expected_names))


def run(run):
    """Per flow, the worst partition's latency; a flow served here that no driver host replicates (AlertRun reads
    the other driver hosts for it) is judged by the time since it last replicated."""
    return evaluate_latency(run.snap, run.flows or [], run.expected_names, run.thresholds, run.replicated_nowhere(),
                            held=sorted(run.held))
