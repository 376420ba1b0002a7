"""`mm2-ambari import-mm1`: MirrorMaker 1's command line and files -> a deployment file the validator accepts,
a table naming every MirrorMaker 1 option, secrets kept out of the file, bad input refused by name."""
import json
import os
import stat

import yaml

from mm1.conftest import mm2_ambari
from mm2_ambari.mm1 import mapping as mm1_mapping

GUIDE_CMD = ["kafka-run-class.sh", "kafka.tools.MirrorMaker", "--consumer.config", "{c}", "--producer.config", "{p}",
             "--whitelist", "orders.*, payments.*", "--num.streams", "4"]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def files(tmp_path, consumer="", producer=""):
    c = write(tmp_path, "consumer.properties", "bootstrap.servers=src1:9092,src2:9092\ngroup.id=mirror-dc1\n" + consumer)
    p = write(tmp_path, "producer.properties", "bootstrap.servers=tgt1:9092\n" + producer)
    return c, p


def cmd(c, p, *extra, base=GUIDE_CMD):
    return [a.format(c=c, p=p) for a in base] + list(extra)


def run_import(tmp_path, command, *options, out="deploy.yaml"):
    out_path = str(tmp_path / out)
    result = mm2_ambari("import-mm1", "--kafka-version", "3.7.1", "--out", out_path, "--source-alias", "dc1",
                        "--target-alias", "dc2", *options, "--", *command)
    return result, out_path


def table_rows(stdout):
    """{MM1 option or 'file: property': (value, status, ...)} from the printed table."""
    rows = {}
    for line in stdout.splitlines()[2:]:
        if not line.strip():
            break
        cells = [c for c in line.split("  ") if c.strip()]
        rows[cells[0].strip()] = [c.strip() for c in cells[1:]]
    return rows


def test_guide_setup_becomes_a_valid_identity_flow_with_every_option_in_the_table(tmp_path):
    c, p = files(tmp_path, producer="acks=all\nretries=2147483647\nmax.in.flight.requests.per.connection=1\n"
                                     "compression.type=lz4\n")
    result, out = run_import(tmp_path, cmd(c, p), "--instances", "2", "--hosts", "mm2-1.example.com")
    assert result.returncode == 0, result.stderr
    data = yaml.safe_load(open(out))
    assert data["clusters"]["dc1"]["bootstrap.servers"] == "src1:9092,src2:9092"
    assert data["clusters"]["dc2"]["producer"] == {"compression.type": "lz4"}      # no-loss keys are MM2 defaults
    assert data["flows"] == [{"source": "dc1", "target": "dc2", "topics": ["orders.*|payments.*"]}]
    assert data["settings"] == {"replication.policy": "identity", "tasks.max": 8}  # 4 streams x 2 processes
    assert data["deployment"]["hosts"] == ["mm2-1.example.com"]
    rows = table_rows(result.stdout)
    for option in mm1_mapping.MM1_OPTIONS:
        assert "--" + option in rows, option
    assert rows["--whitelist"][1] == "carried" and "orders.*|payments.*" in rows["--whitelist"][2]
    assert rows["producer.properties: acks"][1] == "kept"
    # the file the import wrote passes the same offline validation a pipeline runs before deploy
    check = mm2_ambari("validate", out, "--kafka-version", "3.7.1")
    assert check.returncode == 0, check.stderr


def test_secrets_go_to_a_private_file_never_to_the_deployment_file_or_the_output(tmp_path):
    c, p = files(tmp_path, consumer="security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                                     "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
                                     "required username=\"mm1\" password=\"Pa55 w0rd\";\n"
                                     "ssl.truststore.location=/etc/ts.jks\nssl.truststore.password=trustpw\n")
    result, out = run_import(tmp_path, cmd(c, p))
    assert result.returncode == 0, result.stderr
    text = open(out).read()
    for secret in ("Pa55 w0rd", "trustpw"):
        assert secret not in text and secret not in result.stdout and secret not in result.stderr
    cluster = yaml.safe_load(text)["clusters"]["dc1"]
    assert cluster["sasl.username"] == "mm1"
    assert cluster["sasl.password"] == "${file:%s:dc1.sasl.password}" % mm1_mapping.DEFAULT_SECRETS_PATH
    secrets = out + ".secrets.properties"
    assert stat.S_IMODE(os.stat(secrets).st_mode) == 0o600
    assert "dc1.sasl.password=Pa55 w0rd" in open(secrets).read()


def test_hdp_kerberos_and_old_names(tmp_path):
    c, p = files(tmp_path, consumer="security.protocol=PLAINTEXTSASL\nsasl.kerberos.service.name=kafka\n",
                 producer="security.protocol=SASL_PLAINTEXT\nrequest.required.acks=1\nsasl.jaas.config="
                          "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true serviceName=kafka "
                          "keyTab=\"/etc/security/keytabs/mm1.keytab\" principal=\"mm1@EXAMPLE.COM\";\n")
    # HDP: the consumer's keytab comes from the JAAS file in KAFKA_OPTS, not from the properties file
    result, out = run_import(tmp_path, cmd(c, p))
    assert result.returncode == 2 and "pass that file as --jaas-file" in result.stderr
    jaas = write(tmp_path, "kafka_client_jaas.conf", "KafkaClient {\n com.sun.security.auth.module.Krb5LoginModule "
                 "required\n useKeyTab=true\n keyTab=\"/etc/security/keytabs/mm1.keytab\"\n storeKey=true\n "
                 "serviceName=\"kafka\"\n principal=\"mm1/_HOST@EXAMPLE.COM\";\n};\n")
    result, out = run_import(tmp_path, cmd(c, p), "--jaas-file", jaas)
    assert result.returncode == 0, result.stderr
    clusters = yaml.safe_load(open(out))["clusters"]
    assert clusters["dc1"]["security.protocol"] == "SASL_PLAINTEXT" and clusters["dc1"]["sasl.mechanism"] == "GSSAPI"
    assert clusters["dc2"]["sasl.kerberos.principal"] == "mm1@EXAMPLE.COM"
    assert "acks" not in clusters["dc2"].get("producer", {})      # weaker than acks=all: not carried
    rows = table_rows(result.stdout)
    assert rows["producer.properties: acks"][1] == "changed"
    assert clusters["dc1"]["sasl.kerberos.keytab"] == "/etc/security/keytabs/mm1.keytab"


def test_configurations_format_renders(tmp_path):
    c, p = files(tmp_path)
    result, out = run_import(tmp_path, cmd(c, p), "--format", "configurations", out="configurations.json")
    assert result.returncode == 0, result.stderr
    configs = json.load(open(out))
    assert configs["kafka-mm2-clusters"] == {"topology.mode": "advanced"}
    rendered = mm2_ambari("render", "--configs", out, "--kafka-version", "3.7.1", "--out", str(tmp_path / "r"),
                          "--host", "mm2-1.example.com")
    assert rendered.returncode == 0, rendered.stderr
    props = open(str(tmp_path / "r" / "connect-mirror-maker.properties")).read()
    assert "IdentityReplicationPolicy" in props and "dc1->dc2.enabled=true" in props


def test_bad_input_is_refused_by_name_and_nothing_is_written(tmp_path):
    c, p = files(tmp_path, consumer="max.pol.records=5\nzookeeper.connect=zk1:2181\n",
                 producer="security.protocol=SSLL\n")
    result, out = run_import(tmp_path, cmd(c, p, "--message.handler", "com.acme.Filter", "--num.streams", "0",
                                          base=GUIDE_CMD[:-2]))
    assert result.returncode == 2
    err = result.stderr
    assert "max.pol.records is not a Kafka consumer setting (did you mean max.poll.records?)" in err
    assert "zookeeper.connect is a setting of Kafka's old (ZooKeeper-based) clients" in err
    assert "security.protocol=SSLL is not one of" in err
    assert "--message.handler com.acme.Filter: a custom MirrorMaker 1 message handler cannot run" in err
    assert "--num.streams '0': must be a positive whole number" in err
    assert not os.path.exists(out)

    result, out = run_import(tmp_path, cmd(c, p, "--whitelst", "x", base=GUIDE_CMD[:6]))
    assert result.returncode == 2 and "--whitelst is not an option of MirrorMaker 1 (did you mean --whitelist?)" \
        in result.stderr

    result = mm2_ambari("import-mm1", "--kafka-version", "2.8.2", "--out", str(tmp_path / "x.yaml"), "--",
                        *cmd(*files(tmp_path)))
    assert result.returncode == 2 and "needs the identity replication policy" in result.stderr


def test_a_dropped_message_handler_is_said_so(tmp_path):
    c, p = files(tmp_path)
    result, _ = run_import(tmp_path, cmd(c, p, "--message.handler", "com.acme.Filter", "--message.handler.args", "x"),
                           "--drop-message-handler")
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stdout)
    assert rows["--message.handler"][1] == "dropped"
    assert "is not carried over: MM2 copies every record unchanged" in result.stderr


def test_mm1_regex_rules():
    assert mm1_mapping.mm1_topic_regex(" 'orders.*, payments' ") == "orders.*|payments"
    opts = mm1_mapping.parse_command_line(["--consumer.config=c", "--producer.config", "p", "--include", "a",
                                           "--whitelist", "b", "--new.consumer"])
    assert opts["include"] == "a" and opts["new.consumer"] is True
    imp = mm1_mapping.plan_import(opts, {"bootstrap.servers": "s:1", "group.id": "g"}, {"bootstrap.servers": "t:1"},
                                  "3.9.0")
    assert imp.topics_regex == "a"       # --include wins, as in MirrorMaker 1
    assert [r.status for r in imp.rows if r.option == "--whitelist"] == [mm1_mapping.DROPPED]


def test_out_paths_are_checked_before_anything_is_read(tmp_path):
    c, p = files(tmp_path)
    missing = str(tmp_path / "no-such-dir" / "deploy.yaml")
    result = mm2_ambari("import-mm1", "--kafka-version", "3.7.1", "--out", missing, "--", *cmd(c, p))
    assert result.returncode == 2, result.stderr
    assert "--out %s: the directory %s does not exist; create it (mkdir -p" % (missing, os.path.dirname(missing)) \
        in result.stderr
    folder = tmp_path / "a-folder"
    folder.mkdir()
    result = mm2_ambari("import-mm1", "--kafka-version", "3.7.1", "--out", str(folder), "--", *cmd(c, p))
    assert result.returncode == 2 and "--out %s: is a directory; give the path of a file" % folder in result.stderr
    assert "internal error" not in result.stderr and os.listdir(str(folder)) == []


def test_a_binary_file_is_not_a_properties_file(tmp_path):
    c, p = files(tmp_path)
    binary = tmp_path / "consumer.jks"
    binary.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02\x00\x00")
    result, out = run_import(tmp_path, cmd(str(binary), p))
    assert result.returncode == 2
    assert "--consumer.config %s: not a properties file (binary content)" % binary in result.stderr
    assert not os.path.exists(out)


def test_numbers_are_checked_naming_the_flag(tmp_path):
    c, p = files(tmp_path)
    result, _ = run_import(tmp_path, cmd(c, p), "--instances", "0")
    assert result.returncode == 2 and "argument --instances: must be >= 1" in result.stderr


def test_ctrl_c_while_a_kafka_tool_reads_stops_the_tool(tmp_path, monkeypatch):
    """seed-from-mm1 runs Kafka's readers in their own session (a terminal's Ctrl-C does not reach them): an
    interrupted read must stop the reader itself, leaving no process behind."""
    import threading
    from mm2_ambari.mm1 import commands as mm1_cmds
    home = tmp_path / "kafka"
    (home / "bin").mkdir(parents=True)
    for tool in ("kafka-consumer-groups.sh", "kafka-get-offsets.sh"):
        (home / "bin" / tool).write_text("")
    tools = mm1_cmds.Tools(str(home), str(tmp_path))
    pid_file = tmp_path / "pid"

    class Interrupted(threading.Event):
        def wait(self, timeout=None):
            while not pid_file.exists() or not pid_file.read_text().strip():
                threading.Event().wait(0.01)   # the reader has started
            raise KeyboardInterrupt()
    import types
    monkeypatch.setattr(mm1_cmds, "threading", types.SimpleNamespace(Event=Interrupted, Thread=threading.Thread))
    try:
        tools.read_until(["sh", "-c", "echo $$ > %s; exec sleep 60" % pid_file], lambda line: False, timeout=30)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interrupt was swallowed")
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
        alive = open("/proc/%d/stat" % pid).read().split()[2] != "Z"
    except (OSError, IOError):
        alive = False
    assert not alive
