"""Timing of the pure core: validate + render of every example for every supported Kafka line.

Run: python benchmarks/render_bench.py   (prints numbers; never part of the test suite)
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "package", "scripts"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests", "core"))

from mm2_core.kafka import versions
from mm2_core.rendering import render
from examples_support import example_names, load_example, local_kafka_for, render_example  # noqa: E402


def timed(fn, repeat):
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1000.0


def main(repeat=50):
    print("%-28s %-5s %10s %10s" % ("example", "line", "render ms", "validate ms"))
    for name in example_names():
        configurations, options = load_example(name)
        local = local_kafka_for(configurations, options)
        for line, version in versions.SUPPORTED_LINES:
            r = timed(lambda: render_example(name, version), repeat)
            v = timed(lambda: render.validate(configurations, version, local), repeat)
            print("%-28s %-5s %10.2f %10.2f" % (name, line, r, v))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
