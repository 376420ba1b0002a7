"""connect_rest.ConnectRest.herder_ready against a worker that starts the way Kafka Connect's distributed worker does
(Connect.start: the REST server answers before the herder thread has read <group>-configs): while it starts,
GET /connectors answers from an empty config snapshot and a connector's config waits in the herder's queue (or
gets 409 during a rebalance); once ready, the listing holds the stored connectors and an unknown name gets 404.
START diffs that listing to delete a disabled flow's connectors (mm2_connect.wait_rest, then apply_connectors):
an empty listing taken too early left them running on a loaded host (tests/live/test_connect_retire.py, lane D of
a CI rehearsal)."""
import json
import threading

try:  # Python 3
    from http.server import BaseHTTPRequestHandler
except ImportError:  # Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler

import pytest

from local_server import LocalServer
from mm2_core.connect import connect_mode, connect_rest

STORED = "A->B.MirrorSourceConnector"


class StartingWorker(LocalServer):
    """phase: "reading" (config topic not read yet: the herder's queue does not answer), "rebalancing" (409), or
    "ready"."""

    def __init__(self):
        LocalServer.__init__(self)
        self.phase = "reading"
        self.asked = []

    class handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _answer(self, status, body):
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            owner = self.server.owner
            owner.asked.append(self.path)
            ready = owner.phase == "ready"
            if self.path.startswith("/connectors?"):
                # AbstractHerder.connectors(): the config store's snapshot, empty until the topic is read
                self._answer(200, {STORED: {"info": {"config": {}, "tasks": []}}} if ready else {})
            elif self.path.startswith("/connectors/") and self.path.endswith("/config"):
                if owner.phase == "reading":
                    owner.release.wait(5)   # queued behind the herder's startup: the client times out first
                    return
                if owner.phase == "rebalancing":
                    self._answer(409, {"error_code": 409, "message": "Cannot complete request momentarily due to "
                                       "stale configuration (typically caused by a concurrent config change)"})
                    return
                name = self.path.split("/")[2]
                self._answer(404, {"error_code": 404, "message": "Connector %s not found" % name})
            else:
                self._answer(404, {"error_code": 404, "message": "HTTP 404 Not Found"})


@pytest.fixture
def worker():
    server = StartingWorker().start()
    yield server
    server.stop()


def test_the_listing_is_trusted_only_once_the_herder_answers(worker):
    client = connect_rest.ConnectRest("http://127.0.0.1:%d" % worker.port, "3.9.1", timeout=0.5)
    assert client.connectors() == {}            # answers, but from the unread config topic
    assert client.herder_ready() is False       # the probe waits in the herder's queue: not ready
    worker.phase = "rebalancing"
    assert client.herder_ready() is False       # 409: not ready either
    worker.phase = "ready"
    assert client.herder_ready() is True
    assert list(client.connectors()) == [STORED]
    probes = [p for p in worker.asked if p.endswith("/config")]
    assert probes and all(p == "/connectors/%s/config" % connect_rest.READINESS_PROBE for p in probes)


def test_the_probe_is_a_name_no_flow_can_have():
    # a flow's connectors are named "<source>-><target>.<Connector class>"
    assert "->" not in connect_rest.READINESS_PROBE
    assert connect_mode.connector_name("A->B", connect_mode.SOURCE) != connect_rest.READINESS_PROBE
