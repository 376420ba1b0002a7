"""Where a flow's source positions live and which way of changing them is safe (mm2_core.dr.flow_positions),
on both Pythons: the run mode's offsets topic and key, the offsets API only on a running 3.6+ worker with the flow's
connector, refusals that name the flow, the version and what to do instead."""
import pytest

from mm2_core.connect import flow_control
from mm2_core.dr import flow_positions as fp
from mm2_core.kafka import connect_offsets


def test_each_run_mode_keeps_positions_where_its_worker_reads_them():
    assert fp.location("dedicated", "B->A", "mm2-connect") == ("mm2-offsets.B.internal", "MirrorSourceConnector")
    assert fp.location("connect", "B->A", "dr") == ("dr-offsets.internal", "B->A.MirrorSourceConnector")
    assert fp.location("connect", "B->A", None) == ("mm2-connect-offsets.internal", "B->A.MirrorSourceConnector")
    key = connect_offsets.source_partition_key("B", "orders", 0, fp.location("connect", "B->A", "dr")[1])
    assert key == '["B->A.MirrorSourceConnector",{"cluster":"B","partition":0,"topic":"orders"}]'


@pytest.mark.parametrize("mode,version,running,here,exists,method", [
    ("dedicated", "3.9.1", False, True, False, fp.TOPIC),     # nothing runs: the topic, before the flow starts
    ("dedicated", "3.9.1", True, False, False, fp.TOPIC),     # MM2 runs, but not this flow
    ("connect", "3.9.1", False, True, False, fp.TOPIC),       # worker stopped (the failback's path)
    ("connect", "2.8.2", False, True, False, fp.TOPIC),       # any version with the worker stopped
    ("connect", "3.6.0", True, True, True, fp.API),           # first version with KIP-875
    ("connect", "4.1.0", True, True, True, fp.API),
])
def test_the_safe_method(mode, version, running, here, exists, method):
    assert fp.seed_method(mode, "A->B", version, running, here, exists) == method


@pytest.mark.parametrize("mode,version,running,here,exists,words", [
    ("dedicated", "3.9.1", True, True, False,
     ["FLOW_SEED A->B: the flow runs on this host and would overwrite its positions"]),
    ("connect", "3.5.2", True, True, True,
     ["FLOW_SEED A->B:", "needs Kafka 3.6.0 or newer", "KIP-875", "this driver runs Kafka 3.5.2",
      "Stop MirrorMaker 2 on this host first", "<connect.group.id>-offsets.internal"]),
    ("connect", "3.9.1", True, False, False,
     ["FLOW_SEED A->B: the Kafka Connect worker on this host runs but has no connector of flow A->B",
      "Stop MirrorMaker 2 on this host first"]),
])
def test_refusals_name_the_flow_the_version_and_the_way_out(mode, version, running, here, exists, words):
    with pytest.raises(fp.SeedRefused) as e:
        fp.seed_method(mode, "A->B", version, running, here, exists)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_only_what_differs_is_patched_and_offset_zero_removes_the_position():
    stored = {("t", 0): 50, ("t", 1): 7}
    wanted = {("t", 0): 50, ("t", 1): 0, ("t", 2): 0, ("t", 3): 12}
    changes = fp.api_changes(wanted, stored)
    assert changes == {("t", 1): None, ("t", 3): 12}
    assert fp.api_body("A", changes) == [
        {"partition": {"cluster": "A", "topic": "t", "partition": 1}, "offset": None},
        {"partition": {"cluster": "A", "topic": "t", "partition": 3}, "offset": {"offset": 11}}]
    # what GET .../offsets answers afterwards (Connect stores the last copied offset) is what was wanted
    after = flow_control.source_offsets({"offsets": [
        {"partition": {"cluster": "A", "topic": "t", "partition": 0}, "offset": {"offset": 49}},
        {"partition": {"cluster": "A", "topic": "t", "partition": 3}, "offset": {"offset": 11}}]}, "A")
    assert fp.mismatches(wanted, after) == []
    after[("t", 1)] = 7
    assert fp.mismatches(wanted, after) == ["t-1"]


@pytest.mark.parametrize("before,action", [
    ("RUNNING", "resume"), ("PAUSED", "pause"), ("STOPPED", None), ("FAILED", "resume"), ("UNASSIGNED", "resume")])
def test_the_connector_goes_back_to_its_state(before, action):
    assert fp.restore_action(before) == action
