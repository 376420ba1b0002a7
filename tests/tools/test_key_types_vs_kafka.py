"""kafka_keys.TYPES is what Kafka's own ConfigDefs say (types, ranges, choices), read again from the
real Kafka distribution in ../shared/kafka by tests/tools/extract_kafka_types.py."""
import os
import shutil

import pytest

from mm2_core.kafka import kafka_keys, versions

HERE = os.path.dirname(os.path.abspath(__file__))
KAFKA_HOME = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "kafka", "kafka_2.13-%s"
                                           % kafka_keys.TYPES_VERSION))


@pytest.fixture(scope="module")
def from_kafka():
    if not (shutil.which("javac") and shutil.which("java")):
        pytest.skip("no JDK (javac/java) on PATH")
    if not os.path.isdir(os.path.join(KAFKA_HOME, "libs")):
        pytest.skip("no Kafka %s distribution at %s" % (kafka_keys.TYPES_VERSION, KAFKA_HOME))
    import extract_kafka_types
    return extract_kafka_types.table(KAFKA_HOME)


def test_the_type_table_is_kafkas_own(from_kafka):
    assert versions.KEY_TYPES == from_kafka


def test_every_client_worker_and_connector_key_has_a_type():
    untyped = [name for table in (versions.PRODUCER_KEYS, versions.CONSUMER_KEYS, versions.ADMIN_KEYS,
                                  versions.WORKER_KEYS, versions.CONNECT_CONNECTOR_KEYS)
               for name, info in table.items() if info.defined_in(kafka_keys.TYPES_VERSION)
               and name not in versions.KEY_TYPES]
    assert untyped == []
