"""The checkpoint alert: age of the last checkpoint emitted per flow with consumer offset sync on."""
from mm2_core.alerts import metrics as m
from mm2_core.alerts.evaluation import (CRITICAL, OK, UNKNOWN, WARNING, Result, finite, fmt_int, fmt_number, herders,
                                        ordered_lines, resolver_for, worst)


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
        entry[1] += value if finite(value) else 0.0
    for labels, value in snap.series(m.CHECKPOINT_LATENCY_AVG):
        key = "%s->%s" % (labels.get("source"), labels.get("target"))
        windowed[key] = windowed.get(key, False) or finite(value)
    for labels, value in snap.series(m.CHECKPOINT_LATENCY_MAX):
        key = "%s->%s" % (labels.get("source"), labels.get("target"))
        if finite(value) and value > worst_max.get(key, (-1.0,))[0]:
            worst_max[key] = (value, labels.get("group"), labels.get("topic"), labels.get("partition"))
    records = {}
    for (source, target, topic), count in m.fields(snap.raw(m.SOURCE_RECORD_COUNT), ("source", "target", "topic")):
        if topic is None or topic.endswith("heartbeats"):
            continue  # heartbeats flow even when every consumer group is idle
        name = resolver.flow(source, target, topic).name
        records[name] = records.get(name, 0.0) + (count if finite(count) else 0.0)
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
    ordered = ordered_lines(dict((n, (st_, line)) for n, (st_, line, _) in per_flow.items()), ())
    states = [st_ for st_, _, _ in per_flow.values()] + [CRITICAL] * len(lines_extra)
    return Result(worst(states), lines_extra + ordered, new_state)


def run(run):
    """The flows this host serves that sync consumer offsets, against the state kept between runs."""
    if run.flows is None:
        return Result(UNKNOWN, ["Cannot tell which flows sync consumer offsets: %s" % run.problem])
    result = evaluate_checkpoints(run.snap, run.flows_here, run.now, run.load_state(), run.thresholds)
    run.save(result)
    return result
