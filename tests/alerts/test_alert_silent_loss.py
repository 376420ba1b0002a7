"""The silent-loss alert (mm2_core.alerts.silent_loss through alert_runner): records the source deleted before MM2 copied
them, read from the reset lines Kafka's consumer writes to MM2's log (tests/dr provokes them on real Kafka)."""
import os

from mm2_core.alerts import alert_runner
from mm2_core.alerts import silent_loss as alert_loss
from mm2_core.config import names

OUT = ("[2026-11-26 10:00:01,000] INFO [Consumer clientId=A->B|MirrorSourceConnector-0|replication-consumer, "
       "groupId=null] Fetch position FetchPosition{offset=%d, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch"
       "{leader=Optional[127.0.0.1:9092 (id: 1 rack: null)], epoch=0}} is out of range for partition %s, resetting "
       "offset (org.apache.kafka.clients.consumer.internals.FetchCollector:402)\n")
RESET = ("[2026-11-26 10:00:01,001] INFO [Consumer clientId=A->B|MirrorSourceConnector-0|replication-consumer, "
         "groupId=null] Resetting offset for partition %s to position FetchPosition{offset=%d, offsetEpoch="
         "Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[127.0.0.1:9092 (id: 1 rack: null)], epoch=0}}. "
         "(org.apache.kafka.clients.consumer.internals.SubscriptionState:444)\n")
NOISE = "[2026-11-26 10:00:00,000] INFO [MirrorSourceConnector|task-0] Committing offsets (x)\n"


def _run(tmp, now, params=None):
    token_map = {"{{%s}}" % names.ENV: {"mm2_log_dir": str(tmp)}}
    params = dict(params or {}, **{"state.directory": os.path.join(str(tmp), "state")})
    state, texts = alert_runner.execute("silent_loss", token_map, params, "driver1", now=now)
    return state, texts[0]


def test_a_reset_past_deleted_records_is_critical_with_flow_partition_and_count(tmpdir):
    log = tmpdir.join("mirrormaker.log")
    log.write(NOISE + OUT % (100, "orders-0") + NOISE + RESET % ("orders-0", 150))
    state, text = _run(tmpdir, 1000.0)
    assert state == "CRITICAL"
    assert text.startswith("50 record(s) were deleted on the source by retention before MirrorMaker 2 copied them")
    assert "A->B orders-0: offsets 100..149 lost (50)" in text
    # remembered for the window, not counted twice
    assert _run(tmpdir, 2000.0)[1].startswith("50 record(s)")
    # after the window: OK again
    state, text = _run(tmpdir, 1000.0 + 25 * 3600)
    assert state == "OK" and text.startswith("No records lost to retention on driver1 in the last 24 h")


def test_a_reset_backwards_or_an_unrelated_consumer_is_no_loss(tmpdir):
    other = OUT.replace("A->B|MirrorSourceConnector-0|replication-consumer", "console-consumer")
    tmpdir.join("mirrormaker.log").write(OUT % (500, "orders-1") + RESET % ("orders-1", 0) + other % (1, "t-0")
                                         + RESET.replace("A->B|MirrorSourceConnector-0|replication-consumer",
                                                         "console-consumer") % ("t-0", 9))
    assert _run(tmpdir, 10.0)[0] == "OK"


def test_the_log_is_read_incrementally_across_a_split_event_and_a_rotation(tmpdir):
    log = tmpdir.join("mirrormaker.log")
    log.write(NOISE + OUT % (10, "t.x-3"))
    assert _run(tmpdir, 10.0)[0] == "OK"          # the reset line is not written yet
    log.write(RESET % ("t.x-3", 30), mode="a")
    os.rename(str(log), str(tmpdir.join("mirrormaker.log.1")))   # log4j rolls the file
    tmpdir.join("mirrormaker.log").write(OUT % (7, "u-0") + RESET % ("u-0", 8))
    state, text = _run(tmpdir, 20.0, {"lost.records.critical": "100"})
    assert state == "WARNING" and "t.x-3: offsets 10..29 lost (20)" in text and "u-0: offsets 7..7 lost (1)" in text


def test_no_log_is_unknown_naming_the_property(tmpdir):
    state, text = _run(tmpdir.join("missing"), 1.0)
    assert state == "UNKNOWN" and "(kafka-mm2-env/mm2_log_dir)" in text


def test_parse_keeps_a_dangling_out_of_range_line_for_the_next_chunk():
    pending = {}
    assert alert_loss.parse_losses(OUT % (5, "t-0"), pending) == []
    (event,) = alert_loss.parse_losses(RESET % ("t-0", 6), pending)
    assert (event["flow"], event["topic"], event["partition"], event["lost"]) == ("A->B", "t", 0, 1)
