"""KafkaCli.read_recent, the bounded tail read behind REPLICATION_STATUS's and the service check's heartbeats:
on a loaded host the console consumer's first fetch can outlast the short quiet bound, and the offsets then
say records were there although none was read."""
import mm2_kafka_cli


class Cli(mm2_kafka_cli.KafkaCli):
    """read_recent's own logic over scripted tool results (the tools themselves run in the real-Kafka suites)."""

    def __init__(self, reads, ends="A.heartbeats:0:273\n"):
        self.version, self.home, self.timeout = (3, 9, 1), "/opt/kafka", 120
        self.ends, self.reads, self.calls = ends, list(reads), []

    def bootstrap(self, alias):
        return "127.0.0.1:9092"

    def config(self, alias):
        return "/run/client-%s.properties" % alias

    def run(self, command, **kwargs):
        return mm2_kafka_cli.ToolResult(0, self.ends, "")

    def consume(self, alias, topic, mode="text", timeout_ms=10000, max_messages=None, partition=None,
                offset=None):
        self.calls.append((timeout_ms, max_messages, partition, offset))
        return mm2_kafka_cli.ToolResult(0, self.reads.pop(0), "")


def test_an_empty_read_where_the_offsets_say_records_are_is_read_again_with_more_patience():
    cli = Cli(["", "beat-1\nbeat-2\n"])
    result = cli.read_recent("B", "A.heartbeats", mode="heartbeat")
    assert result.ok and result.out.split() == ["beat-1", "beat-2"] and result.note is None
    assert cli.calls == [(mm2_kafka_cli.QUIET_MS, 200, 0, 73), (mm2_kafka_cli.SUBSCRIBE_QUIET_MS, 200, 0, 73)]


def test_a_read_that_got_records_is_not_repeated():
    cli = Cli(["beat-1\n"])
    assert cli.read_recent("B", "A.heartbeats", mode="heartbeat").out.split() == ["beat-1"]
    assert cli.calls == [(mm2_kafka_cli.QUIET_MS, 200, 0, 73)]


def test_a_second_empty_read_is_what_the_caller_judges():
    cli = Cli(["", ""])
    result = cli.read_recent("B", "A.heartbeats", mode="heartbeat")
    assert result.ok and result.out.strip() == "" and len(cli.calls) == 2
