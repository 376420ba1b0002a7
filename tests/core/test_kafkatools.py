"""The Kafka boundary (mm2_core.kafkatools): command lines and the parsers of the tools' output and of internal
topics' records, on hand-written samples (tests/core/test_kafka_tool_output.py reads the real tools' captured output).
"""
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




def test_command_lines_name_the_tool_the_cluster_and_the_client_file():
    assert kc.get_offsets_command("/k/", "b:9092", "/c", kc.EARLIEST, topic="t.*") == [
        "/k/bin/kafka-get-offsets.sh", "--bootstrap-server", "b:9092", "--command-config", "/c", "--topic", "t.*",
        "--time", "-2"]
    assert kc.get_offsets_command("/k", "b:9092", "/c", kc.LATEST)[-2:] == ["--time", "-1"]
    assert kc.groups_describe_command("/k", "b:9092", "/c", ["g1", "g2"], state=True)[5:] == [
        "--describe", "--group", "g1", "--group", "g2", "--state"]
    assert kc.groups_describe_command("/k", "b:9092", "/c")[5:] == ["--describe", "--all-groups"]
    assert kc.groups_describe_command("/k", "b:9092", "/c", ["g"], offsets=True)[-1] == "--offsets"
    assert kc.groups_delete_command("/k", "b:9092", "/c", "shadow")[5:] == ["--delete", "--group", "shadow"]
    assert kc.topic_configs_command("/k", (2, 4, 1), "b:9092", "/c") is None   # no topics with --bootstrap-server
    assert kc.topic_configs_command("/k", (2, 5, 0), "b:9092", "/c")[-1] == "--all"


def test_a_list_setting_is_read_the_way_kafka_splits_it():
    from mm2_core.config import config_values
    assert config_values.parse_list(" orders.* , pay ,, ") == ["orders.*", "pay"]
    assert config_values.parse_list(["a", " b ", ""]) == ["a", "b"]
    assert config_values.parse_list(None) == [] and config_values.parse_list("") == []


def test_a_state_notice_with_or_without_error_prefix_is_read_and_a_table_row_wins():
    out = ("Error: Consumer group 'gone' does not exist.\n\nConsumer group 'idle' has no active members.\n\n"
           "GROUP  COORDINATOR (ID)  ASSIGNMENT-STRATEGY  STATE  #MEMBERS\n"
           "idle   h:9092  (1)                        Empty  0\n")
    assert ko.parse_group_state(out) == {"gone": ("Dead", 0), "idle": ("Empty", 0)}
    assert ko.group_state(out, "other") == (None, None)


def test_connect_offsets_are_read_with_or_without_partition_and_offset_columns():
    key = '["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]'
    plain = "%s\t{\"offset\":5}\n" % key
    located = "Partition:3\tOffset:7\t%s\t{\"offset\":5}\nPartition:3\tOffset:8\t%s\tnot json\n" % (key, key)
    assert kr.source_offsets(plain, "A") == kr.source_offsets(located, "A") == {("orders", 0): 5}
    positions, raw, last = kr.offsets_records(located)
    assert positions == {("A", "orders", 0): 5} and len(raw) == 2 and last == {3: 8}
    assert kr.source_offsets(plain, "B") == {}


def test_console_lines_each_fact_built_once():
    assert kc.topics_pattern(["dotted.topic.v1", "orders"]) == "^(dotted\\.topic\\.v1|orders)$"
    keyed = kc.console_producer("/k", (3, 9, 0), "b:9092", "/c", "offsets", keyed=True)
    assert keyed[-4:] == ["--property", "parse.key=true", "--property", "key.separator=\t"]
    assert kc.console_producer("/k", (4, 2, 0), "b:9092", "/c", "t", keyed=True)[-4] == "--reader-property"
    shadow = kc.console_consumer("/k", (3, 9, 0), "b:9092", "/c", ["a.b", "c"], mode="keyed", max_messages=1,
                                 group="g-shadow")
    assert shadow[shadow.index("--include") + 1] == "^(a\\.b|c)$" and "--topic" not in shadow
    assert shadow[shadow.index("--group") + 1] == "g-shadow" and "--from-beginning" not in shadow
    single = kc.console_consumer("/k", (3, 9, 0), "b:9092", "/c", "cp", mode="raw", partition=0, offset="earliest")
    assert single[single.index("--offset") + 1] == "earliest" and "key.deserializer=" + kc.BYTES_DESERIALIZER in single
    assert kc.console_consumer("/k", (2, 8, 2), "b", "/c", "s", mode="offset-sync")[-2:] == [
        "--formatter", kc.OFFSET_SYNC_FORMATTER]
    stamps = kc.console_consumer("/k", (4, 2, 0), "b", "/c", "t", mode="timestamps", partition=1, offset=7)
    assert stamps[-4:] == ["--formatter-property", "print.timestamp=true", "--formatter-property",
                           "value.deserializer=" + kc.BYTES_DESERIALIZER]
    positions = kc.console_consumer("/k", (3, 0, 0), "b", "/c", "mm2-offsets.A.internal", mode="positions")
    assert "print.partition=true" in positions and "print.offset=true" in positions


def test_reset_file_deletion_and_console_reads_are_read_in_one_place():
    assert ko.no_topic_matched("Error occurred: Could not match any topic-partitions with the specified filters")
    assert ko.group_deleted("Deletion of requested consumer groups ('g') was successful.", 0)
    assert not ko.group_deleted("Deletion of requested consumer groups ('g') was successful.", 1)
    assert ko.group_deleted("* Group 'g' could not be deleted due to: ...: The group id does not exist.", 1)
    assert not ko.group_deleted("Error: Deletion of some consumer groups failed:\n* Group 'g' could not be deleted "
                                "due to: ...GroupNotEmptyException: The group is not empty.", 1)
    assert kr.read_position("Partition:3\tOffset:41\t[\"c\",{}]\t{\"offset\":9}\n") == (3, 41)
    assert kr.read_position("[\"c\",{}]\t{\"offset\":9}") is None and kr.read_position("Processed a total") is None
    assert kr.count_records("k1\tv1\nk2\tv2\n\nProcessed a total of 2 messages\n") == 2
    assert ko.reset_applied("GROUP TOPIC PARTITION NEW-OFFSET\ng orders 0 42\n", 0)
    assert not ko.reset_applied("Error: Assignments can only be reset if the group 'g' is inactive, but the current "
                                "state is Stable.\n", 0)
    assert ko.timed_out("Error: ...: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node "
                        "assignment. Call: describeConsumerGroups")
    assert ko.topic_exists("Error while executing topic command : Topic 'mm2-check' already exists.")
    assert ko.needs_replication_factor("InvalidReplicationFactorException: Replication factor must be larger than 0.")
