"""tests/run.sh recaps every failed test at the end of its output: CI shows only the head and the tail of a failed
run, so a failure in a lane or stage must name itself and its error in the tail (the CI of 2026-11-27 printed
the failing test's name but not its error). The functions are run as tests/run.sh defines them, under its
`set -euo pipefail` (Python 2.7 and 3)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def functions():
    """recap, print_recap and run_stage, and the RECAP file, exactly as tests/run.sh declares them."""
    with open(os.path.join(ROOT, "tests", "run.sh")) as fh:
        text = fh.read()
    parts = [re.search(r"^RECAP=.*$", text, re.M).group(0)]
    for name in ("recap", "print_recap", "run_stage", "stage", "stage_done", "cg_make", "cg_ns", "cg_cpu", "in_cg",
                 "cost"):
        match = re.search(r"^%s\(\) \{[^\n]*\}$" % name, text, re.M) or \
            re.search(r"^%s\(\) \{.*?^\}$" % name, text, re.M | re.S)
        assert match, "tests/run.sh has no function %s" % name
        parts.append(match.group(0))
    return "\n".join(parts)


def run(tmpdir, body):
    script = "set -euo pipefail\nstatus=0\n%s\n%s\necho \"status=$status\"\n" % (functions(), body)
    proc = subprocess.Popen(["bash", "-c", script], cwd=str(tmpdir), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = proc.communicate()[0].decode()
    return proc.returncode, out


def write(tmpdir, name, text):
    with open(os.path.join(str(tmpdir), name), "w") as fh:
        fh.write(text)


def test_a_failed_stage_is_recapped_with_its_error_at_the_end(tmpdir):
    write(tmpdir, "test_a.py", "def test_fine():\n    pass\n\n"
          "def test_marker():\n    assert 'x' == 'y', 'the marker is not in ambari-mm2-service-check'\n")
    write(tmpdir, "test_b.py", "def test_fine():\n    pass\n")
    pytest = "%s -m pytest -q -p no:cacheprovider" % sys.executable
    rc, out = run(tmpdir, 'run_stage "lane a" %s test_a.py\nrun_stage "lane b" %s test_b.py\nprint_recap'
                  % (pytest, pytest))
    assert rc == 0, out                                   # the recap itself never ends the run (set -e)
    assert out.rstrip().endswith("status=1"), out
    tail = out[out.index("== failures, recapped"):]
    assert tail.startswith("== failures, recapped from the logs above\n-- lane a\n") and "test_marker" in tail, tail
    assert "E       AssertionError: the marker is not in ambari-mm2-service-check" in tail, tail
    assert "lane b" not in tail and "test_fine" not in tail, tail


def test_nothing_is_recapped_when_every_stage_passed(tmpdir):
    write(tmpdir, "test_b.py", "def test_fine():\n    pass\n")
    rc, out = run(tmpdir, 'run_stage "lane b" %s -m pytest -q -p no:cacheprovider test_b.py\nprint_recap'
                  % sys.executable)
    assert rc == 0 and out.rstrip().endswith("status=0"), out
    assert "recapped" not in out, out
