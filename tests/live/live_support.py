"""What the live-flow tests share: a command that must succeed, and an exact record count."""
import time

from realkafka import cluster as rk


def ok(run, what):
    assert run.exit_code == 0 and not run.timed_out, "%s failed:\n%s" % (what, run.output[-6000:])
    return run


def wait_count(cluster, topic, expected, timeout=120):
    rk.wait_until(lambda: cluster.count(topic) >= expected, timeout,
                  what="%d records in %s on %s (have %s)" % (expected, topic, cluster.name, cluster.count(topic)))
    time.sleep(3)   # nothing more may arrive: exact, no duplicates
    assert cluster.count(topic) == expected, (topic, cluster.count(topic), expected)
