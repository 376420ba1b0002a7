"""MirrorMaker 2's source positions in Kafka Connect's offsets topic (pure, stdlib, Python 2.7 and 3).

How a dedicated MM2 (connect-mirror-maker.sh, Kafka 2.4 .. 4.x) keeps the position of a flow A->B:
- the offsets topic of the herder for that flow is `mm2-offsets.<A>.internal` on the target B
  (MirrorMakerConfig.workerConfig), compacted, 25 partitions unless offset.storage.partitions says otherwise;
- a record's key is what Connect's internal JsonConverter (schemas.enable=false) makes of
  [connector name, source partition]: `["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"t"}]`.
  The source partition is a java.util.HashMap (MirrorUtils.wrapPartition), so its fields come out in
  HashMap order, which for these three names is cluster, partition, topic (`hashmap_order`). The reader
  (OffsetStorageReaderImpl) looks positions up by these exact key BYTES, so one space or another field
  order and MM2 would not find the position;
- the value is `{"offset":N}` with N the offset of the LAST record copied: MirrorSourceTask seeks to N+1.
  MirrorMaker 1 commits the NEXT offset to read, so a committed offset c becomes N = c - 1; c = 0 (nothing
  copied yet) needs no record (MM2 starts such a partition from its beginning anyway);
- Connect's producer picks the partition with Kafka's default partitioner: murmur2(key bytes). A record
  written to another partition would race with MM2's own later records at the next restart, so a seed record
  must land where Connect's would (`partition_for`; kafka-console-producer with parse.key uses the same
  partitioner).

Used on the CLI side (mm2-ambari seed-from-mm1) and by the agent (FLOW_SEED: where a failback's reverse flow
starts).
"""
import json
from collections import OrderedDict

CONNECTOR = "MirrorSourceConnector"
OFFSETS_TOPIC = "mm2-offsets.%s.internal"
OFFSETS_TOPIC_PARTITIONS = 25      # Connect's offset.storage.partitions default
OFFSETS_TOPIC_CONFIGS = {"cleanup.policy": "compact"}


def offsets_topic(source_alias):
    return OFFSETS_TOPIC % source_alias


def _java_string_hash(text):
    h = 0
    units = bytearray(text.encode("utf-16-be"))
    for i in range(0, len(units), 2):   # Java hashes UTF-16 code units
        h = (31 * h + ((units[i] << 8) | units[i + 1])) & 0xFFFFFFFF
    return h


def hashmap_order(names):
    """The iteration order of a small java.util.HashMap holding these String keys (16 buckets, inserted in
    the given order; keys of one bucket in insertion order)."""
    def bucket(name):
        h = _java_string_hash(name)
        return (h ^ (h >> 16)) & 15
    return sorted(names, key=lambda n: (bucket(n), list(names).index(n)))


# MirrorUtils.wrapPartition puts topic, partition, cluster (in that order) into a HashMap.
_PARTITION_FIELDS = hashmap_order(["topic", "partition", "cluster"])


def source_partition_key(source_alias, topic, partition, connector=CONNECTOR):
    """The offsets-topic key of one source partition, as Connect's JsonConverter writes it."""
    values = {"topic": topic, "partition": int(partition), "cluster": source_alias}
    wrapped = OrderedDict((name, values[name]) for name in _PARTITION_FIELDS)
    return json.dumps([connector, wrapped], separators=(",", ":"), ensure_ascii=False)


def offset_value(last_copied_offset):
    return json.dumps({"offset": int(last_copied_offset)}, separators=(",", ":"))


def murmur2(data):
    """Kafka's Utils.murmur2 (32-bit, seed 0x9747b28c) of bytes, as a signed Java int."""
    data = bytearray(data)
    length = len(data)
    m, r = 0x5bd1e995, 24
    h = (0x9747b28c ^ length) & 0xFFFFFFFF
    for i in range(0, length - length % 4, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    rest, tail = length % 4, length - length % 4
    if rest == 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(key_text, partitions):
    """The offsets-topic partition Kafka's default partitioner picks for this key (toPositive(murmur2) % n)."""
    return (murmur2(key_text.encode("utf-8")) & 0x7FFFFFFF) % partitions


def parse_key(key_text):
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


def parse_value(value_text):
    """The stored offset, or None for a tombstone ('null')."""
    if value_text is None or value_text.strip() in ("", "null"):
        return None
    return int(json.loads(value_text)["offset"])


def parse_offsets_records(output, connector=CONNECTOR):
    """{(cluster, topic, partition): offset} of `connector` from console-consumer lines
    `Partition:<n>[<TAB>Offset:<m>]<TAB><key><TAB><value>` of an offsets topic, in read order (later records win,
    a tombstone removes). Returns (positions, [(partition, key, value)], {partition: highest offset read})."""
    positions, raw, last = {}, [], {}
    for line in output.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[1].startswith("Offset:"):
            offset_field = parts.pop(1)
            try:
                read_offset = int(offset_field[len("Offset:"):])
            except ValueError:
                continue
        else:
            read_offset = None
        if len(parts) != 3 or not parts[0].startswith("Partition:"):
            continue
        partition, key, value = int(parts[0][len("Partition:"):]), parts[1], parts[2]
        raw.append((partition, key, value))
        if read_offset is not None:
            last[partition] = max(last.get(partition, -1), read_offset)
        parsed = parse_key(key)
        if parsed is None or parsed[0] != connector:
            continue
        offset = parse_value(value)
        if offset is None:
            positions.pop(parsed[1:], None)
        else:
            positions[parsed[1:]] = offset
    return positions, raw, last


