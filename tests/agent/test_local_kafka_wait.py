"""START after a host reboot: when a flow uses this cluster's own Kafka, START waits (bounded) for a
local broker instead of failing into Service Auto Start's 5-minute retry gap."""
import os
import socket
import threading
import time

import pytest

from mm2_core.config import names

from agent_support import failed, ok
from driver_fixture import Driver


class LocalTargetDriver(Driver):
    """A driver whose target is this Ambari cluster's Kafka (empty target.bootstrap.servers) on 127.0.0.1."""

    def __init__(self, site, port, **kwargs):
        Driver.__init__(self, site, **kwargs)
        self.port = port
        self.configurations[names.CLUSTERS]["target.bootstrap.servers"] = ""

    def command(self, command, **kwargs):
        cmd = Driver.command(self, command, **kwargs)
        cmd["clusterHostInfo"]["kafka_broker_hosts"] = ["127.0.0.1"]
        cmd["configurations"]["kafka-broker"] = {"listeners": "PLAINTEXT://localhost:%d" % self.port}
        return cmd


def _broker_later(delay, stop, after_file=None):
    """A broker stand-in on a port bound now (so nothing else takes it) that refuses connections (bound, not
    listening) until delay seconds after after_file exists (from now without it), then accepts them until stop is
    set. Returns the port. after_file: a file START writes before its wait (its configuration), so the delay
    counts from START's own progress, not from the test's start (a loaded host took more than 4 s to get there)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]

    def serve():
        while after_file and not os.path.exists(after_file) and not stop.is_set():
            time.sleep(0.1)
        time.sleep(delay)
        sock.listen(16)
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
                conn.close()
            except socket.timeout:
                pass
        sock.close()
    thread = threading.Thread(target=serve)
    thread.daemon = True
    thread.start()
    return port


def _refusing_port():
    """A port bound and never listened on: connections to it are refused, and nothing else can take it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


@pytest.fixture
def stop_event():
    stop = threading.Event()
    yield stop
    stop.set()


def test_start_waits_for_the_local_brokers(site, guard, stop_event):
    driver = LocalTargetDriver(site, 0)
    driver.port = _broker_later(5, stop_event, after_file=driver.props)
    port = driver.port
    run = ok(driver.run("START", env={"mm2_local_kafka_wait_seconds": "60"}))
    assert "Waiting up to 60 s for this cluster's Kafka (B: 127.0.0.1:%d) to accept connections" % port in run.output
    assert "Kafka broker 127.0.0.1:%d of B answers after" % port in run.output
    assert driver.pid()
    ok(driver.run("STOP"))


def test_start_gives_up_after_the_bound_naming_the_brokers(site, guard):
    refusing = _refusing_port()
    port = refusing.getsockname()[1]
    driver = LocalTargetDriver(site, port)
    began = time.time()
    run = failed(driver.run("START", env={"mm2_local_kafka_wait_seconds": "3"}))
    assert time.time() - began < 60
    assert ("This cluster's Kafka brokers for B (127.0.0.1:%d) did not accept a connection within 3 s" % port
            in run.output)
    assert "raise kafka-mm2-env/mm2_local_kafka_wait_seconds" in run.output
    assert driver.pid() is None  # nothing was launched
    refusing.close()


def test_no_wait_when_the_flows_use_no_local_kafka(site, guard):
    driver = Driver(site)  # both clusters are remote: a1:9092 -> b1:9092
    run = ok(driver.run("START", env={"mm2_local_kafka_wait_seconds": "3"}))
    assert "Waiting up to" not in run.output
    ok(driver.run("STOP"))
