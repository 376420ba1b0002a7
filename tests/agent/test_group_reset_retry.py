"""FAILOVER_GROUPS / failback's group reset: a target broker that did not answer in time (seen in the CI
rehearsal at load 23: "Timed out waiting for a node assignment") is tried again, since a reset to the file's
offsets is the same reset when repeated; any other error is reported at once, naming the group."""
import os
import tempfile

import mm2_cutover
import mm2_kafka_cli

TIMEOUT = ("Error: java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: "
           "Timed out waiting for a node assignment. Call: describeConsumerGroups(api=DESCRIBE_GROUPS)")


class Cli(object):
    def __init__(self, results):
        self.home, self.dir = "/opt/kafka", tempfile.mkdtemp()
        self.uid, self.gid = os.getuid(), os.getgid()
        self.results, self.commands = list(results), []

    def bootstrap(self, alias):
        return "127.0.0.1:9092"

    def config(self, alias):
        return "/run/client-%s.properties" % alias

    def run(self, command):
        self.commands.append(command)
        code, out = self.results.pop(0)
        return mm2_kafka_cli.ToolResult(code, out, "")


class Log(object):
    lines = []

    @classmethod
    def info(cls, message):
        cls.lines.append(message)


def apply(results, monkeypatch):
    monkeypatch.setattr(mm2_cutover, "RESET_RETRY_SECONDS", 0)
    monkeypatch.setattr(mm2_cutover, "Logger", Log)
    del Log.lines[:]
    cli = Cli(results)
    return mm2_cutover._apply_offsets(cli, "A", "app-orders", "orders,0,42\n"), cli


def test_a_timed_out_reset_is_tried_again_and_succeeds(monkeypatch):
    error, cli = apply([(1, TIMEOUT), (0, "GROUP TOPIC PARTITION NEW-OFFSET\napp-orders orders 0 42\n")], monkeypatch)
    assert error is None and len(cli.commands) == 2 and cli.commands[0] == cli.commands[1]
    assert Log.lines == ["Group app-orders on A: the reset timed out (attempt 1 of 3); trying again in 0s"]


def test_timeouts_every_time_end_with_the_error(monkeypatch):
    error, cli = apply([(1, TIMEOUT)] * mm2_cutover.RESET_ATTEMPTS, monkeypatch)
    assert "Timed out waiting for a node assignment" in error
    assert len(cli.commands) == mm2_cutover.RESET_ATTEMPTS


def test_other_errors_are_not_retried(monkeypatch):
    error, cli = apply([(1, "Error: Assignments can only be reset if the group 'app-orders' is inactive, but the "
                           "current state is Stable.")], monkeypatch)
    assert "is inactive" in error and len(cli.commands) == 1
