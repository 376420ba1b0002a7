"""Per-flow control in connect mode: which flow an operator means, which transitions are legal, the state of
a flow from its connectors' statuses, and the self-healing schedule (pure; stdlib only, Python 2.7 and 3).

Operator actions: pause, resume, stop. A flow is its three connectors (connect_mode.KINDS); an action
applies to all of them. Legal transitions (Connect's own TargetState rules, with the operator's view):

    RUNNING --pause--> PAUSED      RUNNING --stop--> STOPPED (3.5+)
    PAUSED  --resume-> RUNNING     PAUSED  --stop--> STOPPED (3.5+)
    STOPPED --resume-> RUNNING     STOPPED --pause-> refused: a stopped flow has no tasks to pause
    the same state again: nothing to do (said so, not an error)

Self-healing (the healer process of connect mode): a FAILED connector or task is restarted after a
back-off of unit * n * (n + 1) seconds for its n-th restart (unit 60 s: Strimzi's 0, 2, 6, 12, 20, 30,
42, 56 minutes), capped at 60 units, at most `max_restarts` times; then the healer gives up on it and
says so until it runs again (the count resets after the connector ran healthy for as long as its last
back-off, at least one unit, or after an operator's action on the flow).
"""
import json
import os
import time

from mm2_core.connect import connect_mode

PAUSE, RESUME, STOP = "pause", "resume", "stop"
ACTIONS = (PAUSE, RESUME, STOP)
RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED, RESTARTING, MISSING = (
    "RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING", "MISSING")
TARGET_OF = {PAUSE: PAUSED, RESUME: RUNNING, STOP: STOPPED}


class FlowError(Exception):
    """Bad operator input: names the flow and how to fix it."""


def resolve_flow(name, topology, host_targets):
    """The enabled Flow the operator means by name ("A->B", spaces allowed); FlowError otherwise.
    host_targets: {host: [targets it serves]} of every driver host (empty list: every target)."""
    wanted = (name or "").replace(" ", "")
    if not wanted:
        raise FlowError("no flow given: name one as SOURCE->TARGET, e.g. --flow %s"
                        % (topology.enabled_flows[0].name if topology.enabled_flows else "A->B"))
    known = [f.name for f in topology.flows]
    flow = None
    for candidate in topology.flows:
        if candidate.name == wanted:
            flow = candidate
    if flow is None:
        raise FlowError("unknown flow %s: the configured flows are %s (kafka-mm2-clusters / kafka-mm2-topology)"
                        % (wanted, ", ".join(known) or "none"))
    if not flow.enabled:
        raise FlowError("flow %s is disabled in the configuration: enable it (kafka-mm2-replication or the "
                        "topology's flows) and apply the change first" % flow.name)
    serving = sorted(h for h, targets in host_targets.items() if not targets or flow.target in targets)
    if not serving:
        raise FlowError("flow %s runs on no driver host: no MIRRORMAKER2_DRIVER serves target %s (driver hosts "
                        "and their kafka-mm2-driver/target.clusters: %s); add %s to a host's target.clusters"
                        % (flow.name, flow.target,
                           "; ".join("%s=%s" % (h, ",".join(t) or "(all)") for h, t in sorted(host_targets.items()))
                           or "none", flow.target))
    return flow


def flow_state(connectors, flow_name):
    """Overall state of a flow from GET /connectors?expand=status: MISSING when none of its connectors exist;
    FAILED when a connector or task failed; else the connectors' common state (PAUSED / STOPPED / RUNNING),
    UNASSIGNED/RESTARTING while Connect is moving them."""
    states = _flow_states(connectors, flow_name)
    if not states:
        return MISSING
    for state in (FAILED, UNASSIGNED, RESTARTING):
        if state in states:
            return state
    connector_states = set(s for s in states if s in (PAUSED, STOPPED, RUNNING))
    if len(connector_states) == 1:
        return connector_states.pop()
    return PAUSED if PAUSED in connector_states else RUNNING


def _flow_states(connectors, flow_name):
    """The states of the flow's connectors and of every task of them, from GET /connectors?expand=status."""
    states = []
    for name, entry in (connectors or {}).items():
        parsed = connect_mode.split_connector_name(name)
        if not parsed or parsed[0] != flow_name:
            continue
        status = (entry or {}).get("status") or {}
        states.append((status.get("connector") or {}).get("state") or UNASSIGNED)
        for task in status.get("tasks") or []:
            states.append(task.get("state") or UNASSIGNED)
    return states


def flow_settled(connectors, flow_name, wanted):
    """True when every connector of the flow and every task of them is in `wanted`. A pause reaches the connectors
    before their tasks, and a task still RUNNING copies records: FLOW_PAUSE waits for this, not for flow_state()."""
    states = _flow_states(connectors, flow_name)
    return bool(states) and all(state == wanted for state in states)


def check_transition(action, state, flow_name):
    """(do_it, message): do_it False with a message for a no-op; FlowError for an illegal transition."""
    if action not in ACTIONS:
        raise FlowError("unknown flow action %r for %s: use one of %s" % (action, flow_name, ", ".join(ACTIONS)))
    if state == MISSING:
        raise FlowError("flow %s has no connectors on this driver's Connect worker yet: START the driver (or apply "
                        "the configuration) first" % flow_name)
    if action == PAUSE and state == STOPPED:
        raise FlowError("flow %s is STOPPED: a stopped flow has no tasks to pause; resume it first (or leave it "
                        "stopped)" % flow_name)
    if TARGET_OF[action] == state:
        return False, "flow %s is already %s: nothing to do" % (flow_name, state)
    return True, "flow %s: %s -> %s" % (flow_name, state, TARGET_OF[action])


# ------------------------------------------------------------------------------------------------ healing

MAX_BACKOFF_UNITS = 60


def backoff_seconds(restarts_done, unit):
    """Wait before the next restart after `restarts_done` restarts: unit * n * (n + 1), capped at 60 units."""
    n = max(0, int(restarts_done))
    return float(unit) * min(n * (n + 1), MAX_BACKOFF_UNITS)


def failed_items(connectors):
    """[(connector, task id or None, first trace line)] of everything FAILED in a status listing."""
    found = []
    for name in sorted(connectors or {}):
        if not connect_mode.split_connector_name(name):
            continue
        status = (connectors[name] or {}).get("status") or {}
        conn = status.get("connector") or {}
        if conn.get("state") == FAILED:
            found.append((name, None, _first_line(conn.get("trace"))))
        for task in status.get("tasks") or []:
            if task.get("state") == FAILED:
                found.append((name, task.get("id"), _first_line(task.get("trace"))))
    return found


def _first_line(trace):
    return (trace or "").strip().splitlines()[0][:300] if (trace or "").strip() else ""


def _healthy(connectors, name):
    status = ((connectors or {}).get(name) or {}).get("status") or {}
    states = [(status.get("connector") or {}).get("state")] + [t.get("state") for t in status.get("tasks") or []]
    return FAILED not in states


class HealerState(object):
    """The healer's memory, one JSON file (also read by the tasks alert and REPLICATION_STATUS):
    {"connectors": {name: {"restarts": n, "last_restart": t, "last_failure": "...", "gave_up": t|null,
     "healthy_since": t|null}}, "events": [[t, "text"], ...] (last 50), "updated": t}"""

    MAX_EVENTS = 50

    def __init__(self, data=None):
        data = data or {}
        self.connectors = data.get("connectors") or {}
        self.events = data.get("events") or []
        self.updated = data.get("updated")
        self.pid = data.get("pid")

    @classmethod
    def load(cls, path):
        try:
            with open(path) as fh:
                return cls(json.load(fh))
        except (IOError, OSError, ValueError):
            return cls()

    def save(self, path):
        tmp = "%s.tmp.%d" % (path, os.getpid())
        with open(tmp, "w") as fh:
            json.dump({"connectors": self.connectors, "events": self.events[-self.MAX_EVENTS:],
                       "updated": self.updated, "pid": self.pid}, fh, indent=1, sort_keys=True)
        os.chmod(tmp, 0o644)
        os.rename(tmp, path)

    def event(self, now, text):
        self.events.append([now, text])
        self.events = self.events[-self.MAX_EVENTS:]

    def forget_flow(self, flow_name):
        """An operator acted on the flow: its restart counts start again."""
        for name in list(self.connectors):
            parsed = connect_mode.split_connector_name(name)
            if parsed and parsed[0] == flow_name:
                del self.connectors[name]


def plan_restarts(connectors, state, now, unit, max_restarts):
    """Which connectors to restart now (each with its failed tasks), updating `state`:
    [(connector name, restart number, why)]. Gives up (once, logged) after max_restarts."""
    todo = []
    failed = failed_items(connectors)
    failing = {}
    for name, task, line in failed:
        failing.setdefault(name, []).append((task, line))
    for name in sorted(set(list(state.connectors) + list(failing))):
        entry = state.connectors.setdefault(name, {"restarts": 0, "last_restart": None, "last_failure": "",
                                                   "gave_up": None, "healthy_since": None})
        if name not in failing:
            if name not in (connectors or {}):
                continue
            if entry["restarts"] and _healthy(connectors, name):
                entry["healthy_since"] = entry.get("healthy_since") or now
                if now - entry["healthy_since"] >= max(backoff_seconds(entry["restarts"], unit), unit):
                    state.event(now, "%s healthy again after %d restart(s); count reset" % (name, entry["restarts"]))
                    del state.connectors[name]
            continue
        entry["healthy_since"] = None
        what = ", ".join("task %s" % t if t is not None else "connector" for t, _ in failing[name])
        entry["last_failure"] = "%s: %s" % (what, failing[name][0][1])
        if entry["restarts"] >= max_restarts:
            if not entry["gave_up"]:
                entry["gave_up"] = now
                state.event(now, "gave up on %s after %d restarts (limit %d): %s" % (
                    name, entry["restarts"], max_restarts, entry["last_failure"]))
            continue
        wait = backoff_seconds(entry["restarts"], unit)
        last = entry["last_restart"]
        if last is not None and now - last < wait:
            continue
        entry["restarts"] += 1
        entry["last_restart"] = now
        todo.append((name, entry["restarts"], entry["last_failure"]))
    state.updated = now
    return todo


def describe(state, now=None):
    """Lines for the tasks alert and REPLICATION_STATUS: what was restarted, when, and what was given up."""
    now = now if now is not None else time.time()
    lines = []
    for name in sorted(state.connectors):
        entry = state.connectors[name]
        if not entry.get("restarts") and not entry.get("gave_up"):
            continue
        when = _ago(now, entry.get("last_restart"))
        if entry.get("gave_up"):
            lines.append("gave up on %s %s after %d automatic restart(s): %s" % (
                name, _ago(now, entry["gave_up"]), entry["restarts"], entry.get("last_failure")))
        else:
            lines.append("%s restarted automatically %d time(s), last %s (%s)" % (
                name, entry["restarts"], when, entry.get("last_failure")))
    return lines


def _ago(now, then):
    if then is None:
        return "never"
    return "%s (%ds ago)" % (time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(then)), max(0, int(now - then)))


# ------------------------------------------------------------------------------------------------ offsets (3.6+)

def source_offsets(response, source_alias):
    """{(topic, partition): next source offset to copy} of a MirrorSourceConnector from GET .../offsets
    ({"offsets": [{"partition": {"cluster": A, "topic": t, "partition": p}, "offset": {"offset": o}}]}).
    MM2 stores the offset of the last record it copied, so the next one to copy is o + 1."""
    found = {}
    for item in (response or {}).get("offsets") or []:
        part, off = item.get("partition") or {}, item.get("offset") or {}
        if part.get("cluster") not in (None, source_alias) or off.get("offset") is None:
            continue
        found[(part.get("topic"), int(part.get("partition")))] = int(off["offset"]) + 1
    return found


def offsets_body(source_alias, next_offsets):
    """The PATCH .../offsets body that makes a stopped MirrorSourceConnector resume each partition at the given
    next offset (the inverse of source_offsets); None as a value removes the partition's offset (start over
    from the connector's consumer reset policy)."""
    items = []
    for (topic, partition), nxt in sorted(next_offsets.items()):
        items.append({"partition": {"cluster": source_alias, "topic": topic, "partition": int(partition)},
                      "offset": None if nxt is None else {"offset": int(nxt) - 1}})
    return items
