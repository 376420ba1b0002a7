"""Drive the BUILT mpack's scripts the way the Ambari agent does, under the real Ambari library of a line.

Python 3 only (the test process); the scripts themselves run under each Ambari line's own Python:

    line          Ambari library                        Python
    "2.7.8"       ../shared/ambari/release-2.7.8         2.7  (PYENV_VERSION=2.7.18 pyenv which python)
    "trunk"       ../shared/ambari/trunk                 3.9  (PYENV_VERSION=3.9.18 pyenv which python)

The agent (CustomServiceOrchestrator + PythonExecutor) runs
``<its python> <package>/scripts/<script>.py COMMAND command-N.json <package dir> structured-out-N.json INFO <tmp>``
with its own library dir (/usr/lib/ambari-agent/lib) on PYTHONPATH; here that is the checkout's
ambari-common/src/main/python, its ambari_jinja2 and ambari-agent/src/main/python (harness.paths.agent_library_paths),
and nothing of the test process's PYTHONPATH. Command JSON comes from harness.command (the agent's format, every
mpack property at its schema default) with paths localized under a temporary root, the Kafka home of the real
Kafka (INSTALL's existing-Kafka-home option: kafka_install_source=path) and Java 17.

API (small on purpose; other suites reuse it):

    from e2e import agent
    agent.line_skip_reason(line)  -> None or why this line cannot run here (no checkout / no Python / no Kafka)
    agent.build_mpack(out_dir)    -> Mpack (python build.py --out, tarball unpacked as install-mpack would);
                                     the `mpack` session fixture in tests/e2e/conftest.py builds it once
    d = agent.Driver(mpack, line, workdir, clusters={"A": "127.0.0.1:p", ...}, configurations={...}, ...)
    d.run("INSTALL" | "CONFIGURE" | "START" | "STATUS" | "STOP" | "REPLICATION_STATUS" | ..., configurations=..,
          command_params=.., timeout=..)  -> harness ExecutedRun (.exit_code, .output, .structured_out)
    d.service_check()             -> ExecutedRun of scripts/service_check.py
    d.alerts(thresholds=None)     -> {alert name: (state, text)}: every alerts.json definition through the real
                                     agent's ScriptAlert class of the line (tests/e2e/run_alerts.py);
                                     thresholds {alert: {parameter: value}} as edited in Ambari
    d.pid() / d.mm2_pids()        -> pid file's pid / live MM2 JVMs of this driver (found by its properties path)
    d.cleanup()                   -> kills this driver's MM2 JVMs by pid (call in finally / fixture teardown)
"""
import copy
import json
import os
import subprocess
import sys
import tarfile

import harness
from harness import paths
from mm2_core.config import names
from mm2_core.host import process
from realkafka import artifacts
from realkafka import cluster as rk

REPO_ROOT = paths.REPO_ROOT
E2E_DIR = os.path.dirname(os.path.abspath(__file__))
LINES = {
    "2.7.8": ("release-2.7.8", "2.7.18"),
    "trunk": ("trunk", "3.9.18"),
}
# What an agent host has installed beside Ambari's own library (trunk's resource_management imports `distro`,
# the ambari-agent package depends on python3-distro): tests/run.sh installs requirements-agent-py39.txt here.
AGENT_SITE = {"trunk": os.path.join(REPO_ROOT, ".venv-agent39")}
SERVICE_DIR = os.path.join("common-services", names.SERVICE, names.SERVICE_VERSION)


def ambari_src(line):
    folder = rk.shared_dir("ambari")
    return os.path.join(folder, LINES[line][0]) if folder else None


_PYTHONS = {}


def line_python(line):
    """The interpreter of an Ambari line (pyenv), or None."""
    if line not in _PYTHONS:
        env = dict(os.environ, PYENV_VERSION=LINES[line][1])
        try:
            out = subprocess.run(["pyenv", "which", "python"], env=env, capture_output=True, text=True, timeout=30)
            path = out.stdout.strip() if out.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            path = ""
        _PYTHONS[line] = path if path and os.path.isfile(path) else None
    return _PYTHONS[line]


def line_skip_reason(line):
    """None when the line can run here, else a sentence for pytest.skip."""
    reason = rk.skip_reason()
    if reason:
        return reason
    src = ambari_src(line)
    if not src or not os.path.isdir(os.path.join(src, "ambari-common", "src", "main", "python", "resource_management")):
        return "no Ambari %s checkout at ../shared/ambari/%s" % (line, LINES[line][0])
    if not line_python(line):
        return "no Python %s for Ambari %s (PYENV_VERSION=%s pyenv which python)" % (
            LINES[line][1], line, LINES[line][1])
    site = AGENT_SITE.get(line)
    if site and not os.path.isdir(os.path.join(site, "distro")):
        return "no `distro` module for Ambari %s's Python at %s (bash tests/run.sh installs it)" % (line, site)
    return None


def agent_python_path(line):
    """PYTHONPATH of a script the agent of this line starts: its library, then the host's extra packages."""
    entries = paths.agent_library_paths(ambari_src(line))
    if AGENT_SITE.get(line):
        entries.append(AGENT_SITE[line])
    return entries


class Mpack(object):
    """An unpacked built mpack: .root (<name>-<version>), .service_dir (common-services/<S>/<V>), .package_dir."""

    def __init__(self, root):
        self.root = root
        self.common_services = os.path.join(root, "common-services")
        self.service_dir = os.path.join(root, SERVICE_DIR)
        self.package_dir = os.path.join(self.service_dir, "package")

    def script(self, name):
        return os.path.join(self.package_dir, "scripts", name if name.endswith(".py") else name + ".py")

    def alert_definitions(self):
        with open(os.path.join(self.service_dir, "alerts.json")) as fh:
            return json.load(fh)[names.SERVICE][names.COMPONENT]


def build_mpack(out_dir):
    """python3 build.py --out out_dir, then unpack the tarball beside it (what install-mpack reads)."""
    result = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "build.py"), "--out", out_dir],
                            capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    if result.returncode != 0:
        raise RuntimeError("build.py failed:\n%s%s" % (result.stdout, result.stderr))
    tarballs = [f for f in os.listdir(out_dir) if f.endswith(".tar.gz")]
    assert len(tarballs) == 1, tarballs
    unpack = os.path.join(out_dir, "unpacked")
    with tarfile.open(os.path.join(out_dir, tarballs[0])) as tar:
        tar.extractall(unpack)
    (root,) = os.listdir(unpack)
    return Mpack(os.path.join(unpack, root))


def simple_configurations(source, target, source_bootstrap, target_bootstrap, direction="one-way", policy="prefixed"):
    """Simple-mode overrides for one pair of clusters (the form an operator fills in)."""
    return {
        names.CLUSTERS: {"source.alias": source, "source.bootstrap.servers": source_bootstrap,
                         "target.alias": target, "target.bootstrap.servers": target_bootstrap},
        names.REPLICATION: {"direction": direction, "replication.policy": policy},
    }


# What one-node loopback clusters need on top of the schema defaults (RF 1, fast refreshes).
TEST_REPLICATION = {
    "replication.factor": "1", "internal.topics.replication.factor": "1",
    "refresh.topics.interval.seconds": "10", "refresh.groups.interval.seconds": "10",
    "emit.checkpoints.interval.seconds": "5", "emit.heartbeats.interval.seconds": "1",
    "offset.flush.interval.ms": "2000", "tasks.max": "2",
}


def _merge(base, overrides):
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        elif value is None:
            base.pop(key, None)
        else:
            base[key] = copy.deepcopy(value)
    return base


class Driver(object):
    """One MIRRORMAKER2_DRIVER host running the built mpack's scripts under one Ambari line.

    configurations: per-case overrides deep-merged over the schema defaults (+ TEST_REPLICATION);
    hostname: the agent's hostname (127.0.0.1, so the internal REST listener stays on loopback);
    metrics: JMX exporter (the official 1.0.1 agent from Maven Central, realkafka.artifacts, via
    kafka-mm2-env/jmx_exporter_jar) on a free port.
    """

    def __init__(self, mpack, line, workdir, configurations=None, hostname="127.0.0.1", metrics=True,
                 driver_hosts=None, heap="-Xms128m -Xmx512m"):
        self.mpack = mpack
        self.line = line
        self.src = ambari_src(line)
        self.python = line_python(line)
        self.root = os.path.join(str(workdir), "host-%s" % line)
        os.makedirs(self.root, exist_ok=True)
        self.hostname = hostname
        self.driver_hosts = driver_hosts or [hostname]
        self.metrics_port = rk.free_port()
        jar = "" if artifacts.skip_reason("jmx-exporter") else artifacts.jmx_exporter_jar("1.0.1")
        # START waits for "Kafka MirrorMaker started" up to mm2_start_timeout_seconds: 240 here, not the product's
        # 120, because the 3-into-1 case starts 12 herders and took over 120 s at a load of 20 on 2 cores
        # MM2's JVM options through the product's own setting (kafka-mm2-env/mm2_jvm_opts): the client compiler and
        # the serial collector (rk.LEAN_MM2_JVM_OPTS; measured: start and copy 11.0 -> 7.9 CPU s, idle 0.044 -> 0.017
        # cores), as an operator of a small host would set them; a case may set its own
        self.env = {"kafka_install_source": "path", "kafka_home": rk.kafka_home(), "mm2_java_home": rk.java_home(),
                    "mm2_jvm_opts": rk.LEAN_MM2_JVM_OPTS, "mm2_heap_opts": heap, "mm2_start_timeout_seconds": "240", "mm2_stop_timeout_seconds": "30",
                    "mm2_metrics_enabled": "true" if metrics and jar else "false",
                    "mm2_metrics_port": str(self.metrics_port), "jmx_exporter_jar": jar}
        self.configurations = _merge({names.REPLICATION: dict(TEST_REPLICATION),
                                      names.DRIVER: {"internal.rest.port": str(rk.free_port())}},
                                     configurations)
        self.task = 0
        self.last_command = None

    # -- paths on this "host" (the localized defaults)
    def path(self, value):
        return self.root + "/sys" + value

    @property
    def conf_dir(self):
        return self.path(harness.default_configurations()[names.ENV]["mm2_conf_dir"])

    @property
    def properties_file(self):
        return os.path.join(self.conf_dir, process.PROPERTIES_FILE)

    @property
    def pid_file(self):
        return os.path.join(self.path(harness.default_configurations()[names.ENV]["mm2_pid_dir"]), process.PID_FILE)

    @property
    def log_file(self):
        return os.path.join(self.path(harness.default_configurations()[names.ENV]["mm2_log_dir"]), process.LOG_FILE)

    def pid(self):
        return process.read_pid_file(self.pid_file)[0]

    def mm2_pids(self):
        return process.find_our_processes(self.properties_file)

    # -- commands
    def command(self, command, configurations=None, role=names.COMPONENT, command_params=None):
        configs = _merge(copy.deepcopy(self.configurations), configurations)
        self.task += 1
        cmd = harness.command_json(role=role, command=command, configurations=configs, hostname=self.hostname,
                                   java_home=rk.java_home(), task_id=self.task, command_params=command_params,
                                   cluster_host_info={names.COMPONENT.lower() + "_hosts": self.driver_hosts})
        # Spark's home is a real path of this machine (like the Kafka home), not one under the host's root
        cmd = harness.localize(cmd, self.root + "/sys", keep=(names.REPLICATION + "/verify.spark.home",))
        _merge(cmd["configurations"][names.ENV], self.env)
        _merge(cmd["configurations"][names.ENV], (configurations or {}).get(names.ENV))
        self.last_command = cmd
        return cmd

    def run(self, command, script="mm2_driver", timeout=300, env=None, **kwargs):
        """env: extra environment of the agent's script process (e.g. PYSPARK_PYTHON, as an agent host sets it)."""
        cmd = self.command(command, **kwargs)
        return harness.run_script(self.mpack.script(script), cmd, os.path.join(self.root, "agent"),
                                  basedir=self.mpack.package_dir, python=self.python, timeout=timeout,
                                  python_path=agent_python_path(self.line), post_stop_max_seconds=None,
                                  extra_env=env)

    def service_check(self, timeout=300, **kwargs):
        return self.run("SERVICE_CHECK", script="service_check", role=names.SERVICE_CHECK_ROLE,
                        timeout=timeout, **kwargs)

    def alerts(self, thresholds=None, timeout=120):
        """{name: (state, text)} of every alert definition, collected by the line's real ScriptAlert.
        thresholds: {alert name: {parameter: value}}, as an operator edits them in Ambari, over LOADED_HOST."""
        full = self.last_command or self.command("STATUS")
        definitions = self.mpack.alert_definitions()
        edited = {}
        for definition in definitions:
            name = definition["name"]
            edited[name] = dict(LOADED_HOST_EVERY, **LOADED_HOST.get(name, {}))
            edited[name].update((thresholds or {}).get(name, {}))
            unknown = set(edited[name]) - set(p["name"] for p in definition["source"].get("parameters", []))
            assert not unknown, "alert %s has no parameter %s (alerts.json)" % (name, ", ".join(sorted(unknown)))
        assert not set(thresholds or {}) - set(edited), "no such alert: %s" % sorted(set(thresholds) - set(edited))
        request = {"thresholds": edited, "agent_dir": os.path.join(self.src, "ambari-agent", "src", "main", "python", "ambari_agent"),
                   "common_services": self.mpack.common_services, "definitions": definitions,
                   "state_dir": os.path.join(self.root, "alert-state"), "host": self.hostname, "full": full}
        env = harness.script_environment(python_path=agent_python_path(self.line))
        result = subprocess.run([self.python, os.path.join(E2E_DIR, "run_alerts.py")], input=json.dumps(request),
                                capture_output=True, text=True, env=env, timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError("alert run failed: %s%s" % (result.stdout, result.stderr))
        return dict((name, tuple(value)) for name, value in json.loads(result.stdout.splitlines()[-1]).items())

    def cleanup(self):
        """Kill this driver's MM2 JVMs (by pid; only processes running our properties file)."""
        for pid in self.mm2_pids():
            rk.stop_pid(pid)


# The thresholds of a test host, as an operator of a loaded host would set them: at load ~20 (CI's five real-Kafka lanes
# beside the doubles on 2 cores) the exporter answered in 2.3 s, past the process alert's 2 s warning, and that
# failed lifecycle[4]'s "process OK while the target is down" (the r8 rehearsal of 2026-11-27). The slow-endpoint
# states themselves are tested on the double (tests/alerts); here the process alert says whether MM2 runs.
LOADED_HOST = {"mm2_driver_process": {"response.time.warning": 15.0, "response.time.critical": 30.0}}
LOADED_HOST_EVERY = {"connection.timeout": 40.0}     # each run's deadline (default 5 s), above those answer times

# The lag and latency thresholds of the real-MM2 alert checks (tests/versions' lifecycle, the two-driver case): tight
# enough that a stopped target fires both within minutes, loose enough for a host at load 20+.
TEST_THRESHOLDS = {"mm2_replication_latency": {"latency.warning": 5.0, "latency.critical": 15.0},
                   "mm2_replication_lag": {"lag.warning": 20.0, "lag.critical": 200.0}}
# what the lag and latency alerts say on a host that replicates none of a flow's partitions (OK, but not joined)
NOT_JOINED = "no partition of this flow is replicated by this host"

# How long a test keeps the target down with records flowing, waiting for the lag and latency alerts to leave OK
# (the loop ends as soon as both fire): the herder loses its group after a varying time, and the lag alert calls a
# stall only after a minute of samples (at load 20 a loop turn took ~30 s: 150 s, then 180 s, were short).
TARGET_DOWN_SECONDS = 300
