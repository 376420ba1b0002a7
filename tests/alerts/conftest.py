"""Fixtures of the alert tests: a real local metrics server, payload builders, the alert runner."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from exporter_sim import Exporter, exporter_tail  # noqa: E402
from metrics_server import MetricsServer  # noqa: E402
from mm2_core.alerts import alert_fetch, alert_runner  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
ALERTS_DIR = os.path.join(REPO, "package", "alerts")

_EXPORTER = []


def exporter():
    if not _EXPORTER:
        _EXPORTER.append(Exporter())
    return _EXPORTER[0]


def render(process, style=None):
    """Exporter text for an MM2Process (1.x style from 3.5 on, 0.x before: both are realistic)."""
    if style is None:
        style = "1.x" if process.vt >= (3, 5, 0) else "0.x"
    return exporter().render(process.mbeans(), style, exporter_tail())


@pytest.fixture
def metrics_server():
    """Factory: start a MetricsServer on 127.0.0.1 (ephemeral port); all are stopped afterwards."""
    servers = []

    def start(payload="", **kwargs):
        server = MetricsServer(payload, **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(autouse=True)
def _fresh_fetch_cache():
    alert_fetch.clear_cache()
    yield
    alert_fetch.clear_cache()


def token_map(port, clusters=None, replication=None, driver=None, env=None, custom=None, hosts=None,
              topology=None):
    """configurations as script_alert.py hands them to execute(): keyed by the token strings."""
    env_props = {"mm2_metrics_enabled": "true", "mm2_metrics_port": str(port),
                 "mm2_pid_dir": "/nonexistent/mm2-pid", "mm2_conf_dir": "/nonexistent/mm2-conf"}
    env_props.update(env or {})
    result = {
        "{{kafka-mm2-env}}": env_props,
        "{{kafka-mm2-clusters}}": dict({"topology.mode": "simple", "source.alias": "A", "target.alias": "B",
                                        "source.bootstrap.servers": "a1.example.com:9092",
                                        "target.bootstrap.servers": "b1.example.com:9092"},
                                       **(clusters or {})),
        "{{kafka-mm2-replication}}": dict({"direction": "one-way", "sync.group.offsets.enabled": "false"},
                                          **(replication or {})),
        "{{kafka-mm2-driver}}": dict({"target.clusters": ""}, **(driver or {})),
        "{{kafka-mm2-custom}}": dict(custom or {}),
        "{{kafka-mm2-topology}}": dict({"content": ""}, **(topology or {})),
        "{{kafka-mm2-log4j}}": {},
    }
    if hosts is not None:
        result["{{/clusterHostInfo}}"] = {"mirrormaker2_driver_hosts": list(hosts), "all_hosts": list(hosts)}
    return result


@pytest.fixture
def run_alert(tmpdir):
    """run_alert(kind, port, params={}, now=None, host='127.0.0.1', **token_kwargs) -> (state, text)."""
    state_dir = str(tmpdir.join("state"))

    def run(kind, port, params=None, now=None, host="127.0.0.1", **kwargs):
        parameters = {"connection.timeout": 2.0, "metrics.cache.seconds": 0, "state.directory": state_dir}
        parameters.update(params or {})
        state, texts = alert_runner.execute(kind, token_map(port, **kwargs), parameters, host, now=now)
        assert isinstance(texts, list) and len(texts) == 1
        return state, texts[0]

    run.state_dir = state_dir
    return run


@pytest.fixture(scope="session")
def tls_files(tmpdir_factory):
    """A CA and a server certificate for 127.0.0.1 / localhost (openssl CLI), plus a foreign CA."""
    if subprocess.call(["which", "openssl"], stdout=open(os.devnull, "w"), stderr=subprocess.STDOUT) != 0:
        pytest.skip("openssl command not available to make test certificates")
    d = tmpdir_factory.mktemp("tls")
    p = lambda name: str(d.join(name))  # noqa: E731
    null = open(os.devnull, "w")
    try:
        for ca in ("ca", "other-ca"):
            subprocess.check_call(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                   "-keyout", p(ca + ".key"), "-out", p(ca + ".pem"), "-subj", "/CN=MM2 test " + ca],
                                  stdout=null, stderr=null)
        with open(p("san.cnf"), "w") as fh:
            fh.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        subprocess.check_call(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", p("server.key"),
                               "-out", p("server.csr"), "-subj", "/CN=localhost"], stdout=null, stderr=null)
        subprocess.check_call(["openssl", "x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"),
                               "-CAkey", p("ca.key"), "-CAcreateserial", "-days", "2", "-out", p("server.pem"),
                               "-extfile", p("san.cnf")], stdout=null, stderr=null)
    finally:
        null.close()
    return {"ca": p("ca.pem"), "other_ca": p("other-ca.pem"), "cert": p("server.pem"), "key": p("server.key")}
