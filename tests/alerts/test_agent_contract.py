"""alerts.json and the alert modules as the Ambari agent sees them.

The agent (ambari_agent/alerts/script_alert.py, 2.7.8 and trunk) resolves the SCRIPT path against
its common-services cache, loads the file with imp.load_source(<alert name>, path), asks
get_tokens(), puts the value of each resolvable token into `configurations` keyed by the token
string (BaseAlert._get_configuration_value: '{{type/prop}}' under /configurations, a leading '/'
from the command root, a whole dict returned as it is), adds kerberos.kinit.timer to the
parameters and calls execute(configurations, parameters, host_name); the text it shows is
'{0}'.format(*result[1]). With MM2_AMBARI_SRC set, the real ScriptAlert class does all of this.
"""
import json
import os
import re
import sys

import pytest

from conftest import REPO, render
from mm2_core.alerts import alert_runner
from mm2_core.config import names
from mm2_sim import Flow, MM2Process, partitions

ALERTS_JSON = os.path.join(REPO, "common-services", names.SERVICE, names.SERVICE_VERSION, "alerts.json")
KIND_OF_SCRIPT = {
    "alert_mm2_process.py": "process", "alert_mm2_latency.py": "latency", "alert_mm2_lag.py": "lag",
    "alert_mm2_heartbeat.py": "heartbeat", "alert_mm2_checkpoints.py": "checkpoint", "alert_mm2_tasks.py": "tasks",
}


def _definitions():
    with open(ALERTS_JSON) as fh:
        doc = json.load(fh)
    assert list(doc) == [names.SERVICE]
    service = doc[names.SERVICE]
    assert set(service) <= {"service", names.COMPONENT}
    return service[names.COMPONENT]


def _script_path(definition, common_services):
    return os.path.join(common_services, *definition["source"]["path"].split("/"))


def _parameters(definition):
    """What ScriptAlert.__init__ builds from the definition."""
    params = dict((p["name"], p["value"]) for p in definition["source"].get("parameters", []))
    params["kerberos.kinit.timer"] = 14400000
    return params


def test_definitions_cover_every_alert_kind_with_editable_thresholds():
    definitions = _definitions()
    kinds = []
    for d in definitions:
        assert re.match(r"^mm2_[a-z_]+$", d["name"]) and d["label"].startswith("MirrorMaker 2")
        assert d["interval"] == 1 and d["scope"] == "HOST" and d["enabled"] is True
        source = d["source"]
        assert source["type"] == "SCRIPT"
        assert source["path"].startswith("%s/%s/package/alerts/" % (names.SERVICE, names.SERVICE_VERSION))
        # the tarball puts package/ under common-services/<SERVICE>/<VERSION>/
        assert os.path.isfile(os.path.join(REPO, *source["path"].split("/")[2:]))
        kind = KIND_OF_SCRIPT[source["path"].rsplit("/", 1)[1]]
        kinds.append(kind)
        params = dict((p["name"], p) for p in source["parameters"])
        wname, cname, wdef, cdef, unit = alert_runner.THRESHOLDS[kind]
        for pname, default, threshold in ((wname, wdef, "WARNING"), (cname, cdef, "CRITICAL")):
            p = params[pname]
            assert p["type"] == "NUMERIC" and p["threshold"] == threshold and p["value"] == default
            assert p.get("visibility", "VISIBLE") == "VISIBLE" and p["units"] and p["display_name"]
        assert params[alert_runner.P_TIMEOUT]["value"] == alert_runner.DEFAULT_TIMEOUT
        assert params[alert_runner.P_TIMEOUT]["units"] == "seconds"
        assert params[alert_runner.P_CACHE]["visibility"] == "HIDDEN"
        assert params[alert_runner.P_STATE_DIR]["visibility"] == "HIDDEN"
        for p in source["parameters"]:
            assert set(p) <= {"name", "display_name", "units", "value", "description", "type", "visibility",
                              "threshold"}
            assert p["type"] in ("NUMERIC", "PERCENT", "STRING")
    assert sorted(kinds) == sorted(alert_runner.KINDS)


@pytest.fixture
def common_services(tmpdir):
    """The agent's cache layout: <cache>/common-services/KAFKA_MIRRORMAKER2/1.0.0/package -> package/."""
    root = tmpdir.mkdir("cache").mkdir("common-services")
    version_dir = root.mkdir(names.SERVICE).mkdir(names.SERVICE_VERSION)
    os.symlink(os.path.join(REPO, "package"), str(version_dir.join("package")))
    return str(root)


def _load_source(name, path):
    try:
        import imp
    except ImportError:  # Python 3.12+ has no imp; the agent lines we target (2.7, 3.9/3.10) do
        imp = None
    if imp is not None:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return imp.load_source(name, path)
    from importlib.machinery import SourceFileLoader
    return SourceFileLoader(name, path).load_module()


def _lookup(full, key):
    """BaseAlert.get_configuration_value (identical rules)."""
    if not key.startswith("/"):
        key = "/configurations/" + key
    node = full
    try:
        for part in [p for p in key.split("/") if p]:
            node = node[part]
        return node
    except KeyError:
        return None


def _resolve(full, token):
    """BaseAlert._get_configuration_value (identical rules)."""
    keys = re.findall(r"{{(\S+?)}}", token)
    if not keys:
        return token
    resolved = token
    for key in keys:
        value = _lookup(full, key)
        if value is None:
            return None
        if isinstance(value, dict):
            return value
        resolved = resolved.replace("{{%s}}" % key, value)
    return resolved


def _full_configuration(port, host):
    """What ConfigurationBuilder.get_configuration hands the alert (the parts that matter here)."""
    return {
        "configurations": {
            names.ENV: {"mm2_metrics_enabled": "true", "mm2_metrics_port": str(port), "mm2_pid_dir": "/nonexistent",
                        "mm2_conf_dir": "/nonexistent", "jmx_exporter_jar": "/usr/share/java/jmx_prometheus_javaagent.jar"},
            names.CLUSTERS: {"topology.mode": "simple", "source.alias": "A", "target.alias": "B",
                             "source.bootstrap.servers": "a1:9092", "target.bootstrap.servers": "b1:9092"},
            names.REPLICATION: {"direction": "one-way", "sync.group.offsets.enabled": "true"},
            names.DRIVER: {"target.clusters": ""},
            names.CUSTOM: {},
            names.TOPOLOGY: {"content": ""},
            names.LOG4J: {},
        },
        "configurationAttributes": {},
        "clusterHostInfo": {"mirrormaker2_driver_hosts": [host], "all_hosts": [host]},
        "agentLevelParams": {"hostname": host},
        "clusterName": "c1",
    }


@pytest.fixture
def keep_core_modules():
    """The alert loader drops this process's mm2_core and imports the copy beside the alert files
    (as the agent does after an mpack update); put the suite's own modules back afterwards, or later
    tests would run the temporary copy (and, on Python 2, find the dropped modules' globals cleared)."""
    saved = dict((k, v) for k, v in sys.modules.items() if k == "mm2_core" or k.startswith("mm2_core."))
    yield
    for name in [n for n in sys.modules if n == "mm2_core" or n.startswith("mm2_core.")]:
        del sys.modules[name]
    sys.modules.update(saved)


def test_each_alert_module_runs_as_the_agent_loads_it(metrics_server, common_services, tmpdir, keep_core_modules):
    process = MM2Process("3.7.1", herders=[("A", "B"), ("B", "A")], flows=[Flow("A", "B", partitions("t", 3))])
    server = metrics_server(render(process))
    host = "127.0.0.1"
    full = _full_configuration(server.port, host)
    for definition in _definitions():
        module = _load_source(definition["name"], _script_path(definition, common_services))
        tokens = module.get_tokens()
        assert "{{%s}}" % names.ENV in tokens and "{{/clusterHostInfo}}" in tokens
        configurations = {}
        for token in tokens:
            value = _resolve(full, token)
            if value is not None:
                configurations[token] = value
        params = _parameters(definition)
        params["state.directory"] = str(tmpdir.join("state"))
        result = module.execute(configurations, params, host)
        assert isinstance(result, tuple) and len(result) == 2
        state, texts = result
        text = "{0}".format(*texts)
        if definition["name"] == "mm2_driver_process":
            assert state == "CRITICAL" and "not running" in text   # no MM2 pid file on this test host
        else:
            assert state == "OK", (definition["name"], text)
            assert "A->B" in text or "RUNNING" in text
    assert len(server.requests) == 1   # five alerts, one scrape (the default reuse window)


class _NoMM2Core(object):
    """Import hook that makes mm2_core unimportable, as on an agent whose cache lost package/scripts."""

    @staticmethod
    def _ours(name):
        return name == "mm2_core" or name.startswith("mm2_core.")

    def find_spec(self, name, path=None, target=None):  # Python 3
        if self._ours(name):
            raise ImportError("No module named %s" % name)
        return None

    def find_module(self, name, path=None):  # Python 2
        return self if self._ours(name) else None

    def load_module(self, name):
        raise ImportError("No module named %s" % name)


def test_broken_code_location_is_unknown_not_an_exception(tmpdir):
    """A damaged agent cache (no package/scripts next to package/alerts) must not raise into the agent."""
    alerts = tmpdir.mkdir("pkg").mkdir("alerts")
    src = os.path.join(REPO, "package", "alerts", "alert_mm2_lag.py")
    dst = alerts.join("alert_mm2_lag.py")
    dst.write(open(src).read())
    # the shared entry code always ships beside the alert files (package/alerts)
    loader = os.path.join(REPO, "package", "alerts", "mm2_alert_loader.py")
    alerts.join("mm2_alert_loader.py").write(open(loader).read())
    saved = dict((k, v) for k, v in sys.modules.items() if k == "mm2_core" or k.startswith("mm2_core."))
    saved_path = list(sys.path)
    # An agent never has mm2_core installed; a developer venv may (pip install -e .), so block it.
    blocker = _NoMM2Core()
    sys.meta_path.insert(0, blocker)
    try:
        sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith(os.path.join("package", "scripts"))]
        for k in saved:
            del sys.modules[k]
        module = _load_source("mm2_lag_broken", str(dst))
        assert module.get_tokens() == ()
        state, texts = module.execute({}, {}, "h")
        assert state == "UNKNOWN" and "could not load its code" in texts[0]
    finally:
        sys.meta_path.remove(blocker)
        sys.path[:] = saved_path
        sys.modules.update(saved)


def test_execute_never_raises_on_garbage_input():
    for configurations in (None, {}, {"{{kafka-mm2-env}}": "not a dict"}, {"{{kafka-mm2-env}}": {"mm2_metrics_port": None}}):
        for params in (None, {}, {"latency.warning": "x", "connection.timeout": "soon"}):
            state, texts = alert_runner.execute("latency", configurations, params, "127.0.0.1")
            assert state in ("OK", "WARNING", "CRITICAL", "UNKNOWN") and isinstance(texts[0], str)
    assert alert_runner.execute("nonsense", {}, {}, "h")[0] == "UNKNOWN"


@pytest.mark.skipif(not os.environ.get("MM2_AMBARI_SRC"), reason="needs a real Ambari checkout (MM2_AMBARI_SRC)")
def test_real_script_alert_class(metrics_server, common_services, tmpdir):
    """The real ambari_agent ScriptAlert loads and runs every definition (local extra confidence)."""
    agent_dir = os.path.join(os.environ["MM2_AMBARI_SRC"], "ambari-agent", "src", "main", "python", "ambari_agent")
    shadow = sys.modules.pop("alerts", None)   # this test directory is named 'alerts' too
    sys.path.insert(0, agent_dir)
    try:
        from alerts.script_alert import ScriptAlert
    finally:
        sys.path.remove(agent_dir)
        if shadow is not None:
            sys.modules["alerts"] = shadow

    class Config(object):
        def get(self, section, key, default=None):
            return default

    class Collector(object):
        def __init__(self):
            self.data = []

        def put(self, cluster, data):
            self.data.append(data)

    class Builder(object):
        def __init__(self, full):
            self.full = full

        def get_configuration(self, cluster_id, service, component, configurations_timestamp=None):
            return self.full

    process = MM2Process("4.0.0", herders=[("A", "B"), ("B", "A")], flows=[Flow("A", "B", partitions("t", 2))])
    server = metrics_server(render(process))
    full = _full_configuration(server.port, "127.0.0.1")
    for i, definition in enumerate(_definitions()):
        meta = dict(definition, definitionId=i, uuid="u%d" % i)
        source = json.loads(json.dumps(definition["source"]))
        source["parameters"].append({"name": "state.directory", "value": str(tmpdir.join("state"))})
        source["common_services_directory"] = common_services
        alert = ScriptAlert(meta, source, Config())
        collector = Collector()
        alert.set_helpers(collector, None, Builder(full))
        alert.set_cluster("c1", 1, "127.0.0.1")
        alert.collect()
        data = collector.data[0]
        expected = "CRITICAL" if definition["name"] == "mm2_driver_process" else "OK"
        assert data["state"] == expected, data
        assert data["text"]
