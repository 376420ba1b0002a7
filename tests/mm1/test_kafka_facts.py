"""The migration's two bit-exact facts, asked of Kafka's own classes (JVM; skipped without Java or Kafka):

- the topic regex MirrorMaker 1 really subscribed with (TopicFilter.IncludeList) == mm1_mapping.mm1_topic_regex;
- the offsets-topic key and value Connect writes for a MirrorSourceConnector position (MirrorUtils.wrapPartition
  through JsonConverter) and the partition Kafka's partitioner picks == mm1_offsets.
MM2 looks positions up by the key's exact bytes, so one byte off and it would silently start from the beginning.
"""
import os
import random
import string
import subprocess

import pytest

from mm2_ambari.mm1 import mapping as mm1_mapping, offsets as mm1_offsets
from mm2_core.kafkatools import records as kafka_records
from realkafka import cluster as rk

JAVA_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java", "Mm1Facts.java")

WHITELISTS = ["orders", "orders,payments", " orders.* , payments ", "'orders.*'", '"a|b"', "a{1,3}", "a b c",
              ".*", "dc1\\..*", "(x|y),z", "a,,b", "[a,b]", "''", "top.c-1,t_2"]


def ask_kafka(lines):
    reason = rk.skip_reason()
    if reason:
        pytest.skip(reason)
    java = os.path.join(rk.java_home(), "bin", "java")
    result = subprocess.run([java, "-cp", os.path.join(rk.kafka_home(), "libs", "*"), JAVA_SOURCE],
                            input="".join(line + "\n" for line in lines), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    answers = result.stdout.splitlines()
    assert len(answers) == len(lines), result.stderr[-2000:]
    return answers


def test_whitelist_regex_is_what_mirrormaker1_compiled():
    answers = ask_kafka(["regex\t" + w for w in WHITELISTS])
    for raw, java in zip(WHITELISTS, answers):
        ours = mm1_mapping.mm1_topic_regex(raw)
        if java == "INVALID":
            assert ours == "" or mm1_mapping.java_regex_error(ours), raw
        else:
            assert ours == java, raw


def test_offsets_topic_records_are_byte_for_byte_what_connect_writes():
    rnd = random.Random(27)
    alphabet = string.ascii_letters + string.digits + "._-"
    cases = [("A", "other", 0), ("dc1", "orders", 2), ("source", "heartbeats", 0)]
    cases += [("".join(rnd.choice(string.ascii_letters + "_-") for _ in range(rnd.randint(1, 12))),
               "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 60))), rnd.randint(0, 5000))
              for _ in range(200)]
    answers = ask_kafka(["key\t%s\t%s\t%d\t25" % case for case in cases])
    for (alias, topic, partition), answer in zip(cases, answers):
        key, value, where = answer.split("\t")
        assert mm1_offsets.source_partition_key(alias, topic, partition) == key
        assert mm1_offsets.offset_value(partition) == value
        assert mm1_offsets.partition_for(key, 25) == int(where)
        assert kafka_records.parse_offsets_key(key) == ("MirrorSourceConnector", alias, topic, partition)
