"""A strict local Ambari Metrics collector: POST /ws/v1/timeline/metrics on 127.0.0.1, checked as the real one
parses it (apache/ambari-metrics: TimelineWebServices.postMetrics consumes application/json into TimelineMetrics,
{"metrics": [TimelineMetric]}; TimelineMetric's JAXB names metricname, appid, instanceid, hostname, timestamp,
starttime, type, units, metrics (TreeMap<Long, Double>), metadata (HashMap<String, String>); Jackson fails on any
other field; postMetrics calls getAppId().equals(...), so a null appid is a server error).
Answers 200 {"errors": []} and keeps what it took; 400/415/500 with the reason otherwise."""
import json
import threading

try:
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn
except ImportError:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn

PATH = "/ws/v1/timeline/metrics"
RECORD_FIELDS = {"metricname": "str", "appid": "str", "instanceid": "str", "hostname": "str", "timestamp": "long",
                 "starttime": "long", "type": "str", "units": "str", "metrics": "values", "metadata": "strmap"}
try:
    _STR = (str, unicode)  # noqa: F821 (Python 2)
    _INT = (int, long)  # noqa: F821
except NameError:
    _STR = (str,)
    _INT = (int,)


def _is_long_text(key):
    try:
        int(key)
        return str(int(key)) == key
    except ValueError:
        return False


def problems(obj):
    """Why the collector would refuse this body ([] when it takes it)."""
    if not isinstance(obj, dict):
        return ["the body is not a JSON object"]
    found = ["unknown field %r of TimelineMetrics" % k for k in obj if k != "metrics"]
    records = obj.get("metrics")
    if not isinstance(records, list):
        return found + ["'metrics' is not a list"]
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            found.append("metrics[%d] is not an object" % i)
            continue
        for key, value in rec.items():
            kind = RECORD_FIELDS.get(key)
            if kind is None:
                found.append("metrics[%d]: unknown field %r of TimelineMetric" % (i, key))
            elif value is None:
                continue
            elif kind == "str" and not isinstance(value, _STR):
                found.append("metrics[%d].%s is not a string" % (i, key))
            elif kind == "long" and (isinstance(value, bool) or not isinstance(value, _INT)):
                found.append("metrics[%d].%s is not a long" % (i, key))
            elif kind == "values":
                if not isinstance(value, dict):
                    found.append("metrics[%d].metrics is not an object" % i)
                    continue
                for ts, v in value.items():
                    if not _is_long_text(ts):
                        found.append("metrics[%d].metrics key %r is not a long" % (i, ts))
                    if isinstance(v, bool) or not isinstance(v, _INT + (float,)):
                        found.append("metrics[%d].metrics[%s] is not a number" % (i, ts))
            elif kind == "strmap" and not (isinstance(value, dict) and
                                           all(isinstance(v, _STR) for v in value.values())):
                found.append("metrics[%d].metadata is not a map of strings" % i)
        for required in ("metricname", "appid", "hostname"):
            if not rec.get(required):
                found.append("metrics[%d] has no %s" % (i, required))
    return found


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass   # a client that hung up (the sender's deadline) is not a test failure


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
            obj = json.loads(raw.decode("utf-8"))
        except ValueError as e:
            return self._answer(400, {"error": "malformed JSON: %s" % e})
        found = problems(obj)
        if found:
            owner.refused.append(found)
            return self._answer(400 if owner.status == 200 else owner.status, {"error": found})
        if owner.status != 200:
            return self._answer(owner.status, {"error": "Error saving metrics."})
        owner.posts.append(obj)
        self._answer(200, {"errors": []})


class FakeCollector(object):
    """status: what it answers a valid post with; delay: seconds it waits before answering (slow collector)."""

    def __init__(self, status=200, delay=0.0):
        self.status = status
        self.delay = delay
        self.posts = []
        self.refused = []
        self.release = threading.Event()
        self._server = None
        self._thread = None

    def start(self):
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self

    @property
    def url(self):
        return "http://127.0.0.1:%d%s" % (self._server.server_address[1], PATH)

    def stop(self):
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)
        self._server = None
