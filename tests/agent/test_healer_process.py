"""The healer is a real process that never outlives the worker it watches, and restarts what FAILED over real HTTP.

A small HTTP server plays Connect's REST API on 127.0.0.1 (the calls the healer makes, answered as Connect answers
them: GET /connectors?expand=status&expand=info, POST /connectors/<name>/restart?includeTasks=true&onlyFailed=true
-> 202); a `sleep` process plays the worker's pid.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from urllib.parse import unquote
except ImportError:   # Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from urllib import unquote


from mm2_core.connect import flow_control

HEALER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(flow_control.__file__))), "mm2_healer.py")


class FakeConnect(object):
    def __init__(self):
        self.restarts = []
        self.task_state = "FAILED"
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

            def do_GET(self):
                name = "A->B.MirrorSourceConnector"
                self._send(200, {name: {"status": {"name": name, "connector": {"state": "RUNNING"}, "tasks": [
                    {"id": 0, "state": outer.task_state, "trace": "org.apache.kafka.common.errors.RecordTooLarge"}]},
                    "info": {"config": {}}}})

            def do_POST(self):
                outer.restarts.append(unquote(self.path))
                self._send(202, None)
        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever)
        self.thread.daemon = True
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _wait(predicate, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_healer_restarts_with_backoff_and_exits_with_its_worker():
    connect = FakeConnect()
    worker = subprocess.Popen(["sleep", "120"])
    state_file = os.path.join(tempfile.mkdtemp(), "state.json")
    log = open(os.path.join(os.path.dirname(state_file), "healer.log"), "w")
    healer = subprocess.Popen([sys.executable, HEALER, "--url", "http://127.0.0.1:%d" % connect.port,
                               "--kafka-version", "3.9.0", "--state", state_file, "--worker-pid", str(worker.pid),
                               "--unit", "0.5", "--max-restarts", "3", "--interval", "0.2"],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        # restarts at 0, 1 and 3 s (0.5 s x n(n+1)), then it gives up
        assert _wait(lambda: len(connect.restarts) >= 3, 20), connect.restarts
        assert connect.restarts[0] == "/connectors/A->B.MirrorSourceConnector/restart?includeTasks=true&onlyFailed=true"
        assert _wait(lambda: flow_control.HealerState.load(state_file).connectors.get(
            "A->B.MirrorSourceConnector", {}).get("gave_up"), 10)
        time.sleep(1.5)
        assert len(connect.restarts) == 3   # the limit holds
        # the worker goes away: the healer ends by itself (never a leaked process)
        worker.kill()
        worker.wait()
        assert _wait(lambda: healer.poll() is not None, 15), "the healer outlived its worker"
        assert healer.returncode == 0
    finally:
        for proc in (healer, worker):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        log.close()
        connect.close()
    with open(log.name) as fh:
        text = fh.read()
    assert "restarted A->B.MirrorSourceConnector (automatic restart 1 of at most 3)" in text
    assert "gave up on A->B.MirrorSourceConnector after 3 restarts" in text
    assert "is gone: healer exits" in text


def test_healer_stops_on_sigterm():
    worker = subprocess.Popen(["sleep", "60"])
    state_file = os.path.join(tempfile.mkdtemp(), "state.json")
    out_file = os.path.join(os.path.dirname(state_file), "healer.out")
    with open(out_file, "wb") as sink:
        healer = subprocess.Popen([sys.executable, HEALER, "--url", "http://127.0.0.1:1", "--kafka-version",
                                   "2.8.2", "--state", state_file, "--worker-pid", str(worker.pid), "--interval",
                                   "0.2"], stdout=sink, stderr=subprocess.STDOUT)

    def out():
        with open(out_file, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    try:
        # SIGTERM once the healer is in its loop (a fixed sleep was too short for its start on a loaded host)
        deadline = time.time() + 60
        while "worker did not answer" not in out() and time.time() < deadline and healer.poll() is None:
            time.sleep(0.1)
        healer.terminate()
        healer.wait()
        assert healer.returncode == 0 and "healer stopped" in out() and "worker did not answer" in out(), out()
    finally:
        worker.kill()
        worker.wait()
        if healer.poll() is None:
            healer.kill()
