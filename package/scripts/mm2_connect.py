"""Connect mode on a driver host: the Kafka Connect worker, its connectors, the per-flow commands and the
healer process (Ambari adapter over mm2_core.connect_mode / connect_rest / flow_control).

START (connect mode) = CONFIGURE (the worker file, the connector secrets file), launch
connect-distributed.sh like the dedicated launcher (pid file, our properties' directory in its command
line), wait for its loopback REST listener and "Kafka Connect started", PUT every flow's connector configs,
then launch the healer. STOP stops the healer (by its pid file, checked against its command line) and
then the worker. FLOW_PAUSE / FLOW_RESUME / FLOW_STOP act on one flow's connectors; RECONFIGURE with
reload_configs ("Refresh configs" in Ambari) PUTs changed connector configs into the running worker and
restarts only when the worker's own settings changed.
"""
import os
import sys
import time

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Execute, File

import mm2_agent
from mm2_agent import Refused
from mm2_core.connect import connect_mode, connect_rest, flow_control, live, rest_security
from mm2_core.formats.text import native, text
from mm2_core.host import process
from mm2_core.rendering import render

HEALER_SCRIPT = "mm2_healer.py"
HEALER_PID_FILE = "mm2-healer.pid"
from mm2_core.alerts.alert_connect import HEALER_STATE_FILE  # noqa: E402 (one name, read by the tasks alert)
HEALER_LOG_FILE = "mm2-healer.log"
HEALER_INTERVAL_SECONDS = 5
FLOW_WAIT_SECONDS = 60


def enabled(params):
    return params.mm2_run_mode == connect_mode.CONNECT


def worker_file(params):
    return os.path.join(params.mm2_conf_dir, connect_mode.WORKER_FILE)


def secrets_file(params):
    return os.path.join(params.mm2_conf_dir, connect_mode.SECRETS_FILE)


def healer_paths(params):
    return (os.path.join(params.mm2_pid_dir, HEALER_PID_FILE), os.path.join(params.mm2_pid_dir, HEALER_STATE_FILE),
            os.path.join(params.mm2_log_dir, HEALER_LOG_FILE))


def plan(params, rendering):
    """The host's ConnectPlan: the dedicated rendering with kafka-mm2-live's per-flow values over it."""
    entries, problems = live.parse(getattr(params, "live_flow_settings", ""), rendering.topology)
    if any(p.is_error for p in problems):
        from mm2_core.config.problems import ConfigError
        raise ConfigError(problems)
    properties = live.overlay(rendering.properties, entries)
    return connect_mode.plan(properties, rendering.topology, params.hostname, params.connect_rest_port,
                             secrets_file(params), group_id=params.connect_group_id, security=security(params))


def security(params):
    """The REST listener's protection (kafka-mm2-env/mm2_connect_rest_*): loopback, or HTTPS + Basic auth."""
    return params.connect_rest_security


def rest_files(params):
    """(credentials file, JAAS file) of the REST listener's Basic auth."""
    return (os.path.join(params.mm2_conf_dir, rest_security.CREDENTIALS_FILE),
            os.path.join(params.mm2_conf_dir, rest_security.JAAS_FILE))


def add_files(params, rendering):
    """Connect mode's files join the rendering (written atomically with the others, listed in the manifest so a
    switch back to dedicated mode removes them)."""
    connect_plan = plan(params, rendering)
    missing = security(params).installation_problem(params.kafka_home)
    if missing:
        from mm2_core.config.problems import ConfigError
        raise ConfigError([missing])
    rendering.files.extend(render.connect_files(connect_plan, rendering.version, security(params),
                                                       params.mm2_conf_dir))
    rendering.connect_plan = connect_plan
    return connect_plan


def rest(params, timeout=connect_rest.DEFAULT_TIMEOUT):
    sec = security(params)
    return connect_rest.ConnectRest(sec.url(params.hostname, params.connect_rest_port), params.kafka_version,
                                    timeout=timeout, auth=sec.auth(), ca_file=sec.ca_file or None)


# ------------------------------------------------------------------------------------------------ lifecycle

def launch_command(params):
    return process.launch_command(params.mm2_env_file, os.path.join(params.kafka_home, "bin", connect_mode.LAUNCHER),
                                  worker_file(params), [], params.mm2_out_file, params.mm2_pid_file)


def apply_connectors(params, connect_plan, client=None):
    """PUT the plan's connector configs (created or changed ones only) and delete our connectors of flows no
    longer served here. Returns {"created": [...], "updated": [...], "deleted": [...], "unchanged": [...]}."""
    client = client or rest(params)
    listing = client.connectors()
    current = dict((name, (entry.get("info") or {}).get("config") or {}) for name, entry in listing.items())
    create, update, delete = connect_mode.connector_diff(current, connect_plan.connectors)
    for name in create + update:
        client.put_config(name, connect_plan.connectors[name])
        Logger.info(u"%s connector %s" % ("Created" if name in create else "Updated (live, its tasks restart)", name))
    for name in delete:
        client.delete(name)
        Logger.info(u"Deleted connector %s (its flow is no longer served by this driver)" % name)
    unchanged = [n for n in connect_plan.connectors if n not in create and n not in update]
    if unchanged:
        Logger.info(u"Unchanged (left running): %s" % ", ".join(unchanged))
    return {"created": create, "updated": update, "deleted": delete, "unchanged": unchanged}


def start(params, rendering, launch):
    """launch(command, rest_url, markers) starts the worker the way mm2_service starts MM2."""
    connect_plan = rendering.connect_plan
    launch(launch_command(params), connect_plan.rest_url)
    wait_rest(params)
    apply_connectors(params, connect_plan)
    start_healer(params)


def wait_rest(params, timeout=60, ready_timeout=180):
    """Until the worker's REST API answers, then until its herder has read the config topic: only then does the
    listing apply_connectors diffs against hold the connectors stored there (a disabled flow's included, which
    START must delete; seen on a loaded host: an empty listing, the disabled flow's connectors left running)."""
    client = rest(params, timeout=10)
    deadline = time.time() + timeout
    while True:
        try:
            client.connectors()
            break
        except connect_rest.ConnectError as e:
            if time.time() >= deadline:
                raise Fail(u"The Kafka Connect worker's REST API at %s did not answer within %ss: %s"
                           % (client.url, timeout, text(e)))
        time.sleep(1)
    deadline = time.time() + ready_timeout
    while not client.herder_ready():
        if time.time() >= deadline:
            raise Fail(u"The Kafka Connect worker at %s answers but has not read its config topic or joined its "
                       u"group within %ss: see its log %s" % (client.url, ready_timeout, params.mm2_log_file))
        time.sleep(1)


def _healer_running(pid_file, state_file):
    pid, _ = process.read_pid_file(pid_file)
    if pid is None or not process.is_alive(pid):
        return None
    argv = process.read_cmdline(pid) or []
    if any(os.path.basename(a) == HEALER_SCRIPT for a in argv) and state_file in argv:
        return pid
    return None


def start_healer(params):
    pid_file, state_file, log_file = healer_paths(params)
    if not params.mm2_autorestart_enabled:
        Logger.info("Automatic restarts are off (kafka-mm2-env/mm2_autorestart_enabled): no healer")
        return
    worker_pid, _ = process.read_pid_file(params.mm2_pid_file)
    running_pid = _healer_running(pid_file, state_file)
    if running_pid:
        argv = process.read_cmdline(running_pid) or []
        watched = argv[argv.index("--worker-pid") + 1] if "--worker-pid" in argv[:-1] else None
        if watched == str(worker_pid):
            Logger.info("The healer is already running (pid %d)" % running_pid)
            return
        # it watches a worker that is gone (kill -9, then a recovery START): replace it now, not in 5 s
        stop_healer(params, mm2_agent.kill)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), HEALER_SCRIPT)
    sec = security(params)
    args = [sys.executable, script, "--url", sec.url(params.hostname, params.connect_rest_port),
            "--kafka-version", str(params.kafka_version), "--state", state_file, "--worker-pid", str(worker_pid),
            "--unit", str(params.mm2_autorestart_backoff_unit), "--max-restarts", str(params.mm2_autorestart_max),
            "--interval", str(HEALER_INTERVAL_SECONDS)]
    if sec.tls:   # the password stays in its 0600 file: never on a command line
        args += ["--credentials-file", rest_files(params)[0], "--ca-file", sec.ca_file]
    command = "nohup %s >> %s 2>&1 < /dev/null & echo $! > %s" % (
        " ".join(process.quote(a) for a in args), process.quote(log_file), process.quote(pid_file))
    Execute(native(command), user=native(params.mm2_user))
    deadline = time.time() + 10
    while not _healer_running(pid_file, state_file):
        if time.time() >= deadline:
            raise Fail(u"The healer (%s) did not start; its log is %s" % (script, log_file))
        time.sleep(0.2)
    Logger.info(u"Healer started (pid %s): failed connectors and tasks are restarted after %ss x n(n+1), at most "
                u"%s times; log %s" % (_healer_running(pid_file, state_file), params.mm2_autorestart_backoff_unit,
                                       params.mm2_autorestart_max, log_file))


def stop_healer(params, kill):
    pid_file, state_file, _ = healer_paths(params)
    pid = _healer_running(pid_file, state_file)
    if pid:
        try:
            kill(pid, 15)
        except OSError:
            pass
        deadline = time.time() + 10
        while process.is_alive(pid) and time.time() < deadline:
            time.sleep(0.2)
        if process.is_alive(pid) and _healer_running(pid_file, state_file) == pid:
            kill(pid, 9)
        Logger.info("Healer (pid %d) stopped" % pid)
    if os.path.exists(pid_file):
        File(native(pid_file), action="delete")


# ------------------------------------------------------------------------------------------------ flows

def host_targets(params):
    """{host: [targets]} of the driver hosts as far as this command knows them: this host's own setting
    (config groups of other hosts are not in the command)."""
    from mm2_core.model import placement
    mine = placement.parse_targets(params.target_clusters_setting)
    return dict((h, mine if h == params.hostname else []) for h in (params.driver_hosts or [params.hostname]))


def flow_command(script, params, action):
    """FLOW_PAUSE / FLOW_RESUME / FLOW_STOP for the flow in the command's parameters (`flow`)."""
    if not enabled(params):
        raise Refused(u"Per-flow %s needs connect mode (kafka-mm2-env/mm2_run_mode=connect): in dedicated mode every "
                      u"flow runs in one connect-mirror-maker.sh process and only stops with it" % action)
    rendering = mm2_agent.render_files(params)
    name = params.command_flow
    try:
        flow = flow_control.resolve_flow(name, rendering.topology, host_targets(params))
    except flow_control.FlowError as e:
        raise Refused(text(e))
    connect_plan = plan(params, rendering)
    if flow.name not in connect_plan.flows:
        others = [h for h in (params.driver_hosts or []) if h != params.hostname]
        if not others:
            raise Fail(u"flow %s runs on no driver host: the only MIRRORMAKER2_DRIVER (%s) serves target %s; add %s "
                       u"to a host's kafka-mm2-driver/target.clusters" % (flow.name, params.hostname,
                                                                          connect_plan.target, flow.target))
        Logger.info(u"flow %s is not served by this driver host (it serves %s): nothing to do here"
                    % (flow.name, connect_plan.target))
        script.put_structured_out({"flow": flow.name, "action": action, "served": False,
                                   "target_here": connect_plan.target})
        return None
    client = rest(params)
    try:
        listing = client.connectors()
    except connect_rest.ConnectError as e:
        raise Fail(u"Cannot reach this driver's Kafka Connect worker (is the driver started?): %s" % text(e))
    state = flow_control.flow_state(listing, flow.name)
    try:
        do_it, message = flow_control.check_transition(action, state, flow.name)
    except flow_control.FlowError as e:
        raise Refused(text(e))
    Logger.info(message)
    names_ = sorted(n for n in listing if (connect_mode.split_connector_name(n) or ("",))[0] == flow.name)
    if do_it:
        try:
            for connector in names_:
                getattr(client, action)(connector)
        except connect_rest.Unsupported as e:   # the Kafka version has no such call: refused before any change
            raise Refused(u"flow %s: %s" % (flow.name, text(e)))
        except connect_rest.ConnectError as e:
            raise Fail(u"flow %s: %s" % (flow.name, text(e)))
        wanted = flow_control.TARGET_OF[action]
        deadline = time.time() + FLOW_WAIT_SECONDS
        while True:   # every connector and every task of the flow: a task still RUNNING copies records
            listing = client.connectors()
            state = flow_control.flow_state(listing, flow.name)
            settled = flow_control.flow_settled(listing, flow.name, wanted)
            if settled or time.time() >= deadline:
                break
            time.sleep(1)
        if not settled:
            raise Fail(u"flow %s did not reach %s within %ss (now %s; every connector and task must be %s)"
                       % (flow.name, wanted, FLOW_WAIT_SECONDS, state, wanted))
        _, state_file, _ = healer_paths(params)
        healer = flow_control.HealerState.load(state_file)
        if os.path.exists(state_file):
            healer.forget_flow(flow.name)
            healer.event(time.time(), "operator: %s %s" % (action, flow.name))
            healer.save(state_file)
    Logger.info(u"flow %s is %s" % (flow.name, state))
    script.put_structured_out({"flow": flow.name, "action": action, "state": state, "served": True})
    return state


def status_lines(params):
    """(lines, {"listing": REST listing, "flows": {flow: state}}) for REPLICATION_STATUS in connect mode:
    each flow's state and the healer's history; ([], None) in dedicated mode."""
    if not enabled(params):
        return [], None
    client = rest(params, timeout=10)
    try:
        listing = client.connectors()
    except connect_rest.ConnectError as e:
        return [u"connect mode: the Kafka Connect worker did not answer (is the driver started?): %s" % text(e)], None
    flows = sorted(set(connect_mode.split_connector_name(n)[0] for n in listing if connect_mode.split_connector_name(n)))
    states = dict((f, flow_control.flow_state(listing, f)) for f in flows)
    lines = [u"connect mode, worker %s: %s" % (client.url, ", ".join("%s %s" % kv for kv in sorted(states.items())))]
    _, state_file, _ = healer_paths(params)
    lines += flow_control.describe(flow_control.HealerState.load(state_file))
    return lines, {"listing": listing, "flows": states}
