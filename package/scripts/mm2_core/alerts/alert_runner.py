"""The MM2 SCRIPT alerts' common body: configuration -> fetch -> parse -> evaluate -> text.

Stdlib only, Python 2.7 and 3. Called from the thin scripts in package/alerts through
execute(kind, configurations, parameters, host_name), which never raises: whatever goes wrong
comes back as UNKNOWN with the reason, because the script runs inside the Ambari agent.
"""
import os
import socket
import time

from mm2_core.alerts import alert_config as cfg
from mm2_core.alerts import checkpoints, evaluation, heartbeats, lag, latency, partitions, tasks
from mm2_core.alerts import alert_fetch as fetcher
from mm2_core.alerts import alert_state, registry
from mm2_core.alerts.evaluation import CRITICAL, OK, UNKNOWN, WARNING, Result, Thresholds
from mm2_core.alerts import metrics as m
from mm2_core.config import names

PROCESS = "process"
LATENCY = "latency"
LAG = "lag"
HEARTBEAT = "heartbeat"
CHECKPOINT = "checkpoint"
TASKS = "tasks"
# Alerts that read the metrics endpoint, and those that read MM2's log on the host instead
# (mm2_core.alerts.silent_loss); both from the registry.
KINDS = tuple(k.kind for k in registry.KINDS if not k.reads_log)
SILENT_LOSS = "silent_loss"
LOG_KINDS = tuple(k.kind for k in registry.KINDS if k.reads_log)
P_LOSS_WINDOW = "loss.window.hours"
DEFAULT_LOSS_WINDOW = [p for p in registry.BY_KIND[SILENT_LOSS].extra_parameters if p.name == P_LOSS_WINDOW][0].value

# The parameters every alert has (registry.SHARED_PARAMETERS) and their defaults.
P_TIMEOUT = "connection.timeout"
P_CACHE = "metrics.cache.seconds"
P_STATE_DIR = "state.directory"
_SHARED = dict((p.name, p) for p in registry.SHARED_PARAMETERS)
DEFAULT_TIMEOUT = _SHARED[P_TIMEOUT].value
DEFAULT_CACHE = _SHARED[P_CACHE].value

# kind -> (warning parameter, critical parameter, default warning, default critical, unit)
THRESHOLDS = dict((k.kind, (k.warning.name, k.critical.name, k.warning.value, k.critical.value, k.unit))
                  for k in registry.KINDS)
FAMILIES = dict((k.kind, k.families) for k in registry.KINDS)
# Every alert asks for the same families, so one scrape (cached a few seconds) serves them all.
# The exporter's own scrape series are always asked for: they mark a complete scrape, and exporter
# 0.x runs the JMX collector for a name[] filter only when it names one of them.
ALL_FAMILIES = tuple(sorted(set(f for fams in FAMILIES.values() for f in fams)
                            | set([m.SCRAPE_ERROR, m.SCRAPE_DURATION, m.CONNECT_WORKER_UP, m.CONNECT_WORKER_START])))

MAX_TEXT = 8000
_ENV = names.ENV


def tokens():
    return cfg.TOKENS


def _clip(text):
    if len(text) <= MAX_TEXT:
        return text
    cut = text[:MAX_TEXT].rsplit("\n", 1)[0]
    return cut + "\n... (%d more characters)" % (len(text) - len(cut))


def execute(kind, configurations, parameters, host_name, now=None):
    """(state, [text]) as Ambari's ScriptAlert expects; never raises."""
    try:
        if kind in LOG_KINDS:
            return _silent_loss(configurations or {}, parameters or {}, host_name, now)
        result = _execute(kind, configurations or {}, parameters or {}, host_name, now)
        return result.state, [_clip(result.text)]
    except Exception as e:
        return UNKNOWN, ["The MirrorMaker 2 %s alert failed: %s: %s" % (kind, e.__class__.__name__, e)]


def _silent_loss(token_map, parameters, host_name, now):
    from mm2_core.alerts import silent_loss
    configs = cfg.configurations(token_map)
    host = host_name or socket.getfqdn()
    now = time.time() if now is None else now
    from mm2_core.host import process as mm2_process
    log_path = os.path.join(_env(configs, "mm2_log_dir"), mm2_process.LOG_FILE)
    path = _state_path(parameters, SILENT_LOSS)
    state = silent_loss.scan(log_path, alert_state.load(path), now)
    problem = alert_state.save(path, state)
    t = thresholds_for(SILENT_LOSS, parameters)
    result_state, lines = silent_loss.evaluate(state, now, cfg.param_float(parameters, P_LOSS_WINDOW,
                                                                         DEFAULT_LOSS_WINDOW),
                                              t.warning, t.critical, host)
    if problem:
        lines.append("Note: " + problem)
    return result_state, [_clip("\n".join(lines))]


def thresholds_for(kind, parameters):
    wname, cname, wdef, cdef, unit = THRESHOLDS[kind]
    return Thresholds(cfg.param_float(parameters, wname, wdef), cfg.param_float(parameters, cname, cdef), unit)


# --- the MM2 process on this host ---------------------------------------------------------------------
class ProcessInfo(object):
    def __init__(self, running=None, pid=None, detail="", agent=None):
        self.running = running      # True / False / None (cannot tell)
        self.pid = pid
        self.detail = detail
        self.agent = agent          # the -javaagent argument of the JVM, if any


def _env(configs, prop):
    value = (configs.get(_ENV) or {}).get(prop)
    return cfg.env_default(prop) if value in (None, "") else value


def process_info(configs, proc_root="/proc"):
    """Is our MM2 running here (pid file + /proc command line), and with which -javaagent."""
    try:
        from mm2_core.host import process
    except ImportError:
        return ProcessInfo(None, detail="no process helper")
    pid_file = os.path.join(_env(configs, "mm2_pid_dir"), process.PID_FILE)
    props = os.path.join(_env(configs, "mm2_conf_dir"), process.PROPERTIES_FILE)
    status = process.check_status(pid_file, props, proc_root)
    if not status.running:
        return ProcessInfo(False, status.pid, status.detail)
    agent = None
    for arg in process.read_cmdline(status.pid, proc_root) or []:
        if arg.startswith("-javaagent:") and "jmx_prometheus" in arg or (
                arg.startswith("-javaagent:") and _jar_name(configs) and _jar_name(configs) in arg):
            agent = arg[len("-javaagent:"):]
    return ProcessInfo(True, status.pid, status.detail, agent)


def _jar_name(configs):
    jar = str(_env(configs, "jmx_exporter_jar") or "")
    return os.path.basename(jar.split("?")[0]) if jar else ""


def _jar_path(setting, configs):
    """Where the driver puts the exporter jar for this kafka-mm2-env/jmx_exporter_jar setting."""
    try:
        from mm2_core.host import install
        return install.jmx_agent_jar_path(setting, _env(configs, "kafka_home"))
    except Exception:
        return "" if setting.startswith(("http://", "https://")) else setting


def _agent_parts(agent):
    """'/p/jar=9405:/etc/x.yaml' -> ('/p/jar', '9405', '/etc/x.yaml')."""
    jar, _, rest = agent.partition("=")
    port, conf = "", ""
    if rest:
        bits = rest.split(":")
        if len(bits) >= 2:
            conf = bits[-1]
            port = bits[-2]
        else:
            port = bits[0]
    return jar, port, conf


def diagnose(fetched, endpoint, configs, proc):
    """UNKNOWN text for an unreadable endpoint: what failed and how to fix it."""
    url = fetched.url.split("?")[0]
    text = "Cannot read MirrorMaker 2 metrics from %s: %s" % (url, fetched.error)
    if fetched.kind == fetcher.TIMEOUT:
        return text + (" (bounded by the alert's connection timeout; a very large MM2 can need more: raise '%s' in "
                       "the alert definition. It bounds the whole run: connecting, the answer and the wait on the "
                       "scrape the other MM2 alerts share)" % P_TIMEOUT)
    if fetched.kind == fetcher.INCOMPLETE:
        return text + (". An incomplete scrape is not used: a cut-off answer would hide what it lost (check the "
                       "network path and %s/mirrormaker.out for exporter errors)" % _env(configs, "mm2_log_dir"))
    if fetched.kind == fetcher.TLS:
        return text + (". The exporter serves HTTPS with kafka-mm2-env/mm2_metrics_ssl_keystore_location; the "
                       "alerts trust kafka-mm2-env/mm2_metrics_ssl_ca_file (PEM, empty: system CAs) and check the "
                       "host name against the certificate")
    if fetched.kind == fetcher.AUTH:
        return text + (". kafka-mm2-env/mm2_metrics_auth_username and mm2_metrics_auth_password must match what "
                       "the exporter was started with (restart MM2 after changing them)")
    if fetched.kind != fetcher.REFUSED or proc is None:
        return text
    if proc.running is False:
        return text + ". MirrorMaker 2 is not running on this host (%s)" % proc.detail
    if proc.running is None:
        return text + (". If MM2 runs, check that it was started with the exporter agent "
                       "(kafka-mm2-env/mm2_metrics_enabled=true) on port %d" % endpoint.port)
    if not proc.agent:
        return text + ". " + without_agent(endpoint, configs, proc)
    jar, port, conf = _agent_parts(proc.agent)
    if jar and not os.path.exists(jar):
        return text + (". MM2 (pid %s) was started with -javaagent:%s but that jar is missing, so the JVM could "
                       "not load the exporter: restore it (kafka-mm2-env/jmx_exporter_jar) and restart"
                       % (proc.pid, jar))
    if port and port != str(endpoint.port):
        return text + (". MM2 (pid %s) serves metrics on port %s but kafka-mm2-env/mm2_metrics_port is %d: "
                       "restart the MirrorMaker 2 Driver to apply the new port" % (proc.pid, port, endpoint.port))
    log_dir = _env(configs, "mm2_log_dir")
    return text + (". MM2 (pid %s) has the exporter agent on port %s but nothing listens: see %s/mirrormaker.out "
                   "for the agent's error (port in use, unreadable %s)" % (proc.pid, port or "?", log_dir,
                                                                          conf or "rules file"))


def without_agent(endpoint, configs, proc):
    """MM2 runs without the exporter agent (START leaves it out while the jar is missing): what to do."""
    jar = _jar_path(endpoint.jar, configs)
    line = "MirrorMaker 2 runs (pid %s) without the JMX exporter agent, so nothing serves metrics. " % proc.pid
    if not jar or not os.path.exists(jar):
        from mm2_core.host import install
        return line + install.missing_agent_fix(jar)
    return line + ("The jar %s is on this host now: restart the MirrorMaker 2 Driver to load it "
                   "(kafka-mm2-env/mm2_metrics_enabled stays true)" % jar)


# --- the run ---------------------------------------------------------------------------------------------
def _fetch_local(endpoint, host, parameters, deadline):
    url = fetcher.with_names(endpoint.local_url(host), ALL_FAMILIES)
    return fetcher.fetch_cached(url, cfg.param_float(parameters, P_TIMEOUT, DEFAULT_TIMEOUT),
                                cfg.param_float(parameters, P_CACHE, DEFAULT_CACHE), deadline=deadline,
                                ca_file=endpoint.ca_file, verify=endpoint.verify,
                                username=endpoint.username, password=endpoint.password)


def _fetch_peers(endpoint, peers, parameters, deadline):
    """{peer host: Fetched} for the other driver hosts, within the run's deadline."""
    urls = dict((fetcher.with_names(endpoint.url(h), ALL_FAMILIES), h) for h in peers)
    got = fetcher.fetch_many(list(urls), cfg.param_float(parameters, P_TIMEOUT, DEFAULT_TIMEOUT),
                             cfg.param_float(parameters, P_CACHE, DEFAULT_CACHE), deadline=deadline,
                             ca_file=endpoint.ca_file, verify=endpoint.verify,
                             username=endpoint.username, password=endpoint.password)
    return dict((urls[u], res) for u, res in got.items())


def _state_path(parameters, kind):
    return os.path.join(alert_state.state_dir(cfg.param_str(parameters, P_STATE_DIR)), "%s.json" % kind)


def _execute(kind, token_map, parameters, host_name, now):
    if kind not in KINDS:
        raise ValueError("unknown MM2 alert kind %r" % kind)
    # one deadline for the whole run: local scrape, the wait on a shared one, and the peers
    deadline = fetcher.deadline_in(cfg.param_float(parameters, P_TIMEOUT, DEFAULT_TIMEOUT))
    configs = cfg.configurations(token_map)
    host = host_name or socket.getfqdn()
    try:
        endpoint = cfg.endpoint(configs)
    except ValueError as e:
        return Result(UNKNOWN, [str(e)])
    thresholds = thresholds_for(kind, parameters)

    if kind == TASKS:
        from mm2_core.alerts import alert_connect
        if alert_connect.enabled(configs):   # connect mode: the worker's REST API says it exactly
            return alert_connect.execute(configs, thresholds, now if now is not None else time.time(),
                                         timeout=max(1.0, min(10.0, cfg.param_float(parameters, P_TIMEOUT,
                                                                                    DEFAULT_TIMEOUT))), host=host)

    proc = None
    if kind == PROCESS:
        proc = process_info(configs)
        if proc.running is False:
            return Result(CRITICAL, ["MirrorMaker 2 is not running on %s: %s" % (host, proc.detail)])
    if not endpoint.enabled:
        if kind == PROCESS:
            what = "running as pid %s" % proc.pid if proc.running else "status unknown (%s)" % proc.detail
            return Result(OK, ["MirrorMaker 2 is %s; its metrics endpoint is disabled "
                               "(kafka-mm2-env/mm2_metrics_enabled=false), so the replication alerts "
                               "cannot run" % what])
        return Result(UNKNOWN, ["MirrorMaker 2 metrics are disabled (kafka-mm2-env/mm2_metrics_enabled="
                                "false): set it to true and restart the MirrorMaker 2 Driver to get this "
                                "alert"])

    fetched = _fetch_local(endpoint, host, parameters, deadline)
    if not fetched.ok:
        if proc is None and fetched.kind == fetcher.REFUSED:
            proc = process_info(configs)
        if kind == PROCESS and fetched.kind == fetcher.REFUSED and proc.running and not proc.agent:
            # MM2 replicates, only its metrics are missing: a WARNING that says what to provide
            return Result(WARNING, [without_agent(endpoint, configs, proc)])
        return Result(UNKNOWN, [diagnose(fetched, endpoint, configs, proc)])
    text = fetched.text
    from mm2_core.alerts import alert_connect
    if alert_connect.enabled(configs):   # connect mode: one herder per flow on this host's worker
        text = text + alert_connect.herder_lines(configs, text, timeout=max(1.0, min(5.0, cfg.param_float(
            parameters, P_TIMEOUT, DEFAULT_TIMEOUT))), host=host)
    snap = m.Snapshot(text, FAMILIES[kind], fetched.at, fetched.url)
    if kind == PROCESS:
        return _process_result(snap, fetched, thresholds, proc, host)
    if not snap.has(m.HERDER_UP):
        return Result(UNKNOWN, ["%s answers but exports no MirrorMaker 2 herder (%s): MM2 is still starting, "
                                "or the exporter does not use the mpack's rules (jmx_exporter_mm2.yaml in "
                                "the MM2 configuration directory)" % (fetched.url.split("?")[0], m.HERDER_UP)])
    now = fetched.at if now is None else now
    flows, problem = cfg.expected_flows(configs, evaluation.kafka_version(snap))
    targets = cfg.host_targets(configs)
    flows_here = cfg.flows_for_host(flows or [], targets)
    held = {}
    if kind != TASKS:
        from mm2_core.alerts import alert_connect
        if alert_connect.enabled(configs):   # connect mode: a flow an operator paused or stopped is not alerted on
            held = alert_connect.held_flows(configs, timeout=max(1.0, min(5.0, cfg.param_float(
                parameters, P_TIMEOUT, DEFAULT_TIMEOUT))), host=host)
            flows_here = [f for f in flows_here if f.name not in held]
    expected_names = [f.name for f in flows_here]

    if kind in (LATENCY, LAG):
        nowhere = _replicated_nowhere(kind, snap, token_map, parameters, endpoint, host, flows or [], flows_here,
                                      now, thresholds, deadline)
        evaluate = latency.evaluate_latency if kind == LATENCY else lag.evaluate_lag
        result = evaluate(snap, flows or [], expected_names, thresholds, nowhere, held=sorted(held))
    elif kind == TASKS:
        result = _tasks(snap, token_map, parameters, endpoint, host, flows or [], flows_here, now, thresholds,
                        deadline)
    elif kind == HEARTBEAT:
        result = _heartbeats(snap, token_map, parameters, endpoint, host,
                             [f for f in flows if f.name not in held] if flows is not None else None, targets, now,
                             thresholds, deadline)
    else:
        if flows is None:
            return Result(UNKNOWN, ["Cannot tell which flows sync consumer offsets: %s" % problem])
        path = _state_path(parameters, kind)
        result = checkpoints.evaluate_checkpoints(snap, flows_here, now, alert_state.load(path), thresholds)
        _save(path, result)
    if problem and kind != CHECKPOINT:
        result.lines.append("Note: %s; flows were taken from the metrics" % problem)
    if held:
        result.lines.append("Held by an operator (not alerted): %s" % ", ".join(
            "%s %s" % kv for kv in sorted(held.items())))
    return result


def _save(path, result):
    problem = alert_state.save(path, result.state_data or {})
    if problem:
        result.lines.append("Note: " + problem)


def _process_result(snap, fetched, thresholds, proc, host):
    elapsed = fetched.elapsed
    pairs = sorted("%s->%s" % k for k in evaluation.herders(snap) if k[0] and k[1])
    version = evaluation.kafka_version(snap)
    who = "MirrorMaker 2 (pid %s)" % proc.pid if proc is not None and proc.pid else "MirrorMaker 2"
    state = thresholds.state(elapsed)
    line = "%s metrics endpoint answered in %s s %s" % (who, evaluation.fmt_number(elapsed),
                                                          thresholds.against(elapsed))
    if pairs:
        line += "; herders %s; Kafka %s" % (", ".join(pairs), version or "?")
    else:
        state = evaluation.worst([state, WARNING])
        line += ("; but it exports no MirrorMaker 2 herder (%s): MM2 is still starting or the exporter does not "
                 "use the mpack's jmx_exporter_mm2.yaml" % m.HERDER_UP)
    if snap.value(m.SCRAPE_ERROR, 0.0) == 1.0:
        state = evaluation.worst([state, WARNING])
        line += "; the exporter reports JMX scrape errors (jmx_scrape_error=1)"
    duration = snap.value(m.SCRAPE_DURATION)
    if duration is not None:
        line += "; JMX scrape took %s s" % evaluation.fmt_number(duration)
    return Result(state, [line])


def _peer_snapshots(family_kind, token_map, parameters, endpoint, host, deadline, wanted=True):
    """([(peer, Snapshot)], {peer: why unreadable}, driver host list known) of the other driver
    hosts, read only when wanted."""
    all_hosts = cfg.driver_hosts(token_map)
    peers = [h for h in all_hosts if h.lower() != host.lower()]
    snaps = []
    errors = {}
    if wanted and peers:
        got = _fetch_peers(endpoint, peers, parameters, deadline)
        for peer in sorted(got):
            res = got[peer]
            if not res.ok:
                errors[peer] = res.error
                continue
            snaps.append((peer, m.Snapshot(res.text, FAMILIES[family_kind], res.at, res.url)))
    return snaps, errors, bool(all_hosts)


def _peer_views(family_kind, token_map, parameters, endpoint, host, flows, deadline):
    """([(peer, task evidence)], {peer: why unreadable}, driver host list known) of the other driver hosts."""
    snaps, errors, hosts_known = _peer_snapshots(family_kind, token_map, parameters, endpoint, host, deadline)
    return [(peer, tasks.task_evidence(snap, flows)) for peer, snap in snaps], errors, hosts_known


def _replicated_nowhere(kind, snap, token_map, parameters, endpoint, host, flows, flows_here, now, thresholds,
                        deadline):
    """{flow name: (state, line)} for the flows served here that no driver host replicates (target down:
    the herder lost its Connect group, its tasks and their metrics are gone). The other driver hosts are
    read only when a flow has no partition here; the last time each flow was seen replicating is kept."""
    path = _state_path(parameters, kind)
    state = alert_state.load(path)
    last_seen = state.get("replicated_at")
    if not isinstance(last_seen, dict):
        last_seen = {}
    seen = set(tasks.task_evidence(snap, flows)[0])
    nowhere = {}
    if any(f.name not in seen for f in flows_here):
        views, errors, hosts_known = _peer_views(kind, token_map, parameters, endpoint, host, flows, deadline)
        for _, (names_there, _, _) in views:
            seen |= names_there
        starts = dict((k, v.get("start_ms")) for k, v in evaluation.herders(snap).items())
        nowhere = lag.evaluate_replicated_nowhere(kind == LATENCY, [f for f in flows_here if f.name not in seen],
                                                 last_seen, starts, errors, hosts_known, now, thresholds,
                                                 [host] + [h for h, _ in views])
    for name in seen:
        last_seen[name] = now
    _save(path, Result(OK, [], {"replicated_at": last_seen}))
    return nowhere


def _tasks(snap, token_map, parameters, endpoint, host, flows, flows_here, now, thresholds, deadline):
    """This host's connectors and tasks; the other driver hosts are read only when a flow served
    here shows no replication task on this host (so a flow replicated nowhere is CRITICAL)."""
    local = tasks.evaluate_tasks(snap, flows, thresholds)
    views = [(host, tasks.task_evidence(snap, flows))]
    if not flows_here or all(f.name in views[0][1][0] for f in flows_here):
        return local
    peer_views, errors, hosts_known = _peer_views(TASKS, token_map, parameters, endpoint, host, flows, deadline)
    views.extend(peer_views)
    starts = [h["start_ms"] for h in evaluation.herders(snap).values() if h.get("start_ms")]
    started_ago = (now - max(starts) / 1000.0) if starts else None
    return tasks.evaluate_task_placement(local, flows_here, views, errors, hosts_known, thresholds, started_ago)


def _heartbeats(snap, token_map, parameters, endpoint, host, flows, targets, now, thresholds, deadline):
    """Local scrape first; the other driver hosts only when a heartbeat partition or a herder into
    a flow's source is not found here (a heartbeat partition lives on exactly one host)."""
    if flows is None:
        # topology unreadable: only the flows this process replicates (a herder alone may be a
        # heartbeat-only one for a disabled flow, which has no heartbeats to check)
        resolver = evaluation.resolver_for(snap, [])
        seen = {}
        for flow, _, _, _, _ in partitions.source_partitions(snap, resolver):
            if flow.source != "?":
                seen[flow.name] = flow
        flows = [seen[n] for n in sorted(seen)]
    flows_here = cfg.flows_for_host(flows, targets)
    herder_map = dict(evaluation.herders(snap))
    views = [(host, heartbeats.heartbeat_samples(snap))]
    need_peers = False
    for flow in flows_here:
        if not flow.heartbeats:
            continue
        if heartbeats.find_heartbeat(flow, views) is None or not any(k[1] == flow.source for k in herder_map):
            need_peers = True
    snaps, errors, hosts_known = _peer_snapshots(HEARTBEAT, token_map, parameters, endpoint, host, deadline,
                                                 wanted=need_peers)
    for peer, psnap in snaps:
        views.append((peer, heartbeats.heartbeat_samples(psnap)))
        for key, value in evaluation.herders(psnap).items():
            entry = herder_map.setdefault(key, value)
            if value.get("start_ms") and (not entry.get("start_ms") or value["start_ms"] < entry["start_ms"]):
                entry["start_ms"] = value["start_ms"]
    all_read = hosts_known and not errors
    path = _state_path(parameters, HEARTBEAT)
    result = heartbeats.evaluate_heartbeats(flows_here, views, herder_map, errors, now, alert_state.load(path),
                                    thresholds, targets, all_read)
    _save(path, result)
    if not hosts_known:
        result.lines.append("Note: the driver host list (clusterHostInfo) was not available, so only this host "
                            "was read")
    return result
