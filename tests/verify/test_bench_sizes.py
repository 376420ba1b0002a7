# py3-only: PySpark (Spark 3+) runs on Python 3 only
"""benchmarks/verify_bench.py accepts exactly the sizes it can run: every accepted size has a
fault layout that fits, smaller ones are refused with a one-line reason (exit 2, no traceback)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "benchmarks", "verify_bench.py")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import verify_bench  # noqa: E402


@pytest.mark.parametrize("records", [10000, 12345, 20000, 50000, 69999, 70000, 100000, 333333, 1000000,
                                     2500000, 10000000, 50000000])
def test_every_accepted_size_has_a_layout_that_fits(records):
    assert verify_bench.size_problem(str(records)) is None


@pytest.mark.parametrize("sizes", ["9999", "1000", "abc", "100000,5000"])
def test_smaller_sizes_are_refused_with_a_reason(sizes):
    proc = subprocess.run([sys.executable, BENCH, "--sizes", sizes], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--sizes" in proc.stderr and "Traceback" not in proc.stderr
