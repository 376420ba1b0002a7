"""A recording HTTP proxy in front of the real Ambari server: what mm2-ambari sent, in the form the fake Ambari
of tests/rest records it (FakeAmbari.calls: method, path with decoded query, parsed JSON body), so a scenario's
calls to the real server and to the fake can be compared.

    proxy = RecordingProxy("http://127.0.0.1:8080").start()   # proxy.url on a free 127.0.0.1 port
    ... mm2-ambari --url proxy.url ...
    proxy.mutating_calls(); proxy.stop()
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.error import HTTPError
from urllib.parse import unquote
from urllib.request import Request, urlopen

HOP_BY_HOP = ("connection", "keep-alive", "transfer-encoding", "content-length", "host")


class RecordingProxy(object):
    def __init__(self, upstream):
        self.upstream = upstream.rstrip("/")
        self.calls = []
        self.lock = threading.Lock()
        self._server = None

    def start(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                try:
                    body = json.loads(data.decode()) if data else None
                except ValueError:
                    body = data.decode("utf-8", "replace")
                with proxy.lock:
                    proxy.calls.append((self.command, unquote(self.path), body))
                req = Request(proxy.upstream + self.path, data=data, method=self.command)
                for key, value in self.headers.items():
                    if key.lower() not in HOP_BY_HOP:
                        req.add_header(key, value)
                try:
                    resp = urlopen(req, timeout=120)
                    status, headers, payload = resp.status, resp.headers, resp.read()
                except HTTPError as err:
                    status, headers, payload = err.code, err.headers, err.read()
                self.send_response(status)
                for key, value in headers.items():
                    if key.lower() not in HOP_BY_HOP:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def mutating_calls(self):
        with self.lock:
            return [c for c in self.calls if c[0] != "GET"]

    def reset(self):
        with self.lock:
            del self.calls[:]
