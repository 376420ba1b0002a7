# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""The two ways operators start the job: the mm2-verify console script (its own Spark
session) and spark-submit of the shipped job file (Spark's master wins)."""
import json
import os
import subprocess
import sys

from mm2_verify import cli, synth
from mm2_verify_job import job

from verify_pairs import LAYOUT

# a hang guard, not a timing: a Spark job of ~40 CPU s ran past 300 s twice in CI rehearsals, starved beside the
# real-Kafka lanes and Chromium on 2 cores (reh5, reh6)
HANG_GUARD = 900
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def environment():
    env = dict(os.environ)
    paths = [os.path.join(ROOT, "package", "scripts"), os.path.join(ROOT, "src")]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH")] if p])
    env["PYSPARK_PYTHON"] = sys.executable
    return env


def pair(spark, tmp_path, faults):
    source, target = str(tmp_path / "source"), str(tmp_path / "target")
    synth.write_pair(spark, LAYOUT, faults, source, target)
    return ["--flow", "primary->backup", "--source-dump", source, "--target-dump", target,
            "--pending-window", "0", "--report", str(tmp_path / "report.json")]


def test_console_script_reports_loss_with_exit_1(spark, tmp_path):
    args = pair(spark, tmp_path, synth.Faults(drops=2))
    proc = subprocess.run([sys.executable, "-m", "mm2_verify.cli", "--master", "local[1]",
                           "--summary", str(tmp_path / "summary.txt")] + args,
                          env=environment(), capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == job.EXIT_FAILED, proc.stderr[-3000:]
    assert "FAILED (primary->backup): 2 missing" in proc.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["spark"]["master"] == "local[1]" and report["totals"]["missing"] == 2
    assert (tmp_path / "summary.txt").read_text().strip() == proc.stdout.strip()


def test_spark_submit_of_the_shipped_job_file_uses_the_submitted_master(spark, tmp_path):
    import pyspark
    spark_submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    args = pair(spark, tmp_path, synth.Faults())
    line = cli.spark_submit_line(["--master", "local[1]"] + args)
    assert line.startswith("spark-submit --master 'local[1]' " + os.path.abspath(job.__file__))
    proc = subprocess.run([spark_submit, "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                           job.__file__] + args, env=environment(), capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == job.EXIT_OK, proc.stderr[-3000:]
    assert "OK: %d of %d source records verified" % (LAYOUT.records, LAYOUT.records) in proc.stdout
    assert json.loads((tmp_path / "report.json").read_text())["spark"]["master"] == "local[1]"
