"""Records of the internal topics MM2 and Connect write, as Kafka's console consumer prints them: heartbeats,
checkpoints, offset syncs, Connect's status and offsets topics, record timestamps. One function per fact, pure
stdlib, Python 2.7 and 3.

MM2's binary heartbeat and checkpoint records use the Kafka protocol Struct encoding (STRING = int16 length +
UTF-8, integers big-endian); read through MM2's formatters (2.7+) they are one text line each.
"""
import json
import re
import struct

from mm2_core.kafka import connect_configs, connect_offsets

SEP = "\t"


# ---------------------------------------------------------------- heartbeats, checkpoints, Connect status

def unescape_bytes(text):
    """Inverse of org.apache.kafka.common.utils.Bytes.toString (\\xNN for non-printables)."""
    out = bytearray()
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 3 < n and text[i + 1] == "x":
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            out.extend(ch.encode("utf-8"))
            i += 1
    return bytes(out)


class _Reader(object):
    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ValueError("record too short")
        value = struct.unpack(fmt, self.data[self.pos:self.pos + size])[0]
        self.pos += size
        return value

    def string(self):
        length = self.take(">h")
        if length < 0 or self.pos + length > len(self.data):
            raise ValueError("bad string length %d" % length)
        value = self.data[self.pos:self.pos + length].decode("utf-8")
        self.pos += length
        return value if str is not bytes else value.encode("utf-8")


class Heartbeat(object):
    def __init__(self, source, target, timestamp):
        self.source = source
        self.target = target
        self.timestamp = timestamp

    def __repr__(self):
        return "Heartbeat(%s->%s @%d)" % (self.source, self.target, self.timestamp)


class Checkpoint(object):
    def __init__(self, group, topic, partition, upstream, downstream, metadata=""):
        self.group = group
        self.topic = topic
        self.partition = partition
        self.upstream = upstream
        self.downstream = downstream
        self.metadata = metadata

    def __repr__(self):
        return "Checkpoint(%s %s-%d %d->%d)" % (self.group, self.topic, self.partition,
                                               self.upstream, self.downstream)


def decode_heartbeat(key, value):
    k = _Reader(key)
    v = _Reader(value)
    source, target = k.string(), k.string()
    v.take(">h")  # version
    return Heartbeat(source, target, v.take(">q"))


def decode_checkpoint(key, value):
    k = _Reader(key)
    v = _Reader(value)
    group, topic, partition = k.string(), k.string(), k.take(">i")
    v.take(">h")  # version
    upstream, downstream = v.take(">q"), v.take(">q")
    return Checkpoint(group, topic, partition, upstream, downstream, v.string())


def decode_offset_sync(key, value):
    """(source topic, partition, upstream, downstream) of one binary record of MM2's offset-syncs topic (OffsetSync:
    key topic STRING + partition INT32, value upstreamOffset INT64 + offset INT64; no version header, unlike a
    checkpoint). ValueError for a record that does not read so."""
    k = _Reader(key)
    v = _Reader(value)
    topic, partition = k.string(), k.take(">i")
    return topic, partition, v.take(">q"), v.take(">q")


def offset_sync_key(topic, partition):
    """The key bytes of the offset syncs of one source partition (what decode_offset_sync reads): a read can keep
    the partitions it needs before decoding anything."""
    name = topic if isinstance(topic, bytes) else topic.encode("utf-8")
    return struct.pack(">h", len(name)) + name + struct.pack(">i", partition)


def offset_syncs_of(records):
    """{(source topic, partition): [(upstream, downstream), ...]} of binary (key, value) records of an offset-syncs
    topic in read order (parse_offset_syncs' shape); records that do not decode are skipped."""
    syncs = {}
    for key, value in records:
        if key is None or value is None:
            continue
        try:
            topic, partition, upstream, downstream = decode_offset_sync(key, value)
        except (ValueError, struct.error, UnicodeDecodeError):
            continue
        syncs.setdefault((topic, partition), []).append((upstream, downstream))
    return syncs


_HB_LINE = re.compile(r"^Heartbeat\{sourceClusterAlias=(.*), targetClusterAlias=(.*), timestamp=(-?\d+)\}$")
_CP_LINE = re.compile(r"^Checkpoint\{consumerGroupId=(.*), topicPartition=(.*)-(\d+), "
                      r"upstreamOffset=(-?\d+), downstreamOffset=(-?\d+), meta(?:ta)?data=(.*)\}$")
# (Checkpoint.toString spells it "metatadata=" up to at least 3.5, e.g. real 2.8.2 and 3.4.1; "metadata=" in 3.9)


def _records(output, decode, line_re, build):
    """Records from console-consumer output, either formatter lines or escaped-bytes lines."""
    found = []
    for line in output.splitlines():
        line = line.rstrip("\r")
        m = line_re.match(line)
        if m:
            found.append(build(m))
            continue
        parts = line.split(SEP)
        if len(parts) == 3 and parts[0].startswith(("CreateTime:", "LogAppendTime:")):
            try:
                found.append(decode(unescape_bytes(parts[1]), unescape_bytes(parts[2])))
            except (ValueError, struct.error, UnicodeDecodeError):
                continue
    return found


def parse_heartbeats(output):
    return _records(output, decode_heartbeat, _HB_LINE,
                    lambda m: Heartbeat(m.group(1), m.group(2), int(m.group(3))))


def parse_checkpoints(output):
    return _records(output, decode_checkpoint, _CP_LINE,
                    lambda m: Checkpoint(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)),
                                         int(m.group(5)), m.group(6)))


def latest_checkpoints(checkpoints):
    """Last checkpoint per (group, topic, partition): the topic is compacted on that key."""
    latest = {}
    for cp in checkpoints:
        latest[(cp.group, cp.topic, cp.partition)] = cp
    return [latest[k] for k in sorted(latest)]


def parse_status(output):
    """Connect status records (key<TAB>json) -> {key: dict}; tombstones remove the key."""
    states = {}
    for line in output.splitlines():
        if SEP not in line:
            continue
        key, value = line.split(SEP, 1)
        if not key.startswith("status-"):
            continue
        value = value.strip()
        if value == "null":
            states.pop(key, None)
            continue
        try:
            states[key] = json.loads(value)
        except ValueError:
            continue
    return states


def connector_states(status_records):
    """{connector: (state, [task states], trace or None)} from parsed status records."""
    result = {}
    for key, value in status_records.items():
        if key.startswith("status-connector-"):
            name = key[len("status-connector-"):]
            entry = result.setdefault(name, [None, {}, None])
            entry[0] = value.get("state")
            entry[2] = value.get("trace")
    for key, value in status_records.items():
        if key.startswith("status-task-"):
            name, _, task = key[len("status-task-"):].rpartition("-")
            entry = result.setdefault(name, [None, {}, None])
            entry[1][task] = value.get("state")
            if value.get("trace") and not entry[2]:
                entry[2] = value.get("trace")
    return dict((k, (v[0], [v[1][t] for t in sorted(v[1], key=lambda x: int(x) if x.isdigit() else x)],
                     v[2])) for k, v in result.items())


# ---------------------------------------------------------------- Connect's config topic

def connector_configs(output):
    """({connector: its last configuration's properties}, {connector: task count of its last commit record}) from
    the console consumer in mode 'keyed' over Connect's config topic (key<TAB>value lines; the last record
    per key wins; a null value removes the key)."""
    configs, counts = {}, {}
    for line in output.splitlines():
        if "\t" not in line:
            continue
        key, value = line.split("\t", 1)
        key, value = key.strip(), value.strip()
        for prefix, into in ((connect_configs.COMMIT_PREFIX, counts), (connect_configs.CONNECTOR_PREFIX, configs)):
            if not key.startswith(prefix):
                continue
            connector = key[len(prefix):]
            if value == "null":
                into.pop(connector, None)
                break
            try:
                parsed = json.loads(value)
                into[connector] = int(parsed["tasks"]) if into is counts else dict(parsed["properties"])
            except (ValueError, KeyError, TypeError):
                pass
            break
    return configs, counts


# ---------------------------------------------------------------- Connect's offsets topic

def parse_offsets_key(key_text):
    """(connector, cluster, topic, partition) of an offsets-topic key, or None for another kind of key."""
    try:
        data = json.loads(key_text)
    except ValueError:
        return None
    if not (isinstance(data, list) and len(data) == 2 and isinstance(data[1], dict)):
        return None
    part = data[1]
    if not all(k in part for k in ("cluster", "topic", "partition")):
        return None
    return data[0], part["cluster"], part["topic"], int(part["partition"])


def parse_offsets_value(value_text):
    """The stored offset, or None for a tombstone ('null')."""
    if value_text is None or value_text.strip() in ("", "null"):
        return None
    return int(json.loads(value_text)["offset"])


def _offsets_line(line):
    """(partition or None, read offset or None, key, value) of one console-consumer line of an offsets topic:
    `key<TAB>value`, optionally after `Partition:<n>` and `Offset:<m>` (print.partition / print.offset); None for
    another line."""
    parts = line.rstrip("\r\n").split(SEP)
    partition = read_offset = None
    if len(parts) >= 3 and parts[0].startswith("Partition:"):
        try:
            partition = int(parts.pop(0)[len("Partition:"):])
        except ValueError:
            return None
    if len(parts) >= 3 and parts[0].startswith("Offset:"):
        try:
            read_offset = int(parts.pop(0)[len("Offset:"):])
        except ValueError:
            return None
    if len(parts) != 2:
        return None
    return partition, read_offset, parts[0], parts[1]


def _offsets_lines(output):
    for line in output.splitlines():
        parsed = _offsets_line(line)
        if parsed is not None:
            yield parsed


def read_position(line):
    """(partition, offset) of the record on one line the console consumer printed in mode 'positions'
    (commands.console_consumer), or None: how a read that stops at known end offsets knows where it is."""
    parsed = _offsets_line(line)
    if parsed is None or parsed[0] is None or parsed[1] is None:
        return None
    return parsed[0], parsed[1]


def connector_offsets(output, connector=connect_offsets.CONNECTOR):
    """{(cluster, topic, partition): stored offset} of `connector` from console-consumer lines of Connect's offsets
    topic (see _offsets_lines), in read order: later records win, a tombstone ('null') removes the key. The stored
    offset is that of the LAST record copied (MirrorSourceTask resumes at offset + 1); a record whose value does
    not read as {"offset": N} is skipped."""
    positions = {}
    for _partition, _read, key, value in _offsets_lines(output):
        parsed = parse_offsets_key(key)
        if parsed is None or parsed[0] != connector:
            continue
        try:
            offset = parse_offsets_value(value)
        except (ValueError, KeyError, TypeError):
            continue
        if offset is None:
            positions.pop(parsed[1:], None)
        else:
            positions[parsed[1:]] = offset
    return positions


def source_offsets(output, source, connector=connect_offsets.CONNECTOR):
    """{(topic, partition): last replicated offset} of the source connector reading cluster `source` (see
    connector_offsets). connector: the name in the keys (connect mode names it after its flow,
    mm2_core.dr.flow_positions.location)."""
    return dict(((t, p), off) for (cluster, t, p), off in connector_offsets(output, connector).items()
                if cluster == source)


def offsets_records(output, connector=connect_offsets.CONNECTOR):
    """connector_offsets of `Partition:<n>[<TAB>Offset:<m>]<TAB><key><TAB><value>` lines, with what was read:
    (positions, [(partition, key, value)], {partition: highest offset read})."""
    raw, last = [], {}
    for partition, read_offset, key, value in _offsets_lines(output):
        if partition is None:
            continue
        raw.append((partition, key, value))
        if read_offset is not None:
            last[partition] = max(last.get(partition, -1), read_offset)
    text = "".join("%s\t%s\n" % (key, value) for _p, key, value in raw)
    return connector_offsets(text, connector), raw, last


# ---------------------------------------------------------------- offset syncs, record timestamps

_SYNC_LINE = re.compile(r"OffsetSync\{topicPartition=(.+)-(\d+), upstreamOffset=(-?\d+), downstreamOffset=(-?\d+)\}")


def parse_offset_syncs(output):
    """{(source topic, partition): [(upstream, downstream), ...]} from OffsetSyncFormatter lines, in order."""
    syncs = {}
    for line in output.splitlines():
        m = _SYNC_LINE.search(line)
        if m:
            syncs.setdefault((m.group(1), int(m.group(2))), []).append((int(m.group(3)), int(m.group(4))))
    return syncs


def count_records(output):
    """How many records a console consumer printed (one line each; its closing "Processed a total of N messages"
    is not one)."""
    return len([l for l in output.splitlines() if l.strip() and not l.startswith("Processed a total")])


def parse_record_timestamps(output):
    """Timestamps (ms) of `print.timestamp=true` console-consumer lines, in order."""
    found = []
    for line in output.splitlines():
        m = re.match(r"^(?:CreateTime|LogAppendTime):(-?\d+)", line.strip())
        if m and int(m.group(1)) >= 0:
            found.append(int(m.group(1)))
    return found
