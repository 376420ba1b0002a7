"""The connectors-and-tasks alert: MM2's Connect connector and task states in this process, and
whether every flow's tasks run on some driver host."""
from mm2_core.alerts import metrics as m
from mm2_core.alerts.evaluation import CRITICAL, OK, UNKNOWN, WARNING, Result, fmt_number, herders, resolver_for, worst
from mm2_core.alerts.partitions import source_partitions


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
                # dedicated mode names it MirrorSourceConnector, connect mode <flow>.MirrorSourceConnector
                if family == m.TASK_STATUS and labels.get("connector", "").rpartition(".")[2] == \
                        "MirrorSourceConnector":
                    source_tasks += 1
    return running, source_tasks


def task_evidence(snap, flows):
    """(flow names whose replication tasks run in this scrape's process, running entries, herders).

    Evidence: a MirrorSourceConnector partition of the flow (its task replicates here), or
    running MirrorSourceConnector tasks in a process with that flow's herder only (the task
    MBeans do not name the herder). Partition metrics count only while a MirrorSourceConnector task runs in the
    process: they can outlive their task (real 3.6.2 with the target down: the herder lost its Connect group, its
    connector and task status metrics went, MirrorSourceConnector's partition metrics stayed), and a flow whose
    tasks are gone does not replicate here, whatever its stale partitions say."""
    resolver = resolver_for(snap, flows)
    running, source_tasks = _running_entries(snap)
    names = set(flow.name for flow, _, _, _, _ in source_partitions(snap, resolver)
                if flow.source != "?") if source_tasks else set()
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


def before_fetch(run):
    """Connect mode: the worker's REST API says it exactly (alert_runner.AlertRun.connect_tasks); else None."""
    return run.connect_tasks()


def run(run):
    """This host's connectors and tasks; the other driver hosts are read only when a flow served
    here shows no replication task on this host (so a flow replicated nowhere is CRITICAL)."""
    flows = run.flows or []
    local = evaluate_tasks(run.snap, flows, run.thresholds)
    views = [(run.host, task_evidence(run.snap, flows))]
    if not run.flows_here or all(f.name in views[0][1][0] for f in run.flows_here):
        return local
    peer_views, errors, hosts_known = run.peer_views()
    views.extend(peer_views)
    starts = [h["start_ms"] for h in herders(run.snap).values() if h.get("start_ms")]
    started_ago = (run.now - max(starts) / 1000.0) if starts else None
    return evaluate_task_placement(local, run.flows_here, views, errors, hosts_known, run.thresholds, started_ago)
