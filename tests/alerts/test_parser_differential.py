"""The metrics reader against prometheus_client's parser on generated exporter payloads.

Payloads in both exporter layouts (1.x; 0.x with a comma after every label set), with every
escape the text format knows (\\\\, \\", \\n) and backslashes it does not (kept as written),
separators inside values, and series written twice (the last value counts, as in Prometheus).
Both the dict view (Snapshot.series) and the fast positional view (metrics.fields) must agree.
"""
import math

import pytest

from mm2_core.alerts import metrics as m

hypothesis = pytest.importorskip("hypothesis")
parser = pytest.importorskip("prometheus_client.parser")
st = hypothesis.strategies

FAMILIES = ("mm2_source_replication_latency_ms_avg", "mm2_replication_consumer_records_lag", "mm2_task_status")
LABELS = ("partition", "source", "target", "topic", "task")
VALUE_CHARS = st.sampled_from(list('abcXYZ09._-,=}{ "\\\n\t/|>:') + [u"\u00e9", u"\u4e2d"])


def _escape(value):
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@st.composite
def payloads(draw):
    layout = draw(st.sampled_from(["1.x", "0.x"]))
    raw_backslash = draw(st.booleans())     # an exporter bug or another writer: '\t' written raw as \t
    lines = []
    expected = {}
    for family in draw(st.lists(st.sampled_from(FAMILIES), min_size=1, max_size=3, unique=True)):
        names = sorted(draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=4, unique=True)))
        pool = draw(st.lists(st.tuples(*[st.text(VALUE_CHARS, max_size=6) for _ in names]), min_size=1, max_size=5))
        lines.append("# HELP %s some help" % family)
        lines.append("# TYPE %s gauge" % family)
        for _ in range(draw(st.integers(1, 8))):
            values = draw(st.sampled_from(pool))                  # repeats: duplicate series
            number = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                                    st.integers(-10 ** 6, 10 ** 6).map(float)))
            text_value = "NaN" if number != number else ("+Inf" if number == float("inf") else
                                                         "-Inf" if number == float("-inf") else repr(number))
            escaped = [_escape(v) for v in values]
            if raw_backslash:
                escaped = [e.replace("\t", "\\t") for e in escaped]
            body = ",".join('%s="%s"' % kv for kv in zip(names, escaped)) + ("," if layout == "0.x" else "")
            lines.append("%s{%s} %s" % (family, body, text_value))
    lines.append("jmx_scrape_error 0.0")
    return "\n".join(lines) + "\n"


def _same(a, b):
    return (a != a and b != b) or a == b


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(payloads())
def test_reader_agrees_with_prometheus_client(text):
    reference = {}
    for family in parser.text_string_to_metric_families(text):
        for sample in family.samples:
            series = reference.setdefault(sample.name, {})
            series[tuple(sorted(sample.labels.items()))] = sample.value   # the last one wins
    snap = m.Snapshot(text, FAMILIES)
    for family in FAMILIES:
        ours = snap.series(family)
        theirs = reference.get(family, {})
        assert len(ours) == len(theirs), family
        for labels, value in ours:
            key = tuple(sorted(labels.items()))
            assert key in theirs, (family, labels)
            assert _same(value, theirs[key])
        # the positional fast path reads the same values
        keys = ("partition", "source", "topic", "task")
        fast = m.fields(snap.raw(family), keys)
        assert [vals for vals, _ in fast] == [tuple(l.get(k) for k in keys) for l, _ in ours]
        assert all(_same(a, b) for (_, a), (_, b) in zip(fast, ours))


def test_unknown_escape_keeps_its_backslash():
    snap = m.Snapshot('# TYPE f gauge\nf{a="x\\ty\\\\z\\"w\\nv"} 1\n', ["f"])
    assert snap.series("f")[0][0] == {"a": 'x\\ty\\z"w\nv'}


def test_duplicate_series_counts_once_and_the_last_value_wins():
    text = '# TYPE f gauge\nf{a="1"} 5.0\nf{a="2"} 1.0\nf{a="1"} 7.0\n'
    assert m.Snapshot(text, ["f"]).raw("f") == [('a="1"', 7.0), ('a="2"', 1.0)]


@pytest.mark.parametrize("layout", ["1.x", "0.x"])
def test_both_layouts_give_the_same_label_texts(layout):
    comma = "," if layout == "0.x" else ""
    text = '# TYPE f gauge\nf{partition="0",topic="t"%s} 1.0\n' % comma
    assert m.Snapshot(text, ["f"]).raw("f") == [('partition="0",topic="t"', 1.0)]
    assert m.fields(m.Snapshot(text, ["f"]).raw("f"), ("topic",)) == [(("t",), 1.0)]
    assert math.isnan(m.Snapshot(text.replace("1.0", "NaN"), ["f"]).value("f"))
