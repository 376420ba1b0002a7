"""FLOW_SEED in execute mode with the scripted Kafka tools: where a failback's reverse flow starts (the identity
policy's loop prevention), written into the flow's Connect offsets topic as Connect writes it, read back;
idempotent; refusals name the flow, the item or the running flow."""
import json

from mm2_core.config import names
from mm2_core.kafkatools import records as kafka_records

from driver_fixture import Driver, base_configurations
from agent_support import failed, ok


def _site_clusters(site):
    return site.cluster("A", "a1:9092"), site.cluster("B", "b1:9092")


def _positions(cluster, topic):
    found = {}
    for _offset, key, value, _ts in cluster.records(topic):
        parsed = kafka_records.parse_offsets_key(key.decode("utf-8"))
        found[parsed[1:]] = kafka_records.parse_offsets_value(value.decode("utf-8"))
    return found


def test_the_reverse_flow_is_seeded_where_connect_reads_it_and_a_rerun_writes_nothing(site, guard):
    a, b = _site_clusters(site)
    b.create_topic("orders", partitions=2)
    driver = Driver(site)      # A->B, one-way: B->A is not enabled (the failback enables it afterwards)
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120,orders-1=0"}))
    out = run.structured_out["flow_seed"]
    assert out == {"flow": "B->A", "positions": {"orders-0": 120, "orders-1": 0}, "written": 1,
                   "offsets_topic": "mm2-offsets.B.internal", "created": True, "target_ends": {},
                   "method": "offsets topic", "source_connector_state": None, "served": True, "retired": None}
    meta = json.load(open(a._tdir("mm2-offsets.B.internal") + "/meta.json"))
    assert meta["partitions"] == 25 and meta["configs"] == {"cleanup.policy": "compact"}
    (record,) = a.records("mm2-offsets.B.internal")
    assert record[1].decode("utf-8") == '["MirrorSourceConnector",{"cluster":"B","partition":0,"topic":"orders"}]'
    assert record[2].decode("utf-8") == '{"offset":119}'     # MM2 resumes at 119 + 1
    again = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120"}))
    assert again.structured_out["flow_seed"]["written"] == 0 and len(a.records("mm2-offsets.B.internal")) == 1


def test_connect_mode_seeds_the_workers_offsets_topic_under_the_flows_connector_name(site, guard):
    """Connect mode keeps a flow's positions in the worker's offsets topic (<connect.group.id>-offsets.internal on
    the flow's target), keyed by the flow's connector: written there while the worker is stopped, never into
    dedicated mode's mm2-offsets.<source>.internal, where the worker would not look."""
    a, b = _site_clusters(site)
    b.create_topic("orders", partitions=2)
    driver = Driver(site)
    driver.env["mm2_run_mode"] = "connect"
    driver.driver["connect.group.id"] = "dr-connect"
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120,orders-1=0"}))
    out = run.structured_out["flow_seed"]
    assert (out["offsets_topic"], out["method"], out["written"]) == ("dr-connect-offsets.internal", "offsets topic", 1)
    assert a.records("mm2-offsets.B.internal") == []
    (record,) = a.records("dr-connect-offsets.internal")
    assert record[1].decode("utf-8") == '["B->A.MirrorSourceConnector",{"cluster":"B","partition":0,"topic":"orders"}]'
    assert record[2].decode("utf-8") == '{"offset":119}'
    again = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120"}))
    assert again.structured_out["flow_seed"]["written"] == 0
    # retire= of a flow that never ran in connect mode: the worker's config topic is not there, nothing to retire,
    # and dedicated mode's herder config topic is never created
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=120",
                                                             "retire": "A->B"}))
    assert run.structured_out["flow_seed"]["retired"] == {"flow": "A->B", "config_topic": "dr-connect-configs.internal",
                                                           "connectors": [], "written": 0}
    assert not b.has_topic("mm2-configs.A.internal") and not b.has_topic("dr-connect-configs.internal")
    assert len(a.records("dr-connect-offsets.internal")) == 1


def test_connect_mode_retire_writes_the_flows_connectors_disabled_without_tasks_in_the_workers_config_topic(
        site, guard):
    """Connect mode: the worker serving B keeps A->B's connectors in <connect.group.id>-configs.internal on B and
    starts their last tasks in its first rebalance, before START deletes a disabled flow's connectors over REST.
    retire=A->B writes A->B's copying connectors there disabled and without tasks (its heartbeats and any other
    flow's connectors untouched), reads it back, and a rerun writes nothing."""
    a, b = _site_clusters(site)
    topic = "dr-connect-configs.internal"
    b.create_topic(topic, partitions=1, configs={"cleanup.policy": "compact"})
    source = {"enabled": "true", "topics": "orders", "name": "A->B.MirrorSourceConnector",
              "source.cluster.sasl.jaas.config": "${file:/etc/mm2/mm2-connect-secrets.properties:x/y}"}
    checkpoint = {"enabled": "true", "name": "A->B.MirrorCheckpointConnector"}
    other = {"enabled": "true", "name": "C->B.MirrorSourceConnector"}
    for key, value in (("connector-A->B.MirrorSourceConnector", {"properties": source}),
                       ("task-A->B.MirrorSourceConnector-0", {"properties": dict(source, **{"task.index": "0"})}),
                       ("commit-A->B.MirrorSourceConnector", {"tasks": 1}),
                       ("connector-A->B.MirrorCheckpointConnector", {"properties": checkpoint}),
                       ("commit-A->B.MirrorCheckpointConnector", {"tasks": 1}),
                       ("connector-A->B.MirrorHeartbeatConnector", {"properties": {"enabled": "true"}}),
                       ("commit-A->B.MirrorHeartbeatConnector", {"tasks": 1}),
                       ("connector-C->B.MirrorSourceConnector", {"properties": other}),
                       ("commit-C->B.MirrorSourceConnector", {"tasks": 2}),
                       # dedicated mode's names in the same topic are not ours to touch in connect mode
                       ("connector-MirrorSourceConnector", {"properties": {"enabled": "true"}}),
                       ("commit-MirrorSourceConnector", {"tasks": 1})):
        b.append(topic, json.dumps(value).encode("utf-8"), key=key.encode("utf-8"))
    driver = Driver(site)
    driver.env["mm2_run_mode"] = "connect"
    driver.driver["connect.group.id"] = "dr-connect"
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=3",
                                                             "retire": "A->B"}))
    assert run.structured_out["flow_seed"]["retired"] == {
        "flow": "A->B", "config_topic": topic, "written": 4,
        "connectors": ["A->B.MirrorCheckpointConnector", "A->B.MirrorSourceConnector"]}
    state = _config_state(b, topic)
    assert json.loads(state["connector-A->B.MirrorSourceConnector"]) == {"properties": dict(source, enabled="false")}
    assert json.loads(state["connector-A->B.MirrorCheckpointConnector"]) == {
        "properties": dict(checkpoint, enabled="false")}
    assert json.loads(state["commit-A->B.MirrorSourceConnector"]) == {"tasks": 0}
    assert json.loads(state["commit-A->B.MirrorCheckpointConnector"]) == {"tasks": 0}
    for untouched, tasks in (("A->B.MirrorHeartbeatConnector", 1), ("C->B.MirrorSourceConnector", 2),
                             ("MirrorSourceConnector", 1)):
        assert json.loads(state["commit-" + untouched]) == {"tasks": tasks}
        assert json.loads(state["connector-" + untouched])["properties"]["enabled"] == "true"
    assert not b.has_topic("mm2-configs.A.internal")
    # the reverse flow's positions went where the worker serving A reads them
    assert len(a.records("dr-connect-offsets.internal")) == 1
    written = len(b.records(topic))
    again = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=3",
                                                               "retire": "A->B"}))
    assert again.structured_out["flow_seed"]["retired"]["written"] == 0 and len(b.records(topic)) == written


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


def test_cutover_check_reads_a_connect_mode_flows_positions_where_its_worker_keeps_them(site, guard):
    """CUTOVER_CHECK in connect mode counts what A->B has not copied from the worker's offsets topic under the
    flow's connector name; the dedicated topic (left from before a switch of run mode) is not read."""
    a, b = _site_clusters(site)
    for i in range(7):
        a.append("orders", ("v%d" % i).encode("utf-8"))
    b.create_topic("mm2-connect-offsets.internal", partitions=25)
    b.append("mm2-connect-offsets.internal", b'{"offset":4}',
             key=b'["A->B.MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]')
    b.create_topic("mm2-offsets.A.internal", partitions=25)
    b.append("mm2-offsets.A.internal", b'{"offset":1}',
             key=b'["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]')
    conf = base_configurations()
    conf[names.REPLICATION]["topics"] = "orders"
    driver = Driver(site, configurations=conf)
    driver.env["mm2_run_mode"] = "connect"
    run = driver.run(names.CMD_CUTOVER_CHECK, command_params={"flow": "A->B"}, timeout=160)
    (report,) = run.structured_out["cutover_check"]
    rows = [(p["topic"], p["partition"], p["end"], p["next"], p["unreplicated"]) for p in report["partitions"]]
    assert rows == [("orders", 0, 7, 5, 2)], (rows, run.output[-3000:])


def _config_state(cluster, topic):
    """{key: last value} of a fake config topic (str; None for a null value)."""
    state = {}
    for _offset, key, value, _ts in cluster.records(topic):
        state[key.decode("utf-8")] = None if value is None else value.decode("utf-8")
    return state


def test_retire_writes_the_disabled_direction_without_tasks_where_its_herder_reads_it(site, guard):
    """A failback under identity enables only B->A next; A->B's herder (kept for heartbeats) would start A->B's last
    tasks from its config topic before applying A->B's disabled configuration: a loop with B->A for that window."""
    a, b = _site_clusters(site)
    topic = "mm2-configs.A.internal"
    b.create_topic(topic, partitions=1, configs={"cleanup.policy": "compact"})
    source = {"enabled": "true", "topics": "orders", "source.cluster.alias": "A", "target.cluster.alias": "B",
              "source.cluster.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required "
                                                 "username=\"mm2\" password=\"p4ss-in-config\";"}
    for key, value in (("connector-MirrorSourceConnector", {"properties": source}),
                       ("task-MirrorSourceConnector-0", {"properties": dict(source, **{"task.index": "0"})}),
                       ("commit-MirrorSourceConnector", {"tasks": 1}),
                       ("connector-MirrorHeartbeatConnector", {"properties": {"enabled": "true"}}),
                       ("commit-MirrorHeartbeatConnector", {"tasks": 1})):
        b.append(topic, json.dumps(value).encode("utf-8"), key=key.encode("utf-8"))
    driver = Driver(site)
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=3",
                                                             "retire": "A->B"}))
    assert run.structured_out["flow_seed"]["retired"] == {
        "flow": "A->B", "config_topic": topic, "connectors": ["MirrorSourceConnector"], "written": 2}
    state = _config_state(b, topic)
    assert json.loads(state["commit-MirrorSourceConnector"]) == {"tasks": 0}
    assert json.loads(state["connector-MirrorSourceConnector"]) == {"properties": dict(source, enabled="false")}
    # heartbeats keep running; the checkpoint connector never ran: nothing written for it
    assert json.loads(state["commit-MirrorHeartbeatConnector"]) == {"tasks": 1}
    assert "connector-MirrorCheckpointConnector" not in state
    assert "p4ss-in-config" not in run.output
    written = len(b.records(topic))
    again = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=3",
                                                               "retire": "A->B"}))
    assert again.structured_out["flow_seed"]["retired"]["written"] == 0 and len(b.records(topic)) == written
    # a flow that never ran has no config topic: nothing to retire
    run = ok(driver.run(names.CMD_FLOW_SEED, command_params={"flow": "A->B", "at": "end", "retire": "B->A"}))
    assert run.structured_out["flow_seed"]["retired"] == {"flow": "B->A", "config_topic": "mm2-configs.B.internal",
                                                           "connectors": [], "written": 0}
    assert not a.has_topic("mm2-configs.B.internal")


def test_retire_refuses_the_seeded_flow_and_a_running_mm2(site, guard):
    a, _b = _site_clusters(site)
    driver = Driver(site)
    run = driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=1", "retire": "B->A"})
    assert failed(run) and "FLOW_SEED B->A: retire=B->A names the flow being seeded" in run.output
    assert not a.has_topic("mm2-offsets.B.internal")    # refused before anything was written
    ok(driver.run("START"))
    run = driver.run(names.CMD_FLOW_SEED, command_params={"flow": "B->A", "offsets": "orders-0=1", "retire": "A->B"})
    assert failed(run) and "FLOW_SEED B->A: retire=A->B while MirrorMaker 2 runs on this host" in run.output
