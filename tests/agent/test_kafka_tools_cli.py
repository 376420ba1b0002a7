"""Kafka CLI command lines and output parsers, against the scripted (argument-checking) tools."""
import os
import subprocess

import pytest

from mm2_core.host import kafka_tools as kt
from mm2_core.kafkatools import commands as kc, output as ko, records as kr

import fakekafka


def run(site, args, stdin=None):
    env = dict(os.environ, JAVA_HOME=site.java_home)
    env.pop("KAFKA_LOG4J_OPTS", None)
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out, err = p.communicate(stdin.encode("utf-8") if stdin else None)
    return p.returncode, out.decode("utf-8"), err.decode("utf-8")


def client_config(site, text="security.protocol=PLAINTEXT\n"):
    path = os.path.join(site.root, "client.properties")
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, 0o600)
    return path


def seed(cluster):
    for ts, (s, t) in enumerate([("B", "A"), ("B", "A"), ("C", "A")]):
        key, value = fakekafka.heartbeat_record(s, t, 1700000000000 + ts)
        cluster.append("heartbeats", value, key=key, ts=1700000000000 + ts)
    for up, down in ((10, 8), (20, 17)):
        key, value = fakekafka.checkpoint_record("orders-app", "A.orders", 0, up, down, "m,d")
        cluster.append("A.checkpoints.internal", value, key=key)
    key, value = fakekafka.checkpoint_record("billing, eu", "A.bills", 3, 5, 5)
    cluster.append("A.checkpoints.internal", value, key=key)


@pytest.mark.parametrize("version", ["2.4.1", "2.7.2", "3.7.1", "4.0.0"])
def test_mm2_records_read_through_the_tools(tmpdir, version):
    site_root = str(tmpdir)
    state = os.path.join(site_root, "state")
    home = fakekafka.make_kafka_home(os.path.join(site_root, "kafka"), version, state)

    class Site(object):
        root = site_root
        java_home = fakekafka.make_java_home(os.path.join(site_root, "jdk"), 17)

    cluster = fakekafka.Cluster.create(state, "A", "a1:9092")
    seed(cluster)
    vt = tuple(int(x) for x in version.split("."))
    cfg = client_config(Site)

    code, out, err = run(Site, kc.console_consumer(home, vt, "a1:9092", cfg, "heartbeats", mode="heartbeat"))
    assert code == 0, err
    beats = kr.parse_heartbeats(out)
    assert [(h.source, h.target, h.timestamp) for h in beats] == [
        ("B", "A", 1700000000000), ("B", "A", 1700000000001), ("C", "A", 1700000000002)]

    code, out, err = run(Site, kc.console_consumer(home, vt, "a1:9092", cfg, "A.checkpoints.internal",
                                                   mode="checkpoint"))
    assert code == 0, err
    latest = kr.latest_checkpoints(kr.parse_checkpoints(out))
    assert [(c.group, c.topic, c.partition, c.upstream, c.downstream) for c in latest] == [
        ("billing, eu", "A.bills", 3, 5, 5), ("orders-app", "A.orders", 0, 20, 17)]
    assert latest[1].metadata == "m,d"


def test_topics_and_text_records(site):
    site.cluster("A", "a1:9092")
    cfg = client_config(site)
    home = site.kafka_home
    code, out, err = run(site, kc.topics_create(home, "a1:9092", cfg, "mm2-check", configs={"retention.ms": "1"}))
    assert code == 0 and "Created topic mm2-check." in out, err
    code, out, err = run(site, kc.topics_create(home, "a1:9092", cfg, "mm2-check", replication_factor=1))
    assert code == 0, err                                    # --if-not-exists
    code, out, err = run(site, kc.topics_list(home, "a1:9092", cfg))
    assert ko.parse_topic_list("[2024] WARN something odd (x)\n" + out) == ["mm2-check"]
    code, out, err = run(site, kc.console_producer(home, (3, 7, 1), "a1:9092", cfg, "mm2-check"),
                         stdin="marker-1\n")
    assert code == 0, err
    code, out, err = run(site, kc.console_consumer(home, (3, 7, 1), "a1:9092", cfg, "mm2-check"))
    assert out.splitlines() == ["marker-1"]
    calls = fakekafka.calls(site.state, "kafka-console-consumer")
    assert calls[-1]["config_mode"] == 0o600


def test_producer_flag_follows_the_version(tmpdir):
    assert "--broker-list" in kc.console_producer("/k", (2, 4, 1), "a:1", "/c", "t")
    assert "--bootstrap-server" in kc.console_producer("/k", (2, 5, 0), "a:1", "/c", "t")


def test_status_records():
    out = ("status-connector-MirrorSourceConnector\t{\"state\":\"RUNNING\",\"trace\":null,\"worker_id\":\"h1:8083\"}\n"
           "status-task-MirrorSourceConnector-0\t{\"state\":\"RUNNING\",\"trace\":null}\n"
           "status-task-MirrorSourceConnector-1\t{\"state\":\"FAILED\",\"trace\":\"java.lang.Boom\\n\\tat x\"}\n"
           "status-connector-MirrorCheckpointConnector\t{\"state\":\"RUNNING\"}\n"
           "status-connector-MirrorCheckpointConnector\t{\"state\":\"UNASSIGNED\"}\n"
           "status-task-Gone-0\t{\"state\":\"RUNNING\"}\n"
           "status-task-Gone-0\tnull\n"
           "Processed a total of 7 messages\n")
    states = kr.connector_states(kr.parse_status(out))
    assert states["MirrorSourceConnector"][0] == "RUNNING"
    assert states["MirrorSourceConnector"][1] == ["RUNNING", "FAILED"]
    assert "java.lang.Boom" in states["MirrorSourceConnector"][2]
    assert states["MirrorCheckpointConnector"][0] == "UNASSIGNED"
    assert "Gone" not in states


def test_offsets_csv():
    cps = [kr.Checkpoint("g1", "A.t", 1, 9, 7), kr.Checkpoint("g1", "A.t", 0, 5, 5),
           kr.Checkpoint('we,"ird', "A.t", 0, 1, 1)]
    assert kc.reset_offsets_csv(cps[:2], with_group=False) == "A.t,0,5\nA.t,1,7\n"
    assert kc.reset_offsets_csv(cps, with_group=True).splitlines()[-1] == '"we,""ird",A.t,0,1'
    assert kc.reset_offsets_rows("A.t,0,5\nd.o.t,1,7\n\n") == [("A.t", 0, 5), ("d.o.t", 1, 7)]


def test_bytes_escaping_roundtrip():
    data = b"\x00\x05A\\x\xff ~"
    assert kr.unescape_bytes(fakekafka.bytes_tostring(data)) == data


def test_tools_get_the_system_properties_of_mm2_jvm_opts_only():
    # a realm outside /etc/krb5.conf (or a JAAS / TLS property) must reach the tools; GC and heap stay MM2's
    opts = "-XX:+UseG1GC -Djava.security.krb5.conf=/etc/mm2/krb5.conf -XX:MaxGCPauseMillis=20 " \
           "'-Djavax.net.debug=ssl,handshake' -Dsun.security.krb5.debug=true"
    assert kt.tool_system_properties(opts) == [
        "-Djava.security.krb5.conf=/etc/mm2/krb5.conf", "-Djavax.net.debug=ssl,handshake",
        "-Dsun.security.krb5.debug=true"]
    assert kt.tool_system_properties("") == []
    assert kt.tool_system_properties(None) == []
    assert kt.tool_system_properties("-Dunbalanced='x") == []


def test_recent_reads_are_bounded_by_end_offsets():
    """kafka-get-offsets output (3.0+) -> the last N records of each non-empty partition."""
    out = "WARN something\nA.heartbeats:0:1250\nA.heartbeats:1:0\nother:0:5\nA.heartbeats:2:40\n"
    ends = ko.topic_offsets(out, "A.heartbeats")
    assert ends == {0: 1250, 1: 0, 2: 40}
    assert kt.tail_reads(ends, 200) == [(0, 1050, 200), (2, 0, 40)]
    assert kc.end_offsets_command("/k", (2, 8, 2), "a:9092", "/c", "t") is None
    assert kc.end_offsets_command("/k", (3, 0, 0), "a:9092", "/c", "t")[0] == "/k/bin/kafka-get-offsets.sh"
    args = kc.console_consumer("/k", (3, 9, 0), "a:9092", "/c", "t", partition=2, offset=1050, max_messages=200)
    assert "--from-beginning" not in args and args[args.index("--offset") + 1] == "1050"


def test_checkpoint_lines_of_every_formatter_spelling_parse():
    """Real 2.8.2's CheckpointFormatter prints Checkpoint.toString with "metatadata=" (2.7 to 3.5); 3.9 "metadata=".
    EXPORT_TRANSLATED_OFFSETS found no checkpoint on real 2.8.2 until both parsed."""
    out = ("Checkpoint{consumerGroupId=e2e-done, topicPartition=A.dr-1, upstreamOffset=306, downstreamOffset=306, "
           "metatadata=}\n"
           "Checkpoint{consumerGroupId=e2e-mid, topicPartition=A.dr-0, upstreamOffset=153, downstreamOffset=150, "
           "metadata=m}\n")
    got = [(c.group, c.topic, c.partition, c.upstream, c.downstream) for c in kr.parse_checkpoints(out)]
    assert got == [("e2e-done", "A.dr", 1, 306, 306), ("e2e-mid", "A.dr", 0, 153, 150)]
