"""START after a host reboot: wait, within a bound, for this Ambari cluster's own Kafka brokers.

Service Auto Start (the agent's RecoveryManager) starts every component of a host on its own, with
no order between them and none across hosts, and retries a failed START only after its retry gap
(5 minutes by default). role_command_order.json orders a request's stages on the server (Start All,
a restart of the service), never recovery. So a driver whose flows read from or write to the local
Kafka may start while its brokers are still coming up. Instead of failing into the retry gap, START
waits for one broker of each such cluster to accept a TCP connection, up to
kafka-mm2-env/mm2_local_kafka_wait_seconds.

Pure stdlib, Python 2.7 and 3; the clock, sleep and connect are parameters so tests need no network.
"""
import socket
import time

from mm2_core.config.local_kafka import parse_host_ports


def local_clusters_in_use(topology, served_targets):
    """[(alias, bootstrap)] of the local-Kafka clusters a flow this host runs uses (as source or target).

    served_targets: the aliases this host serves (kafka-mm2-driver/target.clusters); empty: all."""
    used = []
    for flow in topology.enabled_flows:
        if served_targets and flow.target not in served_targets:
            continue
        for alias in (flow.source, flow.target):
            cluster = topology.clusters.get(alias)
            if cluster is not None and cluster.local and cluster.bootstrap and \
                    (alias, cluster.bootstrap) not in used:
                used.append((alias, cluster.bootstrap))
    return used


class WaitResult(object):
    def __init__(self, ok, waited, detail):
        self.ok, self.waited, self.detail = ok, waited, detail


def _try_connect(host, port, timeout):
    sock = socket.create_connection((host, port), timeout)
    sock.close()


def wait_for_any_broker(bootstrap, timeout, connect=_try_connect, clock=time.time, sleep=time.sleep,
                        pause=2.0, connect_timeout=3.0):
    """Until one host:port of bootstrap accepts a connection or timeout seconds pass.

    Returns WaitResult(ok, seconds waited, the broker that answered or the last error)."""
    endpoints = [(host, int(port)) for host, port in parse_host_ports(bootstrap)[0]]
    if not endpoints:
        return WaitResult(False, 0.0, "no host:port in %r" % bootstrap)
    start = clock()
    last = None
    while True:
        for host, port in endpoints:
            try:
                connect(host, port, connect_timeout)
                return WaitResult(True, clock() - start, "%s:%s" % (host, port))
            except (socket.error, OSError, ValueError) as e:
                last = "%s:%s: %s" % (host, port, e)
        waited = clock() - start
        if waited + pause > timeout:
            return WaitResult(False, waited, last)
        sleep(pause)
