"""The six MM2 alerts against a real MirrorMaker 2 (the harness's Kafka, official 3.9 by default) served by each real JMX exporter agent.

Per official exporter agent version from Maven Central (realkafka.artifacts; 1.0.1: the 1.x text layout, 0.20.0: the 0.x one), MM2 runs
between two real one-node clusters with the exporter config the driver writes (the shipped rules plus the
httpServer block of mm2_setup.exporter_http_block: TLS with the certificate alias derived from the keystore,
and Basic auth). The alerts then read the real HTTPS endpoint. The same output is compared with the
emulator the fast unit tests use (tests/alerts/exporter_sim.py), so a drift between them fails here.
"""
import os
import subprocess
import sys

import pytest

from realkafka import artifacts
from realkafka import cluster as rk

ALERTS_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "alerts")
if ALERTS_TESTS not in sys.path:
    sys.path.insert(0, ALERTS_TESTS)

from exporter_sim import Exporter, exporter_tail  # noqa: E402
from mm2_sim import Flow, MM2Process, partitions  # noqa: E402
from mm2_core.alerts import alert_config, alert_fetch, alert_runner, evaluation, metrics as m  # noqa: E402
from mm2_core.alerts import partitions as partition_reading  # noqa: E402

VERSIONS = ("1.0.1", "0.20.0")
RULES = os.path.join(rk.REPO_ROOT, "package", "files", "jmx_exporter_mm2.yaml")
USER, PASSWORD = "prometheus", "Scrape-pw-2"
KEYSTORE_PASSWORD = "Ks-pw-1"


def _skip_reason():
    if rk.skip_reason():
        return rk.skip_reason()
    for version in VERSIONS:
        reason = artifacts.skip_reason_jmx(version)
        if reason:
            return "no JMX exporter agent %s from Maven Central: %s" % (version, reason)
    if subprocess.call(["which", "openssl"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0:
        return "openssl command not available to make the metrics keystore"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def _tls(d):
    """A CA (PEM, what the alerts trust) and a PKCS12 keystore for 127.0.0.1 with one key, alias mm2-host."""
    p = lambda name: os.path.join(d, name)  # noqa: E731

    def run(*argv):
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", p("ca.key"),
        "-out", p("ca.pem"), "-subj", "/CN=MM2 metrics test CA")
    with open(p("san.cnf"), "w") as fh:
        fh.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", p("server.key"), "-out", p("server.csr"),
        "-subj", "/CN=localhost")
    run("openssl", "x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"),
        "-CAcreateserial", "-days", "2", "-out", p("server.pem"), "-extfile", p("san.cnf"))
    run("openssl", "pkcs12", "-export", "-in", p("server.pem"), "-inkey", p("server.key"), "-name", "mm2-host",
        "-out", p("metrics.p12"), "-passout", "pass:" + KEYSTORE_PASSWORD)
    return p("ca.pem"), p("metrics.p12")


class _Params(object):
    """What params.py gives exporter_http_block (names as in package/scripts/params.py)."""

    def __init__(self, keystore):
        self.mm2_metrics_ssl_enabled = True
        self.metrics_keystore = keystore
        self.metrics_keystore_type = "PKCS12"
        self.metrics_keystore_password = KEYSTORE_PASSWORD
        self.metrics_certificate_alias = ""          # derived from the keystore
        self.metrics_auth_username = USER
        self.metrics_auth_password = PASSWORD


@pytest.fixture(scope="module")
def kafka(tmp_path_factory):
    work = tmp_path_factory.mktemp("alerts-real")
    with rk.kafka_clusters(work, ("a", "b")) as clusters:
        a = clusters["a"]
        a.create_topic("orders", partitions=2)
        a.create_topic("sales.eu", partitions=2)     # Kafka writes it as sales_eu in client metric tags
        yield work, clusters


def _token_map(port, ca, work):
    env = {"mm2_metrics_enabled": "true", "mm2_metrics_port": str(port), "mm2_metrics_ssl_enabled": "true",
           "mm2_metrics_ssl_ca_file": ca, "mm2_metrics_auth_username": USER, "mm2_metrics_auth_password": PASSWORD,
           "mm2_pid_dir": str(work), "mm2_conf_dir": str(work)}
    return {
        "{{kafka-mm2-env}}": env,
        "{{kafka-mm2-clusters}}": {"topology.mode": "simple", "source.alias": "a", "target.alias": "b",
                                   "source.bootstrap.servers": "127.0.0.1:1", "target.bootstrap.servers": "127.0.0.1:2"},
        "{{kafka-mm2-replication}}": {"direction": "one-way"},
        "{{kafka-mm2-driver}}": {"target.clusters": ""},
        "{{kafka-mm2-custom}}": {}, "{{kafka-mm2-topology}}": {"content": ""}, "{{kafka-mm2-log4j}}": {},
        "{{/clusterHostInfo}}": {"mirrormaker2_driver_hosts": ["127.0.0.1"]},
    }


def _label_layout(text, family):
    """(label names in line order, trailing comma?) of a family's first sample line."""
    for line in text.split("\n"):
        if line.startswith(family + "{"):
            body = line[len(family) + 1:line.rfind("}")]
            names = [part.split("=", 1)[0] for part in body.rstrip(",").split('",')]
            return tuple(names), body.endswith(",")
    return None


@pytest.mark.parametrize("version", VERSIONS)
def test_alerts_on_real_mm2_with_tls_and_basic_auth(kafka, tmp_path, version):
    import mm2_setup   # the driver's exporter block (Ambari double on sys.path via tests/conftest.py)
    work, clusters = kafka
    a, b = clusters["a"], clusters["b"]
    kafka_version = ".".join(str(part) for part in a.version[:3])   # the distribution the harness runs
    jar = artifacts.jmx_exporter_jar(version)
    if not os.path.isfile(jar):
        pytest.skip("no %s" % jar)
    ca, keystore = _tls(str(tmp_path))
    config = os.path.join(str(tmp_path), "jmx_exporter_mm2.yaml")
    with open(RULES) as fh, open(config, "w") as out:
        out.write(fh.read() + mm2_setup.exporter_http_block(_Params(keystore)))
    port = rk.free_port()
    props = rk.mm2_test_properties({"a": a.bootstrap, "b": b.bootstrap}, ["a->b"])
    mm2 = rk.MirrorMaker(tmp_path / "mm2", props, env={"KAFKA_OPTS": "-javaagent:%s=127.0.0.1:%d:%s"
                                                                   % (jar, port, config)})
    # the process alert checks the pid file and the JVM's command line for the driver's file name
    named = os.path.join(str(tmp_path), "connect-mirror-maker.properties")
    os.rename(mm2.config, named)
    mm2.config = named
    url = "https://127.0.0.1:%d/metrics" % port
    produced = a.count("sales.eu") + 100
    with mm2:
        with open(os.path.join(str(tmp_path), "mirrormaker2.pid"), "w") as fh:
            fh.write("%d\n" % mm2.process.pid)

        def scrape():
            assert mm2.running(), mm2.log_text()[-3000:]
            got = alert_fetch.fetch(url, timeout=10, ca_file=ca, username=USER, password=PASSWORD)
            return got.text if got.ok and 'topic="a.sales.eu"' in got.text and "sales_eu" in got.text else None
        rk.wait_until(scrape, 180, 2, "MM2 (exporter %s) to run its replication task" % version)
        # records written while the task runs (a backlog from before reads as real replication latency)
        a.produce_n("orders", 100, start=produced)
        a.produce_n("sales.eu", 100, start=produced)
        rk.wait_until(lambda: b.count("a.sales.eu") >= produced, 90, 2, "a.sales.eu on b")
        text = scrape()

        # without credentials the exporter refuses; the alerts name the property to fix
        refused = alert_fetch.fetch(url, timeout=10, ca_file=ca)
        assert refused.kind == alert_fetch.AUTH, refused.error

        # the six alerts on the real endpoint (their own filtered scrape, TLS verified, Basic auth)
        tokens = _token_map(port, ca, tmp_path)
        params = {"connection.timeout": 10.0, "metrics.cache.seconds": 0, "state.directory": str(tmp_path / "state")}
        results = dict((kind, alert_runner.execute(kind, tokens, params, "127.0.0.1")) for kind in alert_runner.KINDS)
        for kind, (state, texts) in results.items():
            assert state == "OK", (version, kind, texts)
        assert "herders a->b, b->a; Kafka %s" % kafka_version in results["process"][1][0]
        assert "RUNNING" in results["tasks"][1][0]

        # the dotted topic: Kafka writes sales_eu in the consumer metrics; the joins still find it
        snap = m.Snapshot(text, alert_runner.ALL_FAMILIES)
        flows, _ = alert_config.expected_flows(alert_config.configurations(tokens), kafka_version)
        resolver = evaluation.resolver_for(snap, flows)
        lags = partition_reading.lag_by_partition(snap, resolver)
        assert lags.mode == partition_reading.FLOW_QUALIFIED
        assert ("a->b", "sales.eu", "0") in lags.by_key and ("a->b", "sales.eu", "1") in lags.by_key
        assert not any("sales_eu" in key[1] for key in lags.by_key)

        # the emulation the unit tests use writes what this agent serves
        style = "1.x" if version.startswith("1.") else "0.x"
        sim = Exporter().render(MM2Process(kafka_version, herders=[("a", "b"), ("b", "a")],
                                           flows=[Flow("a", "b", partitions("orders", 2) + partitions("sales.eu", 2))])
                                .mbeans(), style, exporter_tail())
        for family in alert_runner.ALL_FAMILIES:
            if family == m.CONSUMER_LAG:
                continue   # real MM2 also has consumers the emulator does not model in that family's order
            real_layout = _label_layout(text, family)
            if family in (m.CHECKPOINT_LATENCY, m.CHECKPOINT_LATENCY_AVG, m.CHECKPOINT_LATENCY_MAX) \
                    and real_layout is None:
                continue   # no consumer group to checkpoint in this test
            assert real_layout == _label_layout(sim, family), (version, family)
        assert (m.END_OF_SCRAPE + " ") in text and (m.END_OF_SCRAPE + " ") in sim
        assert alert_fetch.metrics.incomplete_scrape(text) is None
        # the unit tests parse the emulator's layout; the real one parses to the same series shape
        real_herders = sorted(evaluation.herders(snap))
        assert real_herders == [("a", "b"), ("b", "a")]
    assert not mm2.running()
