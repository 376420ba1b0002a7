# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""mm2-verify --ambari-config: the plan comes from Ambari's configurations through the same
rendering core the agent uses; command-line flags override the range (no Spark needed)."""
import json

import pytest

from mm2_core import names
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


def test_print_spark_submit(capsys):
    assert cli.main(["--print-spark-submit", "--master", "yarn", "--flow", "a->b", "--source-bootstrap", "a:1",
                     "--target-dump", "/d"]) == job.EXIT_OK
    line = capsys.readouterr().out.strip()
    assert line.startswith("spark-submit --master yarn --packages "
                           "'org.apache.spark:spark-sql-kafka-0-10_<scala>:<spark version>' ")
    assert job.__file__ in line and line.endswith("--flow 'a->b' --source-bootstrap a:1 --target-dump /d")
