"""The facts of the offset-sync translation as the agent reads them (mm2_cutover.committed_offsets,
read_offset_syncs, judge_groups; mm2_export.translation_inputs), with a scripted tool runner: which tool runs
where, what is kept, and what a source that cannot be read leaves (MM2's checkpoints, unchecked). The translation
itself is pure: tests/core/test_translation.py."""
import mm2_cutover
import mm2_export
import mm2_kafka_cli
from mm2_core.dr import failover
from mm2_core.kafkatools.records import Checkpoint
from mm2_core.rendering import render

DESCRIBE = """
GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID
app             orders          0          1696            1700            4               -               -               -
app             orders          1          617             700             83              -               -               -
app             orders          2          608             700             92              -               -               -
app             west.orders     0          9               9               0               -               -               -
app             mm2-offsets.east.internal 0 5             5               0               -               -               -
console-consumer-1 orders       0          3               1700            1697            -               -               -
"""
SYNCS = "\n".join([
    "OffsetSync{topicPartition=orders-0, upstreamOffset=1599, downstreamOffset=1599}",
    "OffsetSync{topicPartition=orders-1, upstreamOffset=600, downstreamOffset=600}",
    "OffsetSync{topicPartition=orders-2, upstreamOffset=650, downstreamOffset=650}",
    "Processed a total of 3 messages"])


class Cli(object):
    version, home, timeout = (3, 6, 2), "/k", 60
    params = None   # the command's parameters: dedicated mode, no live flow settings (mm2_cutover._live_entries)

    def __init__(self, describe=(0, DESCRIBE), syncs=(0, SYNCS)):
        self.describe, self.syncs, self.calls = describe, syncs, []

    def bootstrap(self, alias):
        return "%s:9092" % alias

    def config(self, alias):
        return "/run/%s.properties" % alias

    def run(self, argv, timeout=None):
        self.calls.append(("run", argv[0].rsplit("/", 1)[-1], argv[2], timeout))
        return mm2_kafka_cli.ToolResult(self.describe[0], self.describe[1], "" if self.describe[0] == 0 else "boom")

    def read_compacted(self, alias, topic, mode, interval_seconds):
        self.calls.append(("read_compacted", alias, topic, mode))
        return mm2_kafka_cli.ToolResult(self.syncs[0], self.syncs[1], "")


class Log(object):
    lines = []

    @classmethod
    def info(cls, message):
        cls.lines.append(message)

    warning = info


def _rendering(version="3.6.2"):
    return render.render_mm2({"kafka-mm2-clusters": {"source.alias": "east", "source.bootstrap.servers": "e1:9092",
                                                     "target.alias": "west", "target.bootstrap.servers": "w1:9092"}},
                             version, "h", "/etc/kafka-mm2/conf")


def test_the_export_reads_the_sources_groups_and_the_offset_syncs_up_to_their_end():
    rendering = _rendering()
    (flow,) = rendering.topology.enabled_flows
    cli = Cli()
    committed, syncs, notes = mm2_export.translation_inputs(cli, rendering, flow, [])
    # the flow's groups filter (console-consumer-* excluded by default) and topics: never internal ones, nor
    # west.orders (it came from the target: MM2's cycle check)
    assert committed == {"app": {("orders", 0): 1696, ("orders", 1): 617, ("orders", 2): 608}}
    assert syncs[("orders", 1)] == [(600, 600)] and notes == []
    assert cli.calls == [("run", "kafka-consumer-groups.sh", "east:9092", mm2_cutover.GROUPS_DESCRIBE_SECONDS),
                         ("read_compacted", "east", "mm2-offset-syncs.west.internal", "offset-sync")]


def test_a_source_that_cannot_be_read_leaves_the_checkpoints_unchecked_and_says_so():
    rendering = _rendering()
    (flow,) = rendering.topology.enabled_flows
    cli = Cli(describe=(124, ""))
    committed, syncs, notes = mm2_export.translation_inputs(cli, rendering, flow, [])
    assert committed is None and syncs == {} and len(cli.calls) == 1
    assert notes[0].startswith("only MM2's checkpoints are exported, unchecked: the committed offsets on east could "
                               "not be read")


def test_failover_judges_each_group_by_partition(monkeypatch):
    monkeypatch.setattr(mm2_cutover, "Logger", Log)
    del Log.lines[:]
    rendering = _rendering()
    (flow,) = rendering.topology.enabled_flows
    cps = [Checkpoint("app", "east.orders", 0, 1696, 1600)]
    judged = mm2_cutover.judge_groups(Cli(), rendering, flow, ["app"], cps)
    # orders-2: committed 608, the only sync is at 650: cannot be translated, so the group is refused by name
    assert judged["app"]["untranslated"] == ["orders-2"] and judged["app"]["from_offset_syncs"] == ["orders-1"]
    assert [(c.topic, c.partition, c.downstream) for c in judged["app"]["apply"]] == [
        ("east.orders", 0, 1600), ("east.orders", 1, 601)]
    assert "cannot translate orders-2" in failover.failover_refusal(flow.name, "west", judged["app"])
    assert Log.lines == ["Group app: orders-0: committed 1696 -> 1600 (checkpoint, re-reads <= 96); orders-1: "
                         "committed 617 -> 601 (offset-sync, re-reads <= 16); orders-2: committed 608, cannot be "
                         "translated"]
    # a source that cannot be read: nothing judged, MM2's checkpoints go as they are
    assert mm2_cutover.judge_groups(Cli(describe=(1, "")), rendering, flow, ["app"], cps) == {}


def test_the_gates_checkpoints_read_stops_at_the_end_offset_it_knows():
    cli = Cli(describe=(0, ""))
    cli.run = lambda argv, timeout=None: cli.calls.append(argv) or mm2_kafka_cli.ToolResult(0, "", "")
    assert mm2_cutover.read_checkpoints(cli, "west", "east.checkpoints.internal", 0) == ([], []) and cli.calls == []
    mm2_cutover.read_checkpoints(cli, "west", "east.checkpoints.internal", 12)
    assert cli.calls[-1][-2:] == ["--max-messages", "12"]
    mm2_cutover.read_checkpoints(cli, "west", "east.checkpoints.internal")
    assert "--max-messages" not in cli.calls[-1]
