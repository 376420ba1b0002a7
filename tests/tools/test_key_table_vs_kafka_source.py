# py3-only: reads a Kafka git repository (local extra confidence; skipped where there is none)
"""The MM2 key table (mm2_core.kafka.versions.MM2_KEYS) against Kafka's own sources, tag by tag.

Set MM2_KAFKA_REPO to a Kafka clone with release tags (default: /work/.mirror/apache+kafka/repo).
For every tag, the configuration-name constants of connect/mirror and connect/mirror-client are
resolved (including "prefix" + SUFFIX concatenations); a key the table says the version defines must
be among them, and a key the table says it does not define must not be.
"""
import os
import re
import subprocess

import pytest

from mm2_core.kafka import versions

REPO = os.environ.get("MM2_KAFKA_REPO", "/work/.mirror/apache+kafka/repo")
TAGS = [("2.4.1", "2.4.1"), ("2.6.3", "2.6.3"), ("2.7.2", "2.7.2"), ("2.8.2", "2.8.2"), ("3.0.2", "3.0.2"),
        ("3.4.1", "3.4.1"), ("3.5.1", "3.5.1"), ("3.5.2", "3.5.2"), ("3.7.1", "3.7.1"), ("3.9.0-rc3", "3.9.0"),
        ("HEAD", "4.0.0")]
DIRS = ("connect/mirror/src/main/java/org/apache/kafka/connect/mirror",
        "connect/mirror-client/src/main/java/org/apache/kafka/connect/mirror")
CONST = re.compile(r"(?:static\s+)?final\s+String\s+(\w+)\s*=\s*([^;]+);")
# Keys whose names come from client/Connect classes outside connect/mirror: checked elsewhere.
FOREIGN = {"bootstrap.servers", "security.protocol", "config.providers", "metric.reporters",
           "auto.include.jmx.reporter", "listeners", "rest.advertised.host.name", "rest.advertised.port",
           "rest.advertised.listener", "access.control.allow.origin", "access.control.allow.methods",
           "response.http.headers.config", "admin.listeners", "rest.extension.classes"}

pytestmark = pytest.mark.skipif(not os.path.isdir(REPO), reason="no Kafka repository at %s" % REPO)


def _git(*args):
    return subprocess.check_output(["git", "-C", REPO] + list(args), stderr=subprocess.DEVNULL).decode("utf-8")


def _constants(tag):
    raw = {}
    for directory in DIRS:
        for path in _git("ls-tree", "--name-only", "%s:%s" % (tag, directory)).split():
            if path.endswith(".java"):
                text = _git("show", "%s:%s/%s" % (tag, directory, path))
                for match in CONST.finditer(text):
                    raw[(path[:-5], match.group(1))] = match.group(2)

    def lookup(cls, part):
        if "." in part:
            owner, name = part.rsplit(".", 1)
            return (owner.rsplit(".", 1)[-1], name)
        if (cls, part) in raw:
            return (cls, part)
        # Inherited or static-imported constant: any class defining it.
        return next((k for k in raw if k[1] == part), None)

    def resolve(cls, expr, depth=0):
        out = ""
        for part in (p.strip() for p in re.split(r'\+(?=(?:[^"]*"[^"]*")*[^"]*$)', expr)):
            if part.startswith('"') and part.endswith('"'):
                out += part[1:-1]
                continue
            ref = lookup(cls, part)
            if ref is None or ref not in raw or depth > 8:
                return None
            value = resolve(ref[0], raw[ref], depth + 1)
            if value is None:
                return None
            out += value
        return out

    return set(v for v in (resolve(cls, expr) for (cls, _), expr in raw.items()) if v)


@pytest.mark.parametrize("tag,version", TAGS, ids=[t for t, _ in TAGS])
def test_key_table_matches_the_source(tag, version):
    present = _constants(tag)
    wrong = []
    for key, info in sorted(versions.MM2_KEYS.items()):
        if key in FOREIGN:
            continue
        if info.defined_in(version) != (key in present):
            wrong.append("%s: table says %s, source says %s" % (key, info.defined_in(version), key in present))
    assert wrong == []
