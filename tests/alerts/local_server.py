"""A threaded HTTP server on 127.0.0.1 for the test doubles (metrics_server.MetricsServer, fake_collector.
FakeCollector), Python 2.7 and 3: started and stopped the same way, a handler reads its double as
self.server.owner, and release wakes a handler that is slow on purpose."""
import threading

try:  # Python 3
    from http.server import HTTPServer
    from socketserver import ThreadingMixIn
except ImportError:  # Python 2.7
    from BaseHTTPServer import HTTPServer
    from SocketServer import ThreadingMixIn


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # clients that give up (timeouts, TLS failures, a sender's deadline) are part of the tests


class LocalServer(object):
    """Subclasses set handler (a BaseHTTPRequestHandler class) and may override secure(server)."""
    handler = None

    def __init__(self, host="127.0.0.1", port=0):
        self.host = host
        self.bind_port = port
        self.release = threading.Event()
        self._server = None
        self._thread = None

    def secure(self, server):
        """Wrap the listening socket (TLS); the plain server does nothing."""

    def start(self):
        self._server = _Server((self.host, self.bind_port), self.handler)
        self._server.owner = self
        self.secure(self._server)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self

    @property
    def port(self):
        return self._server.server_address[1]

    def stop(self):
        self.release.set()   # wake a handler that is "slow" on purpose
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)
        self._server = None
