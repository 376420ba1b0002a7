"""The MM2 SCRIPT alerts' common body: configuration -> fetch -> parse -> evaluate -> text.

Stdlib only, Python 2.7 and 3. Called from the thin scripts in package/alerts through
execute(kind, configurations, parameters, host_name), which never raises: whatever goes wrong
comes back as UNKNOWN with the reason, because the script runs inside the Ambari agent.
"""
import importlib
import os
import socket
import sys
import time

from mm2_core.alerts import alert_config as cfg
from mm2_core.alerts import evaluation, lag, tasks
from mm2_core.alerts import alert_fetch as fetcher
from mm2_core.alerts import alert_state, registry
from mm2_core.alerts.evaluation import OK, UNKNOWN, Result, Thresholds
from mm2_core.alerts import metrics as m
from mm2_core.config import names

PROCESS = "process"
LATENCY = "latency"
LAG = "lag"
HEARTBEAT = "heartbeat"
CHECKPOINT = "checkpoint"
TASKS = "tasks"
SILENT_LOSS = "silent_loss"
# Alerts that read the metrics endpoint, and those that read MM2's log on the host instead
# (mm2_core.alerts.silent_loss); both from the registry.
KINDS = tuple(k.kind for k in registry.KINDS if not k.reads_log)
LOG_KINDS = tuple(k.kind for k in registry.KINDS if k.reads_log)

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
        result = _execute(kind, configurations or {}, parameters or {}, host_name, now)
        return result.state, [_clip(result.text)]
    except Exception as e:
        return UNKNOWN, ["The MirrorMaker 2 %s alert failed: %s: %s" % (kind, e.__class__.__name__, e)]


# Each kind's evaluation module (registry: AlertKind.module), imported with the runner, which holds them: an alert
# reload drops the mm2_core modules, and under Python 2 a dropped module that nothing holds has its globals cleared
# under the functions still in use (a runner importing them per call met "'NoneType' object is not callable" in
# config_values once the agent's reload had run: real Ambari 2.7.8, tests/alerts/test_agent_contract.py first).
_MODULES = dict((kind, importlib.import_module("mm2_core.alerts." + record.module))
                for kind, record in registry.BY_KIND.items())


def _module(record):
    """The evaluation module of an alert kind."""
    return _MODULES[record.kind]


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


class AlertRun(object):
    """One run of one alert: what its evaluation module (registry: AlertKind.module) is given. The module reads
    its facts from here (the scrape `snap`, the flows, the thresholds, the declared parameters) and asks here for
    what needs I/O (the other driver hosts, its state file), so the modules stay pure."""

    def __init__(self, record, token_map, parameters, host_name, now):
        self.record = record
        self.kind = record.kind
        self.token_map = token_map
        self.parameters = parameters
        self.configs = cfg.configurations(token_map)
        self.host = host_name or socket.getfqdn()
        self.now = now
        self.thresholds = thresholds_for(record.kind, parameters)
        # one deadline for the whole run: local scrape, the wait on a shared one, and the peers
        self.deadline = fetcher.deadline_in(self.timeout())
        self.endpoint = self.proc = self.fetched = self.snap = None
        self.flows = self.problem = None
        self.targets, self.flows_here, self.held, self.expected_names = [], [], {}, []

    # -- settings, with the defaults the registry declares
    def param(self, name):
        """The alert parameter `name` as a number, its declared value (registry) when not given."""
        return cfg.param_float(self.parameters, name, self.record.parameter(name).value)

    def timeout(self):
        return cfg.param_float(self.parameters, P_TIMEOUT, DEFAULT_TIMEOUT)

    def env(self, prop):
        return _env(self.configs, prop)

    # -- the state file
    def state_path(self, kind=None):
        return _state_path(self.parameters, kind or self.kind)

    def load_state(self, kind=None):
        return alert_state.load(self.state_path(kind))

    def save(self, result, kind=None):
        """Keep result.state_data in the state file (a problem writing it becomes a note of the result)."""
        _save(self.state_path(kind), result)

    def save_data(self, data, kind=None):
        """Keep data in the state file; the problem writing it, or None."""
        return alert_state.save(self.state_path(kind), data)

    def mm2_log_path(self):
        from mm2_core.host import process as mm2_process
        return os.path.join(self.env("mm2_log_dir"), mm2_process.LOG_FILE)

    # -- reads of the host and of the other driver hosts
    def process_info(self):
        return process_info(self.configs)

    def connect_tasks(self):
        """Connect mode: the tasks alert from the worker's REST API (None in dedicated mode)."""
        from mm2_core.alerts import alert_connect
        if not alert_connect.enabled(self.configs):
            return None
        return alert_connect.execute(self.configs, self.thresholds, self.now if self.now is not None else time.time(),
                                     timeout=max(1.0, min(10.0, self.timeout())), host=self.host)

    def peer_snapshots(self, wanted=True, family_kind=None):
        return _peer_snapshots(family_kind or self.kind, self.token_map, self.parameters, self.endpoint, self.host,
                               self.deadline, wanted=wanted)

    def peer_views(self, family_kind=None):
        return _peer_views(family_kind or self.kind, self.token_map, self.parameters, self.endpoint, self.host,
                           self.flows or [], self.deadline)

    def without_agent(self):
        """What to do when MM2 runs here without the exporter agent (START left it out: the jar is missing)."""
        return without_agent(self.endpoint, self.configs, self.proc)

    def replicated_nowhere(self):
        return _replicated_nowhere(self.kind, self.snap, self.token_map, self.parameters, self.endpoint, self.host,
                                   self.flows or [], self.flows_here, self.now, self.thresholds, self.deadline)


def _execute(kind, token_map, parameters, host_name, now):
    record = registry.BY_KIND.get(kind)
    if record is None:
        raise ValueError("unknown MM2 alert kind %r" % kind)
    module = _module(record)
    run = AlertRun(record, token_map, parameters, host_name, now)
    if record.reads_log:
        run.now = time.time() if now is None else now
        return module.run(run)
    try:
        run.endpoint = cfg.endpoint(run.configs)
    except ValueError as e:
        return Result(UNKNOWN, [str(e)])
    before = getattr(module, "before_fetch", None)
    early = before(run) if before is not None else None
    if early is not None:
        return early
    if not run.endpoint.enabled:
        disabled = getattr(module, "metrics_disabled", None)
        if disabled is not None:
            return disabled(run)
        return Result(UNKNOWN, ["MirrorMaker 2 metrics are disabled (kafka-mm2-env/mm2_metrics_enabled="
                                "false): set it to true and restart the MirrorMaker 2 Driver to get this "
                                "alert"])

    fetched = run.fetched = _fetch_local(run.endpoint, run.host, parameters, run.deadline)
    if not fetched.ok:
        if run.proc is None and fetched.kind == fetcher.REFUSED:
            run.proc = process_info(run.configs)
        failed = getattr(module, "fetch_failed", None)
        early = failed(run) if failed is not None else None
        if early is not None:
            return early
        return Result(UNKNOWN, [diagnose(fetched, run.endpoint, run.configs, run.proc)])
    text = fetched.text
    from mm2_core.alerts import alert_connect
    if alert_connect.enabled(run.configs):   # connect mode: one herder per flow on this host's worker
        text = text + alert_connect.herder_lines(run.configs, text, timeout=max(1.0, min(5.0, run.timeout())),
                                                 host=run.host)
    run.snap = m.Snapshot(text, FAMILIES[kind], fetched.at, fetched.url)
    if not record.reads_flows:
        return module.run(run)
    if not run.snap.has(m.HERDER_UP):
        return Result(UNKNOWN, ["%s answers but exports no MirrorMaker 2 herder (%s): MM2 is still starting, "
                                "or the exporter does not use the mpack's rules (jmx_exporter_mm2.yaml in "
                                "the MM2 configuration directory)" % (fetched.url.split("?")[0], m.HERDER_UP)])
    run.now = fetched.at if now is None else now
    run.flows, run.problem = cfg.expected_flows(run.configs, evaluation.kafka_version(run.snap))
    run.targets = cfg.host_targets(run.configs)
    run.flows_here = cfg.flows_for_host(run.flows or [], run.targets)
    if record.skips_held_flows and alert_connect.enabled(run.configs):
        # connect mode: a flow an operator paused or stopped is not alerted on
        run.held = alert_connect.held_flows(run.configs, timeout=max(1.0, min(5.0, run.timeout())), host=run.host)
        run.flows_here = [f for f in run.flows_here if f.name not in run.held]
    run.expected_names = [f.name for f in run.flows_here]

    result = module.run(run)
    if run.problem:
        result.lines.append("Note: %s; flows were taken from the metrics" % run.problem)
    if run.held:
        result.lines.append("Held by an operator (not alerted): %s" % ", ".join(
            "%s %s" % kv for kv in sorted(run.held.items())))
    return result


def _save(path, result):
    problem = alert_state.save(path, result.state_data or {})
    if problem:
        result.lines.append("Note: " + problem)


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


# Every mm2_core module loaded with the runner (its evaluation modules above included), held by it. An alert reload
# drops the mm2_core modules from sys.modules, and under Python 2 a dropped module that nothing holds has its globals
# cleared under the functions still in use: a runner that outlives a reload (the agent-contract tests on real Ambari
# 2.7.8 run the alerts again with the runner they imported first) then met "'NoneType' object is not callable" in
# config_values and partitions. Holding them keeps each runner's modules whole; a reload gets a runner of its own.
_HELD = tuple(module for name, module in sorted(sys.modules.items())
              if name.startswith("mm2_core") and module is not None)
