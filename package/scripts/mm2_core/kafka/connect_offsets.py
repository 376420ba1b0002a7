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

The records are read back by the Kafka boundary (mm2_core.kafkatools.records.connector_offsets).

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
