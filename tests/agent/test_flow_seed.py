"""FLOW_SEED in execute mode with the scripted Kafka tools: where a failback's reverse flow starts (the identity
policy's loop prevention), written into the flow's Connect offsets topic as Connect writes it, read back;
idempotent; refusals name the flow, the item or the running flow."""
import json

from mm2_core.config import names
from mm2_core.kafka import connect_offsets

from driver_fixture import Driver, base_configurations
from agent_support import failed, ok


def _site_clusters(site):
    return site.cluster("A", "a1:9092"), site.cluster("B", "b1:9092")


def _positions(cluster, topic):
    found = {}
    for _offset, key, value, _ts in cluster.records(topic):
        parsed = connect_offsets.parse_key(key.decode("utf-8"))
        found[parsed[1:]] = connect_offsets.parse_value(value.decode("utf-8"))
    return found


def test_the_reverse_flow_is_seeded_where_connect_reads_it_and_a_rerun_writes_nothing(site, guard):
    a, b = _site_clusters(site)
    b.create_topic("orders", partitions=2)
    driver = Driver(site)      # A->B, one-way: B->A is not enabled (the failback enables it afterwards)
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120,orders-1=0"}))
    out = run.structured_out["flow_seed"]
    assert out == {"flow": "B->A", "positions": {"orders-0": 120, "orders-1": 0}, "written": 1,
                   "offsets_topic": "mm2-offsets.B.internal", "created": True, "target_ends": {}}
    meta = json.load(open(a._tdir("mm2-offsets.B.internal") + "/meta.json"))
    assert meta["partitions"] == 25 and meta["configs"] == {"cleanup.policy": "compact"}
    (record,) = a.records("mm2-offsets.B.internal")
    assert record[1].decode("utf-8") == '["MirrorSourceConnector",{"cluster":"B","partition":0,"topic":"orders"}]'
    assert record[2].decode("utf-8") == '{"offset":119}'     # MM2 resumes at 119 + 1
    again = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120"}))
    assert again.structured_out["flow_seed"]["written"] == 0 and len(a.records("mm2-offsets.B.internal")) == 1


def test_at_end_seeds_the_sources_end_offsets(site, guard):
    a, b = _site_clusters(site)
    for i in range(7):
        a.append("orders", ("v%d" % i).encode("utf-8"))
    conf = base_configurations()
    conf[names.REPLICATION]["topics"] = "orders"
    driver = Driver(site, configurations=conf)
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "A->B", "at": "end"}, timeout=120))
    assert run.structured_out["flow_seed"]["positions"] == {"orders-0": 7}
    assert _positions(b, "mm2-offsets.A.internal") == {("A", "orders", 0): 6}


def test_refusals_name_the_flow_the_item_and_a_running_flow(site, guard):
    _site_clusters(site)
    driver = Driver(site)
    run = driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->C", "offsets": "orders-0=1"})
    assert failed(run) and "FLOW_SEED needs flow=SOURCE->TARGET between two clusters of the topology (A, B)" in run.output
    run = driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders=1"})
    assert failed(run) and "FLOW_SEED B->A: offsets item 'orders=1': give topic-partition=offset" in run.output
    run = driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=1", "at": "end"})
    assert failed(run) and "give either offsets=topic-partition=offset,... or at=end" in run.output
    ok(driver.run("START"))
    run = driver.run(names.CMD_FLOW_SEED, command_params={"flow": "A->B", "at": "end"})
    assert failed(run) and "FLOW_SEED A->B: the flow runs on this host and would overwrite its positions" in run.output
