# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""VERIFY_REPLICATION end to end with real Spark: the agent script (execute mode) submits the
shipped job file with pip pyspark's spark-submit. Spark here has no Kafka connector (none is
available offline), so the command must fail with the job's explanation of how to add it."""
import os
import sys

import pyspark

from mm2_core.config import names

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(TESTS, "agent"), os.path.join(TESTS, "fixtures", "fake_kafka")):
    if path not in sys.path:
        sys.path.insert(0, path)

from agent_support import FakeSite  # noqa: E402
from driver_fixture import Driver  # noqa: E402


def java_home():
    java = os.path.realpath(os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "java"))
    if not os.path.exists(java):
        import shutil
        java = os.path.realpath(shutil.which("java"))
    return os.path.dirname(os.path.dirname(java))


def test_agent_submits_the_job_to_real_spark_and_reports_its_verdict(tmpdir, monkeypatch):
    monkeypatch.setenv("SPARK_HOME", os.path.dirname(pyspark.__file__))
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    site = FakeSite(tmpdir)
    drv = Driver(site, configurations={
        names.CLUSTERS: {"source.alias": "primary", "source.bootstrap.servers": "127.0.0.1:1",
                         "target.alias": "backup", "target.bootstrap.servers": "127.0.0.1:2"},
        names.REPLICATION: {"replication.factor": "1", "internal.topics.replication.factor": "1",
                            "topics": "orders", "verify.spark.mode": "auto"},
    })
    result = drv.run("VERIFY_REPLICATION", extra={"ambariLevelParams": {"java_home": java_home()}}, timeout=600)
    assert result.exit_code != 0, result
    assert "Spark local[*] (the cluster has no YARN)" in result.output
    assert "Kafka connector is not on the classpath" in result.output, result
    assert "spark-sql-kafka-0-10" in result.output
