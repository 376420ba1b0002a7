"""seed-from-mm1 reads MirrorMaker 1's group state the way Kafka's tools print it (issue 34: the MM1 path did not
understand "has no active members" and "does not exist", which kafka-consumer-groups prints outside its table).

The outputs are the real tools' (tests/fixtures/kafka_tool_output), replayed by a stand-in for mm1_cmds.Tools that
splits stdout and stderr as the real process does.
"""
import io
import os

import pytest

from mm2_ambari.mm1 import commands as mm1_cmds

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "kafka_tool_output")
VERSIONS = sorted(d for d in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, d, "MANIFEST")))


class ReplayTools(object):
    """mm1_cmds.Tools' run() contract over a captured stdout/stderr pair."""

    home = "/opt/kafka"

    def __init__(self, version, case):
        self.outputs = []
        for ext in ("out", "err"):
            with io.open(os.path.join(FIXTURES, version, "%s.%s" % (case, ext)), encoding="utf-8") as fh:
                self.outputs.append(fh.read())
        self.argv = None

    def run(self, argv, what, input_text=None, timeout=None, with_stderr=False):
        self.argv = argv
        out, err = self.outputs
        return out + ("\n" + err if with_stderr and err else "")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_stopped_mirrormaker_1s_group_reads_as_empty(version):
    tools = ReplayTools(version, "state_empty")
    state, members, _out = mm1_cmds.read_group_state(tools, "src:9092", "/tmp/source.properties", "g-empty")
    assert (state, members) == ("Empty", 0)
    assert tools.argv == ["/opt/kafka/bin/kafka-consumer-groups.sh", "--bootstrap-server", "src:9092",
                          "--command-config", "/tmp/source.properties", "--describe", "--group", "g-empty", "--state"]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_group_that_does_not_exist_reads_as_dead_not_as_unreadable(version):
    tools = ReplayTools(version, "state_missing")
    state, members, _out = mm1_cmds.read_group_state(tools, "src:9092", "/tmp/source.properties", "no-such-group")
    assert (state, members) == ("Dead", 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_running_mirrormaker_1_is_seen_with_its_members(version):
    tools = ReplayTools(version, "state_active")
    assert mm1_cmds.read_group_state(tools, "src:9092", "/c", "g-active")[:2] == ("Stable", 1)


def test_only_the_notice_is_enough():
    # the notices alone, as the tool prints them on stderr / stdout when it prints no table for the group
    class Notices(ReplayTools):
        def __init__(self, out, err):
            self.outputs, self.argv = [out, err], None
    empty = Notices("", "\nConsumer group 'mm1' has no active members.\n")
    gone = Notices("\nError: Consumer group 'mm1' does not exist.\n", "")
    assert mm1_cmds.read_group_state(empty, "s:1", "/c", "mm1")[:2] == ("Empty", 0)
    assert mm1_cmds.read_group_state(gone, "s:1", "/c", "mm1")[:2] == ("Dead", 0)
