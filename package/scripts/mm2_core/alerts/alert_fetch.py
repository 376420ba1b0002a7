"""Reading the exporter over HTTP(S) from inside the Ambari agent: bounded, never raising.

Pure stdlib, Python 2.7 (2.7.9+ for TLS contexts) and 3.

- One deadline bounds the whole request: connect, TLS handshake, headers, body and the wait
  on a scrape another alert of this host started. Every socket operation gets only the time
  left, so a peer that drips one byte at a time, stalls or never stops cannot hold an alert
  longer than the deadline (the agent runs script alerts on a small thread pool with no
  timeout of its own).
- An answer counts only when complete: the body matches its Content-Length, a chunked body
  ends with its last chunk, and the exporter's own jmx_scrape_error series is present
  (a cut-off scrape must not read as "nothing failed").
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
import select
import socket
import ssl
import threading
import time

try:  # Python 3
    from urllib.parse import quote, urlsplit
except ImportError:  # Python 2.7
    from urllib import quote
    from urlparse import urlsplit

from mm2_core.alerts import metrics

RECV = 64 * 1024
MAX_BYTES = 256 * 1024 * 1024   # a runaway endpoint must not eat the agent's memory
MAX_HEADER = 64 * 1024

REFUSED = "refused"
TIMEOUT = "timeout"
TLS = "tls"
HTTP = "http"
AUTH = "auth"
INCOMPLETE = "incomplete"
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


class FetchError(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind


def deadline_in(seconds):
    """The monotonic deadline `seconds` from now (what callers pass as deadline=)."""
    return _now() + max(0.0, float(seconds))


def with_names(url, names):
    """url?name[]=a&name[]=b: the exporter's HTTP server then returns only these families."""
    if not names:
        return url
    query = "&".join("name%5B%5D=" + quote(n, safe="") for n in sorted(names))
    return url + ("&" if "?" in url else "?") + query


def ssl_context(ca_file, verify):
    if not verify:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    return ssl.create_default_context(cafile=ca_file or None)


def printable(data, limit=80):
    """A short printable rendering of what a peer sent (never raw bytes in an alert text)."""
    if not isinstance(data, str):
        data = data.decode("latin-1")
    text = "".join(c if " " <= c <= "~" else "?" for c in data[:limit])
    return text + ("..." if len(data) > limit else "")


class Conn(object):
    """A socket whose every operation is bounded by the time left until `deadline`."""

    def __init__(self, host, port, deadline, context=None):
        self.deadline = deadline
        self.sock = socket.create_connection((host, port), timeout=self.left())
        if context is not None:
            self.sock = self._handshake(context, host)

    def left(self):
        left = self.deadline - _now()
        if left <= 0:
            raise FetchError(TIMEOUT, "timed out")
        return left

    def _handshake(self, context, host):
        # non-blocking, so a peer that drips the handshake is still bounded by the deadline
        raw = self.sock
        raw.setblocking(False)
        tls = context.wrap_socket(raw, server_hostname=host, do_handshake_on_connect=False)
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                ready = select.select([tls], [], [], self.left())[0]
            except ssl.SSLWantWriteError:
                ready = select.select([], [tls], [], self.left())[1]
            if not ready:
                raise FetchError(TIMEOUT, "timed out")
        tls.settimeout(self.left())
        return tls

    def send(self, data):
        self.sock.settimeout(self.left())
        self.sock.sendall(data)

    def recv(self):
        self.sock.settimeout(self.left())
        return self.sock.recv(RECV)

    def close(self):
        try:
            self.sock.close()
        except Exception:
            pass


def read_head(conn, buf):
    """Status code, reason and headers; buf keeps what came after them."""
    while True:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            break
        if len(buf) > MAX_HEADER:
            raise FetchError(OTHER, "the endpoint sent no HTTP headers (is this port the exporter's?)")
        data = conn.recv()
        if not data:
            if not buf:
                raise FetchError(OTHER, "the endpoint closed the connection without answering")
            if not bytes(buf[:5]) == b"HTTP/":
                raise FetchError(OTHER, "the endpoint does not answer HTTP (is this port the exporter's?)")
            raise FetchError(INCOMPLETE, "the answer ended inside its HTTP headers")
        buf += data
        if len(buf) >= 5 and bytes(buf[:5]) != b"HTTP/":
            raise FetchError(OTHER, "the endpoint does not answer HTTP (is this port the exporter's?)")
    head = bytes(buf[:end]).decode("latin-1")
    del buf[:end + 4]
    lines = head.split("\r\n")
    parts = lines[0].split(" ", 2)
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        raise FetchError(OTHER, "the endpoint sent a malformed HTTP status line: %s" % printable(lines[0]))
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return status, (parts[2] if len(parts) > 2 else ""), headers


def _read_body(conn, buf, headers):
    """The whole body as bytes; raises FetchError(INCOMPLETE) when the peer stops short."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return _read_chunked(conn, buf)
    length = headers.get("content-length")
    if length is not None:
        try:
            length = int(length)
        except ValueError:
            raise FetchError(OTHER, "the endpoint sent a malformed Content-Length: %s" % printable(length))
        if length > MAX_BYTES:
            raise FetchError(OTHER, "the answer is larger than %d MB" % (MAX_BYTES >> 20))
        while len(buf) < length:
            data = conn.recv()
            if not data:
                raise FetchError(INCOMPLETE, "the answer was cut off after %d of its %d bytes" % (len(buf), length))
            buf += data
        return bytes(buf[:length])
    while True:   # no length: the body ends when the peer closes
        data = conn.recv()
        if not data:
            return bytes(buf)
        buf += data
        if len(buf) > MAX_BYTES:
            raise FetchError(OTHER, "the answer is larger than %d MB" % (MAX_BYTES >> 20))


def _read_chunked(conn, buf):
    out = []
    size_total = 0
    pos = 0
    while True:
        line_end = buf.find(b"\r\n", pos)
        if line_end >= 0:
            try:
                size = int(bytes(buf[pos:line_end]).split(b";")[0].strip(), 16)
            except ValueError:
                raise FetchError(OTHER, "the endpoint sent a malformed chunk size")
            if size == 0:
                # last chunk: optional trailers, then an empty line
                if buf.find(b"\r\n", line_end + 2) == line_end + 2 or buf.find(b"\r\n\r\n", line_end) >= 0:
                    return b"".join(out)
            elif len(buf) >= line_end + 2 + size + 2:
                out.append(bytes(buf[line_end + 2:line_end + 2 + size]))
                size_total += size
                if size_total > MAX_BYTES:
                    raise FetchError(OTHER, "the answer is larger than %d MB" % (MAX_BYTES >> 20))
                pos = line_end + 2 + size + 2
                if pos > RECV:
                    del buf[:pos]
                    pos = 0
                continue
        data = conn.recv()
        if not data:
            raise FetchError(INCOMPLETE, "the chunked answer was cut off before its last chunk (%d bytes read)"
                             % size_total)
        buf += data


def _charset(headers):
    ctype = headers.get("content-type", "")
    if "charset=" in ctype:
        return ctype.split("charset=", 1)[1].split(";")[0].strip() or "utf-8"
    return "utf-8"


def classify(exc):
    if isinstance(exc, FetchError):
        return exc.kind, str(exc)
    if isinstance(exc, socket.timeout) or "timed out" in str(exc):
        return TIMEOUT, "timed out"
    cert_error = getattr(ssl, "CertificateError", None)
    if isinstance(exc, ssl.SSLError) or (cert_error and isinstance(exc, cert_error)):
        return TLS, "TLS error: %s" % (exc,)
    err_no = getattr(exc, "errno", None)
    if err_no == errno.ECONNREFUSED:
        return REFUSED, "connection refused"
    if err_no in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return REFUSED, "host unreachable"
    if isinstance(exc, socket.gaierror):
        return OTHER, "cannot resolve the host name: %s" % (exc,)
    return OTHER, str(exc) or exc.__class__.__name__


def _request(url, deadline, ca_file, verify, username, password):
    parts = urlsplit(url)
    https = parts.scheme == "https"
    host = parts.hostname
    port = parts.port or (443 if https else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    host_header = "[%s]" % host if ":" in host else host
    lines = ["GET %s HTTP/1.1" % path, "Host: %s:%d" % (host_header, port),
             "Accept: text/plain;version=0.0.4", "Accept-Encoding: identity", "Connection: close",
             "User-Agent: ambari-mm2-alert"]
    if username:
        token = base64.b64encode(("%s:%s" % (username, password)).encode("utf-8"))
        lines.append("Authorization: Basic " + token.decode("ascii"))
    conn = Conn(host, port, deadline, ssl_context(ca_file, verify) if https else None)
    try:
        conn.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        buf = bytearray()
        status, reason, headers = read_head(conn, buf)
        if status != 200:
            raise FetchError(AUTH if status in (401, 403) else HTTP, "HTTP %d %s" % (status, printable(reason, 60)))
        body = _read_body(conn, buf, headers)
    finally:
        conn.close()
    return status, metrics.decode_payload(body, _charset(headers))


def fetch(url, timeout=5.0, ca_file="", verify=True, username="", password="", deadline=None):
    """GET url, done by `deadline` (monotonic; default: `timeout` seconds from now).
    Never raises: returns a Fetched."""
    start = _now()
    if deadline is None:
        deadline = start + timeout
    try:
        status, text = _request(url, deadline, ca_file, verify, username, password)
        problem = metrics.incomplete_scrape(text)
        if problem:
            return Fetched(url, error=problem, kind=INCOMPLETE, elapsed=_now() - start, status=status)
        return Fetched(url, text=text, elapsed=_now() - start, status=status)
    except Exception as e:  # the agent must never see an exception from here
        kind, message = classify(e)
        return Fetched(url, error=message, kind=kind, elapsed=_now() - start)


_LOCK = threading.Lock()
_CACHE = {}      # key -> (monotonic time, Fetched)
_INFLIGHT = {}   # key -> threading.Event


def clear_cache():
    with _LOCK:
        _CACHE.clear()


def fetch_cached(url, timeout=5.0, ttl=20.0, deadline=None, **kwargs):
    """fetch() through the short-lived in-process cache (ttl <= 0 disables it).

    A caller that finds the same scrape in flight waits for it, but only until its own
    deadline: it never starts a second scrape of its own (that would double the load on a
    slow exporter and the time the agent's alert thread is held)."""
    if deadline is None:
        deadline = deadline_in(timeout)
    if ttl <= 0:
        return fetch(url, timeout, deadline=deadline, **kwargs)
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
        start = _now()
        event.wait(max(0.0, deadline - start))
        with _LOCK:
            hit = _CACHE.get(key)
        if hit is not None:
            return hit[1]
        return Fetched(url, error="timed out waiting for the scrape another MM2 alert of this host started",
                       kind=TIMEOUT, elapsed=_now() - start)
    result = None
    try:
        result = fetch(url, timeout, deadline=deadline, **kwargs)
    finally:
        with _LOCK:
            if result is not None:
                _CACHE[key] = (_now(), result)
            _INFLIGHT.pop(key, None)
        event.set()
    return result


def fetch_many(urls, timeout=5.0, ttl=20.0, deadline=None, **kwargs):
    """{url: Fetched} for several endpoints in parallel, all done by the deadline."""
    if deadline is None:
        deadline = deadline_in(timeout)
    results = {}
    threads = []

    def run(u):
        results[u] = fetch_cached(u, timeout, ttl, deadline=deadline, **kwargs)

    for u in urls:
        t = threading.Thread(target=run, args=(u,), name="mm2-alert-fetch")
        t.daemon = True
        t.start()
        threads.append(t)
    for t in threads:
        t.join(max(0.0, deadline - _now()) + 0.2)
    for u in urls:
        if u not in results:
            results[u] = Fetched(u, error="timed out", kind=TIMEOUT, elapsed=timeout)
    return results
