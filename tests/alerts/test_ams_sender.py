"""The AMS sender: what it posts (checked by a strict local collector, parsed as the real collector parses it),
the bound on series, and that a missing, refusing, failing or slow collector costs a bounded wait and nothing else."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, render
from fake_collector import FakeCollector, problems
from metrics_server import free_port
from mm2_core.alerts import ams_sender, service_metrics as sm
from mm2_core.alerts import metrics as m
from mm2_sim import Checkpoint, Flow, MM2Process, partitions

NOW = 1700000100.0


@pytest.fixture
def collector():
    started = []

    def start(**kwargs):
        c = FakeCollector(**kwargs).start()
        started.append(c)
        return c
    yield start
    for c in started:
        c.stop()


def _process(flows, version="3.7.1", **kwargs):
    return MM2Process(version, flows=flows, **kwargs)


def _snap(process):
    return m.Snapshot(render(process), ams_sender.FAMILIES, fetched_at=NOW)


def _by_name(posted):
    return dict((r["metricname"], r) for r in posted["metrics"])


def test_collector_urls_only_with_ambari_metrics():
    assert ams_sender.collector_urls({"mirrormaker2_driver_hosts": ["d1"]}, {}) == []
    assert ams_sender.collector_urls({"metrics_collector_hosts": []}, {"timeline.metrics.service.webapp.address":
                                                                      "0.0.0.0:6188"}) == []
    assert ams_sender.collector_urls({"metrics_collector_hosts": ["c2", "c1"]},
                                     {"timeline.metrics.service.webapp.address": "0.0.0.0:6189"}) == [
        "http://c1:6189/ws/v1/timeline/metrics", "http://c2:6189/ws/v1/timeline/metrics"]
    assert ams_sender.collector_urls({"metrics_collector_hosts": ["c1"]},
                                     {"timeline.metrics.service.http.policy": "HTTPS_ONLY"}) == [
        "https://c1:6188/ws/v1/timeline/metrics"]


def test_values_per_flow_and_host_from_the_exporter():
    flows = [Flow("A", "B", partitions("orders", 3, latency_avg=1500.0, lag=40.0),
                  checkpoints=[Checkpoint("billing", "orders", 1)]),
             Flow("C", "B", partitions("events", 2, latency_avg=250.0, lag=7.0))]
    state = ams_sender.SenderState(NOW - 30)
    host, per_flow = ams_sender.compute(_snap(_process(flows, add_source_alias=True)), NOW, state)
    assert sorted(per_flow) == ["A_to_B", "C_to_B"]
    assert per_flow["A_to_B"]["latency"] == pytest.approx(1.5)
    assert per_flow["A_to_B"]["lag"] == 40.0
    assert host["latency"] == pytest.approx(1.5) and host["lag"] == 40.0
    assert host["failed_tasks"] == 0.0
    # ages: counted from the sender's start on first sight, 0 once the heartbeat count moves
    assert per_flow["A_to_B"]["heartbeat_age"] == pytest.approx(30.0)
    assert per_flow["A_to_B"]["checkpoint_age"] == pytest.approx(30.0)
    moved = [Flow("A", "B", partitions("orders", 3, latency_avg=1500.0, lag=40.0), heartbeat_count=121.0,
                  checkpoints=[Checkpoint("billing", "orders", 1, last=36.0)])]
    _, later = ams_sender.compute(_snap(_process(moved, add_source_alias=True)), NOW + 60, state)
    assert later["A_to_B"]["heartbeat_age"] == 0.0 and later["A_to_B"]["checkpoint_age"] == 0.0
    _, still = ams_sender.compute(_snap(_process(moved, add_source_alias=True)), NOW + 120, state)
    assert still["A_to_B"]["heartbeat_age"] == pytest.approx(60.0)
    assert "C_to_B" not in still and ("C", "B", "C.heartbeats") not in state.heartbeats


def test_failed_tasks_counted_per_host():
    process = _process([Flow("A", "B", partitions("orders", 1))], task_status={("MirrorSourceConnector", 0): "failed"})
    host, _ = ams_sender.compute(_snap(process), NOW, ams_sender.SenderState(NOW))
    assert host["failed_tasks"] >= 1.0


def test_posted_shape_is_what_the_collector_parses(collector):
    c = collector()
    flows = [Flow("A", "B", partitions("orders", 2, lag=5.0))]
    host, per_flow = ams_sender.compute(_snap(_process(flows)), NOW, ams_sender.SenderState(NOW))
    body = ams_sender.encode(ams_sender.payload("d1.example.com", NOW, host, per_flow))
    took, errors = ams_sender.send([c.url], body, timeout=5.0)
    assert (took, errors, c.refused) == (c.url, [], [])
    posted = _by_name(c.posts[0])
    assert posted["mm2.replication.lag_records"]["metrics"] == {str(int(NOW * 1000)): 5.0}
    assert posted["mm2.flow.A_to_B.replication.lag_records"]["hostname"] == "d1.example.com"
    assert set(r["appid"] for r in c.posts[0]["metrics"]) == {"mirrormaker2_driver"}
    assert "mm2.flow.A_to_B.tasks.failed" not in posted   # connect's MBeans carry no flow


def test_strict_collector_refuses_what_jackson_refuses():
    good = {"metricname": "x", "appid": "a", "hostname": "h", "starttime": 1, "metrics": {"1": 1.0}}
    assert problems({"metrics": [good]}) == []
    assert problems({"metrics": [dict(good, flow="A->B")]})
    assert problems({"metrics": [dict(good, metrics={"now": 1.0})]})
    assert problems({"metrics": [dict(good, starttime="1")]})
    assert problems({"metrics": [dict(good, appid=None)]})
    assert problems({"metrics": [good], "host": "h"})


def test_series_are_bounded_whatever_the_number_of_flows():
    flows = [Flow("S%02d" % i, "T", partitions("t", 2, latency_avg=100.0 * i, lag=float(i))) for i in range(35)]
    host, per_flow = ams_sender.compute(_snap(_process(flows, add_source_alias=True)), NOW,
                                        ams_sender.SenderState(NOW))
    assert len(per_flow) == 35
    posted = ams_sender.payload("d1", NOW, host, per_flow)["metrics"]
    assert len(posted) <= sm.MAX_SERIES_PER_HOST
    sent_flows = set(r["metricname"].split(".")[2] for r in posted if r["metricname"].startswith(sm.FLOW_PREFIX))
    # the worst TOP_FLOWS flows by latency are the ones sent
    assert sent_flows == set("S%02d_to_T" % i for i in range(35 - sm.TOP_FLOWS, 35))
    assert len(ams_sender.encode({"metrics": posted})) <= ams_sender.MAX_BODY_BYTES


def test_collector_down_refusing_or_failing_is_an_error_not_an_exception(collector):
    body = ams_sender.encode({"metrics": []})
    down = "http://127.0.0.1:%d/ws/v1/timeline/metrics" % free_port()
    took, errors = ams_sender.send([down], body, timeout=2.0)
    assert took is None and "connection refused" in errors[0]
    failing = collector(status=500)
    took, errors = ams_sender.send([failing.url], body, timeout=2.0)
    assert took is None and "HTTP 500" in errors[0]


def test_slow_collector_is_left_at_the_deadline_and_the_next_collector_takes_it(collector):
    slow = collector(delay=30.0)
    ok = collector()
    body = ams_sender.encode({"metrics": []})
    took, errors = ams_sender.send([slow.url, ok.url], body, timeout=0.5)
    assert took == ok.url and "timed out" in errors[0]
    assert slow.posts == [] and len(ok.posts) == 1


def test_sender_process_once_end_to_end(collector, metrics_server, tmpdir):
    """The shipped script: scrapes the exporter on 127.0.0.1, posts to the collector, exits 0; with the collector
    down it exits 1 and says why."""
    exporter = metrics_server(render(_process([Flow("A", "B", partitions("orders", 2, lag=3.0))])))
    c = collector()
    script = os.path.join(REPO, "package", "scripts", "mm2_ams_sender.py")
    base = [sys.executable, script, "--exporter-url", "http://127.0.0.1:%d/metrics" % exporter.port,
            "--hostname", "d1.example.com", "--pid", str(os.getpid()), "--once", "--timeout", "3"]
    proc = subprocess.Popen(base + ["--collector", c.url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.communicate()[0].decode("utf-8", "replace")
    assert proc.returncode == 0, out
    assert c.refused == [] and "mm2.replication.lag_records" in _by_name(c.posts[0])
    down = "http://127.0.0.1:%d/ws/v1/timeline/metrics" % free_port()
    proc = subprocess.Popen(base + ["--collector", down], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.communicate()[0].decode("utf-8", "replace")
    assert proc.returncode == 1 and "connection refused" in out, out


def test_generated_files_agree_with_the_list():
    service = os.path.join(REPO, "common-services", "KAFKA_MIRRORMAKER2", "1.0.0")
    with open(os.path.join(service, "metrics.json")) as fh:
        metrics_json = json.load(fh)
    with open(os.path.join(service, "widgets.json")) as fh:
        widgets = json.load(fh)
    component = metrics_json["MIRRORMAKER2_DRIVER"]["Component"][0]["metrics"]["default"]
    for widget in widgets["layouts"][0]["widgetLayoutInfo"]:
        for metric in widget["metrics"]:
            base_path = metric["metric_path"].rsplit("._", 1)[0]
            assert component[base_path]["metric"] == metric["name"].rsplit("._", 1)[0]
    numbers = dict((w["widget_name"], w["properties"]) for w in widgets["layouts"][0]["widgetLayoutInfo"]
                   if w["widget_type"] == "NUMBER")
    assert numbers["Worst replication latency"]["error_threshold"] == "120"
    assert numbers["Failed connectors and tasks"]["warning_threshold"] == "1"
