"""START launches the AMS sender beside MM2 only when the cluster has Ambari Metrics; it posts what the exporter
serves to the collector named by clusterHostInfo/metrics_collector_hosts and ams-site; STOP stops it; it ends by
itself with the MM2 process it watches. A strict local collector (tests/alerts/fake_collector.py) and a static
exporter answer on 127.0.0.1; the MM2 process is the fake one."""
import os
import signal
import sys
import threading
import time

import pytest

import harness
from agent_support import alive, ok, reap
from driver_fixture import DRIVER_SCRIPT, Driver, free_port

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "alerts"))
from fake_collector import FakeCollector  # noqa: E402

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
except ImportError:   # Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer

EXPORTER_TEXT = (
    "# TYPE mm2_source_record_rate gauge\n"
    'mm2_source_record_rate{source="A",target="B",topic="A.orders",partition="0",} 12.5\n'
    "# TYPE mm2_replication_consumer_records_lag gauge\n"
    'mm2_replication_consumer_records_lag{source="A",target="B",topic="orders",partition="0",task="0",} 42.0\n'
    "# TYPE jmx_scrape_error gauge\n"
    "jmx_scrape_error 0.0\n")


class StaticExporter(object):
    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                data = EXPORTER_TEXT.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.daemon = True
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def driver(site):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    return Driver(site)


@pytest.fixture
def endpoints():
    exporter, collector = StaticExporter(), FakeCollector().start()
    yield exporter, collector
    exporter.close()
    collector.stop()


def _run(driver, command, collector=None, exporter_port=None):
    configurations = {}
    if collector is not None:
        configurations["ams-site"] = {"timeline.metrics.service.webapp.address": "0.0.0.0:%d"
                                      % int(collector.url.split(":")[2].split("/")[0])}
    cmd = driver.command(command, configurations=configurations,
                         env={"mm2_metrics_port": str(exporter_port or free_port())})
    if collector is not None:
        cmd["clusterHostInfo"]["metrics_collector_hosts"] = ["127.0.0.1"]
    return harness.run_script(DRIVER_SCRIPT, cmd, os.path.join(driver.sys_root, "agent"), timeout=180)


def _sender_pid(driver):
    path = os.path.join(driver.pid_dir, "mm2-ams-sender.pid")
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return int(fh.read().strip() or 0) or None


def _wait(predicate, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline and not predicate():
        time.sleep(0.1)
    return predicate()


def _stop_leftover(pid):
    if pid and alive(pid):
        os.kill(pid, signal.SIGKILL)
        reap(pid)


def test_no_ambari_metrics_no_sender(driver, guard):
    run = ok(_run(driver, "START"))
    assert "No Ambari Metrics collector in this cluster" in run.output
    assert _sender_pid(driver) is None
    ok(_run(driver, "STOP"))


def test_start_launches_the_sender_and_stop_stops_it(driver, guard, endpoints):
    exporter, collector = endpoints
    ok(_run(driver, "START", collector, exporter.port))
    pid = _sender_pid(driver)
    try:
        assert pid and alive(pid)
        assert _wait(lambda: collector.posts, 30), open(os.path.join(driver.log_dir, "mm2-ams-sender.log")).read()
        assert collector.refused == []
        posted = dict((r["metricname"], r) for r in collector.posts[0]["metrics"])
        assert posted["mm2.replication.records_per_sec"]["metrics"].popitem()[1] == 12.5
        assert posted["mm2.flow.A_to_B.replication.lag_records"]["hostname"] == driver.hostname
        ok(_run(driver, "STOP", collector, exporter.port))
        assert _wait(lambda: not alive(pid) or reap(pid) or not alive(pid), 10)
        assert _sender_pid(driver) is None
    finally:
        _stop_leftover(pid)


def test_sender_ends_with_the_mm2_process(driver, guard, endpoints):
    exporter, collector = endpoints
    ok(_run(driver, "START", collector, exporter.port))
    pid = _sender_pid(driver)
    try:
        assert pid and alive(pid)
        os.kill(driver.pid(), signal.SIGKILL)
        reap(driver.pid())
        assert _wait(lambda: (reap(pid) or True) and not alive(pid), 15)
    finally:
        _stop_leftover(pid)


def test_sender_command_line_reads_the_exporter_as_the_alerts_do_and_holds_no_secret():
    import mm2_ams
    from mm2_core.alerts import alert_config

    class Params(object):
        hostname = "d1.example.com"
    endpoint = alert_config.Endpoint(True, 9405, https=True, ca_file="/etc/pki/ca.pem", verify=False,
                                     username="scraper", password="s3cret")
    args = mm2_ams.command_args(Params, endpoint, ["http://c1:6188/ws/v1/timeline/metrics"], 4242,
                                "/etc/kafka-mm2/conf/" + mm2_ams.CREDENTIALS_FILE)
    line = " ".join(args)
    assert "s3cret" not in line
    assert args[args.index("--exporter-url") + 1] == "https://d1.example.com:9405/metrics"
    assert "--exporter-no-verify" in args and args[args.index("--exporter-ca-file") + 1] == "/etc/pki/ca.pem"
    assert args[args.index("--pid") + 1] == "4242"
