"""A real HTTP(S) server on 127.0.0.1 serving exporter text, for the alert tests (Python 2.7 and 3).

It behaves like the exporter's HTTP server where the alerts care: GET /metrics, the name[]
filter of the Prometheus client libraries (can be turned off), optional Basic auth and TLS,
and it can be made slow (answers after a delay) to test the alerts' timeouts.
"""
import base64
import ssl

import testports
from local_server import LocalServer

try:  # Python 3
    from http.server import BaseHTTPRequestHandler
    from urllib.parse import urlparse, parse_qs
except ImportError:  # Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler
    from urlparse import urlparse, parse_qs


def filter_families(text, names):
    """Keep only the families in names (what client_java's name[] filter returns)."""
    keep = set(names)
    out = []
    current = None
    for line in text.split("\n"):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            current = line.split(" ", 3)[2]
        elif line and not line.startswith("#"):
            brace = line.find("{")
            current = line[:brace] if brace >= 0 else line.split(" ", 1)[0]
        if current in keep and line:
            out.append(line)
    return "\n".join(out) + ("\n" if out else "")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        owner = self.server.owner
        owner.requests.append((self.path, dict(self.headers.items())))
        if owner.delay:
            owner.release.wait(owner.delay)
        if owner.auth:
            expected = "Basic " + base64.b64encode(("%s:%s" % owner.auth).encode("utf-8")).decode("ascii")
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="/"')
                self.end_headers()
                return
        url = urlparse(self.path)
        if url.path != "/metrics":
            self.send_response(404)
            self.end_headers()
            return
        body = owner.payload
        names = parse_qs(url.query).get("name[]")
        if names and owner.honor_names:
            body = filter_families(body, names)
        data = body.encode("utf-8") if not isinstance(body, bytes) else body
        self.send_response(owner.status)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class MetricsServer(LocalServer):
    handler = _Handler

    def __init__(self, payload="", delay=0.0, honor_names=True, auth=None, tls=None, status=200,
                 host="127.0.0.1", port=0):
        LocalServer.__init__(self, host, port)
        self.payload = payload
        self.delay = delay
        self.honor_names = honor_names
        self.auth = auth          # (user, password)
        self.tls = tls            # (certfile, keyfile)
        self.status = status
        self.requests = []

    def secure(self, server):
        if self.tls:
            if hasattr(ssl, "PROTOCOL_TLS_SERVER"):
                ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            else:
                ctx = ssl.SSLContext(ssl.PROTOCOL_SSLv23)
            ctx.load_cert_chain(*self.tls)
            server.socket = ctx.wrap_socket(server.socket, server_side=True)


free_port = testports.free_port   # a port nothing listens on, reserved across the host's test processes
