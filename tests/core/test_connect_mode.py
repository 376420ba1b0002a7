"""Connect mode's pure parts: version gates, the worker and connector configs computed from the dedicated rendering,
secrets kept out of REST, flow resolution and transitions, the healer's schedule and the tasks alert's verdicts."""
import json
import os
import tempfile

import pytest

from examples_support import render_example
from mm2_core.alerts import alert_connect
from mm2_core.alerts import evaluation as alert_eval
from mm2_core.config import problems
from mm2_core.connect import connect_mode, flow_control
from mm2_core.kafka import versions

SECRETS = "/etc/kafka-mm2/conf/" + connect_mode.SECRETS_FILE


def plan_of(example, version="3.9.0"):
    rendering, error = render_example(example, version)
    assert error is None, error
    return rendering, connect_mode.plan(rendering.properties, rendering.topology, "h", 8093, SECRETS)


@pytest.mark.parametrize("version,feature,allowed", [
    ("2.8.2", versions.CONNECT_RESTART_TASKS, False), ("3.0.0", versions.CONNECT_RESTART_TASKS, True),
    ("3.4.1", versions.CONNECT_STOP, False), ("3.5.0", versions.CONNECT_STOP, True),
    ("3.5.2", versions.CONNECT_OFFSETS, False), ("3.6.0", versions.CONNECT_OFFSETS, True),
    ("2.4.1", versions.CONNECT_MODE, True)])
def test_version_gates(version, feature, allowed):
    message = versions.unsupported(version, feature, "stopping a flow")
    assert (message is None) == allowed
    if not allowed:
        assert version in message and versions.FEATURES[feature][0] in message and "stopping a flow" in message


def test_aggregation_becomes_three_connectors_per_flow_on_one_worker():
    rendering, plan = plan_of("aggregation-three-into-one")
    assert plan.target == "central" and plan.flows == ["emea->central", "apac->central", "amer->central"]
    assert sorted(plan.connectors) == sorted(connect_mode.connector_name(f, k) for f in plan.flows
                                             for k in connect_mode.KINDS)
    worker = dict(plan.worker)
    assert worker["listeners"] == "http://127.0.0.1:8093" and worker["rest.advertised.host.name"] == "127.0.0.1"
    assert worker["group.id"] == connect_mode.GROUP_ID and worker["config.storage.topic"].endswith(".internal")
    assert worker["bootstrap.servers"] == rendering.topology.clusters["central"].bootstrap
    source = plan.connectors["emea->central.MirrorSourceConnector"]
    props = dict(rendering.properties)
    assert source["connector.class"] == "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    assert (source["source.cluster.alias"], source["target.cluster.alias"]) == ("emea", "central")
    assert source["enabled"] == "true" and source["topics"] == props.get("emea->central.topics", props.get("topics"))
    assert source["source.cluster.bootstrap.servers"] == props["emea.bootstrap.servers"]
    # heartbeats of emea->central are written INTO emea (its producer overridden), as the reverse herder would
    heartbeat = plan.connectors["emea->central.MirrorHeartbeatConnector"]
    assert (heartbeat["source.cluster.alias"], heartbeat["target.cluster.alias"]) == ("central", "emea")
    assert heartbeat["producer.override.bootstrap.servers"] == props["emea.bootstrap.servers"]
    assert worker["connector.client.config.override.policy"] == "All"


def test_secrets_never_go_over_rest():
    rendering, plan = plan_of("kerberos-sasl-ssl")
    secret_values = set(v for k, v in rendering.properties if versions.is_secret_key(k)
                        and not versions.is_provider_reference(v))
    assert secret_values
    for name, config in plan.connectors.items():
        for key, value in config.items():
            assert value not in secret_values, (name, key)
            if versions.is_secret_key(key):
                assert value.startswith("${file:%s:%s/" % (SECRETS, name)), (name, key, value)
    assert dict(plan.secrets) and set(dict(plan.secrets).values()) <= secret_values
    assert plan.worker_has_secret


def test_one_target_per_host():
    rendering, _ = plan_of("aggregation-three-into-one")
    topo = rendering.topology
    topo.driver_targets = ["central", "emea"]
    with pytest.raises(problems.ConfigError) as e:
        connect_mode.plan(rendering.properties, topo, "h", 8093, SECRETS)
    assert "kafka-mm2-driver/target.clusters" in str(e.value) and "central, emea" in str(e.value)


def test_pinned_target_without_enabled_flow_keeps_an_idle_worker():
    """During a failover (dc1->dc2 disabled, dc2->dc1 running elsewhere) the host pinned to dc2 keeps its
    worker with no connector, so the reconcile deletes the disabled flow's connectors and the failback's
    restore finds a worker to put them back on; an alias that is no cluster stays an error naming it."""
    rendering, _ = plan_of("active-active-dc")
    topo = rendering.topology
    assert topo.driver_targets == ["dc2"]
    for flow in topo.flows:
        if flow.name == "dc1->dc2":
            flow.enabled = False
    assert [f.name for f in topo.enabled_flows] == ["dc2->dc1"]
    plan = connect_mode.plan(rendering.properties, topo, "h", 8093, SECRETS)
    assert plan.target == "dc2" and plan.flows == [] and dict(plan.connectors) == {}
    assert dict(plan.worker)["bootstrap.servers"] == topo.clusters["dc2"].bootstrap
    topo.driver_targets = ["dc3"]
    with pytest.raises(problems.ConfigError) as e:
        connect_mode.plan(rendering.properties, topo, "h", 8093, SECRETS)
    assert "kafka-mm2-driver/target.clusters" in str(e.value) and "dc3" in str(e.value)


@pytest.mark.parametrize("custom,silent", [
    ({"central->emea.emit.heartbeats.enabled": "false"}, ["emea->central"]),
    ({"emit.heartbeats.enabled": "false", "central->apac.emit.heartbeats.enabled": "true"},
     ["emea->central", "amer->central"]),
])
def test_heartbeat_connectors_only_where_mm2_would_emit_them(custom, silent):
    """A flow's heartbeats come from the reverse pair (target->source): no connector where that pair's
    emit.heartbeats.enabled is false, as dedicated mode would run no heartbeat connector there."""
    from examples_support import load_example, local_kafka_for
    from mm2_core.rendering import render
    configurations, options = load_example("aggregation-three-into-one")
    configurations.setdefault("kafka-mm2-custom", {}).update(custom)
    rendering = render.render_mm2(configurations, "3.9.0", "h", "/etc/kafka-mm2/conf",
                                  local_kafka=local_kafka_for(configurations, options))
    plan = connect_mode.plan(rendering.properties, rendering.topology, "h", 8093, SECRETS)
    beating = [f for f in plan.flows if connect_mode.connector_name(f, connect_mode.HEARTBEAT) in plan.connectors]
    assert sorted(set(plan.flows) - set(beating)) == sorted(silent)


def test_connector_diff_touches_only_what_changed():
    _, plan = plan_of("aggregation-three-into-one")
    current = dict((n, dict(c)) for n, c in plan.connectors.items())
    current["emea->central.MirrorSourceConnector"]["topics"] = "old"
    current["gone->central.MirrorSourceConnector"] = {}
    current["someone-elses-connector"] = {}
    create, update, delete = connect_mode.connector_diff(current, plan.connectors)
    assert (create, update, delete) == ([], ["emea->central.MirrorSourceConnector"],
                                        ["gone->central.MirrorSourceConnector"])


def _listing(states):
    return dict((name, {"status": {"connector": {"state": c}, "tasks": [{"id": i, "state": t, "trace": "boom\nat"}
                                                                         for i, t in enumerate(tasks)]}})
                for name, (c, tasks) in states.items())


def test_flow_resolution_and_transitions():
    rendering, _ = plan_of("aggregation-three-into-one")
    topo = rendering.topology
    hosts = {"h1": ["central"]}
    assert flow_control.resolve_flow("emea -> central", topo, hosts).name == "emea->central"
    for name, words in (("x->central", ["unknown flow x->central", "emea->central, apac->central"]),
                        ("", ["no flow given"])):
        with pytest.raises(flow_control.FlowError) as e:
            flow_control.resolve_flow(name, topo, hosts)
        assert all(w in str(e.value) for w in words), str(e.value)
    with pytest.raises(flow_control.FlowError) as e:
        flow_control.resolve_flow("emea->central", topo, {"h1": ["elsewhere"]})
    assert "runs on no driver host" in str(e.value) and "h1=elsewhere" in str(e.value)
    assert flow_control.check_transition("pause", "RUNNING", "A->B")[0] is True
    assert flow_control.check_transition("pause", "PAUSED", "A->B") == (False, "flow A->B is already PAUSED: nothing to do")
    with pytest.raises(flow_control.FlowError) as e:
        flow_control.check_transition("pause", "STOPPED", "A->B")
    assert "resume it first" in str(e.value)
    with pytest.raises(flow_control.FlowError):
        flow_control.check_transition("pause", "MISSING", "A->B")
    listing = _listing({"A->B.MirrorSourceConnector": ("PAUSED", ["PAUSED"]),
                        "A->B.MirrorCheckpointConnector": ("PAUSED", []),
                        "C->B.MirrorSourceConnector": ("RUNNING", ["FAILED"])})
    assert flow_control.flow_state(listing, "A->B") == "PAUSED"
    assert flow_control.flow_state(listing, "C->B") == "FAILED"
    assert flow_control.flow_state(listing, "D->B") == "MISSING"
    # a pause reaches the connectors before their tasks: the flow reads PAUSED while a task still copies, and
    # FLOW_PAUSE waits until every task is PAUSED too (live: 200 records copied after the pause returned)
    halfway = _listing({"A->B.MirrorSourceConnector": ("PAUSED", ["RUNNING", "PAUSED"]),
                        "A->B.MirrorCheckpointConnector": ("PAUSED", [])})
    assert flow_control.flow_state(halfway, "A->B") == "PAUSED"
    assert not flow_control.flow_settled(halfway, "A->B", "PAUSED")
    assert flow_control.flow_settled(listing, "A->B", "PAUSED")
    assert not flow_control.flow_settled(listing, "D->B", "PAUSED")
    stopped = _listing({"A->B.MirrorSourceConnector": ("STOPPED", [])})
    assert flow_control.flow_settled(stopped, "A->B", "STOPPED")


def test_backoff_is_strimzis_schedule_then_capped():
    assert [flow_control.backoff_seconds(n, 60) / 60 for n in range(10)] == [0, 2, 6, 12, 20, 30, 42, 56, 60, 60]


def test_healer_restarts_with_backoff_and_gives_up():
    state = flow_control.HealerState()
    failing = _listing({"A->B.MirrorSourceConnector": ("RUNNING", ["FAILED"])})
    due = []
    for second in range(0, 40):
        due += [(second, n) for _, n, _ in flow_control.plan_restarts(failing, state, float(second), 1.0, 4)]
    assert due == [(0, 1), (2, 2), (8, 3), (20, 4)]   # waits 0, 2, 6, 12 units
    entry = state.connectors["A->B.MirrorSourceConnector"]
    assert entry["gave_up"] == 21.0 and "task 0: boom" in entry["last_failure"]
    lines = flow_control.describe(state, now=50.0)
    assert lines and lines[0].startswith("gave up on A->B.MirrorSourceConnector") and "4 automatic" in lines[0]
    assert any("gave up" in text for _, text in state.events)


def test_healer_forgets_after_a_healthy_period():
    state = flow_control.HealerState()
    failing = _listing({"A->B.MirrorSourceConnector": ("RUNNING", ["FAILED"])})
    healthy = _listing({"A->B.MirrorSourceConnector": ("RUNNING", ["RUNNING"])})
    flow_control.plan_restarts(failing, state, 0.0, 1.0, 5)
    flow_control.plan_restarts(failing, state, 2.0, 1.0, 5)
    assert state.connectors["A->B.MirrorSourceConnector"]["restarts"] == 2
    flow_control.plan_restarts(healthy, state, 3.0, 1.0, 5)
    assert "A->B.MirrorSourceConnector" in state.connectors
    flow_control.plan_restarts(healthy, state, 10.0, 1.0, 5)
    assert "A->B.MirrorSourceConnector" not in state.connectors


def test_state_file_round_trip():
    state = flow_control.HealerState()
    flow_control.plan_restarts(_listing({"A->B.MirrorSourceConnector": ("FAILED", [])}), state, 5.0, 1.0, 3)
    path = os.path.join(tempfile.mkdtemp(), "state.json")
    state.save(path)
    again = flow_control.HealerState.load(path)
    assert again.connectors == json.loads(json.dumps(state.connectors))
    again.forget_flow("A->B")
    assert again.connectors == {}


def test_tasks_alert_in_connect_mode():
    thresholds = alert_eval.Thresholds(1.0, 1.0)
    paused = _listing({"A->B.MirrorSourceConnector": ("PAUSED", ["PAUSED"]),
                       "C->B.MirrorSourceConnector": ("RUNNING", ["RUNNING"])})
    result = alert_connect.evaluate(paused, flow_control.HealerState(), thresholds, 100.0)
    assert result.state == alert_eval.OK and "Held by an operator (no alert): A->B PAUSED" in result.text
    state = flow_control.HealerState()
    failing = _listing({"C->B.MirrorSourceConnector": ("RUNNING", ["FAILED"])})
    flow_control.plan_restarts(failing, state, 90.0, 1.0, 5)
    result = alert_connect.evaluate(failing, state, thresholds, 100.0)
    assert result.state == alert_eval.CRITICAL and "C->B.MirrorSourceConnector task 0: boom" in result.text
    assert "restarted automatically 1 time(s)" in result.text


def test_source_offsets_round_trip():
    response = {"offsets": [{"partition": {"cluster": "A", "topic": "t", "partition": 1}, "offset": {"offset": 41}},
                            {"partition": {"cluster": "A", "topic": "t", "partition": 0}, "offset": {"offset": 9}}]}
    nxt = flow_control.source_offsets(response, "A")
    assert nxt == {("t", 0): 10, ("t", 1): 42}
    assert flow_control.source_offsets({"offsets": flow_control.offsets_body("A", nxt)}, "A") == nxt
    assert flow_control.offsets_body("A", {("t", 0): None}) == [
        {"partition": {"cluster": "A", "topic": "t", "partition": 0}, "offset": None}]


def test_tasks_alert_warns_while_a_restarted_connector_recovers():
    thresholds = alert_eval.Thresholds(1.0, 1.0)
    state = flow_control.HealerState()
    flow_control.plan_restarts(_listing({"C->B.MirrorSourceConnector": ("RUNNING", ["FAILED"])}), state, 90.0, 1.0, 5)
    state.event(90.0, "restarted C->B.MirrorSourceConnector (automatic restart 1 of at most 5): boom")
    running = _listing({"C->B.MirrorSourceConnector": ("RUNNING", ["RUNNING"])})
    result = alert_connect.evaluate(running, state, thresholds, 91.0)
    assert result.state == alert_eval.WARNING and "Recovering after automatic restarts" in result.text
    flow_control.plan_restarts(running, state, 91.0, 1.0, 5)
    flow_control.plan_restarts(running, state, 95.0, 1.0, 5)   # healthy for its last back-off: count reset
    result = alert_connect.evaluate(running, state, thresholds, 96.0)
    assert result.state == alert_eval.OK and "automatic restart 1 of at most 5" in result.text


def test_placement_one_target_per_host_and_one_host_per_target():
    flows = [("A", "B"), ("C", "B"), ("B", "A")]
    assert connect_mode.placement_problems(flows, {"h1": ["B"], "h2": ["A"]}) == []
    found = connect_mode.placement_problems(flows, {"h1": [], "h2": ["B"], "h3": ["B"]})
    messages = [m for _, _, level, m in found if level == "ERROR"]
    assert any(m.startswith("Host h1: connect mode") and "would serve A, B" in m for m in messages), messages
    assert any(m.startswith("Target B is served by h2, h3") for m in messages), messages
    assert connect_mode.run_mode({"kafka-mm2-env": {"mm2_run_mode": "connect"}}) == "connect"
    assert connect_mode.run_mode({}) == "dedicated"


def test_a_retired_flow_is_put_back_running_by_the_start_that_enables_it_again():
    """FLOW_SEED retire= writes a connect-mode flow's copying connectors enabled=false with no tasks into the
    worker's config topic (a failback under identity); the START that enables the flow again must not leave them
    so: the rendered configuration (enabled=true) differs, so the reconcile PUTs it and Connect generates tasks."""
    from mm2_core.dr import flow_positions
    from mm2_core.kafka import connect_configs
    _rendering, plan = plan_of("aggregation-three-into-one")
    flow = "emea->central"
    topic, names_ = flow_positions.retire_location(connect_mode.CONNECT, flow, "dr-connect")
    assert topic == "dr-connect-configs.internal"
    assert names_ == [connect_mode.connector_name(flow, connect_mode.SOURCE),
                      connect_mode.connector_name(flow, connect_mode.CHECKPOINT)]
    configs = dict((n, dict(plan.connectors[n])) for n in plan.connectors)
    counts = dict((n, 1) for n in plan.connectors)
    writes = connect_configs.retire_plan(configs, counts, names_)
    for key, value in writes:
        if key.startswith(connect_configs.CONNECTOR_PREFIX):
            configs[key[len(connect_configs.CONNECTOR_PREFIX):]] = json.loads(value)["properties"]
    assert [k for k, _ in writes] == ["connector-%s" % names_[0], "commit-%s" % names_[0],
                                      "connector-%s" % names_[1], "commit-%s" % names_[1]]
    create, update, delete = connect_mode.connector_diff(configs, plan.connectors)
    assert (create, sorted(update), delete) == ([], sorted(names_), [])
    # dedicated mode's location is the flow's herder's topic, under the bare connector names
    assert flow_positions.retire_location(connect_mode.DEDICATED, flow, "dr-connect") == (
        "mm2-configs.emea.internal", list(connect_configs.RETIRED_CONNECTORS))
