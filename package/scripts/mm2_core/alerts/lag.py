"""The replication lag alert: worst partition record lag per flow, and the flows whose partitions
no driver host replicates (CRITICAL after UNREPLICATED_CRITICAL_AFTER)."""
import time

from mm2_core.alerts import metrics as m
from mm2_core.alerts.evaluation import (no_task_wins, CRITICAL, OK, UNKNOWN, WARNING, Result, fmt_int, fmt_number, ordered_lines,
                                        resolver_for, worst)
from mm2_core.alerts.partitions import WAITING, lag_by_partition, source_partitions, stalled_partitions
from mm2_core.alerts.tasks import TASKS_STARTUP_GRACE


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
        return Result(worst(s for s, _ in per_flow.values()), ordered_lines(per_flow, expected_names))
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
    here = {}
    for flow, _, _, _, _ in source_partitions(snap, resolver):
        here[flow.name] = here.get(flow.name, 0) + 1
    for name, count in here.items():
        if name not in per and name in resolver.by_name and not name.startswith("one of "):
            # replicated here, but every consumer of its partitions also reads other flows' topics
            line = ("%s: %d partitions here; their consumer lag cannot be attributed to this flow alone "
                    "(before Kafka 3.5 the replication consumers have generated client ids, and the flows "
                    "of this process replicate topics of the same names)" % (name, count))
            state = OK
            stalled = stalls.get(name)
            if stalled is not None:
                state = WARNING
                line += "; " + stalled.text()
            per_flow[name] = (state, line)
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
    no_task_wins(per_flow, nowhere)
    for name in expected_names:
        if name not in per_flow:
            per_flow[name] = nowhere.get(name) or (OK, "%s: no partition of this flow is replicated by this host"
                                                   % name)
    for name in held:   # connect mode: a flow an operator paused or stopped is not judged (its series are stale)
        per_flow.pop(name, None)
    lines = ordered_lines(per_flow, expected_names)
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


def run(run):
    """Per flow, the worst partition's lag; a flow served here that no driver host replicates (AlertRun reads the
    other driver hosts for it) is judged by the time since it last replicated."""
    return evaluate_lag(run.snap, run.flows or [], run.expected_names, run.thresholds, run.replicated_nowhere(),
                        held=sorted(run.held))
