"""Records the source deletes before MirrorMaker 2 copies them, on real Kafka: the cut-over gate names the retention
gap while MM2 is stopped, and once MM2 runs again (it jumps to the log start) the silent-loss alert is CRITICAL
naming the flow, the partition and the lost offsets. The built mpack's scripts under trunk's real Ambari library."""
import json
import time
import uuid

from conftest import require_line
from e2e import agent
from mm2_core.config import names
from realkafka import cluster as rk

LINE = "trunk"


def test_records_deleted_before_mm2_copied_them_block_the_gate_and_raise_the_alert(mpack, own_clusters, drivers,
                                                                                  tmp_path):
    require_line(LINE)
    clusters = own_clusters("a", "b")
    a, b = clusters["a"], clusters["b"]
    topic = "loss-%s" % uuid.uuid4().hex[:6]
    a.create_topic(topic, partitions=1)
    conf = agent.simple_configurations("A", "B", a.bootstrap, b.bootstrap)
    conf[names.REPLICATION]["topics"] = topic
    d = drivers.new(mpack, LINE, tmp_path, configurations=conf)
    for command in ("INSTALL", "START"):
        assert d.run(command).exit_code == 0, command
    a.produce_n(topic, 100, prefix="x")
    rk.wait_until(lambda: b.count("A." + topic) >= 100, 300, interval=2, what="100 records on B")
    time.sleep(5)   # MM2 flushes its source offsets (offset.flush.interval.ms=2000 here)
    assert d.run("STOP").exit_code == 0

    # while MM2 is stopped: 200 more records, and the source deletes offsets below 250 (as retention would)
    a.produce_n(topic, 200, prefix="y")
    spec = tmp_path / "delete.json"
    spec.write_text(json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "offset": 250}]}))
    a.tool("kafka-delete-records", "--bootstrap-server", a.bootstrap, "--offset-json-file", str(spec))

    gate = d.run(names.CMD_CUTOVER_CHECK, command_params={"flow": "A->B", "max.heartbeat.age.seconds": "-1"},
                 timeout=900)
    (report,) = gate.structured_out["cutover_check"]
    assert gate.exit_code != 0 and report["verdict"] == "NOT_READY", report
    assert report["retention_gap"] == [{"topic": topic, "partition": 0, "next": 100, "log_start": 250, "lost": 150}]
    assert "A->B: %s-0 lost 150 record(s): the source deleted offsets 100..249 before MM2 copied them" % topic \
        in gate.output

    # MM2 again: its consumer finds offset 100 gone and jumps to 250; what is left arrives, the loss is alerted
    assert d.run("START").exit_code == 0
    rk.wait_until(lambda: b.count("A." + topic) >= 150, 300, interval=2, what="the 50 records left on B")
    alerts = {}

    def loss_alerted():
        alerts.update(d.alerts())
        return alerts.get("mm2_silent_loss", ("",))[0] == "CRITICAL"
    rk.wait_until(loss_alerted, 120, interval=5, what="mm2_silent_loss CRITICAL (have %s)" % (alerts.get("mm2_silent_loss"),))
    text = alerts["mm2_silent_loss"][1]
    assert text.startswith("150 record(s) were deleted on the source by retention before MirrorMaker 2 copied them")
    assert "A->B %s-0: offsets 100..249 lost (150)" % topic in text
