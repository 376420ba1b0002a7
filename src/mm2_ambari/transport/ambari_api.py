"""A small, careful client of Ambari's REST API (/api/v1).

- X-Requested-By on every call (Ambari's CSRF filter rejects mutating calls without it).
- Bounded connect/read timeouts. GETs are retried with exponential backoff on connection errors and
  on 502/503/504. A mutating call (POST/PUT/DELETE) is retried here only when the connection could
  not be opened (the request never reached Ambari). When it may have reached Ambari (read timeout,
  reset, 502/503/504) it raises MaybeSent: the caller checks whether Ambari accepted it before
  sending it again (ambari_requests.submit), so an install or start is never queued twice.
- An unresolvable host name fails at once (no retries): retrying does not fix a typo in --url.
- Ambari's error JSON {"status": N, "message": "..."} becomes AmbariHttpError quoting the message.
- Dry run: mutating calls are printed (passwords masked) and not sent.
"""
import json
import re
import sys
import time

import requests
from requests import exceptions as rex

from mm2_ambari.common import masking
from mm2_ambari.common.errors import AmbariHttpError, ConnectionFailed, MaybeSent

API_ROOT = "/api/v1"
ACCEPT = "application/json, text/plain, */*"  # what ambari-web (jQuery, dataType json) sends, in effect
MUTATING = ("POST", "PUT", "DELETE")
RETRYABLE_STATUS = (502, 503, 504)


class Response(object):
    def __init__(self, status, body):
        self.status, self.body = status, body

    @property
    def request_id(self):
        """The id of the asynchronous request a 202 answer carries, else None."""
        if self.status == 202 and isinstance(self.body, dict):
            return (self.body.get("Requests") or {}).get("id")
        return None


def _dns_error(exc):
    """True when the host name could not be resolved (urllib3 NameResolutionError / socket.gaierror)."""
    text = repr(exc)
    return ("NameResolutionError" in text or "Name or service not known" in text
            or "nodename nor servname" in text or "Temporary failure in name resolution" in text
            or "getaddrinfo failed" in text)


def _never_opened(exc):
    """True when the TCP connection was never established, so the server cannot have seen the request."""
    if isinstance(exc, rex.ConnectTimeout):
        return True
    text = repr(exc)
    return "NewConnectionError" in text or "Connection refused" in text or "NameResolutionError" in text


class AmbariClient(object):
    def __init__(self, url, auth, verify=True, connect_timeout=10.0, read_timeout=60.0,
                 retries=6, backoff=1.0, backoff_max=30.0, dry_run=False, out=None, log=None,
                 sleep=time.sleep):
        url = url.rstrip("/")
        if url.endswith(API_ROOT):
            url = url[:-len(API_ROOT)]
        self.base = url
        self.api = url + API_ROOT
        self.session = requests.Session()
        self.session.auth = auth
        self.session.verify = verify
        # Ambari's REST services produce text/plain (a JSON body: @Produces(MediaType.TEXT_PLAIN)); Jersey
        # answers 406 with no body to an Accept that excludes it, e.g. "application/json" alone.
        self.session.headers.update({"X-Requested-By": "mm2-ambari", "Accept": ACCEPT})
        self.timeout = (connect_timeout, read_timeout)
        self.retries, self.backoff, self.backoff_max = retries, backoff, backoff_max
        self.dry_run = dry_run
        self.out = out or sys.stdout
        self.log = log or (lambda message: print(message, file=sys.stderr))
        self.sleep = sleep
        self.planned = []  # mutating calls (method, path, masked body): sent, or only printed in dry run

    def close(self):
        self.session.close()

    # --- verbs ---------------------------------------------------------------------------------
    def get(self, path):
        return self._call("GET", path).body

    def get_or_none(self, path):
        """GET that maps 404 to None (the resource does not exist)."""
        try:
            return self.get(path)
        except AmbariHttpError as exc:
            if exc.status == 404:
                return None
            raise

    def post(self, path, body=None, describe=None):
        return self._mutate("POST", path, body, describe)

    def put(self, path, body=None, describe=None):
        return self._mutate("PUT", path, body, describe)

    def delete(self, path, describe=None):
        return self._mutate("DELETE", path, None, describe)

    # --- internals -----------------------------------------------------------------------------
    def _mutate(self, method, path, body, describe):
        masked = _mask_credentials(masking.mask_body(body)) if body is not None else None
        self.planned.append((method, path, masked))
        if not self.dry_run:
            self.log("-> %s %s%s" % (method, API_ROOT + path, "  (%s)" % describe if describe else ""))
        if self.dry_run:
            print("[dry-run] %s %s%s" % (method, API_ROOT + path, "  # " + describe if describe else ""),
                  file=self.out)
            if masked is not None:
                print(_indent(json.dumps(masked, indent=2, sort_keys=True)), file=self.out)
            return None
        return self._call(method, path, body)

    def _call(self, method, path, body=None):
        url = self.api + path
        data = json.dumps(body) if body is not None else None
        where = "%s %s" % (method, API_ROOT + _no_query(path))
        attempt = 0
        while True:
            try:
                resp = self.session.request(method, url, data=data, timeout=self.timeout)
            except (rex.ConnectionError, rex.Timeout) as exc:
                if _dns_error(exc):
                    raise ConnectionFailed("cannot resolve the Ambari host of %s (%s): check --url / "
                                           "AMBARI_URL / deployment.ambari.url" % (self.base, _short(exc)))
                if _is_tls_error(exc) and _plain_http_answer(exc) and self.base.startswith("https://"):
                    raise ConnectionFailed("cannot reach Ambari at %s (%s): the server answers plain HTTP, not "
                                           "HTTPS: use %s (or enable HTTPS on the Ambari server)" % (
                                               self.base, where, "http://" + self.base[len("https://"):]))
                if _is_tls_error(exc):
                    raise ConnectionFailed("cannot reach Ambari at %s (%s): %s" % (self.base, where, _short(exc)))
                never_opened = _never_opened(exc)
                if method != "GET" and not never_opened:
                    raise MaybeSent("%s: %s (the request may have reached Ambari)" % (where, _short(exc)))
                if attempt >= self.retries:
                    raise ConnectionFailed("cannot reach Ambari at %s (%s): %s" % (self.base, where, _short(exc)))
                attempt += 1
                self._wait(attempt, "%s: %s" % (where, _short(exc)))
                continue
            if resp.status_code in RETRYABLE_STATUS:
                if method != "GET":
                    raise MaybeSent("%s answered %d (the request may have reached Ambari)" % (where, resp.status_code),
                                    status=resp.status_code)
                if attempt < self.retries:
                    attempt += 1
                    self._wait(attempt, "%s answered %d" % (where, resp.status_code))
                    continue
            return self._response(method, path, resp)

    def _wait(self, attempt, why):
        delay = min(self.backoff * (2 ** (attempt - 1)), self.backoff_max)
        self.log("retry %d/%d in %.1fs after %s" % (attempt, self.retries, delay, why))
        self.sleep(delay)

    def _response(self, method, path, resp):
        body = None
        if resp.content:
            try:
                body = resp.json()
            except ValueError:
                body = resp.text
        if resp.status_code >= 400:
            raise AmbariHttpError(method, API_ROOT + path, resp.status_code, _error_message(resp, body))
        return Response(resp.status_code, body)


def _mask_credentials(body):
    """A credential resource's key (the KDC admin password) never shows in plans or logs."""
    if isinstance(body, dict) and isinstance(body.get("Credential"), dict) and "key" in body["Credential"]:
        body = dict(body, Credential=dict(body["Credential"], key=masking.MASK))
    return body


def _error_message(resp, body):
    if isinstance(body, dict) and body.get("message"):
        return masking.mask_text(str(body["message"]))
    text = (resp.text or "").strip()
    return masking.mask_text(text[:500]) if text else resp.reason


def _short(exc):
    """The root cause of a connection error ('[Errno 111] Connection refused'), not urllib3's wrapping."""
    text = str(exc)
    match = re.search(r"\[Errno -?\d+\] [^'\")\]]+", text)
    if match:
        return match.group(0).strip()
    for marker in ("Read timed out", "timed out", "Connection aborted", "RemoteDisconnected",
                   "Connection reset by peer", "CERTIFICATE_VERIFY_FAILED", "certificate verify failed",
                   "SSLError"):
        if marker in text:
            return marker if marker != "CERTIFICATE_VERIFY_FAILED" else \
                "TLS certificate verify failed (use --ca-bundle PEM for a private CA)"
    return text if len(text) < 200 else text[:200] + "..."


def _is_tls_error(exc):
    return isinstance(exc, rex.SSLError)


def _plain_http_answer(exc):
    """OpenSSL's words for a TLS hello answered by a plain-HTTP server."""
    text = str(exc).lower()
    return any(marker in text for marker in ("wrong version number", "wrong_version_number", "record layer failure",
                                             "packet length too long", "unknown protocol", "http request"))


def _no_query(path):
    return path.split("?", 1)[0]


def _indent(text, prefix="    "):
    return "\n".join(prefix + line for line in text.splitlines())
