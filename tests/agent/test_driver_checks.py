"""Service check and the custom commands in execute mode, with the scripted Kafka tools (which
check their arguments) and a running fake MM2 that really copies records between the
simulated clusters."""
import csv
import io
import os
import re
import threading
import time

import pytest

from mm2_core.config import names

import fakekafka
from driver_fixture import Driver
from agent_support import failed, ok


def wait_until(predicate, seconds=15):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture
def clusters(site):
    return site.cluster("A", "a1:9092"), site.cluster("B", "b1:9092")


def test_service_check_end_to_end(site, clusters, guard):
    a, b = clusters
    driver = Driver(site)
    ok(driver.run("START"))
    # START created the check topic on the source, so MM2's first scan mirrors it
    assert a.has_topic(names.SERVICE_CHECK_TOPIC)
    assert wait_until(lambda: b.has_topic("A." + names.SERVICE_CHECK_TOPIC))
    run = ok(driver.service_check(command_params={"command_timeout": "90"}))
    assert "A->B: marker produced to %s on A arrived in A.%s on B" % (
        names.SERVICE_CHECK_TOPIC, names.SERVICE_CHECK_TOPIC) in run.output
    markers = [v for _, _, v, _ in b.records("A." + names.SERVICE_CHECK_TOPIC)]
    assert len(markers) == 1 and markers[0].startswith(b"ambari-mm2-service-check ")
    # every tool ran as the MM2 user with a private client config, which is gone afterwards
    calls = fakekafka.calls(site.state)
    tools = set(c["tool"] for c in calls)
    assert {"kafka-topics", "kafka-console-producer", "kafka-console-consumer"} <= tools
    configs = [c for c in calls if c["tool"] != "connect-mirror-maker"]
    assert all(c["config_mode"] == 0o600 for c in configs)
    assert all(c["uid"] == os.getuid() and c["env"]["KAFKA_OPTS"] == "" for c in configs)
    calls_dirs = set(os.path.dirname(c["args"][c["args"].index(flag) + 1]) for c in configs
                     for flag in ("--command-config", "--producer.config", "--consumer.config") if flag in c["args"])
    assert calls_dirs and all(os.path.dirname(d) == driver.pid_dir for d in calls_dirs)
    assert not [d for d in os.listdir(driver.pid_dir) if d.startswith("mm2-cli-")]     # removed afterwards

    # MM2 stopped: the marker cannot arrive, and the output says at which step it failed
    ok(driver.run("STOP"))
    run = failed(driver.service_check(command_params={"command_timeout": "40"}))
    assert "A->B failed at step 5/5 find the marker in A.%s on B" % names.SERVICE_CHECK_TOPIC in run.output


def test_service_check_reads_the_marker_again_when_a_read_times_out_before_its_first_record(site, clusters, guard):
    """On a loaded host (or behind a slow SASL_SSL handshake) the console consumer's first fetch can come after its
    --timeout-ms: it ends having read nothing. That is not a missing marker: the check reads again until its
    deadline (the r6 rehearsal of 2026-11-27 failed a SASL_SSL service check on the first such read)."""
    a, b = clusters
    driver = Driver(site)
    ok(driver.run("START"))
    assert wait_until(lambda: b.has_topic("A." + names.SERVICE_CHECK_TOPIC))
    site.control(consumer_first_fetch_late=2)
    run = ok(driver.service_check(command_params={"command_timeout": "90"}))
    assert "A->B: marker produced to %s on A arrived in A.%s on B" % (
        names.SERVICE_CHECK_TOPIC, names.SERVICE_CHECK_TOPIC) in run.output
    reads = [c for c in fakekafka.calls(site.state, "kafka-console-consumer") if names.SERVICE_CHECK_TOPIC in c["args"]]
    assert len(reads) >= 3                   # two reads that timed out empty, then the one that found the marker
    assert fakekafka.control(site.state)["consumer_first_fetch_late"] == 0


def test_service_check_when_the_check_topic_is_new(site, clusters, guard):
    driver = Driver(site)
    run = failed(driver.service_check(command_params={"command_timeout": "40"}))  # MM2 not running
    assert "failed at step 4/5 find the mirrored topic" in run.output
    assert "refresh.topics.interval.seconds=600s" in run.output and "created only now" in run.output


def test_service_check_falls_back_to_heartbeats_when_the_topic_is_excluded(site, clusters, guard):
    driver = Driver(site)
    conf = {names.REPLICATION: {"topics": "orders.*"}}
    ok(driver.run("START", configurations=conf))
    assert not clusters[0].has_topic(names.SERVICE_CHECK_TOPIC)   # not created: it would not be mirrored
    assert wait_until(lambda: clusters[1].has_topic("A.heartbeats"))
    run = ok(driver.service_check(configurations=conf, command_params={"command_timeout": "60"}))
    assert "is not replicated by A->B (topics=orders.*" in run.output
    assert "the last heartbeat of A on B is" in run.output



def test_heartbeat_fallback_waits_for_a_fresh_heartbeat(site, clusters, guard):
    """Right after START the target may hold only the previous run's last heartbeat (the new MM2 has not emitted
    yet): the check reads again until its deadline instead of failing on that first read (the real server's
    `mm2-ambari deploy` case failed so under load: tests/realserver)."""
    a, b = clusters
    driver = Driver(site)
    conf = {names.REPLICATION: {"topics": "orders.*"}}
    old = int((time.time() - 600) * 1000)        # the previous run's last heartbeat, 10 minutes old
    key, value = fakekafka.heartbeat_record("B", "A", old)
    b.append("A.heartbeats", value, key=key, ts=old)

    def emitted_later():
        time.sleep(4)
        now = int(time.time() * 1000)
        key, value = fakekafka.heartbeat_record("B", "A", now)
        b.append("A.heartbeats", value, key=key, ts=now)
    later = threading.Thread(target=emitted_later)
    later.start()
    try:
        run = ok(driver.service_check(configurations=conf, command_params={"command_timeout": "60"}))
    finally:
        later.join()
    assert "is not replicated by A->B (topics=orders.*" in run.output
    assert re.search(r"the last heartbeat of A on B is \d+s old", run.output), run.output


def test_heartbeat_fallback_names_a_stale_heartbeat(site, clusters, guard):
    """Only an old heartbeat until the deadline: the check fails naming its age."""
    a, b = clusters
    driver = Driver(site)
    conf = {names.REPLICATION: {"topics": "orders.*"}}
    old = int((time.time() - 600) * 1000)
    key, value = fakekafka.heartbeat_record("B", "A", old)
    b.append("A.heartbeats", value, key=key, ts=old)
    run = failed(driver.service_check(configurations=conf, command_params={"command_timeout": "40"}))
    assert re.search(r"the last heartbeat of A on B is 6\d\ds old \(more than 63s\)", run.output), run.output


def test_heartbeat_fallback_names_the_clusters_pitfall(site, clusters, guard):
    """Served near the target only (--clusters B): no heartbeats of A reach B, and the check says why."""
    driver = Driver(site)
    conf = {names.REPLICATION: {"topics": "orders.*"}}
    ok(driver.run("START", configurations=conf, driver={"target.clusters": "B"}))
    run = failed(driver.service_check(configurations=conf, driver={"target.clusters": "B"},
                                      command_params={"command_timeout": "40"}))
    assert "no heartbeats of A arrived on B" in run.output and "some driver host must serve A" in run.output


def test_service_check_with_sasl_ssl_keeps_secrets_out(site, guard):
    site.cluster("A", "a1:9093", security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512")
    site.cluster("B", "b1:9092")
    driver = Driver(site)
    secure = {names.CLUSTERS: {"source.bootstrap.servers": "a1:9093", "source.security.protocol": "SASL_SSL",
                               "source.sasl.mechanism": "SCRAM-SHA-512", "source.sasl.username": "mm2",
                               "source.sasl.password": "Sup3r-s3cret-pw",
                               "source.ssl.truststore.location": "/etc/security/truststore.jks",
                               "source.ssl.truststore.password": "TrustStorePw-9"}}
    for secrets_file in ("false", "true"):
        conf = dict(secure)
        conf[names.REPLICATION] = {"secrets.config.provider.enabled": secrets_file}
        start = ok(driver.run("START", configurations=conf))
        check = ok(driver.service_check(configurations=conf, command_params={"command_timeout": "90"}))
        ok(driver.run("STOP", configurations=conf))
        for run in (start, check):
            assert "Sup3r-s3cret-pw" not in run.output and "TrustStorePw-9" not in run.output
    calls = [c for c in fakekafka.calls(site.state) if c.get("config", {}).get("security.protocol") == "SASL_SSL"]
    assert calls and all(c["config_mode"] == 0o600 for c in calls)
    assert all("Sup3r-s3cret-pw" in c["config"]["sasl.jaas.config"] for c in calls)   # resolved for the tools
    assert all("Sup3r-s3cret-pw" not in " ".join(c["args"]) for c in calls)          # never on a command line
    info = driver.mm2_info(fakekafka.started_pids(site.state)[-1])
    assert info["props"]["A.sasl.jaas.config"].count("Sup3r-s3cret-pw") == 1         # MM2 resolved the file ref


def test_replication_status_report(site, clusters, guard):
    a, b = clusters
    a.create_topic("orders")
    a.append("orders", b"o1")
    a.create_topic("payments")
    site.control(connector_states={"A->B": {"MirrorCheckpointConnector": "FAILED"}})
    driver = Driver(site)
    ok(driver.run("START", configurations={names.REPLICATION: {"topics.exclude": "payments, .*\\.internal, __.*"}}))
    assert wait_until(lambda: b.has_topic("A.heartbeats") and b.has_topic("A.orders"))
    run = ok(driver.run(names.CMD_REPLICATION_STATUS,
                        configurations={names.REPLICATION: {"topics.exclude": "payments, .*\\.internal, __.*"}}))
    out = run.output
    assert "Flow A->B" in out and "orders" in out
    assert "MirrorSourceConnector        RUNNING" in out
    assert "MirrorCheckpointConnector    FAILED" in out and "simulated failure" in out
    assert "last heartbeat of A seen on B:" in out
    (report,) = run.structured_out["replication_status"]
    assert "orders" in report["matched_topics"] and "payments" not in report["matched_topics"]
    assert report["connectors"]["MirrorHeartbeatConnector"]["state"] == "RUNNING"
    assert report["last_heartbeat_ms"] > 0 and report["problems"] == []


def test_replication_status_reads_the_status_topic_again_when_a_read_ends_before_its_first_record(site, clusters,
                                                                                                 guard):
    """A status-topic read whose first fetch came after its --timeout-ms (a loaded host) returns nothing; the report
    then lacked MirrorSourceConnector with no problem said (the r7 rehearsal, 4.3.1 at load 22). It reads again."""
    a, b = clusters
    a.create_topic("orders")
    driver = Driver(site)
    ok(driver.run("START"))
    assert wait_until(lambda: b.has_topic("A.heartbeats") and b.has_topic("A.orders"))
    site.control(consumer_first_fetch_late=1)
    run = ok(driver.run(names.CMD_REPLICATION_STATUS))
    (report,) = run.structured_out["replication_status"]
    assert report["connectors"]["MirrorSourceConnector"]["state"] == "RUNNING"
    assert fakekafka.control(site.state)["consumer_first_fetch_late"] == 0


@pytest.mark.parametrize("version", [None, "2.8.2"])
def test_heartbeat_reads_end_while_heartbeats_keep_coming(site, clusters, guard, version):
    """Heartbeats are written continuously (every herder emits them), so a read that waits for
    quiet never ends: REPLICATION_STATUS and the service check fallback read up to the end offsets
    instead, and still report the last heartbeat (the console consumer waits for real quiet here).
    Before 3.0 (no kafka-get-offsets) the read from the beginning is cut by its window; it saw heartbeats
    written after it began, so it had reached the end: no problem is reported (real 2.8.2 did report one)."""
    if version:
        site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "k" + version), version, site.state)
    site.control(consumer_quiet_scale=1)
    driver = Driver(site)
    conf = {names.REPLICATION: {"topics": "orders.*"}}
    ok(driver.run("START", configurations=conf))
    assert wait_until(lambda: clusters[1].has_topic("A.heartbeats"))
    status = driver.run(names.CMD_REPLICATION_STATUS, configurations=conf, timeout=160)
    assert not status.timed_out
    ok(status)
    (report,) = status.structured_out["replication_status"]
    assert report["last_heartbeat_ms"] > 0 and report["problems"] == []
    check = driver.service_check(configurations=conf, command_params={"command_timeout": "60"}, timeout=100)
    assert not check.timed_out
    assert "the last heartbeat of A on B is" in ok(check).output


@pytest.mark.parametrize("version", ["2.4.1", "3.6.2", "3.7.1"])
def test_export_translated_offsets(site, clusters, guard, version):
    a, b = clusters
    site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "k" + version), version, site.state)
    a.create_topic("orders")
    for i in range(5):
        a.append("orders", ("o%d" % i).encode())
    a.commit("billing", "orders", 0, 3)
    a.commit("audit, eu", "orders", 0, 5)
    a.commit("console-consumer-1", "orders", 0, 1)     # excluded by the default groups.exclude
    driver = Driver(site)
    ok(driver.run("START"))

    def translated():
        latest = {}
        for _, key, value, _ in b.records("A.checkpoints.internal"):
            group, _, _, _, down, _ = fakekafka.decode_checkpoint(key, value)
            latest[group] = down
        return latest

    # MM2 checkpoints as it replicates: wait for the final translation of both groups
    assert wait_until(lambda: translated() == {"billing": 3, "audit, eu": 5})
    run = ok(driver.run(names.CMD_EXPORT_OFFSETS))
    (entry,) = run.structured_out["translated_offsets"]
    assert sorted(entry["groups"]) == ["audit, eu", "billing"]
    billing = entry["groups"]["billing"]
    with io.open(billing["csv"], encoding="utf-8") as fh:
        assert fh.read() == "A.orders,0,3\n"
    with io.open(entry["all_groups_csv"], encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows == [["audit, eu", "A.orders", "0", "5"], ["billing", "A.orders", "0", "3"]]
    assert oct(os.stat(billing["csv"]).st_mode & 0o777) == oct(0o640)
    assert billing["csv"].startswith(driver.log_dir)
    assert "--reset-offsets --from-file" in run.output
    # what this version cannot translate is said (real 2.x-3.4.0: groups behind the latest offset sync; 3.4.1-3.7.0:
    # groups behind the drivers' last restart; tests/versions/test_lifecycle.py checks both on real MM2)
    expected = {"2.4.1": "Kafka 2.4.1: groups behind the latest offset sync get no checkpoint: this MM2 translates a "
                         "group only at or past its partition's latest offset sync",
                "3.6.2": "Kafka 3.6.2: groups behind the last restart of the drivers get no checkpoint",
                "3.7.1": None}[version]
    if expected:
        assert expected in run.output, run.output[-2000:]
    else:
        assert "get no checkpoint" not in run.output, run.output[-2000:]
    # 3.4.1-3.6.x translate a group at the end only to the latest offset sync + 1 (real 3.4.1): said
    assert ("Kafka 3.6.2: translated offsets stop at the partition's latest offset sync" in run.output) == \
        (version == "3.6.2"), run.output[-2000:]

    run = ok(driver.run(names.CMD_EXPORT_OFFSETS, command_params={"groups": "billing"}))
    assert list(run.structured_out["translated_offsets"][0]["groups"]) == ["billing"]


def test_cutover_check_before_kafka_3_refuses_by_version(site, clusters, guard):
    """CUTOVER_CHECK under the agent before Kafka 3.0 (no kafka-get-offsets.sh): the flow is not READY and the
    reason names the version. (A stale version constant once crashed this command with an AttributeError on every
    version; the full gate runs on real Kafka in tests/dr.)"""
    a, b = clusters
    site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "k2.8.2"), "2.8.2", site.state)
    a.create_topic("orders")
    driver = Driver(site)
    ok(driver.run("START"))
    run = driver.run(names.CMD_CUTOVER_CHECK, command_params={"flow": "A->B"}, timeout=160)
    assert "AttributeError" not in run.output, run.output[-2000:]
    (report,) = run.structured_out["cutover_check"]
    assert report["flow"] == "A->B"
    assert failed(run) and report["verdict"] != "READY"
    assert "the gate needs kafka-get-offsets.sh (Kafka 3.0.0+); this installation is Kafka 2.8.2" in run.output
