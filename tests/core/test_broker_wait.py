"""mm2_core.broker_wait: which local clusters START waits for, and the bounded wait itself."""
import socket

from mm2_core.config import names
from mm2_core.host import broker_wait
from mm2_core.model import parse


def _topology(target_bootstrap, local_bootstrap="k1:6667,k2:6667,k3:6667"):
    configurations = {
        names.CLUSTERS: {"source.alias": "dc1", "source.bootstrap.servers": "a1:9092",
                         "target.alias": "dc2", "target.bootstrap.servers": target_bootstrap},
    }
    local = {"bootstrap.servers": local_bootstrap, "security.protocol": "PLAINTEXT", "hosts": ["k1", "k2", "k3"]}
    return parse.build_topology(configurations, "3.7.1", local)


def test_the_local_target_is_waited_for():
    topo = _topology("")
    assert broker_wait.local_clusters_in_use(topo, []) == [("dc2", "k1:6667,k2:6667,k3:6667")]
    assert broker_wait.local_clusters_in_use(topo, ["dc2"]) == [("dc2", "k1:6667,k2:6667,k3:6667")]
    assert broker_wait.local_clusters_in_use(topo, ["elsewhere"]) == []  # this host serves another target


def test_remote_clusters_are_not_waited_for():
    assert broker_wait.local_clusters_in_use(_topology("b1:9092"), []) == []


class Clock(object):
    def __init__(self):
        self.now = 0.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_the_first_broker_that_answers_ends_the_wait():
    clock = Clock()
    tries = []

    def connect(host, port, timeout):
        tries.append((host, port))
        if clock.now < 10 or host != "k2":
            raise socket.error(111, "Connection refused")

    result = broker_wait.wait_for_any_broker("k1:6667,k2:6667", 300, connect=connect, clock=clock.time,
                                             sleep=clock.sleep)
    assert result.ok and result.detail == "k2:6667" and 10 <= result.waited <= 12
    assert ("k1", 6667) in tries


def test_the_wait_is_bounded_and_names_the_last_error():
    clock = Clock()

    def refuse(host, port, timeout):
        raise socket.error(111, "Connection refused")

    result = broker_wait.wait_for_any_broker("k1:6667", 30, connect=refuse, clock=clock.time, sleep=clock.sleep)
    assert not result.ok and 28 <= result.waited <= 30
    assert result.detail.startswith("k1:6667: ") and "Connection refused" in result.detail


def test_no_endpoint_is_not_a_wait():
    result = broker_wait.wait_for_any_broker("", 30)
    assert not result.ok and result.waited == 0
