# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""Every `mm2-verify` command shown in README.md and docs/**/*.md runs as written.

The commands are taken from the fenced code blocks (with their backslash continuations) and run
through bash, verbatim, in a directory that holds what the documented examples refer to:
dumps/primary and dumps/backup (Parquet dumps in Spark's Kafka schema), configs.json (Ambari
configurations) and secrets.json.  A command that reads live clusters (--*-bootstrap or
--ambari-config) is run with --print-spark-submit added: validated and printed, not run.
Each must exit 0 or 1 (a verdict), never 2 (bad input), and leave no stray file behind (an
unquoted `->` makes the shell redirect into a file).
"""
import glob
import json
import os
import re
import stat
import subprocess
import sys

import pytest

from mm2_core.config import names
from mm2_verify import synth

from verify_pairs import LAYOUT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIVE = re.compile(r"--(source|target)-bootstrap|--ambari-config")


def documents():
    found = [os.path.join(ROOT, "README.md")]
    found += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    return [p for p in found if os.path.isfile(p)]


def commands(path):
    """[(line number, command)] of the mm2-verify commands in the fenced blocks of a Markdown file."""
    found = []
    in_block = False
    pending, start = None, 0
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                in_block = not in_block
                pending = None
                continue
            if not in_block:
                continue
            if pending is not None:
                pending += "\n" + line.rstrip("\n")
            elif stripped.startswith("mm2-verify"):
                pending, start = line.rstrip("\n").strip(), number
            else:
                continue
            if not pending.rstrip().endswith("\\"):
                found.append((start, pending))
                pending = None
    return found


EXAMPLES = [(os.path.relpath(doc, ROOT), number, command) for doc in documents() for number, command in commands(doc)]


def test_the_docs_show_mm2_verify_examples():
    assert len(EXAMPLES) >= 3, "no mm2-verify examples found in README.md or docs/"


@pytest.fixture(scope="module")
def workdir(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("doc-examples")
    synth.write_pair(spark, LAYOUT, synth.Faults(), str(work / "dumps" / "primary"), str(work / "dumps" / "backup"))
    (work / "configs.json").write_text(json.dumps({
        names.CLUSTERS: {"source.alias": "primary", "source.bootstrap.servers": "a1:9093",
                         "target.alias": "backup", "target.bootstrap.servers": "b1:9092"}}))
    (work / "secrets.json").write_text(json.dumps({"source": {"sasl.jaas.config": "x required;"}}))
    os.chmod(str(work / "secrets.json"), 0o600)
    bin_dir = work / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "mm2-verify"  # what `pip install .` puts on PATH
    shim.write_text("#!/bin/sh\nexec %s -m mm2_verify.cli \"$@\"\n" % sys.executable)
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    return work


UNQUOTED_FLOW = re.compile(r"--flow\s+[A-Za-z0-9_-]+->")
ELSEWHERE = re.compile(r"(?:^|\s)(?:/data/|hdfs://)")


def test_no_new_doc_example_leaves_the_flow_unquoted():
    bad = ["%s:%d" % (d, n) for d, n, c in EXAMPLES if UNQUOTED_FLOW.search(c)]
    assert not bad, "quote the flow ('primary->backup') in %s" % ", ".join(bad)


def test_no_doc_example_reads_dumps_no_test_provides():
    """Dumps at /data/ or hdfs:// exist on no test machine: show them only with --print-spark-submit."""
    bad = ["%s:%d" % (d, n) for d, n, c in EXAMPLES if ELSEWHERE.search(c) and "--print-spark-submit" not in c]
    assert not bad, "use dumps/primary and dumps/backup (which the test provides) in %s" % ", ".join(bad)


@pytest.mark.parametrize("doc, line, command", [pytest.param(d, n, c, id="%s:%d" % (d, n)) for d, n, c in EXAMPLES])
def test_documented_command_runs_verbatim(workdir, doc, line, command):
    env = dict(os.environ)
    env["PATH"] = str(workdir / "bin") + os.pathsep + env["PATH"]
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "package", "scripts"), os.path.join(ROOT, "src")])
    env["PYSPARK_PYTHON"] = sys.executable
    script = command
    if LIVE.search(command) and "--print-spark-submit" not in command:
        script = command.replace("mm2-verify", "mm2-verify --print-spark-submit", 1)
    before = set(os.listdir(str(workdir)))
    proc = subprocess.run(["bash", "-c", script], cwd=str(workdir), env=env, capture_output=True, text=True,
                          timeout=600)
    # Files only: a redirect creates a file (directories may appear from the test machinery).
    created = set(n for n in os.listdir(str(workdir)) if (workdir / n).is_file()) - before
    plan_file = re.search(r"the plan \(with the clusters' credentials\) is (\S+), mode 0600", proc.stderr)
    if plan_file:  # --print-spark-submit --ambari-config keeps it for the run; this test has no run
        os.unlink(plan_file.group(1))
        os.rmdir(os.path.dirname(plan_file.group(1)))
    for name in created:
        path = workdir / name
        if path.is_file():
            path.unlink()
    assert proc.returncode in (0, 1), "%s:%d exit %d\n%s\n%s" % (doc, line, proc.returncode, command,
                                                                  proc.stderr[-2000:])
    strays = sorted(created - {"report.json", "completeness.html", "completeness.png", "summary.txt"})
    assert not strays, "%s:%d left %s (an unquoted '->' redirects into a file)" % (doc, line, strays)
    if "--print-spark-submit" in script:
        assert proc.stdout.startswith("spark-submit ") and "<" not in proc.stdout
