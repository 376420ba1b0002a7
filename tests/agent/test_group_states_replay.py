"""FAILOVER_GROUPS reads the state of every group it moves (mm2_cutover.group_states) from what the real
kafka-consumer-groups of each Kafka line printed (tests/fixtures/kafka_tool_output). Kafka 4.x fails a describe of
several groups when one does not exist and answers for that one only: the others are asked again, one each, so a
group with members is never taken for a missing one."""
import io
import os

import pytest

import mm2_cutover
import mm2_kafka_cli

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "kafka_tool_output")
VERSIONS = sorted(d for d in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, d, "MANIFEST")))
# the captured --describe --state runs, by the groups they named (capture.py)
CASES = {("g-active", "g-empty", "no-such-group"): "state_several", ("g-active",): "state_active",
         ("g-empty",): "state_empty", ("no-such-group",): "state_missing"}


class ReplayCli(object):
    home = "/opt/kafka"

    def __init__(self, version):
        self.version_dir, self.asked = os.path.join(FIXTURES, version), []

    def bootstrap(self, alias):
        return "127.0.0.1:9092"

    def config(self, alias):
        return "/run/client-%s.properties" % alias

    def run(self, command):
        groups = tuple(command[i + 1] for i, arg in enumerate(command) if arg == "--group")
        assert "--state" in command and groups in CASES, command
        self.asked.append(groups)
        out, err = [io.open(os.path.join(self.version_dir, "%s.%s" % (CASES[groups], ext)), encoding="utf-8").read()
                    for ext in ("out", "err")]
        return mm2_kafka_cli.ToolResult(0, out, err)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_group_gets_its_state_on_every_line(version):
    cli = ReplayCli(version)
    states = mm2_cutover.group_states(cli, "B", ["g-active", "g-empty", "no-such-group"])
    assert states == {"g-active": ("Stable", 1), "g-empty": ("Empty", 0), "no-such-group": ("Dead", 0)}, version
    # one describe where the tool answers for all; Kafka 4.x: then one for each group it left unanswered
    assert cli.asked[0] == ("g-active", "g-empty", "no-such-group")
    assert cli.asked[1:] in ([], [("g-active",), ("g-empty",)]), cli.asked
