"""The fast metrics reader returns exactly what a full text-format parser returns for the families asked."""
import math

import pytest

from conftest import render
from mm2_core.alerts import metrics as m
from mm2_sim import Checkpoint, Flow, MM2Process, partitions

TEXT = '''# HELP a_metric help with \\\\ and \\n
# TYPE a_metric gauge
a_metric{x="1",y="two"} 3.5
a_metric{x="quote \\" and comma, inside",y="back\\\\slash"} NaN
a_metric{x="trailing",} +Inf 1700000000000
# TYPE b_metric gauge
b_metric 42
b_metric_other 1
untyped_metric{z="9"} 1.5E7
untyped_metric{z="10"} -0.25
'''


def test_scan_reads_only_wanted_families_with_escapes_nan_inf_and_timestamps():
    snap = m.Snapshot(TEXT, ["a_metric", "b_metric", "untyped_metric", "absent"])
    got = snap.series("a_metric")
    assert got[0] == ({"x": "1", "y": "two"}, 3.5)
    assert got[1][0] == {"x": 'quote " and comma, inside', "y": "back\\slash"}
    assert math.isnan(got[1][1])
    assert got[2] == ({"x": "trailing"}, float("inf"))
    assert snap.series("b_metric") == [({}, 42.0)]   # b_metric_other is another family
    assert snap.series("untyped_metric") == [({"z": "9"}, 1.5e7), ({"z": "10"}, -0.25)]
    assert snap.series("absent") == []
    assert not snap.has("absent") and snap.has("b_metric")
    assert snap.value("b_metric") == 42.0 and snap.value("absent", 7) == 7


def test_unwanted_families_are_not_parsed():
    snap = m.Snapshot(TEXT, ["b_metric"])
    assert snap.raw("a_metric") == [] and snap.raw("b_metric") == [("", 42.0)]


def test_malformed_label_text_is_rejected():
    with pytest.raises(ValueError):
        m.parse_labels('x="1",y')
    with pytest.raises(ValueError):
        m.parse_labels('x="unterminated\\"')


def test_is_number():
    assert m.is_number(0.0) and m.is_number(-3)
    assert not m.is_number(None) and not m.is_number(float("nan")) and not m.is_number(float("inf"))


def _payload():
    process = MM2Process("4.0.0", herders=[("A", "B"), ("B", "A")],
                         flows=[Flow("A", "B", partitions("orders", 20, latency_avg=12.0) + partitions("idle", 5, active=False),
                                     tasks=3, checkpoints=[Checkpoint("weird,group:1", "orders", 2)])])
    return render(process)


@pytest.mark.parametrize("style", ["1.x", "0.x"])
def test_same_result_as_prometheus_client(style):
    parser = pytest.importorskip("prometheus_client.parser")
    process = MM2Process("3.7.1", herders=[("A", "B")],
                         flows=[Flow("A", "B", partitions("orders", 10) + partitions("idle", 3, active=False),
                                     checkpoints=[Checkpoint('we"ird,group', "orders", 2)])])
    text = render(process, style)
    reference = {}
    for family in parser.text_string_to_metric_families(text):
        for sample in family.samples:
            reference.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    families = sorted(reference)
    snap = m.Snapshot(text, families)
    for family in families:
        ours = snap.series(family)
        theirs = reference[family]
        assert len(ours) == len(theirs), family
        for (la, va), (lb, vb) in zip(ours, theirs):
            assert la == lb
            assert (math.isnan(va) and math.isnan(vb)) or va == vb


def test_block_and_line_scan_agree():
    """Without TYPE lines the reader falls back to a pass over every line: same answer."""
    text = _payload()
    stripped = "\n".join(l for l in text.split("\n") if not l.startswith("#"))
    families = [m.SOURCE_LATENCY_AVG, m.REPLICATION_LAG, m.HERDER_UP, m.CHECKPOINT_LATENCY]
    a = m.Snapshot(text, families)
    b = m.Snapshot(stripped, families)
    for family in families:
        sa, sb = a.series(family), b.series(family)
        assert len(sa) == len(sb) > 0
        assert [l for l, _ in sa] == [l for l, _ in sb]
    assert a.series(m.CHECKPOINT_LATENCY)[0][0]["group"] == "weird,group:1"


def test_decode_payload_gives_native_strings():
    assert isinstance(m.decode_payload(b"x 1\n"), str)
