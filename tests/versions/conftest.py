"""The version matrix: which official Kafka distributions a run covers.

MM2_TEST_KAFKA_VERSIONS="2.8.2 3.9 4" (space or comma separated), "all" for every version dists.py knows; default
CI_VERSIONS (Bigtop's 2.8.2 in ZooKeeper mode and the newest 4.x in KRaft: the ends of the matrix; the default 3.9 runs
every other real-Kafka suite). Cases run one version after the other (never two versions' clusters at once)."""
import os
import re

from realkafka import dists


CI_VERSIONS = ("2.8.2", "4")


def matrix_versions():
    asked = os.environ.get("MM2_TEST_KAFKA_VERSIONS", "").strip()
    if asked == "all":
        names = sorted(dists.DISTS, key=lambda n: [int(x) for x in dists.DISTS[n].release.split(".")])
    else:
        names = [v for v in re.split(r"[\s,]+", asked) if v] if asked else list(CI_VERSIONS)
    return [dists.ALIASES.get(n, n) for n in names]
