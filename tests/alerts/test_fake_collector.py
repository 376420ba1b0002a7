"""The fake AMS collector (fake_collector.py) holds to the real collector's model and answers.

The model is TimelineMetric / TimelineMetrics of apache/ambari-metrics (ambari-metrics-common/src/main/java/org/
apache/hadoop/metrics2/sink/timeline/TimelineMetric.java and TimelineMetrics.java at
b1ac7d78d73818ae896bff279ef7d3f27ef76741); the answers are TimelineWebServices.postMetrics and
PhoenixHBaseAccessor.insertMetricRecordsWithMetadata / commitMetrics (see fake_collector's docstring).
When those Java sources are on this machine (AMS_SOURCES: an apache/ambari-metrics checkout or bare git
directory; by default the local mirror), the field table is read from TimelineMetric.java itself.
"""
import json
import os
import re
import subprocess

import pytest

from fake_collector import BATCH_FIELDS, PATH, RECORD_FIELDS, FakeCollector, verdict

try:
    from urllib.request import Request, urlopen
    from urllib.error import HTTPError
except ImportError:
    from urllib2 import Request, urlopen, HTTPError

# TimelineMetric's @XmlElement names and getter types, as read in TimelineMetric.java (b1ac7d78)
MODEL = {"metricname": "String", "appid": "String", "instanceid": "String", "hostname": "String",
         "timestamp": "long", "starttime": "long", "type": "String", "units": "String",
         "metrics": "TreeMap<Long, Double>", "metadata": "HashMap<String,String>"}
MODEL_JAVA = "ambari-metrics-common/src/main/java/org/apache/hadoop/metrics2/sink/timeline/TimelineMetric.java"
GOOD = {"metricname": "mm2.replication.lag_records", "appid": "mirrormaker2_driver", "hostname": "d1",
        "starttime": 1700000000000, "timestamp": 1700000000000, "type": "GAUGE", "units": "records",
        "metrics": {"1700000000000": 5.0}}


def _java_source():
    where = os.environ.get("AMS_SOURCES", "/work/.mirror/apache+ambari-metrics/repo")
    if os.path.isfile(os.path.join(where, MODEL_JAVA)):
        with open(os.path.join(where, MODEL_JAVA)) as fh:
            return fh.read()
    if os.path.isdir(where):
        try:
            return subprocess.check_output(["git", "--git-dir", where, "show", "HEAD:" + MODEL_JAVA],
                                           stderr=subprocess.STDOUT).decode("utf-8")
        except (OSError, subprocess.CalledProcessError):
            return None
    return None


def _norm(java_type):
    return java_type.replace(" ", "")


def test_the_field_table_is_the_models():
    assert sorted(RECORD_FIELDS) == sorted(MODEL)
    assert dict((k, _norm(v)) for k, v in RECORD_FIELDS.items()) == dict((k, _norm(v)) for k, v in MODEL.items())
    assert list(BATCH_FIELDS) == ["metrics"]


def test_the_field_table_against_timelinemetric_java():
    source = _java_source()
    if source is None:
        pytest.skip("apache/ambari-metrics sources not on this machine (set AMS_SOURCES)")
    found = dict((name, _norm(java_type)) for name, java_type in re.findall(
        r'@XmlElement\(name\s*=\s*"(\w+)"[^)]*\)\s*public\s+([\w<>, ]+?)\s+get\w+\s*\(', source))
    assert found == dict((k, _norm(v)) for k, v in MODEL.items())


@pytest.mark.parametrize("change,status", [
    ({}, 200),
    ({"flow": "A->B"}, 400),                              # not a TimelineMetric field
    ({"metrics": {"now": 1.0}}, 400),                     # TreeMap<Long, Double> key
    ({"metrics": {"1.5": 1.0}}, 400),
    ({"metrics": {"99999999999999999999": 1.0}}, 400),    # beyond a long
    ({"metrics": {"1": None}}, 400),
    ({"metrics": {"1": "1.0"}}, 400),                     # a number as text: Jackson coerces, the fake does not
    ({"metrics": [1.0]}, 400),
    ({"starttime": "1"}, 400),
    ({"starttime": 1.5}, 400),
    ({"timestamp": True}, 400),
    ({"hostname": 7}, 400),
    ({"metadata": {"k": 1}}, 400),
    ({"appid": None}, 500),                               # tm.getAppId().equals(...)
    ({"metricname": ""}, 500),
])
def test_one_record(change, status):
    record = dict(GOOD, **change)
    assert verdict({"metrics": [record]})[0] == status, change


@pytest.mark.parametrize("change,why", [
    ({"metrics": {}}, "no values"),
    ({"hostname": None}, "no hostname"),
    ({"starttime": None}, "starttime 0 or missing"),
    ({"starttime": 0}, "starttime 0 or missing"),
])
def test_records_the_real_collector_takes_but_never_stores(change, why):
    record = dict(GOOD, **change)
    record = dict((k, v) for k, v in record.items() if v is not None)
    status, refused, dropped = verdict({"metrics": [dict(GOOD), record]})
    assert (status, refused, sorted(dropped)) == (200, [], [1]) and why in dropped[1]


def test_the_batch():
    assert verdict({"metrics": [GOOD], "host": "d1"})[0] == 400
    assert verdict({"metrics": {"x": GOOD}})[0] == 400
    assert verdict([GOOD])[0] == 400
    assert verdict({}) == (200, [], {})                   # an empty TimelineMetrics: nothing to store
    assert verdict({"metrics": None}) == (200, [], {})


@pytest.fixture
def collector():
    c = FakeCollector().start()
    yield c
    c.stop()


def _post(url, body, content_type="application/json"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    try:
        resp = urlopen(Request(url, data=data, headers={"Content-Type": content_type}), timeout=10)
        return resp.getcode(), json.loads(resp.read().decode("utf-8"))
    except HTTPError as e:
        return e.code, json.loads(e.read().decode("utf-8"))


def test_over_http(collector):
    url = collector.url
    assert url.endswith(PATH)
    assert _post(url, {"metrics": [GOOD]}) == (200, {"errors": []})
    assert collector.posts == [{"metrics": [GOOD]}]
    assert _post(url, {"metrics": [GOOD]}, "text/plain")[0] == 415
    assert _post(url, b"{not json")[0] == 400
    assert _post(url, {"metrics": [dict(GOOD, flow="x")]})[0] == 400
    assert _post(url, {"metrics": [dict(GOOD, appid=None)]})[0] == 500
    assert len(collector.refused) == 3
    assert _post(url, {"metrics": [GOOD, dict(GOOD, metrics={})]}) == (200, {"errors": []})
    assert collector.posts[-1] == {"metrics": [GOOD]} and len(collector.dropped) == 1
    assert _post(url.replace(PATH, "/ws/v1/timeline/other"), {"metrics": []})[0] == 404
