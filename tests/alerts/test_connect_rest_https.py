"""Connect mode's REST client over HTTPS with Basic auth, against a real local HTTPS server playing Connect's
listener (BasicAuthSecurityRestExtension answers 401 without the right credentials): the certificate and host name
are verified against the CA file, the credentials are sent, the tasks alert reads the worker that way, and no
message carries the password."""
import base64
import json
import ssl
import threading

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn
except ImportError:   # Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn

import pytest

from mm2_core.alerts import alert_connect
from mm2_core.config import names
from mm2_core.connect import connect_rest

USER, PASSWORD = "ops", "s3cret-pw!"
LISTING = {name: {"status": {"name": name, "connector": {"state": "RUNNING"}, "tasks": [{"id": 0, "state": "RUNNING"}]},
                  "info": {"name": name, "config": {}, "tasks": []}}
           for name in ("A->B.MirrorSourceConnector", "A->B.MirrorCheckpointConnector")}


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True


class _Handler(BaseHTTPRequestHandler):
    timeout = 5   # a client that gave up after the handshake (a refused certificate) does not block the server

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.seen.append(self.headers.get("Authorization"))
        expected = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode("utf-8")).decode("ascii")
        if self.headers.get("Authorization") != expected:
            body, code = {"error_code": 401, "message": "User cannot access the resource."}, 401
        elif self.path.startswith("/connectors"):
            body, code = LISTING, 200
        else:
            body, code = {"version": "3.9.0"}, 200
        data = json.dumps(body).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def https_connect(tls_files):
    server = _Server(("127.0.0.1", 0), _Handler)
    server.seen = []
    context = ssl.SSLContext(getattr(ssl, "PROTOCOL_TLS_SERVER", ssl.PROTOCOL_SSLv23))
    context.load_cert_chain(tls_files["cert"], tls_files["key"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# the certificate names localhost by DNS (and 127.0.0.1 by IP, which Python 2.7's host name check does not match):
# as on a cluster, the listener is reached by the name its certificate carries
HOST = "localhost"


def _url(server):
    return "https://%s:%d" % (HOST, server.server_address[1])


def test_https_with_basic_auth_reads_the_worker(https_connect, tls_files):
    client = connect_rest.ConnectRest(_url(https_connect), "3.9.0", timeout=5, auth=(USER, PASSWORD),
                                      ca_file=tls_files["ca"])
    assert sorted(client.connectors()) == sorted(LISTING)
    assert https_connect.seen[-1].startswith("Basic ")
    assert PASSWORD not in repr(client)


def test_a_wrong_password_is_refused_without_echoing_it(https_connect, tls_files):
    client = connect_rest.ConnectRest(_url(https_connect), "3.9.0", timeout=5, auth=(USER, "wrong-pw"),
                                      ca_file=tls_files["ca"])
    with pytest.raises(connect_rest.ConnectError) as info:
        client.connectors()
    assert info.value.status == 401 and "User cannot access the resource" in str(info.value)
    assert "wrong-pw" not in str(info.value)


def test_a_certificate_of_another_ca_is_refused(https_connect, tls_files):
    client = connect_rest.ConnectRest(_url(https_connect), "3.9.0", timeout=5, auth=(USER, PASSWORD),
                                      ca_file=tls_files["other_ca"])
    with pytest.raises(connect_rest.ConnectError) as info:
        client.connectors()
    assert info.value.status is None and PASSWORD not in str(info.value)


def _configs(server, ca, password=PASSWORD):
    return {names.ENV: {"mm2_run_mode": "connect", "mm2_connect_rest_tls_enabled": "true",
                        "mm2_connect_rest_ca_file": ca, "mm2_connect_rest_username": USER,
                        "mm2_connect_rest_password": password, "mm2_pid_dir": "/nonexistent"},
            names.DRIVER: {"connect.rest.port": str(server.server_address[1])}}


def test_the_tasks_alert_reads_the_worker_over_https(https_connect, tls_files):
    result = alert_connect.execute(_configs(https_connect, tls_files["ca"]), {}, 0.0, timeout=5, host=HOST)
    assert result.state == "OK", result.lines
    assert alert_connect.held_flows(_configs(https_connect, tls_files["ca"]), host=HOST) == {}
    bad = alert_connect.execute(_configs(https_connect, tls_files["ca"], "nope"), {}, 0.0, timeout=5,
                                host=HOST)
    assert bad.state == "UNKNOWN" and "HTTP 401" in " ".join(bad.lines) and "nope" not in " ".join(bad.lines)
    missing = alert_connect.execute(_configs(https_connect, ""), {}, 0.0, timeout=5, host=HOST)
    assert missing.state == "UNKNOWN" and "CA file" in " ".join(missing.lines)
