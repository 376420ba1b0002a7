"""tests/run.sh's split between the double and the real-Ambari stages (tests/conftest.py): with
MM2_REAL_AMBARI_RUNS the double leaves those folders to the real stages but keeps the tests of its own
machinery, and no test of any other folder is lost (Python 2.7 and 3)."""
import os
import re
import subprocess
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)


def collect(folders, env_extra):
    env = dict(os.environ)
    env.pop("MM2_AMBARI_SRC", None)
    env.pop("MM2_REAL_AMBARI_RUNS", None)
    env.update(env_extra)
    out = subprocess.check_output([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q"]
                                  + folders, cwd=ROOT, env=env, stderr=subprocess.STDOUT).decode()
    return set(line.strip() for line in out.splitlines() if "::" in line)


def test_the_double_keeps_its_own_tests_and_every_other_folder():
    folders = ["tests/harness_tests", "tests/core"]
    everything = collect(folders, {})
    split = collect(folders, {"MM2_REAL_AMBARI_RUNS": "tests/harness_tests"})
    own = collect(["tests/harness_tests"], {}) & collect(["tests/harness_tests", "-m", "double_only"], {})
    core = set(t for t in everything if t.startswith("tests/core/"))
    assert own and core                                       # both kinds exist, so the assertions below can fail
    assert split == core | own, sorted(split ^ (core | own))[:10]
    assert len(everything) - len(split) == len(set(t for t in everything if t.startswith("tests/harness_tests/")) - own)
    assert all(re.match(r"tests/(core|harness_tests)/", t) for t in split)
