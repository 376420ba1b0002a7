"""A small, bounded client of Kafka Connect's REST API (connect mode's control plane).

Never an open API: an http:// URL must be loopback (the worker's listener bound to 127.0.0.1); an https://
URL needs Basic auth credentials and a CA file, and the certificate and host name are verified
(rest_security). The password goes only into the Authorization header, never into a message. Every call has a timeout;
errors become ConnectError with Connect's own message. Which calls a Kafka version has is decided by
mm2_core.versions (CONNECT_RESTART_TASKS, CONNECT_STOP, CONNECT_OFFSETS): an older worker's call is refused
here with that sentence before anything is sent. Stdlib only, Python 2.7 and 3.
"""
import base64
import json
import ssl

try:   # Python 3
    from urllib.request import Request, urlopen
    from urllib.error import HTTPError, URLError
    from urllib.parse import quote, urlparse
except ImportError:   # Python 2.7
    from urllib2 import Request, urlopen, HTTPError, URLError
    from urllib import quote
    from urlparse import urlparse

from mm2_core.kafka import versions

DEFAULT_TIMEOUT = 30.0
READINESS_PROBE = "mm2-ambari-readiness-probe"   # a connector name never created (herder_ready)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class ConnectError(Exception):
    """A REST call failed: .status (HTTP status or None when the worker did not answer), message."""

    def __init__(self, message, status=None):
        Exception.__init__(self, message)
        self.status = status


class Unsupported(ConnectError):
    """The worker's Kafka version lacks the call (versions.unsupported says why)."""


class ConnectRest(object):
    """url: http://<loopback>:<port>, or https://<host>:<port> with auth=(user, password) and ca_file (PEM)."""

    def __init__(self, url, version, timeout=DEFAULT_TIMEOUT, auth=None, ca_file=None):
        parsed = urlparse(url)
        self._context = None
        self._authorization = None
        if parsed.scheme == "https":
            if not auth or not auth[0] or not auth[1] or not ca_file:
                raise ValueError("the Connect REST API over HTTPS (%s) is reached with Basic auth credentials and "
                                 "a CA file only (kafka-mm2-env/mm2_connect_rest_*)" % url)
            self._context = ssl.create_default_context(cafile=ca_file)
            token = base64.b64encode(("%s:%s" % (auth[0], auth[1])).encode("utf-8")).decode("ascii")
            self._authorization = "Basic " + token
        elif parsed.hostname not in LOOPBACK:
            raise ValueError("the Connect REST API of connect mode is reached on loopback only, not %s" % url)
        self.url = url.rstrip("/")
        self.version = versions.KafkaVersion.parse(version)
        self.timeout = timeout

    def __repr__(self):   # never the credentials
        return "ConnectRest(%s)" % self.url

    # -- plumbing
    def _path(self, *parts):
        return "/".join([self.url] + [quote(str(p), safe="") for p in parts])

    def call(self, method, url, body=None, ok=(200, 201, 202, 204)):
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = Request(url, data=data)
        request.get_method = lambda: method
        request.add_header("Accept", "application/json")
        if self._authorization:
            request.add_header("Authorization", self._authorization)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            if self._context is not None:
                response = urlopen(request, timeout=self.timeout, context=self._context)
            else:
                response = urlopen(request, timeout=self.timeout)
            status, payload = response.getcode(), response.read()
        except HTTPError as e:
            status, payload = e.code, e.read()
        except (URLError, IOError, OSError, ssl.CertificateError) as e:   # CertificateError: a wrong host name
            raise ConnectError("Kafka Connect at %s did not answer %s %s: %s" % (self.url, method, url, e))
        text = payload.decode("utf-8", "replace") if payload else ""
        try:
            parsed = json.loads(text) if text.strip() else None
        except ValueError:
            parsed = text
        if status not in ok:
            message = parsed.get("message") if isinstance(parsed, dict) else text
            raise ConnectError("%s %s -> HTTP %s: %s" % (method, url, status, message), status)
        return parsed

    def _gate(self, feature, action):
        problem = versions.unsupported(self.version, feature, action)
        if problem:
            raise Unsupported(problem)

    # -- reads
    def alive(self):
        try:
            self.call("GET", self.url + "/")
            return True
        except ConnectError:
            return False

    def herder_ready(self):
        """True once the worker's herder has read its config topic and joined its group, False while it starts.

        GET /connectors (expanded or not) answers from the config store's snapshot, which is empty until the herder
        thread has read <group>-configs to its end (Connect starts its REST server first): a listing taken then
        misses every stored connector. A connector's config is answered by the herder's own loop, only after that
        read and the first rebalance: 404 for a name that cannot exist says the listing is complete; while the
        worker starts, the call waits in the herder's queue (this client's timeout) or gets 409 (rebalancing)."""
        try:
            self.call("GET", self._path("connectors", READINESS_PROBE, "config"), ok=(404,))
            return True
        except ConnectError:
            return False

    def connectors(self):
        """{name: {"status": {...}, "info": {"config": {...}, "tasks": [...]}}} (expand=status&expand=info). Complete
        only once herder_ready()."""
        result = self.call("GET", self.url + "/connectors?expand=status&expand=info")
        return result if isinstance(result, dict) else {}

    def config(self, name):
        return self.call("GET", self._path("connectors", name, "config"))

    def status(self, name):
        return self.call("GET", self._path("connectors", name, "status"))

    # -- changes
    def put_config(self, name, config):
        """Create or change a connector: Connect restarts that connector and its tasks only."""
        return self.call("PUT", self._path("connectors", name, "config"), body=dict(config))

    def delete(self, name):
        return self.call("DELETE", self._path("connectors", name), ok=(200, 202, 204, 404))

    def pause(self, name):
        return self.call("PUT", self._path("connectors", name, "pause"))

    def resume(self, name):
        return self.call("PUT", self._path("connectors", name, "resume"))

    def stop(self, name):
        self._gate(versions.CONNECT_STOP, "stopping a flow (its connectors without tasks)")
        return self.call("PUT", self._path("connectors", name, "stop"))

    def restart(self, name, only_failed=True):
        """Restart a connector and (3.0+) its failed tasks in one call; before 3.0 the connector, then each
        FAILED task one by one (the calls that version has)."""
        if versions.supports(self.version, versions.CONNECT_RESTART_TASKS):
            query = "?includeTasks=true&onlyFailed=%s" % ("true" if only_failed else "false")
            return self.call("POST", self._path("connectors", name, "restart") + query)
        status = self.status(name) or {}
        if not only_failed or (status.get("connector") or {}).get("state") == "FAILED":
            self.call("POST", self._path("connectors", name, "restart"))
        for task in status.get("tasks") or []:
            if not only_failed or task.get("state") == "FAILED":
                self.restart_task(name, task.get("id"))
        return None

    def restart_task(self, name, task_id):
        return self.call("POST", self._path("connectors", name, "tasks", task_id, "restart"))

    # -- offsets (3.6+): only on a STOPPED connector
    def offsets(self, name):
        self._gate(versions.CONNECT_OFFSETS, "reading a flow's source offsets")
        return self.call("GET", self._path("connectors", name, "offsets"))

    def alter_offsets(self, name, offsets):
        self._gate(versions.CONNECT_OFFSETS, "changing a flow's source offsets")
        return self.call("PATCH", self._path("connectors", name, "offsets"), body={"offsets": offsets})

    def reset_offsets(self, name):
        self._gate(versions.CONNECT_OFFSETS, "resetting a flow's source offsets")
        return self.call("DELETE", self._path("connectors", name, "offsets"))
