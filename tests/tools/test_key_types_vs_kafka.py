"""kafka_keys.TYPES is what Kafka's own ConfigDefs say (types, ranges, choices), read again from the
official Kafka 3.9 distribution (tests/realkafka/dists.py: 3.9.1, whose table equals 3.9.0's) by
tests/tools/extract_kafka_types.py. Every other version of the matrix: tests/versions/test_config_types.py."""
import os
import shutil
import sys

import pytest

from mm2_core.kafka import kafka_keys, versions

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def from_kafka():
    if sys.version_info[0] < 3:
        pytest.skip("the official distributions are assembled by Python 3 (tests/realkafka/dists.py)")
    if not (shutil.which("javac") and shutil.which("java")):
        pytest.skip("no JDK (javac/java) on PATH")
    from realkafka import dists
    line = ".".join(kafka_keys.TYPES_VERSION.split(".")[:2])
    reason = dists.skip_reason(line)
    if reason:
        pytest.skip(reason)
    import extract_kafka_types
    return extract_kafka_types.table(dists.build(line))


def test_the_type_table_is_kafkas_own(from_kafka):
    assert versions.KEY_TYPES == from_kafka


def test_every_client_worker_and_connector_key_has_a_type():
    untyped = [name for table in (versions.PRODUCER_KEYS, versions.CONSUMER_KEYS, versions.ADMIN_KEYS,
                                  versions.WORKER_KEYS, versions.CONNECT_CONNECTOR_KEYS)
               for name, info in table.items() if info.defined_in(kafka_keys.TYPES_VERSION)
               and name not in versions.KEY_TYPES]
    assert untyped == []
