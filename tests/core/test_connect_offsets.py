"""Connect's offsets-topic rules (mm2_core.kafka.connect_offsets) on both Pythons: the key bytes, the partition and
the value MM2's source connector reads its position from. The expected values are what Kafka's own classes give
(tests/mm1/test_kafka_facts.py asks MirrorUtils, JsonConverter and the default partitioner on a JVM)."""
from mm2_core.kafka import connect_offsets as c
from mm2_core.kafkatools import records as kr


def test_keys_come_out_in_javas_hashmap_order_without_spaces():
    assert c.hashmap_order(["topic", "partition", "cluster"]) == ["cluster", "partition", "topic"]
    assert c.source_partition_key("A", "orders", 0) == \
        '["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]'
    assert c.offset_value(41) == '{"offset":41}'
    assert c.offsets_topic("B") == "mm2-offsets.B.internal"


def test_the_partition_is_kafkas_default_partitioners():
    assert c.murmur2(c.source_partition_key("A", "orders", 0).encode("utf-8")) == -225638395
    assert c.partition_for(c.source_partition_key("A", "orders", 0), 25) == 3
    assert c.partition_for(c.source_partition_key("B", "orders-3f2a1b", 1), 25) == 24


def test_records_of_the_offsets_topic_are_read_back_last_wins():
    key = c.source_partition_key("B", "t", 2)
    out = "Partition:4\t%s\t{\"offset\":5}\nPartition:4\t%s\t{\"offset\":9}\nPartition:1\t[\"x\"]\tnull\n" % (key, key)
    positions, raw, _last = kr.offsets_records(out)
    assert positions == {("B", "t", 2): 9} and len(raw) == 3
    assert kr.parse_offsets_key(key) == ("MirrorSourceConnector", "B", "t", 2) and kr.parse_offsets_value("null") is None
