"""The version matrix: which official Kafka distributions a run covers, and how deeply.

MM2_TEST_KAFKA_VERSIONS: the versions that run the full case set (test_lifecycle.py) and the value-type check;
space or comma separated, "all" for every version dists.py knows; default CI_VERSIONS: Bigtop's 2.8.2 in ZooKeeper
mode and the newest 4.x in KRaft, the ends of the matrix (tests/e2e runs the same case set on the default 3.9).
("none": no version; tests/run.sh gives lanes A and D one short version each that way)
MM2_TEST_KAFKA_SHORT_VERSIONS: the versions that run the short sequence only (test_logged_config.py: the distribution
is what it says, brokers of the same version start, its own connect-mirror-maker.sh replicates exactly, and no key
the mpack renders is ignored; it runs on the full case set's versions too); default
CI_SHORT_VERSIONS, the lines between the ends that operators run (HDInsight 5.1's 3.2, Bigtop's newest 3.4.1, ODP's
3.6.2, 4.0). A version in both runs the full case set only. Cases run one version after the other (never two
versions' clusters at once)."""
import os
import re

from realkafka import dists

HERE = os.path.dirname(os.path.abspath(__file__))
CI_VERSIONS = ("2.8.2", "4")
CI_SHORT_VERSIONS = ("3.2.3", "3.4.1", "3.6.2", "4.0")


def _asked(variable, default):
    asked = os.environ.get(variable, "").strip()
    if asked == "none":
        return []
    if asked == "all":
        names = sorted(dists.DISTS, key=lambda n: [int(x) for x in dists.DISTS[n].release.split(".")])
    else:
        names = [v for v in re.split(r"[\s,]+", asked) if v] if asked else list(default)
    return [dists.ALIASES.get(n, n) for n in names]


def matrix_versions():
    """The versions of the full case set."""
    return _asked("MM2_TEST_KAFKA_VERSIONS", CI_VERSIONS)


def short_versions():
    """The versions of the short sequence (those of the full case set left out)."""
    full = set(matrix_versions())
    return [n for n in _asked("MM2_TEST_KAFKA_SHORT_VERSIONS", CI_SHORT_VERSIONS) if n not in full]


# the built mpack and the agent drivers of the end-to-end suites (test_lifecycle.py drives them per version)
from e2e.conftest import drivers, mpack, one_more_try  # noqa: E402,F401


def _on_clusters(item, path):
    return os.path.dirname(path) == HERE and os.path.basename(path) in ("test_lifecycle.py", "test_logged_config.py")


def pytest_collection_modifyitems(config, items):
    """The cases on real clusters (the full case set, the short sequence) get e2e's one more try: the CI of
    2026-11-27 failed lifecycle[2.8.2] once on a host at load ~20, and the same code passed in the rehearsals before
    and after it. They run version by version, in their own places among the session's items: one pair of clusters
    per version (the kafka_pool fixture) serves both files, and the pool stops a version's pair when the next
    version is asked for."""
    one_more_try(config, items, _on_clusters)
    order = dict((name, i) for i, name in enumerate(all_versions()))
    slots = [i for i, item in enumerate(items) if _on_clusters(item, str(getattr(item, "fspath", "")))]

    def version_first(item):
        name = getattr(getattr(item, "callspec", None), "params", {}).get("name")
        return order.get(name, len(order))
    ordered = sorted((items[i] for i in slots), key=version_first)   # stable: lifecycle before logged config
    for i, item in zip(slots, ordered):
        items[i] = item


def all_versions():
    """Every version of the run (full case set, then short sequence)."""
    return matrix_versions() + short_versions()
