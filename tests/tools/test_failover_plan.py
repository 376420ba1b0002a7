# py3-only: mm2-ambari (src/) is Python 3
"""mm2-ambari failover's plan: dry run, state file, lock, resume after a failure, refusals by name.

The backend stands in for the agent's commands with the structured output their scripts write (tests/dr runs the
plan against the real scripts on real Kafka)."""
import json
import os
import stat

import pytest

from mm2_ambari import cli
from mm2_ambari.dr import plan as dr
from mm2_ambari.common.errors import BadInput, OperationFailed
from mm2_core.config import names


def ready_report(**over):
    report = {"flow": "A->B", "source": "A", "target": "B", "verdict": "READY", "reasons": [], "errors": [],
              "unreplicated_records": 0, "rpo_seconds": 0.0, "heartbeat_age_seconds": 2.0,
              "checkpoint_age_seconds": 5.0, "source_reachable": True, "target_reachable": True,
              "partitions": [], "drift": [], "retention_gap": [], "groups": []}
    report.update(over)
    return report


class Backend(object):
    def __init__(self, gate=None, refuse=(), verify_skipped=0):
        self.gate = list(gate or [ready_report()])
        self.refuse = set(refuse)
        self.verify_skipped = verify_skipped
        self.calls = []

    def run(self, command, parameters):
        self.calls.append((command, dict(parameters)))
        if command == names.CMD_CUTOVER_CHECK:
            report = self.gate.pop(0) if len(self.gate) > 1 else self.gate[0]
            return dr.CommandResult(report["verdict"] == "READY", {"cutover_check": [report]})
        if command == names.CMD_FAILOVER_GROUPS:
            groups = parameters["groups"].split(",")
            refused = dict((g, "group %s has 1 active member(s) on B (state Stable): stop its consumers on B" % g)
                           for g in groups if g in self.refuse)
            applied = dict((g, {"A.t-0": 10}) for g in groups if g not in self.refuse)
            return dr.CommandResult(not refused, {"failover_groups": {"applied": applied, "refused": refused}})
        if command == names.CMD_VERIFY:
            status = "OK" if not self.verify_skipped else "FAILED"
            return dr.CommandResult(status == "OK", {"verify_replication": {
                "status": status, "report": "/r.json",
                "totals": {"offsets_skipped": self.verify_skipped, "offsets_reread": 3}}})
        raise AssertionError(command)

    def stop_mm2(self):
        self.calls.append(("STOP", {}))


def options(**over):
    opts = {"groups": ["g1", "g2"], "stop_flow": False, "source_down": False, "gate_timeout": 0, "gate_interval": 0,
            "thresholds": {}, "verify": True}
    opts.update(over)
    return opts


def run(backend, tmp_path, dry_run=False, **over):
    lines = []
    state = dr.StateFile(str(tmp_path / "state.json"))
    code = dr.Failover(backend, "A->B", options(**over), state, lines.append, sleep=lambda s: None).run(dry_run)
    return code, lines, state


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    backend = Backend()
    code, lines, state = run(backend, tmp_path, dry_run=True, stop_flow=True)
    assert code == 0 and backend.calls == [] and not os.path.exists(state.path)
    text = "\n".join(lines)
    for expected in ("1. [todo] gate: run CUTOVER_CHECK on A->B", "2. [todo] flow: stop the MM2 drivers",
                     "3. [todo] groups: FAILOVER_GROUPS: translated offsets for g1, g2 on B",
                     "4. [todo] verify:", "5. [todo] record:", "dry run: nothing was run"):
        assert expected in text


def test_a_full_failover_records_rpo_and_rto_in_a_private_state_file(tmp_path):
    backend = Backend()
    code, lines, state = run(backend, tmp_path, stop_flow=True)
    assert code == 0
    assert [c for c, _ in backend.calls] == [names.CMD_CUTOVER_CHECK, "STOP", names.CMD_FAILOVER_GROUPS,
                                             names.CMD_VERIFY]
    data = state.load()
    assert all(data["steps"][s]["status"] == "done" for s in dr.STEPS)
    assert sorted(data["groups_done"]) == ["g1", "g2"] and data["rpo_seconds"] == 0.0 and data["rto_seconds"] >= 0
    assert stat.S_IMODE(os.stat(state.path).st_mode) == 0o600
    # again: every step is done, nothing runs
    backend.calls[:] = []
    assert run(backend, tmp_path, stop_flow=True)[0] == 0 and backend.calls == []


def test_a_refused_group_stops_the_plan_and_a_rerun_moves_only_the_rest(tmp_path):
    backend = Backend(refuse=["g2"])
    with pytest.raises(OperationFailed) as info:
        run(backend, tmp_path)
    assert "stopped at step groups: group g2 has 1 active member(s) on B" in str(info.value)
    assert "run the same command again: it resumes there" in str(info.value)
    backend.refuse.clear()
    backend.calls[:] = []
    code, _lines, state = run(backend, tmp_path)
    assert code == 0
    assert backend.calls[0] == (names.CMD_FAILOVER_GROUPS, {"flow": "A->B", "groups": "g2"})
    assert sorted(state.load()["groups_done"]) == ["g1", "g2"]


def test_the_gate_is_waited_for_and_its_reasons_reported_when_it_never_passes(tmp_path):
    not_ready = ready_report(verdict="NOT_READY", reasons=["A->B: 5 record(s) on A not yet replicated"])
    backend = Backend(gate=[not_ready, ready_report()])
    assert run(backend, tmp_path, gate_timeout=60)[0] == 0
    assert [c for c, _ in backend.calls].count(names.CMD_CUTOVER_CHECK) == 2
    with pytest.raises(OperationFailed) as info:
        run(Backend(gate=[not_ready]), tmp_path / "x")
    assert "stopped at step gate: not READY after 0 s: A->B: 5 record(s) on A not yet replicated" in str(info.value)


def test_source_down_accepts_an_unreadable_source_and_defers_verification(tmp_path):
    down = ready_report(verdict="UNKNOWN", source_reachable=False, heartbeat_age_seconds=42.0,
                        reasons=["A->B: A (h:1) is unreachable"])
    backend = Backend(gate=[down])
    with pytest.raises(OperationFailed):
        run(backend, tmp_path)   # without --source-down an unreachable source is not READY
    backend = Backend(gate=[down])
    code, _lines, state = run(backend, tmp_path / "down", source_down=True)
    data = state.load()
    assert code == 0 and data["steps"]["verify"]["status"] == "deferred" and data["rpo_seconds"] == 42.0
    assert names.CMD_VERIFY not in [c for c, _ in backend.calls]
    # A is back: the same command runs the deferred verification only
    backend = Backend()
    run(backend, tmp_path / "down", source_down=True)
    assert [c for c, _ in backend.calls] == [names.CMD_VERIFY]


def test_skipped_records_fail_the_verification(tmp_path):
    with pytest.raises(OperationFailed) as info:
        run(Backend(verify_skipped=4), tmp_path)
    assert "stopped at step verify: mm2-verify: status FAILED, 4 skipped" in str(info.value)


def test_a_second_failover_of_the_same_flow_is_refused_while_one_runs(tmp_path):
    first = dr.StateFile(str(tmp_path / "state.json"))
    first.acquire()
    try:
        with pytest.raises(OperationFailed) as info:
            run(Backend(), tmp_path)
        assert "another failover with state file %s is running (pid %d)" % (first.path, os.getpid()) in str(info.value)
    finally:
        first.release()


def test_a_state_file_of_another_flow_is_refused(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"kind": "failover", "flow": "C->D", "groups": [], "steps": {}}))
    with pytest.raises(BadInput) as info:
        run(Backend(), tmp_path)
    assert "belongs to failover C->D" in str(info.value)


@pytest.mark.parametrize("argv,message", [
    (["failover", "--flow", "A>B", "--groups", "g", "--keep-flow", "--url", "http://127.0.0.1:1", "--cluster", "c"],
     "--flow 'A>B': give it as SOURCE->TARGET"),
    (["cutover", "check", "--flow", "A->B", "--threshold", "max.rpo=3", "--url", "http://127.0.0.1:1",
      "--cluster", "c"], "unknown cut-over threshold max.rpo"),
])
def test_bad_input_exits_2_naming_the_option(argv, message, capsys, monkeypatch):
    monkeypatch.setenv("AMBARI_USER", "admin")
    monkeypatch.setenv("AMBARI_PASSWORD", "secret")
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_failover_requires_the_operator_to_choose_stop_or_keep(capsys):
    assert cli.main(["failover", "--flow", "A->B", "--groups", "g"]) == 2
    assert "one of the arguments --stop-flow --keep-flow is required" in capsys.readouterr().err


class DrillBackend(object):
    def __init__(self, rto):
        self.rto = rto

    def run(self, command, parameters):
        assert command == names.CMD_DRILL and parameters == {"flow": "A->B", "groups": "g1", "records": "20"}
        return dr.CommandResult(True, {"drill": {"groups": {"g1": {
            "shadow": "g1.drill-1", "rto_seconds": self.rto, "records_read": 20, "reread": 3, "skipped": 0}},
            "problems": [], "unreplicated_records": 0, "rpo_seconds": 0.0}})


def test_drills_are_appended_to_a_history_and_compared_with_the_previous_one(tmp_path):
    history = str(tmp_path / "h" / "drills.jsonl")
    lines = []
    assert dr.drill(DrillBackend(4.5), "A->B", ["g1"], 20, history, lines.append) == 0
    assert dr.drill(DrillBackend(3.0), "A->B", ["g1"], 20, history, lines.append) == 0
    runs = dr.read_history(history)
    assert [r["groups"]["g1"]["rto_seconds"] for r in runs] == [4.5, 3.0]
    assert "drill A->B g1: first record after 3.0 s (previous drill: 4.5 s), 20 read, re-read 3, skipped 0 " \
        "(shadow g1.drill-1, deleted)" in lines
    assert lines[-1] == "drill 2 of A->B recorded in %s" % history
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600
    # a line cut by a crash does not hide the others
    with open(history, "a") as fh:
        fh.write('{"flow": "A->B", "gro')
    assert len(dr.read_history(history)) == 2
