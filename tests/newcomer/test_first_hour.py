"""A newcomer's first hour (issue 26): each plausible mistake, run exactly as a user runs it from the
installed wheel, gets a message that names the input and says how to fix it, the documented exit
code, and no traceback.

Each row: the command line, the files it reads, the exit code, fragments the output must hold (the
input's name, the fix) and fragments it must not hold (a misleading or contradicting message).
"""
import copy
import json
import os
import re

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))
EXAMPLE = os.path.join(ROOT, "examples", "active-active-dc", "configurations.json")
DEPLOY = os.path.join(ROOT, "examples", "deploy-dr.yaml")
with open(EXAMPLE) as _fh:
    BASE = json.load(_fh)
with open(DEPLOY) as _fh:
    DEPLOY_TEXT = _fh.read()


def configs(**changes):
    """The active-active example with {type: {property: value or None (removed)}} applied; a type
    mapped to None is removed, a type 'rename:<old>' renames a type."""
    data = copy.deepcopy(BASE)
    for config_type, props in changes.items():
        if config_type.startswith("rename__"):
            old = config_type[len("rename__"):].replace("_", "-")
            data[props] = data.pop(old)
            continue
        config_type = config_type.replace("_", "-")
        for name, value in props.items():
            if value is None:
                data.setdefault(config_type, {}).pop(name, None)
            else:
                data.setdefault(config_type, {})[name] = value
    return json.dumps(data, indent=2)


SASL = {"source.security.protocol": "SASL_SSL", "source.sasl.mechanism": "SCRAM-SHA-512",
        "source.sasl.username": "mm2", "source.sasl.password": "pw-1"}


def sasl(**more):
    props = dict(SASL)
    props.update(more)
    return props


def render(configs_file="c.json", version="3.7.1", out="out"):
    return ["render", "--configs", configs_file, "--kafka-version", version, "--out", out, "--host", "mm2-1.example.com"]


# id, tool, argv, files {name: text}, env, exit code, must hold, must not hold
CASES = [
    # --- 1. misspelled config types and unknown top-level keys are refused, never ignored
    ("config type typo", "mm2-ambari", render(), {"c.json": configs(rename__kafka_mm2_replication="kafka-mm2-replicaton")},
     {}, 2, ["kafka-mm2-replicaton: unknown config type (did you mean kafka-mm2-replication?)"], ["topics=.*"]),
    ("unknown top-level key", "mm2-ambari", render(), {"c.json": configs(settings={"a": "b"})},
     {}, 2, ["settings: unknown config type"], []),
    ("unknown property", "mm2-ambari", render(), {"c.json": configs(kafka_mm2_replication={"topic": "x"})},
     {}, 2, ["kafka-mm2-replication/topic: not a property", "did you mean topics?"], []),
    ("local Kafka types without broker hosts", "mm2-ambari", render(),
     {"c.json": configs(kafka_broker={"listeners": "PLAINTEXT://localhost:6667"})}, {}, 2,
     ["kafka-broker describes this cluster's Kafka, which is read only with --kafka-broker-hosts"], []),
    ("unknown option", "mm2-ambari", ["render", "--configs", "c.json", "--kafka_version", "3.7.1", "--out", "o"],
     {"c.json": configs()}, {}, 2, ["unknown option --kafka_version (did you mean --kafka-version?)"], []),
    ("unknown command", "mm2-ambari", ["rendr"], {}, {}, 2, ["invalid choice: 'rendr'", "render"], []),
    ("deployment key typo", "mm2-ambari", ["validate", "d.yaml"],
     {"d.yaml": DEPLOY_TEXT.replace("  hosts: [", "  host: [")}, {}, 2,
     ["d.yaml:", "deployment.host: unknown key (did you mean hosts?)"], []),
    ("topology key typo", "mm2-ambari", ["validate", "d.yaml"],
     {"d.yaml": DEPLOY_TEXT.replace("\nsettings:", "\nsetings:")}, {}, 2,
     ["unknown top-level key 'setings' (did you mean settings?)"], []),
    ("--url not a URL", "mm2-ambari", ["status", "--url", "http://[::1", "--cluster", "c"], {},
     {"AMBARI_USER": "u", "AMBARI_PASSWORD": "p"}, 2, ["--url is not a URL"], []),
    ("--url without a port number", "mm2-ambari", ["status", "--url", "http://h:abc", "--cluster", "c"], {},
     {"AMBARI_USER": "u", "AMBARI_PASSWORD": "p"}, 2, ["--url: the port is not a number"], []),
    ("--ca-bundle not PEM", "mm2-ambari", ["status", "--url", "https://127.0.0.1:1", "--cluster", "c",
                                           "--ca-bundle", "ca.txt"], {"ca.txt": "not a certificate"},
     {"AMBARI_USER": "u", "AMBARI_PASSWORD": "p"}, 2, ["--ca-bundle ca.txt: holds no PEM CA certificate"], []),
    # --- 3. no tracebacks for files and paths
    ("render --out onto a file", "mm2-ambari", render(out="taken"), {"c.json": configs(), "taken": "x"},
     {}, 2, ["--out taken: is a file, not a directory"], []),
    ("render --out under a file", "mm2-ambari", render(out="taken/sub"), {"c.json": configs(), "taken": "x"},
     {}, 2, ["--out taken/sub: a part of the path is a file"], []),
    ("render --configs missing", "mm2-ambari", render(configs_file="nope.json"), {}, {}, 2,
     ["--configs nope.json: no such file"], []),
    # --- 4. parser messages in words, with file:line
    ("YAML to render --configs", "mm2-ambari", render(configs_file="d.yaml"), {"d.yaml": DEPLOY_TEXT}, {}, 2,
     ["d.yaml:1:1: --configs is not valid JSON", "looks like YAML", "mm2-ambari validate"], ["Expecting value: line"]),
    ("broken JSON", "mm2-ambari", render(), {"c.json": configs()[:-3] + ",}"}, {}, 2,
     ["c.json:", "--configs is not valid JSON"], []),
    ("YAML indentation", "mm2-ambari", ["validate", "d.yaml"],
     {"d.yaml": DEPLOY_TEXT.replace("    security.protocol: SASL_SSL", "   security.protocol: SASL_SSL", 1)}, {}, 2,
     ["d.yaml:13:4: not valid YAML: the indentation does not line up"], []),
    ("YAML undefined alias", "mm2-ambari", ["validate", "d.yaml"],
     {"d.yaml": DEPLOY_TEXT.replace("  tasks.max: 8", "  tasks.max: *eight")}, {}, 2,
     ["d.yaml:42:14: not valid YAML: an alias *eight refers to no anchor"], []),
    ("configurations JSON to validate", "mm2-ambari", ["validate", "c.json"], {"c.json": configs()}, {}, 2,
     ["c.json is an Ambari configurations map", "mm2-ambari render --configs c.json"], []),
    ("topology JSON to validate", "mm2-ambari", ["validate", "d.json"], {"d.json": json.dumps({"clusters": {}})}, {}, 2,
     ["d.json is JSON; a deployment file is block-style YAML"], []),
    # --- 5. messages blame the right input, once
    ("render --kafka-version 2.0.0", "mm2-ambari", render(version="2.0.0"), {"c.json": configs()}, {}, 2,
     ["--kafka-version 2.0.0: Kafka 2.0.0 has no MirrorMaker 2"], ["kafka_version_override"]),
    ("validate --kafka-version 2.0.0", "mm2-ambari", ["validate", "d.yaml", "--kafka-version", "2.0.0"],
     {"d.yaml": DEPLOY_TEXT}, {}, 2, ["--kafka-version 2.0.0: Kafka 2.0.0 has no MirrorMaker 2"],
     ["kafka_version_override"]),
    ("render --kafka-version 4.1.0", "mm2-ambari", render(version="4.1.0"), {"c.json": configs()}, {}, 0,
     ["--kafka-version: Kafka 4.1.0 is newer than the key table"], ["kafka_version_override"]),
    ("validate --kafka-version 4.1.0", "mm2-ambari", ["validate", "d.yaml", "--kafka-version", "4.1.0"],
     {"d.yaml": DEPLOY_TEXT}, {}, 0, ["--kafka-version: Kafka 4.1.0 is newer than the key table"],
     ["kafka_version_override"]),
    ("sasl.mechanism key typo", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_clusters=sasl(**{"source.sasl.mechanism": None, "source.sasl.mechansim": "SCRAM-SHA-512"}))},
     {}, 2, ["source.sasl.mechansim", "did you mean source.sasl.mechanism?"], ["Kerberos"]),
    ("sasl.mechanism key typo in YAML", "mm2-ambari", ["validate", "d.yaml"],
     {"d.yaml": DEPLOY_TEXT.replace("    sasl.mechanism: SCRAM-SHA-512", "    sasl.mechanisms: SCRAM-SHA-512", 1)}, {}, 2,
     ["clusters.east.sasl.mechanisms: unknown cluster setting (did you mean sasl.mechanism?)"], ["Kerberos"]),
    ("topics.blacklist", "mm2-ambari", render(), {"c.json": configs(kafka_mm2_custom={"topics.blacklist": "x"})}, {}, 2,
     ["ERROR kafka-mm2-custom/topics.blacklist", "put your value into kafka-mm2-replication/topics.exclude"],
     ["WARN kafka-mm2-custom/topics.blacklist"]),
    ("empty SASL password", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_clusters=sasl(**{"source.sasl.password": ""}))}, {}, 2,
     ["kafka-mm2-clusters/source.sasl.password: empty", "needs a user name and password"], []),
    ("newline in mm2_principal_name", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_clusters=sasl(**{"source.sasl.mechanism": "GSSAPI", "source.sasl.username": None,
                                                  "source.sasl.password": None}),
                        kafka_mm2_env={"mm2_principal_name": "mm2/_HOST@EX.COM\nx", "mm2_keytab": "/k.keytab"})},
     {}, 2, ["kafka-mm2-env/mm2_principal_name: contains a line break"], ["sasl.jaas.config"]),
    ("newline in mm2_keytab", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_clusters=sasl(**{"source.sasl.mechanism": "GSSAPI", "source.sasl.username": None,
                                                  "source.sasl.password": None}),
                        kafka_mm2_env={"mm2_principal_name": "mm2@EX.COM", "mm2_keytab": "/k.keytab\n"})},
     {}, 2, ["kafka-mm2-env/mm2_keytab: contains a line break"], ["sasl.jaas.config"]),
    # --- 6. mm2_conf_dir
    ("mm2_conf_dir relative", "mm2-ambari", render(), {"c.json": configs(kafka_mm2_env={"mm2_conf_dir": "etc/mm2"})},
     {}, 2, ["kafka-mm2-env/mm2_conf_dir: 'etc/mm2' is relative"], []),
    ("mm2_conf_dir newline", "mm2-ambari", render(), {"c.json": configs(kafka_mm2_env={"mm2_conf_dir": "/etc/mm2\nx"})},
     {}, 2, ["kafka-mm2-env/mm2_conf_dir: contains a line break"], []),
    ("mm2_conf_dir colon", "mm2-ambari", render(), {"c.json": configs(kafka_mm2_env={"mm2_conf_dir": "/etc/mm2:a"})},
     {}, 2, ["kafka-mm2-env/mm2_conf_dir: '/etc/mm2:a' contains ':'"], []),
    ("mm2_conf_dir brace", "mm2-ambari", render(), {"c.json": configs(kafka_mm2_env={"mm2_conf_dir": "/etc/m}"})},
     {}, 2, ["kafka-mm2-env/mm2_conf_dir: '/etc/m}' contains '}'"], []),
    # --- 8. the exporter on one interface
    ("metrics host:port in the port", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_env={"mm2_metrics_port": "127.0.0.1:9404"})}, {}, 2,
     ["kafka-mm2-env/mm2_metrics_port", "kafka-mm2-env/mm2_metrics_host"], []),
    ("metrics host with a port", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_env={"mm2_metrics_host": "10.0.0.1:9404"})}, {}, 2,
     ["kafka-mm2-env/mm2_metrics_host: '10.0.0.1:9404': give only the address"], []),
    ("metrics host not an address", "mm2-ambari", render(),
     {"c.json": configs(kafka_mm2_env={"mm2_metrics_host": "a b"})}, {}, 2,
     ["kafka-mm2-env/mm2_metrics_host: 'a b' is not an address"], []),
    # --- 10. help
    ("mm2-ambari --help", "mm2-ambari", ["--help"], {}, {}, 0,
     ["Manage the MirrorMaker 2 service of an Ambari cluster", "Exit codes"], ["Entry point"]),
    ("alerts --help", "mm2-ambari", ["alerts", "--help"], {}, {}, 0, ["List the alerts of"], []),
    ("check --help", "mm2-ambari", ["check", "--help"], {}, {}, 0, ["Run the service check"], []),
    ("run --help", "mm2-ambari", ["run", "--help"], {}, {}, 0, ["Run one of the service's custom commands"], []),
    ("flow --help", "mm2-ambari", ["flow", "--help"], {}, {}, 0,
     ["Examples:", "mm2-ambari flow pause --flow 'east->west' -f deploy.yaml"], []),
    ("cutover without check", "mm2-ambari", ["cutover", "--flow", "a->b"], {}, {}, 2,
     ["did you mean `mm2-ambari cutover check ...`"], []),
    ("import-mm1 without --", "mm2-ambari",
     ["import-mm1", "--kafka-version", "3.7.1", "--out", "d.yaml", "kafka-mirror-maker.sh", "--consumer.config", "c"],
     {}, {}, 2, ["MirrorMaker 1's command line goes after `--`"], []),
    ("failover with a bad interval", "mm2-ambari",
     ["failover", "--flow", "a->b", "--groups", "g", "--keep-flow", "--gate-interval", "-5"], {}, {}, 2,
     ["argument --gate-interval: must be > 0"], []),
    ("failover with an empty group and one twice", "mm2-ambari",
     ["failover", "--flow", "a->b", "--groups", "orders,,orders", "--keep-flow"], {}, {}, 2,
     ["argument --groups: item 2 is empty", "group 'orders' is given twice (items 1 and 3)"], ["Traceback"]),
    ("drill with a group id holding a space", "mm2-ambari",
     ["drill", "--flow", "a->b", "--groups", "my app"], {}, {}, 2,
     ["argument --groups: group 'my app' contains a space"], ["Traceback"]),
    # --- an anchor in a deployment file: named as the topology's, with the fix that keeps the value (issue 33)
    ("YAML anchor in the topology", "mm2-ambari", ["validate", "d.yaml", "--kafka-version", "3.7.1"],
     {"d.yaml": DEPLOY_TEXT.replace("    producer:\n      compression.type: zstd",
                                    "    producer: &prod\n      compression.type: zstd")}, {}, 2,
     ["kafka-mm2-topology/content: line 29: a value starting with '&' is a YAML anchor",
      "write the value out in each place it is used"], ["quote it: '"]),
    # --- mm2-verify: inputs checked before Spark (this venv has no pyspark: the checks come first)
    ("verify dump missing", "mm2-verify", ["--flow", "a->b", "--source-dump", "nope", "--target-dump", "nope2"],
     {}, {}, 2, ["--source-dump nope: no such file or directory"], []),
    ("verify dump empty", "mm2-verify", ["--flow", "a->b", "--source-dump", "empty", "--target-dump", "empty"],
     {"empty/.keep": ""}, {}, 2, ["--source-dump empty: the directory holds no data files"], []),
    ("verify JSON read as Parquet", "mm2-verify",
     ["--flow", "a->b", "--source-dump", "src", "--target-dump", "src", "--source-dump-format", "parquet"],
     {"src/part-0": '{"topic": "t"}\n'}, {}, 2,
     ["--source-dump src: the files are JSON Lines", "give --source-dump-format json or leave it out"], []),
    ("verify unknown format", "mm2-verify", ["--flow", "a->b", "--source-dump", "src", "--target-dump", "src"],
     {"src/part-0.csv": "a,b\n"}, {}, 2, ["is neither Parquet nor JSON Lines", "--source-dump-format"], []),
    ("verify without pyspark", "mm2-verify", ["--flow", "a->b", "--source-dump", "src", "--target-dump", "src"],
     {"src/part-0": '{"topic": "t"}\n'}, {}, 3, ["PySpark, which is not installed", "pip install", "[verify]"], []),
    ("verify wrong JAVA_HOME", "mm2-verify", ["--flow", "a->b", "--source-dump", "src", "--target-dump", "src"],
     {"src/part-0": '{"topic": "t"}\n'}, {"JAVA_HOME": "/nonexistent/jdk"}, 3,
     ["JAVA_HOME=/nonexistent/jdk is not a directory", "JDK 17"], []),
    ("verify unknown option", "mm2-verify",
     ["--flow", "a->b", "--source_dump", "x", "--source-kafka-options", "sasl.jaas.config=Planted-Secret-2"],
     {}, {}, 2, ["unknown option --source_dump (did you mean --source-dump?)",
                 "unknown option --source-kafka-options (did you mean --source-kafka?)"], ["Planted-Secret-2"]),
    ("verify demo without pyspark", "mm2-verify", ["demo"], {}, {}, 3, ["PySpark, which is not installed"], []),
    ("verify report into a missing directory", "mm2-verify",
     ["--flow", "a->b", "--source-dump", "src", "--target-dump", "src", "--report", "no/dir/r.json"],
     {"src/part-0": '{"topic": "t"}\n'}, {}, 2, ["--report no/dir/r.json: the directory", "does not exist"], []),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_mistake_gets_a_clear_message(installed, tmp_path, case):
    _, tool, argv, files, env, code, must, must_not = case
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    rc, out, err = installed.run(tool, argv, env=env, cwd=str(tmp_path))
    both = out + err
    assert rc == code, both
    assert "Traceback" not in both and not re.search(r"^\s+at [\w.$]+\(", both, re.M), both
    for fragment in must:
        assert fragment in both, both
    for fragment in must_not:
        assert fragment not in both, both


def test_a_password_with_a_non_reference_dollar_brace_is_written_safely(installed, tmp_path):
    (tmp_path / "c.json").write_text(configs(kafka_mm2_clusters={"source.ssl.truststore.password": "Pw${x}Tail"}))
    rc, out, err = installed.run("mm2-ambari", render(), cwd=str(tmp_path))
    assert rc == 0, err
    secrets = (tmp_path / "out" / "mm2-secrets.properties").read_text()
    assert "dc1.ssl.truststore.password=Pw${x}Tail" in secrets.splitlines()
    assert oct((tmp_path / "out" / "mm2-secrets.properties").stat().st_mode & 0o777) == oct(0o600)
    assert "Pw${x}Tail" not in out + err + (tmp_path / "out" / "connect-mirror-maker.properties").read_text()


def test_the_exporter_binds_each_hosts_own_name(installed, tmp_path):
    (tmp_path / "c.json").write_text(configs(kafka_mm2_env={"mm2_metrics_host": "_HOST"}))
    rc, _, err = installed.run("mm2-ambari", render(), cwd=str(tmp_path))
    assert rc == 0, err
    assert "jmx_prometheus_javaagent.jar=mm2-1.example.com:9405:" in (tmp_path / "out" / "mm2-env.sh").read_text()


def test_a_newer_kafka_is_warned_about_once(installed, tmp_path):
    (tmp_path / "c.json").write_text(configs())
    rc, out, err = installed.run("mm2-ambari", render(version="4.1.0"), cwd=str(tmp_path))
    assert rc == 0 and (out + err).count("is newer than the key table") == 1, out + err


def test_a_password_given_as_an_option_is_refused_without_echoing_it(installed, tmp_path):
    rc, out, err = installed.run("mm2-ambari", ["status", "--url", "http://127.0.0.1:1", "--cluster", "c",
                                                "--password", "Planted-Secret-1"], cwd=str(tmp_path))
    assert rc == 2 and "a password is never taken from the command line" in err
    assert "Planted-Secret-1" not in out + err
