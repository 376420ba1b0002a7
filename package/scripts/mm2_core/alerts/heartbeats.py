"""The heartbeat alert: heartbeat records replicated into this host's targets, per flow, with
counters kept between runs. Its run is alert_runner.AlertRun (registry: AlertKind.module)."""
from mm2_core.alerts import metrics as m
from mm2_core.alerts.alert_config import flows_for_host
from mm2_core.alerts.evaluation import (INF, OK, UNKNOWN, Result, finite, fmt_number, herders, ordered_lines,
                                        resolver_for, worst)
from mm2_core.alerts.partitions import source_partitions


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


def find_heartbeat(flow, views):
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
        hit = find_heartbeat(flow, views)
        emitters = sorted("%s->%s" % k for k in herder_map if k[1] == flow.source)
        topic = flow.heartbeat_topic
        if hit is not None:
            host, count, avg = hit
            count = count if finite(count) else 0.0
            recent = finite(avg)
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
                gap = INF
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
    return Result(worst(s for s, _ in per_flow.values()), ordered_lines(per_flow, ()), new_state)


def run(run):
    """Local scrape first; the other driver hosts only when a heartbeat partition or a herder into
    a flow's source is not found here (a heartbeat partition lives on exactly one host)."""
    snap = run.snap
    flows = None if run.flows is None else [f for f in run.flows if f.name not in run.held]
    if flows is None:
        # topology unreadable: only the flows this process replicates (a herder alone may be a
        # heartbeat-only one for a disabled flow, which has no heartbeats to check)
        resolver = resolver_for(snap, [])
        seen = {}
        for flow, _, _, _, _ in source_partitions(snap, resolver):
            if flow.source != "?":
                seen[flow.name] = flow
        flows = [seen[n] for n in sorted(seen)]
    flows_here = flows_for_host(flows, run.targets)
    herder_map = dict(herders(snap))
    views = [(run.host, heartbeat_samples(snap))]
    need_peers = False
    for flow in flows_here:
        if not flow.heartbeats:
            continue
        if find_heartbeat(flow, views) is None or not any(k[1] == flow.source for k in herder_map):
            need_peers = True
    snaps, errors, hosts_known = run.peer_snapshots(wanted=need_peers)
    for peer, psnap in snaps:
        views.append((peer, heartbeat_samples(psnap)))
        for key, value in herders(psnap).items():
            entry = herder_map.setdefault(key, value)
            if value.get("start_ms") and (not entry.get("start_ms") or value["start_ms"] < entry["start_ms"]):
                entry["start_ms"] = value["start_ms"]
    all_read = hosts_known and not errors
    result = evaluate_heartbeats(flows_here, views, herder_map, errors, run.now, run.load_state(), run.thresholds,
                                 run.targets, all_read)
    run.save(result)
    if not hosts_known:
        result.lines.append("Note: the driver host list (clusterHostInfo) was not available, so only this host "
                            "was read")
    return result
