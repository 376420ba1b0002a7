"""VERIFY_REPLICATION run by the agent (execute mode, both Python lines) with a stand-in Spark:
what it submits, how secrets travel, what the operator sees, when the command fails."""
import os

import pytest

from mm2_core.config import names

import fake_spark
from agent_support import FakeSite
from driver_fixture import Driver

SECRET = "tr0ub4dor-pw"
SPARK_HOME = "/opt/spark"  # paths of the "host": the driver puts them under its temporary root
KEYTAB = "/etc/security/keytabs/mm2.service.keytab"


@pytest.fixture
def site(tmpdir):
    return FakeSite(tmpdir)


def driver(site, behaviour, replication=None, clusters=None):
    configurations = {
        names.CLUSTERS: dict({"source.alias": "primary", "source.bootstrap.servers": "a1:9093",
                              "source.security.protocol": "SASL_SSL", "source.sasl.mechanism": "PLAIN",
                              "source.sasl.username": "mirror", "source.sasl.password": SECRET,
                              "target.alias": "backup", "target.bootstrap.servers": "b1:9092"},
                             **(clusters or {})),
        names.REPLICATION: dict({"replication.factor": "1", "internal.topics.replication.factor": "1",
                                 "topics": "orders.*", "verify.spark.home": SPARK_HOME,
                                 "verify.lookback.minutes": "30"}, **(replication or {})),
    }
    drv = Driver(site, configurations=configurations)
    state = os.path.join(site.root, "spark-state")
    fake_spark.make_spark_home(drv.path(SPARK_HOME), state, behaviour)
    return drv, state


def run(drv, cluster_host_info=None):
    extra = {"clusterHostInfo": cluster_host_info} if cluster_host_info else None
    return drv.run("VERIFY_REPLICATION", extra=extra)


def report_dirs(drv):
    base = os.path.join(drv.log_dir, "verify")
    return [os.path.join(base, d) for d in sorted(os.listdir(base))] if os.path.isdir(base) else []


def test_clean_flow_runs_locally_and_shows_the_summary(site):
    drv, state = driver(site, {"exit": 0, "counts": {"source_records": 500, "target_records": 501,
                                                      "matched": 500, "duplicates": 1}})
    result = run(drv)
    assert result.exit_code == 0, result
    [call] = fake_spark.calls(state)
    argv = call["argv"]
    assert argv[:7] == [drv.path(SPARK_HOME + "/bin/spark-submit"), "--master", "local[*]", "--name", "mm2-verify",
                        "--conf", "spark.log.level=WARN"]
    assert argv[7].endswith(os.path.join("package", "scripts", "mm2_verify_job", "job.py"))
    # The plan: one entry per flow, the clusters' settings inside, readable by the MM2 user only.
    assert call["plan_mode"] == 0o600
    [entry] = call["plan"]["flows"]
    assert (entry["flow"], entry["topics"], entry["since"], entry["until"]) == ("primary->backup", "orders.*", "-30m", "now")
    assert entry["source"]["options"]["bootstrap.servers"] == "a1:9093"
    assert SECRET in entry["source"]["options"]["sasl.jaas.config"]
    assert call["env"]["SPARK_HOME"] == drv.path(SPARK_HOME)
    assert call["env"]["JAVA_HOME"]
    # The secret is neither on the command line nor in what Ambari shows, and the plan is gone.
    assert SECRET not in " ".join(argv) and SECRET not in result.output
    assert not os.path.exists(call["cwd"])
    # The operator sees the table and the verdict; Ambari gets the totals.
    assert "OK: 500 of 500 source records verified on the target" in result.output
    assert "primary.orders" in result.output
    out = result.structured_out["verify_replication"]
    assert (out["status"], out["exit_code"], out["spark_master"]) == ("OK", 0, "local[*]")
    assert out["totals"]["duplicates"] == 1 and out["flows"]["primary->backup"]["matched"] == 500
    [reports] = report_dirs(drv)
    assert out["report"] == os.path.join(reports, "report.json")
    assert sorted(os.listdir(reports)) == ["completeness.html", "report.json", "summary.txt"]


def test_loss_fails_the_command_with_the_counts(site):
    drv, state = driver(site, {"exit": 1, "counts": {"source_records": 500, "target_records": 497,
                                                      "matched": 497, "missing": 2, "pending": 1,
                                                      "order_violations": 1}})
    result = run(drv)
    assert result.exit_code != 0, result
    assert "Replication verification FAILED for primary->backup: 2 missing, 1 out of order, 0 records a " \
           "failed-over consumer would skip (1 pending" in result.output
    out = result.structured_out["verify_replication"]
    assert out["status"] == "FAILED" and out["totals"]["missing"] == 2


def test_failover_offsets_that_skip_records_fail_the_command(site):
    drv, state = driver(site, {"exit": 1, "counts": {"source_records": 500, "target_records": 500, "matched": 500},
                               "offsets": {"reread": 0, "skipped": 3, "first_reread": None, "first_skipped": 40}})
    result = run(drv)
    assert result.exit_code != 0, result
    assert "0 missing, 0 out of order, 3 records a failed-over consumer would skip" in result.output
    assert "Failover offsets" in result.output and "SKIPS" in result.output
    out = result.structured_out["verify_replication"]
    assert out["totals"]["offsets_skipped"] == 3 and out["flows"]["primary->backup"]["status"] == "FAILED(skipped)"


def test_job_bad_input_fails_with_the_jobs_message(site):
    drv, state = driver(site, {"exit": 2, "message": "Spark's Kafka connector is not on the classpath"})
    result = run(drv)
    assert result.exit_code != 0 and "Kafka connector is not on the classpath" in result.output, result
    assert "verify_replication" not in (result.structured_out or {})


def test_active_active_verifies_both_flows_or_the_chosen_one(site):
    drv, state = driver(site, {"exit": 0, "counts": {"source_records": 1, "target_records": 1, "matched": 1}},
                        replication={"direction": "active-active"})
    assert run(drv).exit_code == 0
    drv.configurations[names.REPLICATION]["verify.flows"] = "backup->primary"
    drv.configurations[names.REPLICATION]["verify.topics"] = "payments"
    assert run(drv).exit_code == 0
    first, second = fake_spark.calls(state)
    assert [e["flow"] for e in first["plan"]["flows"]] == ["primary->backup", "backup->primary"]
    assert [(e["flow"], e["topics"]) for e in second["plan"]["flows"]] == [("backup->primary", "payments")]


def test_unknown_flow_fails_before_spark_with_the_property(site):
    drv, state = driver(site, {"exit": 0}, replication={"verify.flows": "primary->dr"})
    result = run(drv)
    assert result.exit_code != 0
    assert "verify.flows" in result.output and "primary->dr" in result.output
    assert fake_spark.calls(state) == []


def test_yarn_when_the_cluster_has_yarn_and_spark_with_keytabs_shipped(site):
    drv, state = driver(site, {"exit": 0, "counts": {"source_records": 3, "target_records": 3, "matched": 3}},
                        clusters={"source.sasl.mechanism": "GSSAPI", "source.sasl.kerberos.keytab": KEYTAB,
                                  "source.sasl.kerberos.principal": "mm2@EXAMPLE.COM"})
    keytab = drv.path(KEYTAB)
    os.makedirs(os.path.dirname(keytab))
    with open(keytab, "w") as handle:
        handle.write("not really a keytab")
    result = run(drv, {"resourcemanager_hosts": ["rm1"], "spark_client_hosts": ["localhost"],
                       "spark_jobhistoryserver_hosts": ["rm1"]})
    assert result.exit_code == 0, result
    [call] = fake_spark.calls(state)
    argv = call["argv"]
    assert argv[argv.index("--master") + 1] == "yarn" and argv[argv.index("--deploy-mode") + 1] == "client"
    assert argv[argv.index("--files") + 1] == keytab + "#mm2-verify-1.keytab"
    # Executors find the keytab under the shipped name; the driver, via a link in its directory.
    assert 'keyTab="mm2-verify-1.keytab"' in call["plan"]["flows"][0]["source"]["options"]["sasl.jaas.config"]
    assert call["links"] == {"mm2-verify-1.keytab": keytab}
    assert result.structured_out["verify_replication"]["spark_master"] == "yarn"
    assert "Spark yarn (the cluster has YARN and Spark)" in result.output


def test_the_caller_names_the_flows_as_failover_and_failback_do(site):
    """mm2-ambari failback verifies the reverse flow (and, active-active, both directions) by naming them; a flow
    that is not enabled is refused by name before Spark starts."""
    drv, state = driver(site, {"exit": 0, "counts": {"source_records": 1, "target_records": 1, "matched": 1}},
                        replication={"direction": "active-active", "verify.flows": "primary->backup"})
    assert drv.run("VERIFY_REPLICATION", command_params={"flow": "backup->primary"}).exit_code == 0
    assert drv.run("VERIFY_REPLICATION", command_params={"flow": "primary->backup,backup->primary"}).exit_code == 0
    first, second = fake_spark.calls(state)
    assert [e["flow"] for e in first["plan"]["flows"]] == ["backup->primary"]
    assert [e["flow"] for e in second["plan"]["flows"]] == ["primary->backup", "backup->primary"]
    drv.configurations[names.REPLICATION]["direction"] = "one-way"
    result = drv.run("VERIFY_REPLICATION", command_params={"flow": "backup->primary"})
    assert result.exit_code != 0
    assert "flow backup->primary (command parameter flow) is not enabled here; the enabled flows are " \
        "primary->backup" in result.output
    assert len(fake_spark.calls(state)) == 2
