"""The Kafka boundary's parsers (mm2_core.kafkatools.output) on what the real tools of every Kafka line printed.

tests/fixtures/kafka_tool_output/<version>/ holds one capture per version (its README says how they were made):
<case>.out / <case>.err are a tool's stdout and stderr, MANIFEST its command line and exit code. Every case of every
version is read here through the boundary, from stdout alone and from stdout and stderr run together (where the
tools' warnings and notices go), and must give the same facts: the cluster and its groups were the same for each.
"""
import io
import os

import pytest

from mm2_core.kafkatools import commands as kc, output as ko

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "kafka_tool_output")
VERSIONS = sorted(d for d in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, d, "MANIFEST")))

# what capture.py made: topic -> (partitions, records), and the groups' committed offsets
TOPICS = {"orders": (3, 5), "dotted.topic.v1": (2, 3), "many_parts": (24, 0)}
EMPTY_GROUPS = {"g-empty": {("orders", 0): 1, ("orders", 1): 0}, "g.dotted.empty": {("dotted.topic.v1", 0): 1}}


class Capture(object):
    def __init__(self, version, case):
        folder = os.path.join(ROOT, version)
        self.version, self.case = version, case
        self.out = _read(os.path.join(folder, case + ".out"))
        self.err = _read(os.path.join(folder, case + ".err"))
        self.exit, self.argv = _manifest(version)[case]

    @property
    def both(self):
        """stderr and stdout run together, stderr first: the notices and warnings amid the data."""
        return self.err + "\n" + self.out

    def each(self):
        return (("stdout", self.out), ("stderr+stdout", self.both))


def _read(path):
    with io.open(path, encoding="utf-8") as fh:
        return fh.read()


_MANIFESTS = {}


def _manifest(version):
    if version not in _MANIFESTS:
        rows = {}
        for line in _read(os.path.join(ROOT, version, "MANIFEST")).splitlines():
            if line and not line.startswith("#"):
                case, code, argv = line.split("\t")
                rows[case] = (int(code), argv)
        _MANIFESTS[version] = rows
    return _MANIFESTS[version]


def _cases(*names):
    return [(v, c) for v in VERSIONS for c in names if c in _manifest(v)]


def _offsets_read(version, case):
    """[(stdout or stderr+stdout, {topic: {partition: offset}})] of a kafka-get-offsets case.

    Before 3.0 there is no kafka-get-offsets.sh (the product refuses those facts there by name:
    kafkatools.commands.end_offsets_command gives None, mm1_cmds.Tools names Kafka 3.0): the capture ran the
    GetOffsetShell behind it once per topic, the same lines."""
    cap = Capture(version, case)
    assert cap.exit == 0, (version, case)
    return [(what, _per_topic(ko.parse_offsets(text))) for what, text in cap.each()]


def _per_topic(offsets):
    found = {}
    for (topic, partition), offset in offsets.items():
        found.setdefault(topic, {})[partition] = offset
    return found


# every Kafka line tests/realkafka/dists.py knows (2.4.1's distribution needs an apache/kafka clone to build its
# connect-mirror: the fixture README says how it was captured)
LINES = ("2.4.1", "2.8.2", "3.2.3", "3.4.1", "3.6.2", "3.9", "4.0", "4")


def _release(version):
    """The release of a capture, from its MANIFEST heading ("# Kafka 4.3.1 (KRaft), ...")."""
    with io.open(os.path.join(ROOT, version, "MANIFEST"), encoding="utf-8") as fh:
        return tuple(int(x) for x in fh.readline().split()[2].split("."))


# Kafka 4.x fails a whole --describe of several groups when one of them does not exist and answers for that one only
# (kafkatools.output.parse_group_state; mm2_cutover asks for the others again, one each)
WHOLE_DESCRIBE_FAILS = (4, 0, 0)


def test_every_supported_line_was_captured_and_every_case_is_read_here():
    assert set(LINES) <= set(VERSIONS), sorted(set(LINES) - set(VERSIONS))
    for version in VERSIONS:
        assert set(_manifest(version)) <= set(EXPECTED_CASES), (version, set(_manifest(version)) - set(EXPECTED_CASES))


@pytest.mark.parametrize("version,case", _cases("offsets_latest", "offsets_warnings"))
def test_end_offsets_of_every_partition_warnings_skipped(version, case):
    for what, got in _offsets_read(version, case):
        for topic, (partitions, records) in TOPICS.items():
            assert sorted(got[topic]) == list(range(partitions)), (version, what, topic)
            assert sum(got[topic].values()) == records, (version, what, topic)
        assert ko.topic_offsets(Capture(version, case).out, "dotted.topic.v1") == got["dotted.topic.v1"]
        if case == "offsets_warnings":   # the JVM's warning (capture.WARNING_ENV) and the client's log line
            err = Capture(version, case).err
            assert "VM warning" in err and "] WARN " in err, (version, err[:300])


@pytest.mark.parametrize("version,case", _cases("offsets_earliest"))
def test_log_start_offsets(version, case):
    for what, got in _offsets_read(version, case):
        for topic, (partitions, _records) in TOPICS.items():
            assert got[topic] == dict((p, 0) for p in range(partitions)), (version, what, topic)


@pytest.mark.parametrize("version,case", _cases("offsets_by_time_past", "offsets_by_time_future"))
def test_offsets_by_time_leave_out_partitions_without_an_answer(version, case):
    for what, got in _offsets_read(version, case):
        if case == "offsets_by_time_future":       # after every record: no partition has an answer
            assert dict((t, o) for t, o in got.items() if not t.startswith("__")) == {}, (version, what)
        else:                                       # before every record: the first record of each non-empty one
            assert got["orders"] == {0: 0, 1: 0, 2: 0} and "many_parts" not in got, (version, what, got)


@pytest.mark.parametrize("version,case", _cases("offsets_dotted_topic"))
def test_a_dotted_topic_is_one_topic(version, case):
    cap = Capture(version, case)
    for what, text in cap.each():
        assert set(t for t, _ in ko.parse_offsets(text)) == set(["dotted.topic.v1"]), (version, what)
        assert sum(ko.topic_offsets(text, "dotted.topic.v1").values()) == 3


@pytest.mark.parametrize("version,case", _cases("offsets_missing_topic"))
def test_a_missing_topic_fails_the_tool_and_gives_no_offsets(version, case):
    cap = Capture(version, case)
    for _what, text in cap.each():
        assert ko.parse_offsets(text) == {}
    if _release(version) >= (3, 0, 0):  # kafka-get-offsets exits 1 and says why (mm1_cmds reads it as no offsets)
        assert cap.exit != 0 and ko.no_topic_matched(cap.both)
    else:                               # the GetOffsetShell of 2.x: the product builds no such command there
        assert cap.exit != 0 and "Topic no-such-topic does not exist" in cap.both


@pytest.mark.parametrize("version,case", _cases("state_active", "state_empty", "state_missing", "state_all",
                                                "state_several"))
def test_group_states_from_the_table_or_the_tools_notices(version, case):
    cap = Capture(version, case)
    assert cap.exit == 0
    want = {"state_active": {"g-active": ("Stable", 1)}, "state_empty": {"g-empty": ("Empty", 0)},
            "state_missing": {"no-such-group": ("Dead", 0)},
            "state_all": {"g-active": ("Stable", 1), "g-empty": ("Empty", 0), "g.dotted.empty": ("Empty", 0)},
            "state_several": {"g-active": ("Stable", 1), "g-empty": ("Empty", 0),
                              "no-such-group": ("Dead", 0)}}[case]
    if case == "state_several" and _release(version) >= WHOLE_DESCRIBE_FAILS:
        want = {"no-such-group": ("Dead", 0)}
    got = ko.parse_group_state(cap.both)
    assert got == want, (version, case)
    for group, answer in want.items():
        assert ko.group_state(cap.both, group) == answer
        if answer[0] != "Dead" or "does not exist" in cap.out or "not found" in cap.out:
            # the table is on stdout; where a version says a group is missing on stdout too, stdout alone says it
            assert ko.group_state(cap.out, group) == answer, (version, case, group)
    assert ko.group_state(cap.both, "never-described") == (None, None)


@pytest.mark.parametrize("version,case", _cases("offsets_active", "offsets_empty", "offsets_missing", "offsets_all"))
def test_committed_offsets_of_groups(version, case):
    cap = Capture(version, case)
    assert cap.exit == 0
    for what, text in cap.each():
        got = ko.group_offsets(text)
        if case in ("offsets_active", "offsets_all"):
            active = got["g-active"]
            assert sorted(active) == [("orders", 0), ("orders", 1), ("orders", 2)], (version, what)
            assert sum(active.values()) == 5      # the member read every record and committed
        if case == "offsets_empty":
            assert got == {"g-empty": EMPTY_GROUPS["g-empty"]}, (version, what)
        if case == "offsets_all":
            assert dict((g, got[g]) for g in EMPTY_GROUPS) == EMPTY_GROUPS, (version, what)
        if case == "offsets_missing":
            assert got == {}, (version, what)


def _before_topic_configs(cap):
    """True for a capture of Kafka before 2.5, whose kafka-configs describes no topics with --bootstrap-server: it
    fails and says so, nothing reads as configs, and the boundary builds no such command there (refused by name)."""
    if _release(cap.version) >= (2, 5, 0):
        return False
    assert cap.exit != 0 and "Invalid entity-type topics" in cap.err, (cap.version, cap.case)
    assert ko.parse_topic_configs(cap.both) == {}
    assert kc.topic_configs_command("/k", _release(cap.version), "b:9092", "/c") is None
    return True


@pytest.mark.parametrize("version,case", _cases("configs_all", "configs_dynamic"))
def test_topic_configs(version, case):
    cap = Capture(version, case)
    if _before_topic_configs(cap):
        return
    assert cap.exit == 0
    for what, text in cap.each():
        got = ko.parse_topic_configs(text)
        assert set(TOPICS) <= set(got), (version, what)
        if case == "configs_all":   # every effective value (--all, 2.5+): what the cut-over gate compares
            for topic in TOPICS:
                assert got[topic]["cleanup.policy"] == "delete" and got[topic]["retention.ms"].isdigit()
                assert "max.message.bytes" in got[topic] and "min.insync.replicas" in got[topic]
        else:                       # nothing set on the topics themselves
            assert dict((t, got[t]) for t in TOPICS) == dict((t, {}) for t in TOPICS), (version, what)


@pytest.mark.parametrize("version,case", _cases("configs_missing_topic"))
def test_configs_of_a_missing_topic_give_no_configs(version, case):
    cap = Capture(version, case)
    if _before_topic_configs(cap):
        return
    if _release(version) >= (4, 1, 0):
        # newer 4.x (4.3.1 captured; 4.0.2 still fails) answers with a notice and exit 0: no config line either
        assert cap.exit == 0 and "The topic 'no-such-topic' doesn't exist and doesn't have dynamic config." in cap.out
    else:
        assert cap.exit != 0 and "UnknownTopicOrPartitionException" in cap.both
    for _what, text in cap.each():
        assert ko.parse_topic_configs(text).get("no-such-topic", {}) == {}


@pytest.mark.parametrize("version,case", _cases("topics_list"))
def test_topic_list(version, case):
    cap = Capture(version, case)
    for what, text in cap.each():
        names = [t for t in ko.parse_topic_list(text) if not t.startswith("__")]
        assert names == sorted(TOPICS), (version, what, names)


EXPECTED_CASES = ("topics_list", "offsets_latest", "offsets_earliest", "offsets_by_time_past", "offsets_by_time_future",
                  "offsets_dotted_topic", "offsets_missing_topic", "offsets_warnings", "state_active", "state_empty",
                  "state_missing", "state_all", "state_several", "offsets_active", "offsets_empty", "offsets_missing",
                  "offsets_all", "configs_all", "configs_dynamic", "configs_missing_topic")


def test_an_offset_line_in_another_format_is_refused_by_name():
    # GetOffsetShell before Kafka 2.0 printed every offset asked for (--offsets N): topic:partition:o1,o2
    with pytest.raises(ko.ToolOutputError) as err:
        ko.parse_offsets("orders:0:150,100\n")
    assert "orders:0:150,100" in str(err.value) and "before 2.0" in str(err.value)
    # a log line's time is no offset line
    assert ko.parse_offsets("10:11:12,345 WARN something\n[2026-11-27 21:51:18,261] WARN x\n") == {}
