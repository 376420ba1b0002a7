"""Operating flows while MirrorMaker 2 keeps running (connect mode) on real Kafka, through the built mpack's scripts
driven as the Ambari agent drives them (tests/e2e/agent.py), under the real Ambari library of a line.

- pause one flow while the other keeps replicating with exact counts; resume it with nothing lost;
- change a flow's topic regex live (Refresh configs): the new topic replicates, the Connect worker and the
  other flow keep running (same pid, the other flow's connectors not restarted, its latency series without gap);
- a task fails on a real fault (a target topic whose max.message.bytes is smaller than a record), the fault is
  fixed, and the healer restarts the task without a human; the tasks alert says what was restarted.
"""
import json
import os
import time
import uuid

import pytest

from conftest import require_line
from e2e import agent
from mm2_core.config import names
from mm2_core.connect import connect_mode
from live.live_support import ok, wait_count
from realkafka import cluster as rk

LINE = "trunk"
N = 200

TOPOLOGY = """
clusters:
  A:
    bootstrap.servers: {a}
  C:
    bootstrap.servers: {c}
  B:
    bootstrap.servers: {b}
flows:
  - source: A
    target: B
    topics: {a_topics}
  - source: C
    target: B
    topics: {c_topics}
"""




def connect_conf(clusters, a_topics, c_topics, rest_port, extra_env=None):
    yaml = TOPOLOGY.format(a=clusters["a"].bootstrap, b=clusters["b"].bootstrap, c=clusters["c"].bootstrap,
                           a_topics=a_topics, c_topics=c_topics)
    env = {"mm2_run_mode": "connect", "mm2_autorestart_backoff_unit_seconds": "1"}
    env.update(extra_env or {})
    return {names.CLUSTERS: {"topology.mode": "advanced"}, names.TOPOLOGY: {"content": yaml},
            # a Connect group of this case only (the clusters are shared, and a failed case may leave a flow paused)
            names.DRIVER: {"connect.rest.port": str(rest_port), "connect.group.id": "mm2-live-%d" % rest_port},
            names.ENV: env}


def healer_pid(d):
    with open(d.path("/var/run/kafka-mm2") + "/mm2-healer.pid") as fh:
        return int(fh.read().strip())


def rest_get(port, path):
    from urllib.request import urlopen
    with urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as response:
        return json.loads(response.read().decode("utf-8"))


def states(port):
    listing = rest_get(port, "/connectors?expand=status")
    return dict((name, (entry["status"]["connector"]["state"], [t["state"] for t in entry["status"]["tasks"]]))
                for name, entry in listing.items())


@pytest.fixture
def setup(mpack, kafka_pool, drivers, tmp_path):
    require_line(LINE)
    clusters = kafka_pool("a", "b", "c")
    run_id = uuid.uuid4().hex[:6]
    port = rk.free_port()
    return clusters, run_id, port


def test_pause_one_flow_while_the_other_replicates_then_resume(setup, mpack, drivers, tmp_path):
    clusters, run_id, port = setup
    a, b, c = clusters["a"], clusters["b"], clusters["c"]
    ta, tc = "pa-%s" % run_id, "pc-%s" % run_id
    a.create_topic(ta, partitions=2)
    c.create_topic(tc, partitions=2)
    conf = connect_conf(clusters, ta, tc, port)
    d = drivers.new(mpack, LINE, tmp_path, configurations=conf)
    for command in ("INSTALL", "START", "STATUS"):
        ok(d.run(command), command)
    pid = d.pid()
    assert sorted(states(port)) == sorted(connect_mode.connector_name(f, k) for f in ("A->B", "C->B")
                                          for k in connect_mode.KINDS)
    a.produce_n(ta, N, prefix="a1")
    c.produce_n(tc, N, prefix="c1")
    wait_count(b, "A." + ta, N)
    wait_count(b, "C." + tc, N)

    run = ok(d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "A->B"}), "FLOW_PAUSE A->B")
    assert run.structured_out["state"] == "PAUSED", run.structured_out
    now = states(port)
    assert all(now[connect_mode.connector_name("A->B", k)][0] == "PAUSED" for k in connect_mode.KINDS), now
    assert now["C->B.MirrorSourceConnector"][0] == "RUNNING", now
    # the paused flow copies nothing; the other one keeps replicating, exactly
    a.produce_n(ta, N, prefix="a2")
    c.produce_n(tc, N, prefix="c2")
    wait_count(b, "C." + tc, 2 * N)
    time.sleep(5)
    assert b.count("A." + ta) == N
    # pausing again is no error; an unknown flow and stopping... are clear errors
    again = ok(d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "A->B"}), "FLOW_PAUSE again")
    assert "already PAUSED" in again.output
    bad = d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "X->B"})
    assert bad.exit_code != 0 and "unknown flow X->B" in bad.output and "A->B, C->B" in bad.output
    status = ok(d.run(names.CMD_REPLICATION_STATUS, timeout=240), "REPLICATION_STATUS")
    assert "A->B PAUSED" in status.output and "C->B RUNNING" in status.output
    # a paused flow raises no alert, with thresholds an operator would set for a small loopback flow: the other
    # flow's heartbeats keep advancing, the paused one's do not, and nothing fires
    thresholds = {"mm2_heartbeat_gap": {"heartbeat.gap.warning": 10.0, "heartbeat.gap.critical": 20.0},
                  "mm2_replication_latency": {"latency.warning": 5.0, "latency.critical": 15.0}}
    d.alerts(thresholds)
    time.sleep(25)      # the paused flow's last heartbeat is now older than the gap's critical threshold
    # the running flow's latency is averaged over a minute: right after START it can still hold the copy of older
    # heartbeats another test of the module left on the shared clusters (seen: C.heartbeats-0 at 58 s on a quiet
    # host), so the states are read until nothing fires; a paused flow that were not held would fire all along
    seen = []

    def quiet():
        seen[:] = [d.alerts(thresholds)]
        return all(state not in ("WARNING", "CRITICAL") for state, _ in seen[0].values()) and seen[0]
    try:
        alerts = rk.wait_until(quiet, 150, interval=10, what="no alert while A->B is paused")
    except TimeoutError:
        raise AssertionError("an alert fires while A->B is paused: %s" % seen[0])
    print("alerts while A->B is paused: %s" % dict((n, s) for n, (s, _) in alerts.items()))
    assert alerts["mm2_connector_tasks"][0] == "OK" and alerts["mm2_driver_process"][0] == "OK", alerts
    assert "Held by an operator (no alert): A->B PAUSED" in alerts["mm2_connector_tasks"][1]
    assert "Held by an operator (not alerted): A->B PAUSED" in alerts["mm2_heartbeat_gap"][1]

    run = ok(d.run(names.CMD_FLOW_RESUME, command_params={"flow": "A->B"}), "FLOW_RESUME A->B")
    assert run.structured_out["state"] == "RUNNING", run.structured_out
    wait_count(b, "A." + ta, 2 * N)
    keys = sorted(k for k, _ in b.consume("A." + ta, 2 * N, timeout_ms=5000))
    assert keys == sorted(["a1-%d" % i for i in range(N)] + ["a2-%d" % i for i in range(N)])
    assert d.pid() == pid   # one worker JVM all along
    # Connect's offsets API (3.6+) says exactly where the flow stands: the next offset of every source partition
    from mm2_core.connect import connect_rest, flow_control
    client = connect_rest.ConnectRest("http://127.0.0.1:%d" % port, "3.9.0")
    ends = dict(((ta, p), o) for p, o in a.end_offsets(ta).items())

    def flushed():   # source offsets are committed every offset.flush.interval.ms
        nxt = flow_control.source_offsets(client.offsets("A->B.MirrorSourceConnector"), "A")
        return dict((k, v) for k, v in nxt.items() if k[0] == ta) == ends
    rk.wait_until(flushed, 120, what="the source offsets of A->B to reach %s" % ends)   # ends once there
    # stop (3.5+: connectors without tasks), an illegal transition, resume from stopped
    run = ok(d.run(names.CMD_FLOW_STOP, command_params={"flow": "C->B"}), "FLOW_STOP C->B")
    assert run.structured_out["state"] == "STOPPED", run.structured_out
    bad = d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "C->B"})
    assert bad.exit_code != 0 and "flow C->B is STOPPED" in bad.output and "resume it first" in bad.output
    c.produce_n(tc, N, prefix="c3")
    ok(d.run(names.CMD_FLOW_RESUME, command_params={"flow": "C->B"}), "FLOW_RESUME C->B")
    wait_count(b, "C." + tc, 3 * N)
    healer = healer_pid(d)
    assert healer and os.path.exists("/proc/%d" % healer)
    ok(d.run("STOP"), "STOP")
    # no process left behind: the healer has exited (until init reaps it, an exited healer is a zombie in /proc)
    from mm2_core.host import process as host_process
    assert d.mm2_pids() == [] and not host_process.is_alive(healer)


def scrape(port):
    """{(family, topic, partition): value} of the MM2 source series on the driver's exporter."""
    from urllib.request import urlopen
    out = {}
    with urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as response:
        for line in response.read().decode("utf-8").splitlines():
            if line.startswith("mm2_source_record_count{") or line.startswith("mm2_source_replication_latency_ms{"):
                name, _, rest = line.partition("{")
                labels, _, value = rest.rpartition("}")
                fields = dict(part.split("=", 1) for part in labels.split(",") if "=" in part)
                out[(name, fields.get("topic", "").strip('"'), fields.get("partition", "").strip('"'))] = float(value)
    return out


def count_in_log(d, text):
    try:
        with open(d.log_file, errors="replace") as fh:
            return fh.read().count(text)
    except IOError:
        return 0


def test_topic_regex_changes_live_without_touching_the_other_flow(setup, mpack, drivers, tmp_path):
    import threading
    clusters, run_id, port = setup
    a, b, c = clusters["a"], clusters["b"], clusters["c"]
    ta, tnew, tc = "ra-%s" % run_id, "rn-%s" % run_id, "rc-%s" % run_id
    a.create_topic(ta)
    a.create_topic(tnew)
    c.create_topic(tc)
    d = drivers.new(mpack, LINE, tmp_path, configurations=connect_conf(clusters, ta, tc, port))
    for command in ("INSTALL", "START"):
        ok(d.run(command), command)
    pid = d.pid()
    a.produce_n(ta, N, prefix="ra")
    a.produce_n(tnew, N, prefix="rn")
    c.produce_n(tc, N, prefix="rc")
    wait_count(b, "A." + ta, N)
    wait_count(b, "C." + tc, N)
    assert "A." + tnew not in b.topics()   # not in A->B's topics yet

    # C->B keeps replicating all along; its series are sampled every second
    stop, samples, produced = threading.Event(), [], [N]

    def keep_producing():
        while not stop.is_set():
            c.produce_n(tc, 20, prefix="rc-live", start=produced[0])
            produced[0] += 20

    def keep_sampling():
        while not stop.is_set():
            samples.append((time.time(), scrape(d.metrics_port)))
            stop.wait(1.0)
    c_tasks_before = count_in_log(d, "Creating task C->B.MirrorSourceConnector-0")
    a_tasks_before = count_in_log(d, "Creating task A->B.MirrorSourceConnector-0")
    producer = threading.Thread(target=keep_producing)
    sampler = threading.Thread(target=keep_sampling)
    producer.start()
    sampler.start()
    try:
        time.sleep(5)
        changed = connect_conf(clusters, "%s|%s" % (ta, tnew), tc, port)
        run = ok(d.run("RECONFIGURE", configurations=changed, command_params={"reconfigureAction": "reload_configs"}),
                 "RECONFIGURE (reload_configs)")
        # the topic filter is in A->B's source and checkpoint connectors; C->B and A->B's heartbeats are untouched
        applied = run.structured_out["reload_configs"]
        assert sorted(applied["updated"]) == ["A->B.MirrorCheckpointConnector", "A->B.MirrorSourceConnector"], applied
        assert sorted(applied["unchanged"]) == ["A->B.MirrorHeartbeatConnector", "C->B.MirrorCheckpointConnector",
                                                "C->B.MirrorHeartbeatConnector", "C->B.MirrorSourceConnector"]
        assert applied["created"] == [] and applied["deleted"] == []
        wait_count(b, "A." + tnew, N, timeout=180)
        time.sleep(5)
        # enough samples around the change to see a gap (the harness no longer spends seconds per call: 9 of them)
        rk.wait_until(lambda: len(samples) >= 12, 60, interval=1, what="12 samples of the metrics")
    finally:
        stop.set()
        producer.join(120)
        sampler.join(30)
    assert d.pid() == pid   # the worker JVM was not restarted
    # A->B's source connector got its new task config, C->B's task was never recreated
    assert count_in_log(d, "Creating task A->B.MirrorSourceConnector-0") > a_tasks_before
    assert count_in_log(d, "Creating task C->B.MirrorSourceConnector-0") == c_tasks_before
    # no gap: C's record-count series is in every sample and never goes back (a restarted task starts at 0)
    key = ("mm2_source_record_count", "C." + tc, "0")
    counts = [s.get(key) for _, s in samples]
    assert len(counts) >= 10 and None not in counts, counts
    assert all(later >= earlier for earlier, later in zip(counts, counts[1:])), counts
    assert all(s.get(("mm2_source_replication_latency_ms", "C." + tc, "0")) is not None for _, s in samples)
    wait_count(b, "C." + tc, produced[0])
    # the configuration Ambari now holds restarts cleanly too
    ok(d.run("STOP", configurations=changed), "STOP")
    assert d.mm2_pids() == []


def test_failed_task_heals_itself_after_the_fault_is_fixed(setup, mpack, drivers, tmp_path):
    clusters, run_id, port = setup
    a, b = clusters["a"], clusters["b"]
    topic = "big-%s" % run_id
    a.create_topic(topic)
    # the fault: the target topic exists with a max.message.bytes smaller than the records to come
    b.create_topic("A." + topic, config={"max.message.bytes": "1024"})
    yaml_conf = connect_conf(clusters, topic, "none-%s" % run_id, port,
                             extra_env={"mm2_autorestart_max_restarts": "30", "mm2_autorestart_backoff_unit_seconds": "5"})
    # topic config sync would repair the target by itself: turn it off for this flow
    yaml_conf[names.TOPOLOGY]["content"] = yaml_conf[names.TOPOLOGY]["content"].replace(
        "    topics: %s\n" % topic, "    topics: %s\n    config:\n      sync.topic.configs.enabled: false\n" % topic)
    d = drivers.new(mpack, LINE, tmp_path, configurations=yaml_conf)
    for command in ("INSTALL", "START"):
        ok(d.run(command), command)
    a.produce_n(topic, 10, prefix="small")
    wait_count(b, "A." + topic, 10)
    a.produce(topic, [("big-0", "x" * 4000)])
    a.produce_n(topic, 10, prefix="after")
    source = "A->B.MirrorSourceConnector"

    def restarted():
        state = json.load(open(d.path("/var/run/kafka-mm2") + "/mm2-healer-state.json"))
        return (state["connectors"].get(source) or {}).get("restarts", 0) >= 1
    rk.wait_until(restarted, 120, interval=1, what="the healer to restart the failed task")
    # the alert says what the healer did (while FAILED or recovering it is WARNING/CRITICAL; a restarted task that
    # has run healthy for its last back-off is OK again, and the restart stays in the text for an hour)
    alert = d.alerts()["mm2_connector_tasks"]
    assert "restarted %s (automatic restart 1 of at most 30)" % source in alert[1], alert
    assert "Unrecoverable exception from producer send callback" in alert[1], alert
    # an operator fixes the fault; nobody touches MirrorMaker 2
    b.tool("kafka-configs", "--bootstrap-server", b.bootstrap, "--alter", "--entity-type", "topics",
           "--entity-name", "A." + topic, "--add-config", "max.message.bytes=1048588")
    # Connect is at-least-once: the restarted task replays from its last committed (flushed) position, so records
    # may arrive twice; none may be missing, and nothing else may appear
    expected = ["small-%d" % i for i in range(10)] + ["big-0"] + ["after-%d" % i for i in range(10)]
    # read until every expected key is there: a count of 21 can be reached by replayed records first
    keys = []

    def all_arrived():
        keys[:] = [k for k, _ in b.consume("A." + topic, 1000, timeout_ms=2000)]
        return set(expected) <= set(keys)
    rk.wait_until(all_arrived, 240, interval=2, what="every record of A.%s on B" % topic)
    assert sorted(set(keys)) == sorted(expected), keys                     # nothing lost, nothing foreign
    rk.wait_until(lambda: (lambda st: st[0] == "RUNNING" and set(st[1]) == {"RUNNING"})(states(port)[source]), 60,
                  what="A->B running again")
    # healthy for its last back-off: OK again, and the text still tells what the healer did in the last hour
    alert = rk.wait_until(lambda: (lambda a: a if a[0] == "OK" else None)(d.alerts()["mm2_connector_tasks"]), 120,
                          interval=5, what="the tasks alert to be OK again")
    assert "restarted %s (automatic restart 1 of at most 30)" % source in alert[1], alert
    with open(d.path("/var/log/kafka-mm2") + "/mm2-healer.log") as fh:
        log = fh.read()
    assert "restarted %s (automatic restart 1 of at most 30)" % source in log, log
    ok(d.run("STOP"), "STOP")
    assert d.mm2_pids() == []
