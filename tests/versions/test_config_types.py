"""The value-type table (mm2_core.kafka_keys.TYPES, read from 3.9.0's source) holds for every Kafka of the matrix.

Per official distribution, the real ConfigDefs MM2's properties reach (producer, consumer, admin, Connect worker and
connector, MirrorMaker's own) are read from its jars by tests/versions/java/ConfigTypes.java; every key the table
types and the version defines must have the same type there. This is what lets value checks use one table for
2.4 to 4.x (measured: no key changes type between 2.4.1 and 4.3.1)."""
import os

import pytest

from mm2_core.kafka import versions
from realkafka import cluster as rk
from realkafka import dists
from versions.conftest import all_versions

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java", "ConfigTypes.java")


@pytest.mark.parametrize("name", all_versions())
def test_value_types_are_those_of_the_real_config_defs(name):
    reason = dists.skip_reason(name) or (None if rk.java_home() else "no Java 17")
    if reason:
        pytest.skip(reason)
    home = rk.kafka_home(name)
    java = os.path.join(rk.java_home(), "bin", "java")
    result = rk.run_bounded([java, "-cp", os.path.join(home, "libs", "*"), PROBE], 180)
    assert result.returncode == 0, result.stderr[-2000:]
    real = dict(line.split() for line in result.stdout.splitlines() if len(line.split()) == 2)
    compared = [k for k in versions.KEY_TYPES if k in real]
    assert len(compared) > 150, (name, len(compared))     # the probe found the ConfigDefs
    differ = dict((k, (real[k], versions.KEY_TYPES[k][0])) for k in compared if real[k] != versions.KEY_TYPES[k][0])
    assert differ == {}, "Kafka %s types differ from the table (real, table): %s" % (rk.installed_version(home), differ)
