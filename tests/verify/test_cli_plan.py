# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""mm2-verify --ambari-config: the plan comes from Ambari's configurations through the same
rendering core the agent uses; command-line flags override the range (no Spark needed)."""
import json
import os

import pytest

from mm2_core.config import names
from mm2_verify import cli
from mm2_verify_job import job

CONFIGS = {
    names.CLUSTERS: {"source.alias": "primary", "source.bootstrap.servers": "a1:9093",
                     "source.security.protocol": "SASL_SSL", "source.sasl.mechanism": "SCRAM-SHA-512",
                     "source.sasl.username": "mirror", "source.sasl.password": "pw",
                     "target.alias": "backup", "target.bootstrap.servers": "b1:9092"},
    names.REPLICATION: {"direction": "active-active", "topics": "orders.*", "verify.lookback.minutes": "20"},
}


def args(*argv):
    return job.parse_args(list(argv))


def test_plan_from_configurations_with_overrides(tmp_path):
    path = tmp_path / "command.json"
    path.write_text(json.dumps({"configurations": CONFIGS, "clusterHostInfo": {}}))  # a command JSON works too
    configurations = cli.load_configurations(str(path))
    plan = cli.plan_from_ambari(configurations, "3.7.1", args("--flow", "backup->primary", "--since", "-3h",
                                                               "--pending-window", "2m"))
    [entry] = plan["flows"]
    assert (entry["flow"], entry["since"], entry["until"], entry["pending_window"]) == ("backup->primary", "-3h",
                                                                                       "now", "2m")
    assert entry["target"]["options"]["sasl.jaas.config"].endswith('username="mirror" password="pw";')
    spec = job.normalize_spec(entry, 1714557600000)
    assert spec["since_ms"] == 1714557600000 - 3 * 3600000 and spec["topics"] == ["orders.*"]
    # Without flags: every flow, the verify.* range.
    plan = cli.plan_from_ambari(configurations, "3.7.1", args())
    assert [(e["flow"], e["since"]) for e in plan["flows"]] == [("primary->backup", "-20m"), ("backup->primary", "-20m")]


def test_invalid_configurations_are_bad_input_with_the_validators_message(tmp_path):
    bad = {names.CLUSTERS: {"source.alias": "primary", "target.alias": "backup"}}
    with pytest.raises(job.BadInput) as err:
        cli.plan_from_ambari(bad, "3.7.1", args())
    assert "source.bootstrap.servers" in str(err.value)
    (tmp_path / "x.json").write_text("[1, 2]")
    assert cli.main(["--ambari-config", str(tmp_path / "x.json")]) == job.EXIT_BAD_INPUT


def test_print_spark_submit_uses_the_installed_pysparks_connector(capsys):
    import pyspark
    assert cli.main(["--print-spark-submit", "--master", "yarn", "--flow", "a->b", "--source-bootstrap", "a:1",
                     "--target-dump", "/d"]) == job.EXIT_OK
    line = capsys.readouterr().out.strip()
    scala = "2.13" if pyspark.__version__.startswith("4") else "2.12"
    assert line.startswith("spark-submit --master yarn --packages org.apache.spark:spark-sql-kafka-0-10_%s:%s "
                           % (scala, pyspark.__version__))
    assert "<" not in line  # no placeholder coordinate
    assert job.__file__ in line and line.endswith("--flow 'a->b' --source-bootstrap a:1 --target-dump /d")


def test_kafka_connector_flag_is_the_same_for_the_printed_command_and_the_session(tmp_path, capsys):
    for name in ("spark-sql-kafka-0-10_2.13-4.0.0.jar", "kafka-clients-3.9.0.jar"):
        (tmp_path / name).write_bytes(b"")
    argv = ["--flow", "a->b", "--source-bootstrap", "a:1", "--target-bootstrap", "b:1",
            "--kafka-connector", str(tmp_path)]
    assert cli.main(["--print-spark-submit"] + argv) == job.EXIT_OK
    jars = "%s/kafka-clients-3.9.0.jar,%s/spark-sql-kafka-0-10_2.13-4.0.0.jar" % (tmp_path, tmp_path)
    line = capsys.readouterr().out.strip()
    assert line.startswith("spark-submit --jars %s " % jars) and "--kafka-connector" not in line
    connector = job.kafka_connector(str(tmp_path))
    assert job.connector_conf(connector) == {"spark.jars": jars}
    assert job.connector_conf(job.kafka_connector("g:a:1")) == {"spark.jars.packages": "g:a:1"}
    assert cli.main(["--print-spark-submit"] + argv[:-1] + [str(tmp_path / "nope")]) == job.EXIT_BAD_INPUT
    assert "--kafka-connector" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--flow", "a->a", "--source-dump", "/a", "--target-dump", "/b"], "two different cluster aliases"),
    (["--flow", "a->b", "--source-dump", "/a"], "target: give a dump"),
    (["--flow", "a->b", "--source-dump", "/a", "--target-dump", "/b", "--since", "tomorrow"], "--since"),
])
def test_print_spark_submit_validates_like_a_run(capsys, argv, message):
    assert cli.main(["--print-spark-submit"] + argv) == job.EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_print_spark_submit_with_ambari_config_plans_and_rejects_unknown_flows(tmp_path, capsys):
    path = tmp_path / "configs.json"
    path.write_text(json.dumps(CONFIGS))
    assert cli.main(["--print-spark-submit", "--ambari-config", str(path), "--flow", "primary->nowhere"]) == \
        job.EXIT_BAD_INPUT
    assert "unknown flow(s) primary->nowhere" in capsys.readouterr().err
    assert cli.main(["--print-spark-submit", "--ambari-config", str(path), "--flow", "primary->backup"]) == job.EXIT_OK
    captured = capsys.readouterr()
    line = captured.out.strip()
    plan_path = line.split("--plan ")[1].split()[0]
    assert "pw" not in line and oct(os.stat(plan_path).st_mode & 0o777) == "0o600"
    assert [e["flow"] for e in json.loads(open(plan_path).read())["flows"]] == ["primary->backup"]
    assert plan_path in captured.err
    os.unlink(plan_path)
    os.rmdir(os.path.dirname(plan_path))
