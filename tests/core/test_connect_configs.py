"""A dedicated MM2 flow's connectors in Connect's config topic (mm2_core.kafka.connect_configs) on both Pythons:
what FLOW_SEED retire= reads and writes so that a disabled direction starts none of its last tasks."""
import json

from mm2_core.kafka import connect_configs as c
from mm2_core.kafkatools import records


def _line(key, value):
    return "%s\t%s" % (key, value if value is None or isinstance(value, str) else json.dumps(value))


def test_the_last_record_per_key_wins_and_null_removes_it():
    out = "\n".join([
        _line("connector-MirrorSourceConnector", {"properties": {"enabled": "true", "topics": "t"}}),
        _line("task-MirrorSourceConnector-0", {"properties": {"task.index": "0"}}),
        _line("commit-MirrorSourceConnector", {"tasks": 1}),
        _line("commit-MirrorSourceConnector", {"tasks": 2}),
        _line("connector-MirrorCheckpointConnector", {"properties": {"enabled": "true"}}),
        _line("connector-MirrorCheckpointConnector", "null"),
        "Processed a total of 6 messages",
        _line("target-state-MirrorSourceConnector", {"state": "STARTED"}),
    ])
    configs, counts = records.connector_configs(out)
    assert configs == {"MirrorSourceConnector": {"enabled": "true", "topics": "t"}}
    assert counts == {"MirrorSourceConnector": 2}


def test_retiring_writes_the_configuration_disabled_then_no_tasks_and_nothing_twice():
    configs = {"MirrorSourceConnector": {"enabled": "true", "topics": "t"},
               "MirrorCheckpointConnector": {"topics": "t"},          # enabled by default
               "MirrorHeartbeatConnector": {"enabled": "true"}}
    counts = {"MirrorSourceConnector": 2, "MirrorHeartbeatConnector": 1}
    writes = c.retire_plan(configs, counts)
    assert [k for k, _ in writes] == ["connector-MirrorSourceConnector", "commit-MirrorSourceConnector",
                                      "connector-MirrorCheckpointConnector"]
    assert json.loads(writes[0][1]) == {"properties": {"enabled": "false", "topics": "t"}}
    assert writes[1][1] == '{"tasks":0}'
    assert c.retired(configs, counts) == ["MirrorSourceConnector", "MirrorCheckpointConnector"]
    # what the topic holds after those writes: nothing left to do (a rerun writes nothing)
    after = "\n".join(_line(k, v) for k, v in writes)
    configs2, counts2 = records.connector_configs(after)
    configs.update(configs2)
    counts.update(counts2)
    assert c.retire_plan(configs, counts) == [] and c.retired(configs, counts) == []


def test_a_flow_that_never_ran_has_nothing_to_retire():
    assert c.retire_plan({}, {}) == [] and c.configs_topic("A") == "mm2-configs.A.internal"
