"""The alerts' HTTP reads are bounded by one deadline and accept only complete scrapes.

The Ambari agent runs script alerts on a pool of 3 threads with no timeout of its own: one
endpoint that answers slowly must not hold an alert (or every alert of the host) longer than
the alert's connection.timeout. These peers misbehave on purpose (bad_peers.py).
"""
import threading
import time

import pytest

from bad_peers import BadPeer, drip, endless, fixed, head, stall
from conftest import render, token_map
from mm2_core.alerts import alert_fetch, alert_runner
from mm2_sim import Flow, MM2Process, partitions

_now = getattr(time, "monotonic", time.time)

PAYLOAD = render(MM2Process("3.9.0", flows=[Flow("A", "B", partitions("t1", 2))]))
BODY = PAYLOAD.encode("utf-8")


@pytest.fixture
def peer():
    peers = []

    def start(script):
        p = BadPeer(script)
        peers.append(p)
        return p
    yield start
    for p in peers:
        p.stop()


def _url(p):
    return "http://127.0.0.1:%d/metrics" % p.port


def _timed(fn, *args, **kwargs):
    start = _now()
    result = fn(*args, **kwargs)
    return result, _now() - start


@pytest.mark.parametrize("script", [drip(BODY[:200], interval=0.1), stall, endless], ids=["drip", "stall", "endless"])
def test_one_deadline_bounds_the_whole_read(peer, script):
    # the drip peer would take 20+ s to send its 200 bytes plus headers; the stall one never answers
    p = peer(script)
    fetched, took = _timed(alert_fetch.fetch, _url(p), timeout=1.0)
    assert not fetched.ok
    if script is endless and fetched.kind == alert_fetch.OTHER:   # a fast machine hits the size cap first
        assert fetched.error == "the answer is larger than 256 MB"
    else:
        assert (fetched.kind, fetched.error) == (alert_fetch.TIMEOUT, "timed out")
    assert took < 4.0


def test_drip_inside_headers_is_bounded_too(peer):
    p = peer(drip(b"", interval=0.2))   # only headers, dripped
    fetched, took = _timed(alert_fetch.fetch, _url(p), timeout=0.8)
    assert fetched.kind == alert_fetch.TIMEOUT
    assert took < 4.0


def test_six_alerts_on_a_dripping_endpoint_all_end_within_the_deadline(peer, tmpdir):
    """What the agent does: six alerts scheduled together on one dripping exporter. They share one
    scrape and nobody starts a second one while waiting for it."""
    p = peer(drip(BODY, interval=0.05))
    results = {}

    def run(kind):
        params = {"connection.timeout": 1.0, "metrics.cache.seconds": 20, "state.directory": str(tmpdir)}
        start = _now()
        state, texts = alert_runner.execute(kind, token_map(p.port), params, "127.0.0.1")
        results[kind] = (state, texts[0], _now() - start)

    threads = [threading.Thread(target=run, args=(k,)) for k in alert_runner.KINDS if k != "process"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 5
    for kind, (state, text, took) in results.items():
        assert state == "UNKNOWN", (kind, text)
        assert "timed out" in text
        assert took < 5.0, (kind, took)   # the drip alone lasts minutes
    assert p.connections == 1   # one shared scrape, no second attempt by the waiters


@pytest.mark.parametrize("data,why", [
    (head(len(BODY)) + BODY[:len(BODY) // 2], "cut off after %d of its %d bytes" % (len(BODY) // 2, len(BODY))),
    (head(chunked=True) + b"%x\r\n" % len(BODY[:500]) + BODY[:500] + b"\r\n",
     "chunked answer was cut off before its last chunk"),
    (head(len(BODY[:BODY.rindex(b"\n# HELP jmx_scrape_error") + 1])) + BODY[:BODY.rindex(b"\n# HELP jmx_scrape_error") + 1],
     "lacks the exporter's own jmx_scrape_error series"),
], ids=["content-length", "chunked", "no-end-of-scrape"])
def test_a_cut_off_scrape_is_refused_with_the_reason(peer, data, why):
    p = peer(fixed(data))
    fetched = alert_fetch.fetch(_url(p), timeout=3.0)
    assert not fetched.ok
    assert fetched.kind == alert_fetch.INCOMPLETE
    assert why in fetched.error


def test_a_complete_chunked_answer_is_read(peer):
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(BODY[i:i + 1000]), BODY[i:i + 1000]) for i in range(0, len(BODY), 1000))
    p = peer(fixed(head(chunked=True) + chunks + b"0\r\n\r\n"))
    fetched = alert_fetch.fetch(_url(p), timeout=3.0)
    assert fetched.ok, fetched.error
    assert fetched.text == PAYLOAD


def test_tasks_alert_does_not_say_ok_on_a_truncated_scrape(peer, run_alert):
    # the FAILED task sits in the part that is cut off
    failed = render(MM2Process("3.9.0", flows=[Flow("A", "B", partitions("t1", 2))],
                               task_status={("MirrorSourceConnector", 0): "failed"})).encode("utf-8")
    cut = failed.index(b"mm2_task_status")
    p = peer(fixed(head(len(failed)) + failed[:cut]))
    state, text = run_alert("tasks", p.port)
    assert state == "UNKNOWN"
    assert "cut off" in text and "incomplete scrape is not used" in text


def test_non_http_endpoint_is_named_without_its_raw_bytes(peer):
    p = peer(fixed(b"\x15\x03\x01\x00\x02\x02\x50garbage\x00\xff"))
    fetched = alert_fetch.fetch(_url(p), timeout=2.0)
    assert fetched.kind == alert_fetch.OTHER
    assert fetched.error == "the endpoint does not answer HTTP (is this port the exporter's?)"
