"""The tasks alert in connect mode: connector and task states straight from this driver's Connect worker
(GET /connectors?expand=status on its loopback REST API) and the healer's history.

A flow an operator paused or stopped raises nothing (it is listed as such); FAILED connectors/tasks count
against the alert's thresholds and the text says what the healer restarted, when, and when it gave up.
Pure apart from the bounded REST read; stdlib only, Python 2.7 and 3.
"""
import os
import time

from mm2_core.alerts import evaluation as ev
from mm2_core.config import names, schema
from mm2_core.connect import connect_mode, connect_rest, flow_control
from mm2_core.kafka import versions

_DRIVER = schema.BY_NAME[names.DRIVER]
_ENV = schema.BY_NAME[names.ENV]
HEALER_STATE_FILE = "mm2-healer-state.json"
RECENT_EVENTS = 5
RECENT_EVENTS_SECONDS = 3600   # mm2_connect.HEALER_STATE_FILE (the agent side writes it)


def _get(configs, ctype, table, prop):
    value = (configs.get(ctype) or {}).get(prop)
    return table[prop].default if value in (None, "") else value


def enabled(configs):
    return str(_get(configs, names.ENV, _ENV, "mm2_run_mode")).strip() == connect_mode.CONNECT


def evaluate(listing, healer, thresholds, now):
    """Result of the tasks alert from a REST listing and a flow_control.HealerState."""
    failed = flow_control.failed_items(listing)
    flows = sorted(set(connect_mode.split_connector_name(n)[0] for n in listing
                       if connect_mode.split_connector_name(n)))
    states = dict((f, flow_control.flow_state(listing, f)) for f in flows)
    held = ["%s %s" % (f, s) for f, s in sorted(states.items()) if s in (flow_control.PAUSED, flow_control.STOPPED)]
    history = flow_control.describe(healer, now)
    lines = []
    if failed:
        state = thresholds.state(len(failed))
        if any(e.get("gave_up") for e in healer.connectors.values()):
            state = ev.CRITICAL
        lines.append("%d connector(s)/task(s) FAILED: %s" % (len(failed), "; ".join(
            "%s%s%s" % (name, " task %s" % task if task is not None else "", ": " + line if line else "")
            for name, task, line in failed)))
    else:
        running = [f for f, s in states.items() if s == flow_control.RUNNING]
        # restarted and not yet healthy for its last back-off: it may fail again (a fault not fixed yet)
        recovering = sorted(n for n, e in healer.connectors.items() if e.get("restarts") and n in listing)
        state = ev.WARNING if recovering else ev.OK
        if recovering:
            lines.append("Recovering after automatic restarts (not yet healthy for its last back-off): %s"
                         % ", ".join(recovering))
        lines.append("Connect mode: %d flow(s) running%s" % (
            len(running), ": " + ", ".join(sorted(running)) if running else ""))
    if held:
        lines.append("Held by an operator (no alert): %s" % ", ".join(held))
    moving = ["%s %s" % (f, s) for f, s in sorted(states.items())
              if s in (flow_control.UNASSIGNED, flow_control.RESTARTING)]
    if moving:
        lines.append("Being (re)assigned: %s" % ", ".join(moving))
    lines.extend(history)
    recent = [(t, text) for t, text in healer.events if now - t <= RECENT_EVENTS_SECONDS][-RECENT_EVENTS:]
    if recent:
        lines.append("Healer, last %d event(s) of the last hour:" % len(recent))
        lines.extend("  %s %s" % (time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(t)), text) for t, text in recent)
    return ev.Result(state, lines)


def _client(configs, timeout, host=None):
    """The worker's REST API the way the driver reaches it (loopback, or HTTPS + Basic auth on this host)."""
    import socket
    from mm2_core.connect.rest_security import RestSecurity
    port = _get(configs, names.DRIVER, _DRIVER, "connect.rest.port")
    sec = RestSecurity.from_env(configs.get(names.ENV))
    # reads only: no version-gated call is made, so the oldest Connect REST API is assumed
    try:
        return connect_rest.ConnectRest(sec.url(host or socket.getfqdn(), port), versions.MIN_VERSION,
                                        timeout=timeout, auth=sec.auth(), ca_file=sec.ca_file or None)
    except (ValueError, IOError, OSError) as e:   # missing credentials or CA file: said, never raised
        raise connect_rest.ConnectError("cannot reach the Connect REST API: %s" % e)


def held_flows(configs, timeout=5.0, host=None):
    """{flow: PAUSED|STOPPED} of the flows an operator holds on this driver's worker ({} when it cannot tell)."""
    try:
        listing = _client(configs, timeout, host).connectors()
    except connect_rest.ConnectError:
        return {}
    flows = set(connect_mode.split_connector_name(n)[0] for n in listing if connect_mode.split_connector_name(n))
    states = dict((f, flow_control.flow_state(listing, f)) for f in flows)
    return dict((f, s) for f, s in states.items() if s in (flow_control.PAUSED, flow_control.STOPPED))


_LABEL = r'%s="([^"]*)"'


def herder_lines(configs, text, timeout=5.0, host=None):
    """Exposition lines mm2_herder_up / mm2_herder_start_time_ms, one per flow of this host's Connect worker,
    from the worker's app-info series (mm2_connect_worker_up/_start_time_ms) and its REST listing: the
    replication alerts then read connect mode's metrics as they read a dedicated MM2's herders ("" when the
    worker series or the REST API are missing)."""
    import re
    from mm2_core.alerts import metrics as m
    port = str(_get(configs, names.DRIVER, _DRIVER, "connect.rest.port"))
    version, start = None, None
    for line in (text or "").splitlines():
        if line.startswith(m.CONNECT_WORKER_UP + "{") and re.search(_LABEL % "port", line).group(1) == port:
            found = re.search(_LABEL % "version", line)
            version = found.group(1) if found else ""
        elif line.startswith(m.CONNECT_WORKER_START + "{") and re.search(_LABEL % "port", line).group(1) == port:
            start = line.rsplit(" ", 1)[-1]
    if version is None:
        return ""
    try:
        listing = _client(configs, timeout, host).connectors()
    except connect_rest.ConnectError:
        return ""
    flows = sorted(set(connect_mode.split_connector_name(n)[0] for n in listing if connect_mode.split_connector_name(n)))
    out = []
    for flow in flows:
        source, target = flow.split("->", 1)
        out.append('%s{source="%s",target="%s",version="%s"} 1.0' % (m.HERDER_UP, source, target, version))
        if start is not None:
            out.append('%s{source="%s",target="%s"} %s' % (m.HERDER_START, source, target, start))
    return ("\n" if text and not text.endswith("\n") else "") + "\n".join(out) + ("\n" if out else "")


def execute(configs, thresholds, now, timeout=10.0, host=None):
    try:
        listing = _client(configs, timeout, host).connectors()
    except connect_rest.ConnectError as e:
        return ev.Result(ev.UNKNOWN, ["Connect mode: this driver's Kafka Connect worker did not answer (%s)" % e])
    pid_dir = _get(configs, names.ENV, _ENV, "mm2_pid_dir")
    healer = flow_control.HealerState.load(os.path.join(pid_dir, HEALER_STATE_FILE))
    return evaluate(listing, healer, thresholds, now)
