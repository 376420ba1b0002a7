"""Reading the exporter over HTTP(S) from inside the Ambari agent: bounded, never raising.

Pure stdlib, Python 2.7 (2.7.9+ for TLS contexts) and 3.

- Every request has a socket timeout and an overall deadline (slow drip servers included).
- Proxies from the agent's environment are ignored: the exporter is on the cluster network.
- HTTPS verifies the certificate and host name against the configured CA file (or the
  system bundle) unless verification is explicitly turned off; Basic auth is sent only
  when a user is configured.
- Results (errors included) are cached in the agent process for a few seconds and
  concurrent requests for the same URL wait for the one in flight, so the MM2 alerts that
  the agent schedules at the same moment scrape the JVM once, not six times.
"""
import base64
import errno
import socket
import ssl
import threading
import time

try:  # Python 3
    from urllib.request import Request, build_opener, HTTPSHandler, ProxyHandler, HTTPHandler
    from urllib.error import HTTPError, URLError
    from urllib.parse import quote
except ImportError:  # Python 2.7
    from urllib2 import Request, build_opener, HTTPSHandler, ProxyHandler, HTTPHandler, HTTPError, URLError
    from urllib import quote

from mm2_core import metrics

CHUNK = 256 * 1024
MAX_BYTES = 256 * 1024 * 1024   # a runaway endpoint must not eat the agent's memory

REFUSED = "refused"
TIMEOUT = "timeout"
TLS = "tls"
HTTP = "http"
AUTH = "auth"
OTHER = "other"

_now = getattr(time, "monotonic", time.time)


class Fetched(object):
    """Outcome of one request: text (native str) or error/kind, elapsed seconds, wall time."""

    def __init__(self, url, text=None, error=None, kind=None, elapsed=0.0, at=None, status=None):
        self.url = url
        self.text = text
        self.error = error
        self.kind = kind
        self.elapsed = elapsed
        self.at = time.time() if at is None else at
        self.status = status

    @property
    def ok(self):
        return self.error is None

    def __repr__(self):
        return "Fetched(%r, ok=%r, kind=%r)" % (self.url, self.ok, self.kind)


def with_names(url, names):
    """url?name[]=a&name[]=b: the exporter's HTTP server then returns only these families."""
    if not names:
        return url
    query = "&".join("name%5B%5D=" + quote(n, safe="") for n in sorted(names))
    return url + ("&" if "?" in url else "?") + query


def _ssl_context(ca_file, verify):
    if not verify:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    return ssl.create_default_context(cafile=ca_file or None)


def _classify(exc):
    reason = getattr(exc, "reason", exc)
    if isinstance(exc, HTTPError):
        return (AUTH if exc.code in (401, 403) else HTTP), "HTTP %d %s" % (exc.code, exc.msg)
    if isinstance(reason, socket.timeout) or isinstance(exc, socket.timeout) or "timed out" in str(reason):
        return TIMEOUT, "timed out"
    cert_error = getattr(ssl, "CertificateError", None)
    if isinstance(reason, ssl.SSLError) or (cert_error and isinstance(reason, cert_error)):
        return TLS, "TLS error: %s" % (reason,)
    err_no = getattr(reason, "errno", None)
    if err_no == errno.ECONNREFUSED:
        return REFUSED, "connection refused"
    if err_no in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return REFUSED, "host unreachable"
    return OTHER, str(reason) or exc.__class__.__name__


def fetch(url, timeout=5.0, ca_file="", verify=True, username="", password=""):
    """GET url within about `timeout` seconds. Never raises: returns a Fetched."""
    start = _now()
    deadline = start + timeout
    try:
        handlers = [ProxyHandler({}), HTTPHandler()]
        if url.startswith("https:"):
            handlers.append(HTTPSHandler(context=_ssl_context(ca_file, verify)))
        opener = build_opener(*handlers)
        request = Request(url)
        request.add_header("Accept", "text/plain;version=0.0.4")
        if username:
            token = base64.b64encode(("%s:%s" % (username, password)).encode("utf-8"))
            request.add_header("Authorization", "Basic " + token.decode("ascii"))
        response = opener.open(request, timeout=timeout)
        try:
            status = getattr(response, "status", None) or response.getcode()
            ctype = response.info().get("Content-Type") or ""
            charset = "utf-8"
            if "charset=" in ctype:
                charset = ctype.split("charset=", 1)[1].split(";")[0].strip() or "utf-8"
            chunks = []
            size = 0
            while True:
                if _now() > deadline:
                    raise socket.timeout("timed out")
                chunk = response.read(CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_BYTES:
                    return Fetched(url, error="the answer is larger than %d MB" % (MAX_BYTES >> 20),
                                   kind=OTHER, elapsed=_now() - start)
        finally:
            response.close()
        text = metrics.decode_payload(b"".join(chunks), charset)
        return Fetched(url, text=text, elapsed=_now() - start, status=status)
    except Exception as e:  # the agent must never see an exception from here
        kind, message = _classify(e)
        return Fetched(url, error=message, kind=kind, elapsed=_now() - start)


_LOCK = threading.Lock()
_CACHE = {}      # key -> (monotonic time, Fetched)
_INFLIGHT = {}   # key -> threading.Event


def clear_cache():
    with _LOCK:
        _CACHE.clear()


def fetch_cached(url, timeout=5.0, ttl=20.0, **kwargs):
    """fetch() through the short-lived in-process cache (ttl <= 0 disables it)."""
    if ttl <= 0:
        return fetch(url, timeout, **kwargs)
    key = (url, kwargs.get("username", ""))
    with _LOCK:
        now = _now()
        for k in [k for k, (at, _) in _CACHE.items() if now - at > ttl]:
            del _CACHE[k]
        hit = _CACHE.get(key)
        if hit is not None:
            return hit[1]
        event = _INFLIGHT.get(key)
        owner = event is None
        if owner:
            event = threading.Event()
            _INFLIGHT[key] = event
    if not owner:
        event.wait(timeout + 1.0)
        with _LOCK:
            hit = _CACHE.get(key)
        return hit[1] if hit is not None else fetch(url, timeout, **kwargs)
    result = None
    try:
        result = fetch(url, timeout, **kwargs)
    finally:
        with _LOCK:
            if result is not None:
                _CACHE[key] = (_now(), result)
            _INFLIGHT.pop(key, None)
        event.set()
    return result


def fetch_many(urls, timeout=5.0, ttl=20.0, **kwargs):
    """{url: Fetched} for several endpoints in parallel, all done within about `timeout`."""
    results = {}
    threads = []

    def run(u):
        results[u] = fetch_cached(u, timeout, ttl, **kwargs)

    for u in urls:
        t = threading.Thread(target=run, args=(u,), name="mm2-alert-fetch")
        t.daemon = True
        t.start()
        threads.append(t)
    deadline = _now() + timeout + 2.0
    for t in threads:
        t.join(max(0.0, deadline - _now()))
    for u in urls:
        if u not in results:
            results[u] = Fetched(u, error="timed out", kind=TIMEOUT, elapsed=timeout)
    return results
