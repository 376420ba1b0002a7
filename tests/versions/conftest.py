"""The version matrix: which official Kafka distributions a run covers.

MM2_TEST_KAFKA_VERSIONS="2.8.2 3.9 4" (space or comma separated; default every version dists.py knows). Cases run
one version after the other (the machine is shared: never two versions' clusters at once)."""
import os
import re

from realkafka import dists


def matrix_versions():
    asked = os.environ.get("MM2_TEST_KAFKA_VERSIONS", "").strip()
    names = [v for v in re.split(r"[\s,]+", asked) if v] if asked else sorted(
        dists.DISTS, key=lambda n: [int(x) for x in dists.DISTS[n].release.split(".")])
    return [dists.ALIASES.get(n, n) for n in names]
