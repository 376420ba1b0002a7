"""A strict local Ambari Metrics collector: POST /ws/v1/timeline/metrics on 127.0.0.1 (Python 2.7 and 3).

Its rules are the real collector's (apache/ambari-metrics at b1ac7d78d73818ae896bff279ef7d3f27ef76741):
- ambari-metrics-timelineservice/src/main/java/org/apache/ambari/metrics/webapp/TimelineWebServices.java,
  postMetrics: @Consumes application/json (else 415); the body is read into TimelineMetrics by Jackson 1
  (AMSWebApp binds YarnJacksonJaxbJsonProvider: JAXB names, unknown properties fail); any exception while
  storing is answered 500 ("Error saving metrics."); success is a TimelinePutResponse, {"errors": []}.
- ambari-metrics-common/src/main/java/org/apache/hadoop/metrics2/sink/timeline/TimelineMetrics.java: one
  field, "metrics" (List<TimelineMetric>); TimelineMetric.java: metricname, appid, instanceid, hostname, type,
  units (String), timestamp, starttime (primitive long), metrics (TreeMap<Long, Double>), metadata
  (HashMap<String, String>). A body Jackson cannot map (other keys, other types) is answered 400.
- ambari-metrics-timelineservice/.../core/timeline/PhoenixHBaseAccessor.java: insertMetricRecordsWithMetadata
  calls tm.getAppId().equals(...) on every record (a null appid: NullPointerException, 500); commitMetrics
  writes a record only when it has values (count of values != 0) and a UUID, which needs the metric name and
  the host name (TimelineMetricMetadataManager.getUuid), at its starttime (the row's time).
What the real collector takes with 200 but never stores (no values, no host name, starttime 0 or missing,
which Jackson reads as 0 for a primitive long) the fake also answers 200, lists in `dropped` and keeps out of
`posts`, so a test reading `posts` sees what a graph would show.
Deliberately stricter than Jackson 1: a number sent as a JSON string, or a float for a long, is refused (the
real one coerces), so the sender is held to the model's types.
"""
import json
import re

from local_server import LocalServer

try:
    from BaseHTTPServer import BaseHTTPRequestHandler
except ImportError:
    from http.server import BaseHTTPRequestHandler

PATH = "/ws/v1/timeline/metrics"
# TimelineMetric's JAXB names and Java types
RECORD_FIELDS = {"metricname": "String", "appid": "String", "instanceid": "String", "hostname": "String",
                 "timestamp": "long", "starttime": "long", "type": "String", "units": "String",
                 "metrics": "TreeMap<Long,Double>", "metadata": "HashMap<String,String>"}
BATCH_FIELDS = {"metrics": "List<TimelineMetric>"}
_LONG_TEXT = re.compile(r"^[+-]?[0-9]+$")   # Long.parseLong, which reads the TreeMap's keys
_LONG_RANGE = (-2 ** 63, 2 ** 63 - 1)
try:
    _STR = (str, unicode)  # noqa: F821 (Python 2)
    _INT = (int, long)  # noqa: F821
except NameError:
    _STR = (str,)
    _INT = (int,)


def _is_long(value):
    return isinstance(value, _INT) and not isinstance(value, bool) and _LONG_RANGE[0] <= value <= _LONG_RANGE[1]


def _type_problem(kind, value):
    """Why Jackson (held to the declared type) cannot map value into a field of this Java type, or None."""
    if value is None:
        return None   # a null object field; a primitive long reads as 0 (judged by the storing rules)
    if kind == "String":
        return None if isinstance(value, _STR) else "is not a string"
    if kind == "long":
        return None if _is_long(value) else "is not a long"
    if kind == "HashMap<String,String>":
        ok = isinstance(value, dict) and all(isinstance(v, _STR) or v is None for v in value.values())
        return None if ok else "is not a map of strings"
    if not isinstance(value, dict):   # TreeMap<Long,Double>
        return "is not an object"
    for key, number in value.items():
        if not (_LONG_TEXT.match(key) and _is_long(int(key))):
            return "key %r is not a long" % key
        if number is None or isinstance(number, bool) or not isinstance(number, _INT + (float,)):
            return "[%s] is not a number" % key
    return None


def verdict(obj):
    """(status, refusals, dropped) as the real collector would answer the parsed body: 400 when Jackson cannot
    map it, 500 when storing throws, else 200 and {index: why} of the records it would not store."""
    if not isinstance(obj, dict):
        return 400, ["the body is not a JSON object"], {}
    refused = ["unknown field %r of TimelineMetrics" % k for k in obj if k not in BATCH_FIELDS]
    records = obj.get("metrics")
    if records is not None and not isinstance(records, list):
        return 400, refused + ["'metrics' is not a list"], {}
    for i, rec in enumerate(records or []):
        if not isinstance(rec, dict):
            refused.append("metrics[%d] is not an object" % i)
            continue
        for key, value in sorted(rec.items()):
            problem = _type_problem(RECORD_FIELDS[key], value) if key in RECORD_FIELDS else None
            if key not in RECORD_FIELDS:
                refused.append("metrics[%d]: unknown field %r of TimelineMetric" % (i, key))
            elif problem:
                refused.append("metrics[%d].%s %s" % (i, key, problem))
    if refused:
        return 400, refused, {}
    failing = ["metrics[%d] has no %s (the store throws)" % (i, field) for i, rec in enumerate(records or [])
               for field in ("appid", "metricname") if not rec.get(field)]
    if failing:
        return 500, failing, {}
    dropped = {}
    for i, rec in enumerate(records or []):
        why = [w for w, bad in (("no values", not rec.get("metrics")), ("no hostname", not rec.get("hostname")),
                                ("starttime 0 or missing", not rec.get("starttime"))) if bad]
        if why:
            dropped[i] = "metrics[%d] is not stored: %s" % (i, ", ".join(why))
    return 200, [], dropped


def problems(obj):
    """Everything the collector would refuse or not store in this body ([] when it keeps all of it)."""
    _, refused, dropped = verdict(obj)
    return refused + [dropped[i] for i in sorted(dropped)]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def _answer(self, status, obj):
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if owner.delay:
            owner.release.wait(owner.delay)
        if self.path.rstrip("/") != PATH:
            return self._answer(404, {"error": "no resource %s" % self.path})
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            return self._answer(415, {"error": "Unsupported Media Type"})
        try:
            obj = json.loads(raw.decode("utf-8")) if raw.strip() else None
        except ValueError as e:
            owner.refused.append(["malformed JSON: %s" % e])
            return self._answer(400, {"error": "malformed JSON: %s" % e})
        status, refused, dropped = verdict(obj) if obj is not None else (200, [], {})
        if refused:
            owner.refused.append(refused)
            return self._answer(status, {"error": refused})
        if owner.status != 200:
            return self._answer(owner.status, {"error": "Error saving metrics."})
        owner.dropped.extend(dropped[i] for i in sorted(dropped))
        if obj is not None:
            owner.posts.append(dict(obj, metrics=[rec for i, rec in enumerate(obj.get("metrics") or [])
                                                  if i not in dropped]))
        self._answer(200, {"errors": []})


class FakeCollector(LocalServer):
    """status: what it answers a valid post with; delay: seconds it waits before answering (slow collector).
    posts: the bodies it kept (records it would not store left out); refused: the reasons of each refused
    post; dropped: the records it took with 200 but would not store."""
    handler = _Handler

    def __init__(self, status=200, delay=0.0):
        LocalServer.__init__(self)
        self.status = status
        self.delay = delay
        self.posts = []
        self.refused = []
        self.dropped = []

    @property
    def url(self):
        return "http://127.0.0.1:%d%s" % (self.port, PATH)
