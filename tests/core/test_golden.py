"""Every example x every supported Kafka line, rendered and compared with the committed golden files.

Regenerate after an intended change with: MM2_UPDATE_GOLDEN=1 python -m pytest tests/core/test_golden.py
(then review the diff). An example that is invalid on a line has the expected errors as its golden.
Each rendered file is also checked against the key table of its version: every key must be one that
version of MM2 reads, and none of the public guides' mistakes may appear.
"""
import io
import os
import shutil

import pytest

from mm2_core.formats import javaprops
from mm2_core.kafka import versions
from mm2_core.model import keycheck
from mm2_core.rendering import render

from examples_support import GOLDEN_DIR, example_names, render_example

UPDATE = os.environ.get("MM2_UPDATE_GOLDEN") == "1"
ERRORS_FILE = "ERRORS.txt"
# Keys from public MM2 guides that MM2 silently ignores or misreads: anywhere, and at the top level
# (MM2 passes no top-level worker or client keys to the workers).
GUIDE_MISTAKES = ("sync.group.offsets.interval.ms", "Replication.factor", "emit.checkpoints.interval.ms",
                  "emit.heartbeats.interval.ms", "refresh.topics.interval.ms", "topics.whitelist",
                  "groups.whitelist")
TOP_LEVEL_MISTAKES = ("offset.flush.interval.ms", "producer.acks", "consumer.max.poll.records",
                      "exactly.once.source.support")

CASES = [(name, line, version) for name in example_names() for line, version in versions.SUPPORTED_LINES]


def _golden_dir(name, line):
    return os.path.join(GOLDEN_DIR, name, line)


def _expected_files(directory):
    if not os.path.isdir(directory):
        return None
    out = {}
    for file_name in sorted(os.listdir(directory)):
        with io.open(os.path.join(directory, file_name), encoding="ascii") as fh:
            out[file_name] = fh.read()
    return out


def _actual_files(rendering, error):
    if error is not None:
        return {ERRORS_FILE: u"".join(u"%s\n" % p for p in error.errors)}
    return dict((f.name, f.text if isinstance(f.text, type(u"")) else f.text.decode("ascii"))
                for f in rendering.files)


@pytest.mark.parametrize("name,line,version", CASES, ids=["%s-%s" % (c[0], c[1]) for c in CASES])
def test_rendering_matches_golden(name, line, version):
    rendering, error = render_example(name, version)
    actual = _actual_files(rendering, error)
    directory = _golden_dir(name, line)
    if UPDATE:
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)
        for file_name, text in actual.items():
            with io.open(os.path.join(directory, file_name), "w", encoding="ascii") as fh:
                fh.write(text)
    expected = _expected_files(directory)
    assert expected is not None, "no golden files for %s on %s: run with MM2_UPDATE_GOLDEN=1" % (name, line)
    assert sorted(actual) == sorted(expected)
    for file_name in expected:
        assert actual[file_name] == expected[file_name], "%s/%s differs from the golden file" % (name, file_name)


@pytest.mark.parametrize("name,line,version", CASES, ids=["%s-%s" % (c[0], c[1]) for c in CASES])
def test_every_rendered_key_exists_in_that_version(name, line, version):
    rendering, error = render_example(name, version)
    if error is not None:
        # Invalid on this line: every error names a kafka-mm2-* property and the version it needs.
        assert error.errors
        for problem in error.errors:
            assert problem.config_type.startswith("kafka-mm2-") and problem.name
            assert "Kafka" in problem.message
        return
    aliases = rendering.topology.aliases
    main = rendering.file(render.PROPERTIES_FILE)
    keys = [k for k, _ in javaprops.loads(main.text)]
    assert len(keys) == len(set(keys)), "a key is written twice"
    for key in keys:
        assert keycheck.versions_check_key(version, key, aliases) is None, key
        assert not key.endswith(GUIDE_MISTAKES), key
        assert key not in TOP_LEVEL_MISTAKES, key
    for key in keys:
        # Keys the version removed or has not yet: never written.
        info = versions.MM2_KEYS.get(key)
        if info is not None:
            assert info.defined_in(version)
    if not versions.supports(version, versions.BLACKLIST_KEYS) or versions.supports(version, versions.EXCLUDE_KEYS):
        assert not any(k.endswith(".blacklist") for k in keys)
    if not versions.supports(version, versions.EXCLUDE_KEYS):
        assert not any(k.endswith(".exclude") for k in keys)


def test_all_supported_lines_are_covered():
    assert [line for line, _ in versions.SUPPORTED_LINES] == ["2.4", "2.8", "3.2", "3.7", "4.x"]
    assert len(example_names()) >= 4


def test_no_stale_golden_directories():
    wanted = set((name, line) for name, line, _ in CASES)
    for name in os.listdir(GOLDEN_DIR):
        for line in os.listdir(os.path.join(GOLDEN_DIR, name)):
            assert (name, line) in wanted, "stale golden directory %s/%s" % (name, line)
