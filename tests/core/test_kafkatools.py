"""The Kafka boundary (mm2_core.kafkatools): command lines and the parsers of the tools' output and of internal
topics' records, on hand-written samples (tests/core/test_kafka_tool_output.py reads the real tools' captured output).
"""
import pytest

from mm2_core.kafkatools import commands as kc, output as ko, records as kr

OFFSETS_TOPIC = (
    '["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]\t{"offset":99}\n'
    '["MirrorSourceConnector",{"cluster":"A","partition":1,"topic":"orders"}]\t{"offset":40}\n'
    '["MirrorSourceConnector",{"cluster":"C","partition":0,"topic":"orders"}]\t{"offset":7}\n'
    '["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]\t{"offset":149}\n'
    '["MirrorSourceConnector",{"cluster":"A","partition":2,"topic":"orders"}]\tnull\n'
    'Processed a total of 5 messages\n')
CONFIGS = """All configs for topic orders are:
  cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}
  retention.ms=604800000 sensitive=false synonyms={}
  max.message.bytes=1048588 sensitive=false synonyms={DEFAULT_CONFIG:message.max.bytes=1048588}
All configs for topic A.orders are:
  cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}
  retention.ms=86400000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=86400000}
"""
GROUPS = """
Consumer group 'app' has no active members.

GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID
app             orders          0          120             150             30              -               -               -
app             orders          1          -               41              -               -               -               -

GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                                                    HOST            CLIENT-ID
live            orders          0          150             150             0               console-consumer-5d1c0c4e-6f6a-4f25-8d0b-0a4c0f1f8e2a          /127.0.0.1      console-consumer
"""
STATE = """
GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS
busy                      127.0.0.1:40123 (1)       range                Stable          1

Consumer group 'idle' has no active members.

GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS
idle                      127.0.0.1:40123 (1)                            Empty           0
Consumer group 'gone' does not exist.
"""


def test_source_offsets_are_the_last_record_per_partition_of_the_flows_source():
    assert kr.source_offsets(OFFSETS_TOPIC, "A") == {("orders", 0): 149, ("orders", 1): 40}


def test_topic_configs_groups_and_states_parse():
    configs = ko.parse_topic_configs(CONFIGS)
    assert configs["orders"]["retention.ms"] == "604800000" and configs["A.orders"]["retention.ms"] == "86400000"
    committed = ko.group_offsets(GROUPS)
    assert committed == {"app": {("orders", 0): 120}, "live": {("orders", 0): 150}}
    assert ko.parse_group_state(STATE) == {"busy": ("Stable", 1), "idle": ("Empty", 0), "gone": ("Dead", 0)}
    assert ko.parse_offsets("orders:0:150\norders:1:41\nWARN x\n") == {("orders", 0): 150, ("orders", 1): 41}
    assert kr.parse_record_timestamps("CreateTime:1700000000000\tx\nNo:1\n") == [1700000000000]
    syncs = kr.parse_offset_syncs("OffsetSync{topicPartition=my-orders-0, upstreamOffset=120, downstreamOffset=102}")
    assert syncs == {("my-orders", 0): [(120, 102)]}


