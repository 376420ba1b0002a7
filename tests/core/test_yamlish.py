"""The strict YAML subset parser (agreement with PyYAML is property-tested in tests/tools)."""
import pytest

from mm2_core.formats import yamlish

TOPOLOGY = """\
---
# comment line
clusters:
  east:
    bootstrap.servers: e1:9092,e2:9092   # trailing comment
    security.protocol: "SASL_SSL"
    sasl.password: 'it''s # not a comment'
    producer: {linger.ms: 100, acks: all}
  west: {}
flows:
- source: east
  target: west
  topics: [orders.*, 'pay\\.ments']
  topics.exclude: .*[\\-\\.]internal, __.*
  enabled: yes
  tasks.max: 8
  ratio: 1.5
  nothing: ~
  empty:
  config:
    A->B.emit.checkpoints.interval.seconds: 30
- source: west
  target: east
  list:
    - - 1
      - -2
    - "tab\\tand \\u00e9"
...
"""


def test_topology_document():
    doc = yamlish.load(TOPOLOGY)
    assert doc == {
        "clusters": {
            "east": {"bootstrap.servers": "e1:9092,e2:9092", "security.protocol": "SASL_SSL",
                     "sasl.password": "it's # not a comment", "producer": {"linger.ms": 100, "acks": "all"}},
            "west": {},
        },
        "flows": [
            {"source": "east", "target": "west", "topics": ["orders.*", "pay\\.ments"],
             "topics.exclude": ".*[\\-\\.]internal, __.*", "enabled": True, "tasks.max": 8, "ratio": 1.5,
             "nothing": None, "empty": None,
             "config": {"A->B.emit.checkpoints.interval.seconds": 30}},
            {"source": "west", "target": "east", "list": [[1, -2], u"tab\tand \u00e9"]},
        ],
    }
    assert list(doc["clusters"]) == ["east", "west"]  # order kept (rendering is stable)


@pytest.mark.parametrize("text,value", [
    ("", None), ("# only a comment\n", None), ("a: 1", {"a": 1}), ("- a\n- b", ["a", "b"]),
    ("a: true\nb: Off\nc: NULL\nd: -0\ne: +7", {"a": True, "b": False, "c": None, "d": 0, "e": 7}),
    ("a: 1e5", {"a": "1e5"}), ("a: 08", {"a": "08"}), ("a: http://x:80/p", {"a": "http://x:80/p"}),
    ("a:\n- x\n- y\nb: 2", {"a": ["x", "y"], "b": 2}),
    ("'quoted key': v", {"quoted key": "v"}), ("a: []\nb: {}", {"a": [], "b": {}}),
    ("a: [x, y,]", {"a": ["x", "y"]}), ("a: \"\\\\d+\"", {"a": "\\d+"}),
])
def test_values(text, value):
    assert yamlish.load(text) == value


@pytest.mark.parametrize("text,line,fragment", [
    ("a: 1\nb:\n\tc: 2", 3, "tab"),
    ("a: 010", 1, "quote it"),
    ("a: 1_000", 1, "quote it"),
    ("a: 1:30", 1, "quote it"),
    ("a: 2024-01-31", 1, "date"),
    ("a: .inf", 1, "quote it"),
    ("a: &x 1", 1, "anchor"),
    ("a: *x", 1, "alias"),
    ("a: !!str 1", 1, "tag"),
    ("a: |\n  text", 1, "block scalars"),
    ("a: >\n  text", 1, "block scalars"),
    ("a: b: c", 1, "nested mapping"),
    ("a: 1\na: 2", 2, "duplicate key 'a'"),
    ("a: one\n  two", 2, "multi-line"),
    ("a:\n  b: 1\n c: 2", 3, "indentation"),
    ("a: 'open", 1, "single-quoted"),
    ("a: \"open", 1, "double-quoted"),
    ("a: \"bad \\q escape\"", 1, "unknown escape"),
    ("a: [x, [y]]", 1, "nested"),
    ("a: [x", 1, "closed"),
    ("---\na: 1\n---\nb: 2", 3, "only one YAML document"),
    ("? complex\n: key", 1, ""),
    ("%YAML 1.1\n---\na: 1", 1, "directives"),
    ("a: 1\n- b", 2, "list item"),
    ("plain text\nmore", 2, ""),
    ("a: =", 1, "special meaning"),
])
def test_errors_are_line_numbered(text, line, fragment):
    with pytest.raises(yamlish.YamlError) as info:
        yamlish.load(text)
    assert info.value.line == line
    assert str(info.value).startswith("line %d: " % line)
    assert fragment in str(info.value)
