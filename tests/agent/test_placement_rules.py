"""Driver placement rules: herders per host, the heartbeat pitfall, KAFKA-9981."""
from mm2_core.model import placement


def NO_HEARTBEATS(source, target):
    return False   # emit.heartbeats.enabled=false for every pair


def messages(findings, level=None):
    return [f.message for f in findings if level is None or f.level == level]


def test_targets_setting():
    assert placement.parse_targets("") == []
    assert placement.parse_targets(" B, C ,B;D") == ["B", "C", "D"]


def test_herders_follow_mm2_rules():
    pairs = placement.herder_pairs(["A", "B", "C"], [("A", "B")], (3, 7, 1), emits_heartbeats=NO_HEARTBEATS)
    assert pairs == [("A", "B")]
    # heartbeats on (the default): every ordered pair gets a herder for its heartbeat connector
    assert len(placement.herder_pairs(["A", "B", "C"], [("A", "B")], (3, 7, 1))) == 6
    # 2.4: every pair, whatever is enabled
    assert len(placement.herder_pairs(["A", "B"], [], (2, 4, 1), emits_heartbeats=NO_HEARTBEATS)) == 2
    assert placement.host_herders([("A", "B"), ("B", "A")], ["B"]) == [("A", "B")]


def test_one_way_flow_served_near_its_target_misses_heartbeats():
    """--clusters B: nothing runs B->A, so A.heartbeats never reaches B."""
    assert placement.check_placement(["A", "B"], [("A", "B")], {"h1": []}, (3, 7, 1)) == []  # no --clusters
    findings = placement.check_placement(["A", "B"], [("A", "B")], {"h1": ["B"]}, (3, 7, 1))
    assert messages(findings, placement.ERROR) == []
    warn = messages(findings, placement.WARN)
    assert len(warn) == 1 and "Flow A->B has no heartbeats" in warn[0] and "Add A to" in warn[0]
    # a second host serving A fixes it
    assert placement.check_placement(["A", "B"], [("A", "B")], {"h1": ["B"], "h2": ["A"]}, (3, 7, 1)) == []
    # no heartbeats at all: nothing to warn about placement-wise
    assert placement.check_placement(["A", "B"], [("A", "B")], {"h1": ["B"]}, (3, 7, 1),
                                     emits_heartbeats=NO_HEARTBEATS) == []


def test_unserved_target_and_unknown_alias():
    findings = placement.check_placement(["A", "B", "C"], [("A", "B"), ("A", "C")], {"h1": ["B", "X"]}, (3, 7, 1))
    errors = messages(findings, placement.ERROR)
    assert any("X, which is not a cluster alias" in m and "Host h1" in m for m in errors)
    assert any("Flow A->C is not run by any driver host" in m for m in errors)


def test_host_with_nothing_to_run():
    findings = placement.check_placement(["A", "B"], [("A", "B")], {"h1": ["B"], "h2": ["A"]}, (3, 7, 1),
                                         emits_heartbeats=NO_HEARTBEATS)
    assert any("Host h2: MM2 would exit at start" in m for m in messages(findings, placement.ERROR))


def test_several_drivers_per_target_before_3_5():
    hosts = {"h1": [], "h2": []}
    findings = placement.check_placement(["A", "B"], [("A", "B")], hosts, (3, 4, 1))
    errors = messages(findings, placement.ERROR)
    assert any("KAFKA-9981" in m and "Target B is served by 2 driver hosts (h1, h2)" in m for m in errors)
    assert messages(placement.check_placement(["A", "B"], [("A", "B")], hosts, (3, 5, 0)), placement.ERROR) == []
    # distinct targets per host are fine on any version
    assert messages(placement.check_placement(["A", "B"], [("A", "B"), ("B", "A")], {"h1": ["B"], "h2": ["A"]},
                                              (2, 8, 2)), placement.ERROR) == []
    # 3.5+ but internal REST off: refused too
    findings = placement.check_placement(["A", "B"], [("A", "B")], hosts, (3, 7, 1), internal_rest=False)
    assert any("internal REST is off" in m for m in messages(findings, placement.ERROR))


def test_local_findings_on_one_host():
    # the agent knows only its own targets; all targets next to other drivers before 3.5 is certain overlap
    f = placement.local_findings("h1", ["h1", "h2"], [], ["A", "B"], [("A", "B")], (3, 4, 1))
    assert any("KAFKA-9981" in m and "h2" in m and "every cluster (A, B)" in m for m in messages(f, placement.ERROR))
    assert placement.local_findings("h1", ["h1", "h2"], ["B"], ["A", "B"], [("A", "B")], (3, 4, 1),
                                    emits_heartbeats=NO_HEARTBEATS) == []
    assert placement.local_findings("h1", ["h1", "h2"], [], ["A", "B"], [("A", "B")], (3, 7, 1)) == []
    f = placement.local_findings("h1", ["h1"], ["Z"], ["A", "B"], [("A", "B")], (3, 7, 1))
    assert any("Z, which is not a cluster alias" in m for m in messages(f, placement.ERROR))
