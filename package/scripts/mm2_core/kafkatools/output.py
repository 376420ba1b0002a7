"""What Kafka's own tools print, read once: one function per fact (pure stdlib, Python 2.7 and 3).

Every parser reads stdout, stderr or both run together: a tool's log lines (`[date] WARN ...`, `WARNING: ...`)
and its notices (`Error: ...`) are skipped, never taken for data. A line in the shape of data whose fields no
longer read as the documented ones raises ToolOutputError naming the tool and the line, rather than being
guessed at. The formats were captured from the real tools of every Kafka line the project supports
(tests/fixtures/kafka_tool_output, its README says how) and are read back through these functions by
tests/core/test_kafka_tool_output.py.
"""
import re


class ToolOutputError(ValueError):
    """A tool printed a line in the shape of its data that does not read as that data."""


# ---------------------------------------------------------------- kafka-get-offsets / GetOffsetShell

_TOPIC_CHARS = r"[A-Za-z0-9._-]+"
_OFFSET_LINE = re.compile(r"^(%s):(\d+):(.*)$" % _TOPIC_CHARS)
_OFFSET_LIST = re.compile(r"^-?\d+(?:,-?\d+)+$")


def parse_offsets(output):
    """{(topic, partition): offset} from `kafka-get-offsets` (`topic:partition:offset` lines), whatever --time
    asked: the end offsets (LATEST), the log-start offsets (EARLIEST) or the first offset at or after a timestamp.

    A partition without an answer (a timestamp after its last record: no line, offset -1, or nothing after the
    colon) is left out, and so is a line that only looks alike (a log line's time). The comma-separated offset
    lists of the GetOffsetShell before Kafka 2.0 (`--offsets N`) are refused by name (ToolOutputError)."""
    offsets = {}
    for line in output.splitlines():
        m = _OFFSET_LINE.match(line.strip())
        if not m:
            continue
        value = m.group(3).strip()
        if _OFFSET_LIST.match(value):
            raise ToolOutputError("kafka-get-offsets printed '%s': expected topic:partition:offset (an offset list "
                                  "is the GetOffsetShell of Kafka before 2.0, which this does not read)" % line.strip())
        if value.isdigit():
            offsets[(m.group(1), int(m.group(2)))] = int(value)
    return offsets


def no_topic_matched(output):
    """True when `kafka-get-offsets` said no topic matched its --topic (it exits 1): no offsets, not a failure."""
    return "Could not match any topic-partitions" in output


def topic_offsets(output, topic):
    """{partition: offset} of one topic from `kafka-get-offsets` output (see parse_offsets)."""
    return dict((p, off) for (t, p), off in parse_offsets(output).items() if t == topic)


# ---------------------------------------------------------------- kafka-consumer-groups --describe

_GROUP_NOTICE = re.compile(r"^(?:Error: )?Consumer group '(.+)' (has no active members|does not exist)\.?\s*$")
# Kafka 4.0+ (the rewritten ConsumerGroupCommand): a missing group fails the whole describe
_GROUP_NOT_FOUND = re.compile(r"GroupIdNotFoundException: Group (.+?) not found\.?\s*$")


def parse_group_state(output):
    """{group: (state, members)} from `kafka-consumer-groups --describe --state` (stdout, stderr or both).

    The table's coordinator column holds a space ("host:port  (id)"), so the state and member count are read from
    the end of the row. Without a row, the tool's notices say it: "Consumer group 'g' has no active members." is
    ('Empty', 0), "Consumer group 'g' does not exist." ('Dead', 0).

    Kafka 4.x says a group does not exist differently, and fails the whole describe for it (exit code still 0):
    "Error: Executing consumer group command failed due to ...GroupIdNotFoundException: Group g not found." is
    ('Dead', 0) for g, and the other groups of that describe get no answer here (ask for them again, one each)."""
    result = {}
    header = False
    for line in output.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "GROUP" and "STATE" in fields:
            header = True
            continue
        if header and len(fields) >= 3 and fields[-1].isdigit():
            result[fields[0]] = (fields[-2], int(fields[-1]))
    for line in output.splitlines():
        m = _GROUP_NOTICE.match(line.strip())
        if m and m.group(1) not in result:
            result[m.group(1)] = ("Empty", 0) if m.group(2) == "has no active members" else ("Dead", 0)
        m = _GROUP_NOT_FOUND.search(line.strip())
        if m and m.group(1) not in result:
            result[m.group(1)] = ("Dead", 0)
    return result


def group_state(output, group):
    """(state, members) of one group from `--describe --state` output (see parse_group_state), or (None, None)
    when the output says nothing of it."""
    return parse_group_state(output).get(group, (None, None))


def parse_group_describe(output):
    """Rows of `kafka-consumer-groups --describe` (offsets view) as dicts keyed by the header names:
    GROUP, TOPIC, PARTITION, CURRENT-OFFSET, LOG-END-OFFSET, LAG, CONSUMER-ID, HOST, CLIENT-ID."""
    rows, header = [], None
    for line in output.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "GROUP" and "TOPIC" in fields and "PARTITION" in fields:
            header = fields
            continue
        if header is None or len(fields) < 6:
            continue
        row = dict(zip(header, fields))
        if not row.get("PARTITION", "").isdigit():
            continue
        rows.append(row)
    return rows


def group_offsets(output):
    """{group: {(topic, partition): committed offset}} from `kafka-consumer-groups --describe` (offsets view);
    partitions without a committed offset ('-') are left out."""
    result = {}
    for row in parse_group_describe(output):
        current = row.get("CURRENT-OFFSET", "-")
        if current.isdigit():
            result.setdefault(row["GROUP"], {})[(row["TOPIC"], int(row["PARTITION"]))] = int(current)
    return result


def group_deleted(output, exit_code):
    """True when `kafka-consumer-groups --delete --group g` (stdout and stderr) says the group is gone: deleted now
    (exit 0, "Deletion of requested consumer groups ('g') was successful.") or not there ("... The group id does not
    exist.", whatever the exit code)."""
    return exit_code == 0 and "was successful" in output or "does not exist" in output


def reset_applied(stdout, exit_code):
    """True when `kafka-consumer-groups --reset-offsets --execute` applied the offsets: exit 0 and no "Error" on
    stdout (where it prints a refusal, e.g. a group with active members, still exiting 0)."""
    return exit_code == 0 and "Error" not in stdout


def timed_out(output):
    """True when a tool failed because a broker did not answer in time (TimeoutException: a loaded or restarting
    cluster): the same command may be run again."""
    return "org.apache.kafka.common.errors.TimeoutException" in output


# ---------------------------------------------------------------- kafka-configs --describe

_CONFIG_HEAD = re.compile(r"^(?:All|Dynamic) configs for topic (\S+) are:\s*$")
_CONFIG_LINE = re.compile(r"^\s+([A-Za-z0-9._-]+)=(.*?) sensitive=(true|false)")


def parse_topic_configs(output):
    """{topic: {name: value}} from `kafka-configs --describe --entity-type topics [--all]`."""
    configs, current = {}, None
    for line in output.splitlines():
        m = _CONFIG_HEAD.match(line)
        if m:
            current = configs.setdefault(m.group(1), {})
            continue
        m = _CONFIG_LINE.match(line)
        if m and current is not None:
            current[m.group(1)] = m.group(2)
    return configs


# ---------------------------------------------------------------- kafka-topics

def topic_exists(output):
    """True when `kafka-topics --create` (without --if-not-exists) failed because the topic already exists."""
    return "already exists" in output


def needs_replication_factor(output):
    """True when `kafka-topics --create` without --replication-factor was refused by brokers before Kafka 2.4
    (KIP-464): "Replication factor must be larger than 0"."""
    return "Replication factor must be larger than 0" in output



_TOPIC = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


def parse_topic_list(output):
    """Topic names from `kafka-topics --list` (log lines and warnings are skipped)."""
    return sorted(set(line.strip() for line in output.splitlines() if _TOPIC.match(line.strip())))
