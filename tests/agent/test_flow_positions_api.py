"""FLOW_SEED's offsets-API path (mm2_flow_positions.seed_through_api) over real HTTP, on both Pythons.

A small HTTP server plays Connect's REST API (3.6+) as strictly as Connect answers these calls:
- PATCH /connectors/<n>/offsets only while the connector is STOPPED, else 400 with Connect's sentence
  (AbstractHerder / DistributedHerder.modifyConnectorOffsets); an offset must be a non-negative integer, else 400
  (MirrorUtils.validateSourceOffset); a null offset removes the partition's position;
- PUT .../stop, .../pause, .../resume set the connector's target state; GET .../status and .../offsets read it;
  an unknown connector is 404.
tests/live/test_flow_offsets.py shows the same path against a real Kafka 3.9 worker.
"""
import json
import threading

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from urllib.parse import unquote
except ImportError:   # Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from urllib import unquote

import pytest
from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

import mm2_flow_positions
from mm2_core.connect import connect_rest

NOT_STOPPED = ("Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
               "the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint")


class StrictConnect(object):
    def __init__(self, states):
        self.states = dict(states)                    # connector -> RUNNING / PAUSED / STOPPED
        self.offsets = dict((n, {}) for n in states)  # connector -> {(cluster, topic, partition): last copied}
        self.calls = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code, body):
                data = json.dumps(body).encode("utf-8") if body is not None else b""
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _route(self, method):
                parts = [unquote(p) for p in self.path.split("?")[0].strip("/").split("/")]
                outer.calls.append((method, "/".join(parts[1:])))
                if len(parts) != 3 or parts[0] != "connectors":
                    return self._send(404, {"error_code": 404, "message": "Unknown resource"})
                name, what = parts[1], parts[2]
                if name not in outer.states:
                    return self._send(404, {"error_code": 404, "message": "Connector %s not found" % name})
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length).decode("utf-8")) if length else None
                return outer.handle(self, method, name, what, body)

            def do_GET(self):
                self._route("GET")

            def do_PUT(self):
                self._route("PUT")

            def do_PATCH(self):
                self._route("PATCH")

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever)
        self.thread.daemon = True
        self.thread.start()

    def handle(self, h, method, name, what, body):
        if method == "GET" and what == "status":
            return h._send(200, {"name": name, "connector": {"state": self.states[name]}, "tasks": []})
        if method == "GET" and what == "offsets":
            return h._send(200, {"offsets": [
                {"partition": {"cluster": c, "topic": t, "partition": p}, "offset": {"offset": o}}
                for (c, t, p), o in sorted(self.offsets[name].items())]})
        if method == "PUT" and what in ("stop", "pause", "resume"):
            self.states[name] = {"stop": "STOPPED", "pause": "PAUSED", "resume": "RUNNING"}[what]
            return h._send(202, None)
        if method == "PATCH" and what == "offsets":
            if self.states[name] != "STOPPED":
                return h._send(400, {"error_code": 400, "message": NOT_STOPPED % name})
            items = (body or {}).get("offsets") or []
            for item in items:
                off = item.get("offset")
                if off is not None and (not isinstance(off.get("offset"), int) or off["offset"] < 0):
                    return h._send(400, {"error_code": 400, "message": "Source offset %s for source partition %s "
                                         "has an invalid value" % (off, item["partition"])})
            for item in items:
                part = item["partition"]
                key = (part["cluster"], part["topic"], part["partition"])
                if item.get("offset") is None:
                    self.offsets[name].pop(key, None)
                else:
                    self.offsets[name][key] = item["offset"]["offset"]
            return h._send(200, {"message": "The offsets for this connector have been altered successfully"})
        return h._send(405, {"error_code": 405, "message": "HTTP 405 Method Not Allowed"})

    def close(self):
        self.server.shutdown()
        self.server.server_close()


SOURCE = "A->B.MirrorSourceConnector"


@pytest.fixture
def connect():
    Logger.initialize_logger()   # as the agent's Script does before a command runs
    c = StrictConnect({SOURCE: "PAUSED", "A->B.MirrorCheckpointConnector": "PAUSED",
                       "C->B.MirrorSourceConnector": "RUNNING"})
    c.offsets[SOURCE] = {("A", "t", 0): 49, ("A", "t", 1): 9}
    yield c
    c.close()


def test_the_fake_refuses_what_connect_refuses(connect):
    client = connect_rest.ConnectRest(connect.url, "3.9.1")
    with pytest.raises(connect_rest.ConnectError) as e:
        client.alter_offsets(SOURCE, [{"partition": {"cluster": "A", "topic": "t", "partition": 0},
                                       "offset": {"offset": 5}}])
    assert e.value.status == 400 and "must be in the STOPPED state" in str(e.value)
    client.stop(SOURCE)
    with pytest.raises(connect_rest.ConnectError) as e:
        client.alter_offsets(SOURCE, [{"partition": {"cluster": "A", "topic": "t", "partition": 0},
                                       "offset": {"offset": -1}}])
    assert e.value.status == 400


def test_a_paused_flow_is_moved_and_put_back_paused_touching_only_its_source_connector(connect):
    client = connect_rest.ConnectRest(connect.url, "3.9.1")
    changed, state = mm2_flow_positions.seed_through_api(client, "A->B", "A", {("t", 0): 80, ("t", 1): 10})
    assert (changed, state) == (1, "PAUSED")
    assert connect.offsets[SOURCE] == {("A", "t", 0): 79, ("A", "t", 1): 9}
    assert connect.states == {SOURCE: "PAUSED", "A->B.MirrorCheckpointConnector": "PAUSED",
                              "C->B.MirrorSourceConnector": "RUNNING"}
    assert set(path.split("/")[0] for _, path in connect.calls) == {SOURCE}
    assert [c for c in connect.calls if c[0] in ("PUT", "PATCH")] == [
        ("PUT", SOURCE + "/stop"), ("PATCH", SOURCE + "/offsets"), ("PUT", SOURCE + "/pause")]


def test_offset_zero_replays_from_the_beginning_and_a_running_flow_runs_again(connect):
    connect.states[SOURCE] = "RUNNING"
    client = connect_rest.ConnectRest(connect.url, "3.9.1")
    changed, state = mm2_flow_positions.seed_through_api(client, "A->B", "A", {("t", 0): 0, ("t", 1): 0})
    assert (changed, state) == (2, "RUNNING")
    assert connect.offsets[SOURCE] == {} and connect.states[SOURCE] == "RUNNING"


def test_nothing_to_change_leaves_the_flow_alone(connect):
    client = connect_rest.ConnectRest(connect.url, "3.9.1")
    assert mm2_flow_positions.seed_through_api(client, "A->B", "A", {("t", 0): 50, ("t", 1): 10}) == (0, "PAUSED")
    assert [c for c in connect.calls if c[0] != "GET"] == []


def test_before_3_6_the_offsets_api_is_refused_by_name_before_anything_is_sent(connect):
    client = connect_rest.ConnectRest(connect.url, "3.5.2")
    with pytest.raises(Fail) as e:
        mm2_flow_positions.seed_through_api(client, "A->B", "A", {("t", 0): 80})
    assert "FLOW_SEED A->B:" in str(e.value) and "needs Kafka 3.6.0 or newer" in str(e.value)
    assert [c for c in connect.calls if c[0] != "GET"] == []
