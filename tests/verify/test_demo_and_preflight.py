# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""Issue 26: `mm2-verify demo` makes a small lossy pair and verifies it in one command; the dump
format is read from the files (a JSON Lines folder without a .json name is read as JSON); bad input
is answered before any JVM starts."""
import json
import os
import subprocess
import sys

from mm2_verify import synth
from mm2_verify_job import job

from verify_pairs import LAYOUT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def environment(**more):
    env = dict(os.environ)
    paths = [os.path.join(ROOT, "package", "scripts"), os.path.join(ROOT, "src")]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH")] if p])
    env["PYSPARK_PYTHON"] = sys.executable
    env.update(more)
    return env


def mm2_verify(args, timeout=600, **env):
    return subprocess.run([sys.executable, "-m", "mm2_verify.cli"] + list(args), env=environment(**env),
                          capture_output=True, text=True, timeout=timeout)


def test_demo_finds_exactly_the_planted_faults(tmp_path):
    proc = mm2_verify(["demo", "--dir", str(tmp_path / "demo"), "--master", "local[1]"])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "FAILED (primary->backup): 3 missing, 1 out of order, 0 pending, 2 duplicates, 1 extra" in proc.stdout
    assert "found exactly these" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr
    report = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert report["totals"]["missing"] == 3 and report["totals"]["order_violations"] == 1
    assert "mm2-verify --flow 'primary->backup' --source-dump %s" % (tmp_path / "demo" / "dumps" / "primary") in proc.stdout


def test_a_json_lines_folder_is_read_as_json_whatever_its_name(spark, tmp_path):
    source, target = str(tmp_path / "primary"), str(tmp_path / "backup")
    synth.write_pair(spark, LAYOUT, synth.Faults(drops=2), source, target, fmt="json")
    proc = mm2_verify(["--flow", "primary->backup", "--source-dump", source, "--target-dump", target,
                       "--pending-window", "0", "--master", "local[1]"])
    assert proc.returncode == job.EXIT_FAILED, proc.stderr[-3000:]
    assert "FAILED (primary->backup): 2 missing" in proc.stdout


def test_bad_input_is_answered_before_any_jvm_starts(tmp_path):
    java_home = tmp_path / "jdk"
    (java_home / "bin").mkdir(parents=True)
    marker = tmp_path / "java-was-started"
    java = java_home / "bin" / "java"
    java.write_text("#!/bin/sh\ntouch %s\nexec java \"$@\"\n" % marker)
    java.chmod(0o755)
    (tmp_path / "empty").mkdir()
    for args, fragment in (
            (["--source-dump", str(tmp_path / "missing"), "--target-dump", str(tmp_path / "empty")], "no such file"),
            (["--source-dump", str(tmp_path / "empty"), "--target-dump", str(tmp_path / "empty")], "no data files")):
        proc = mm2_verify(["--flow", "a->b"] + args, timeout=60, JAVA_HOME=str(java_home))
        assert proc.returncode == job.EXIT_BAD_INPUT and fragment in proc.stderr, proc.stderr
        assert not marker.exists()
