# py3-only: mm2-ambari (src/) is Python 3
"""mm2-ambari failback's plan: the reverse flow per replication policy (loop prevention), its gate, the groups
moved back, verify, the restored direction; dry run, resume after a failure, refusals by name.

The backend stands in for the agent's commands with the structured output their scripts write, and for the
configuration change (dr.direction_changes on plain configurations); tests/dr runs the plan on real Kafka."""
import json

import pytest

from mm2_ambari import cli
from mm2_ambari.dr import plan as dr
from mm2_ambari.common.errors import BadInput, OperationFailed
from mm2_core.config import names

from test_failover_plan import ready_report


def simple(policy="prefixed", direction="one-way"):
    return {names.CLUSTERS: {"source.alias": "A", "source.bootstrap.servers": "a:9092",
                             "source.ssl.truststore.password": "SECRET:kafka-mm2-clusters:3:source.ssl.truststore.password",
                             "target.alias": "B", "target.bootstrap.servers": "b:9092"},
            names.REPLICATION: {"direction": direction, "replication.policy": policy}}


class Backend(object):
    def __init__(self, policy="prefixed", refuse=(), gate=None):
        self.configurations = simple(policy)
        self.refuse = set(refuse)
        self.gate = list(gate or [ready_report(flow="B->A", source="B", target="A")])
        self.calls = []

    def flows(self):
        c = self.configurations[names.CLUSTERS]
        s, t = c["source.alias"], c["target.alias"]
        both = self.configurations[names.REPLICATION]["direction"] == "active-active"
        return ["%s->%s" % (s, t)] + (["%s->%s" % (t, s)] if both else [])

    def run(self, command, parameters):
        self.calls.append((command, dict(parameters)))
        if command == names.CMD_CUTOVER_CHECK:
            assert parameters["flow"] in self.flows(), (parameters, self.flows())
            report = self.gate.pop(0) if len(self.gate) > 1 else self.gate[0]
            return dr.CommandResult(report["verdict"] == "READY", {"cutover_check": [report]})
        if command == names.CMD_FAILOVER_GROUPS:
            groups = parameters["groups"].split(",")
            refused = dict((g, "group %s has 1 active member(s) on A (state Stable): stop its consumers on A" % g)
                           for g in groups if g in self.refuse)
            applied = dict((g, {"B.t-0": 7}) for g in groups if g not in self.refuse)
            return dr.CommandResult(not refused, {"failover_groups": {"applied": applied, "refused": refused}})
        if command == names.CMD_VERIFY:
            return dr.CommandResult(True, {"verify_replication": {
                "status": "OK", "report": "/r.json", "flows": dict((f, {}) for f in self.flows()),
                "totals": {"offsets_skipped": 0, "offsets_reread": 2}}})
        if command == names.CMD_FLOW_SEED:
            assert parameters["flow"] not in self.flows() or self.stopped, "seeding a running flow"
            if self.seed_fails:
                self.seed_fails -= 1
                return dr.CommandResult(False, {}, "Fail: FLOW_SEED B->A: writing 1 position(s) to "
                                                   "mm2-offsets.B.internal on A: timed out")
            positions = {"t-0": 5} if "offsets" in parameters else {"t-0": 9}
            return dr.CommandResult(True, {"flow_seed": {"positions": positions, "written": 1,
                                                         "target_ends": {"t-0": 8}}})
        raise AssertionError(command)

    stopped = False
    seed_fails = 0

    def stop_mm2(self):
        self.calls.append(("STOP", {}))
        self.stopped = True

    def set_flows(self, flows, why):
        for config_type, props in dr.direction_changes(self.configurations, flows).items():
            self.configurations[config_type] = props
        self.stopped = False
        self.calls.append(("SET_FLOWS", {"flows": sorted(flows)}))

    def policy(self):
        return dr.replication_policy(self.configurations)


def options(**over):
    opts = {"groups": ["g1"], "policy": "prefixed", "restore": "original", "gate_timeout": 0, "gate_interval": 0,
            "thresholds": {}, "verify": True, "boundary": None}
    opts.update(over)
    return opts


def run(backend, tmp_path, dry_run=False, **over):
    lines = []
    state = dr.StateFile(str(tmp_path / "failback.json"), "failback")
    code = dr.Failback(backend, "A->B", options(**over), state, lines.append, sleep=lambda s: None).run(dry_run)
    return code, lines, state


def test_prefixed_runs_the_reverse_flow_beside_the_original_and_restores_it(tmp_path):
    backend = Backend()
    code, lines, state = run(backend, tmp_path)
    assert code == 0
    assert [c for c, _ in backend.calls] == ["SET_FLOWS", names.CMD_CUTOVER_CHECK, names.CMD_FAILOVER_GROUPS,
                                             names.CMD_VERIFY, "SET_FLOWS"]
    assert backend.calls[0][1] == {"flows": ["A->B", "B->A"]} and backend.calls[-1][1] == {"flows": ["A->B"]}
    assert backend.calls[2][1] == {"flow": "B->A", "groups": "g1"}
    assert backend.calls[3][1] == {"flow": "A->B,B->A"}   # mm2-verify of both directions
    data = state.load()
    assert data["kind"] == "failback" and data["original"] == "A->B" and data["flow"] == "B->A"
    assert sorted(data["verify"]["flows"]) == ["A->B", "B->A"] and data["groups_done"]["g1"]["offsets"] == {"B.t-0": 7}
    assert backend.configurations == simple()   # back to one-way A->B
    assert "Failback A->B (reverse flow B->A, prefixed policy)" in lines[0]


def test_identity_stops_the_original_seeds_the_reverse_at_the_failover_boundary_and_swaps_roles(tmp_path):
    backend = Backend("identity")
    code, _lines, state = run(backend, tmp_path, policy="identity", boundary={"t-0": 5}, restore="reverse",
                              not_after={"t-0": 3})
    assert code == 0
    assert [c for c, _ in backend.calls] == ["STOP", names.CMD_FLOW_SEED, "SET_FLOWS", names.CMD_CUTOVER_CHECK,
                                             names.CMD_FAILOVER_GROUPS, names.CMD_VERIFY]
    assert backend.calls[1][1] == {"flow": "B->A", "offsets": "t-0=5", "retire": "A->B"}
    # no group starts on A past A's first record that was never replicated to B
    assert backend.calls[4][1] == {"flow": "B->A", "groups": "g1", "not_after": "t-0=3"}
    # B->A alone (never both: the identity policy would loop), every source./target. property swapped
    clusters = backend.configurations[names.CLUSTERS]
    assert clusters["source.alias"] == "B" and clusters["target.alias"] == "A"
    assert clusters["target.ssl.truststore.password"] == "SECRET:kafka-mm2-clusters:3:source.ssl.truststore.password"
    assert backend.configurations[names.REPLICATION]["direction"] == "one-way"
    assert state.load()["seeded"] == {"B->A": {"t-0": 5}}


def test_identity_restore_seeds_the_original_at_the_ends_of_its_source(tmp_path):
    backend = Backend("identity")
    code, _lines, state = run(backend, tmp_path, policy="identity", boundary={"t-0": 5}, not_after={"t-0": 3})
    assert code == 0
    assert [c for c, _ in backend.calls][-3:] == ["STOP", names.CMD_FLOW_SEED, "SET_FLOWS"]
    assert backend.calls[-2][1] == {"flow": "A->B", "at": "end", "retire": "B->A"}
    assert backend.configurations == simple("identity")
    # A's records between its position at the failover (3) and its end when B->A started (8) stay on A: reported
    data = state.load()
    assert data["source_only_records"] == 5
    assert "5 record(s) A wrote before its outage and never replicated stay on A only" in \
        data["steps"]["restore"]["detail"]


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    backend = Backend()
    code, lines, state = run(backend, tmp_path, dry_run=True)
    assert code == 0 and backend.calls == []
    text = "\n".join(lines)
    for expected in ("1. [todo] reverse: run B->A beside A->B (active-active, prefixed",
                     "2. [todo] gate: run CUTOVER_CHECK on B->A", "3. [todo] groups: FAILOVER_GROUPS on B->A",
                     "4. [todo] verify: VERIFY_REPLICATION of A->B and B->A", "5. [todo] restore: back to A->B only",
                     "6. [todo] record:", "dry run: nothing was run"):
        assert expected in text


def test_a_busy_group_stops_the_failback_by_name_and_a_rerun_resumes_at_the_groups(tmp_path):
    backend = Backend(refuse=["g1"])
    with pytest.raises(OperationFailed) as info:
        run(backend, tmp_path)
    assert "failback B->A stopped at step groups: group g1 has 1 active member(s) on A" in str(info.value)
    backend.refuse.clear()
    backend.calls[:] = []
    assert run(backend, tmp_path)[0] == 0
    assert [c for c, _ in backend.calls] == [names.CMD_FAILOVER_GROUPS, names.CMD_VERIFY, "SET_FLOWS"]


def test_a_gate_that_never_passes_fails_the_step_with_its_reasons(tmp_path):
    not_ready = ready_report(flow="B->A", verdict="NOT_READY", reasons=["B->A: 40 record(s) on B not yet replicated"])
    with pytest.raises(OperationFailed) as info:
        run(Backend(gate=[not_ready]), tmp_path)
    assert "stopped at step gate: not READY after 0 s: B->A: 40 record(s) on B not yet replicated" in str(info.value)


def test_identity_needs_the_failover_boundary_and_names_the_file(tmp_path):
    with pytest.raises(BadInput) as info:
        run(Backend("identity"), tmp_path, policy="identity")
    assert "give --failover-state FILE of that failover" in str(info.value)
    missing = str(tmp_path / "nope.json")
    with pytest.raises(BadInput) as info:
        dr.boundary_from(missing, "A->B")
    assert "failover state file %s does not exist" % missing in str(info.value)
    half = tmp_path / "half.json"
    half.write_text(json.dumps({"kind": "failover", "flow": "A->B", "steps": {"gate": {"status": "done"}}}))
    with pytest.raises(BadInput) as info:
        dr.boundary_from(str(half), "A->B")
    assert "has not moved its groups" in str(info.value)
    half.write_text(json.dumps({"kind": "failover", "flow": "A->B", "steps": {"groups": {"status": "done"}},
                                "target_ends": {"t-0": 5}}))
    assert dr.boundary_from(str(half), "A->B") == ({"t-0": 5}, {})


def test_direction_changes_refuse_advanced_mode_and_unknown_flows_by_name():
    conf = simple()
    conf[names.CLUSTERS]["topology.mode"] = "advanced"
    with pytest.raises(BadInput) as info:
        dr.direction_changes(conf, ["B->A"])
    assert "kafka-mm2-clusters/topology.mode is advanced: enable exactly B->A in kafka-mm2-topology" in str(info.value)
    with pytest.raises(BadInput) as info:
        dr.direction_changes(simple(), ["A->C"])
    assert "flows A->C: the clusters of kafka-mm2-clusters are A and B" in str(info.value)
    assert dr.direction_changes(simple(), ["A->B"]) == {}


def test_failback_cli_requires_the_operator_to_choose_the_restore(capsys):
    assert cli.main(["failback", "--flow", "A->B", "--groups", "g"]) == 2
    assert "the following arguments are required: --restore" in capsys.readouterr().err


def test_a_failed_seed_stops_the_failback_at_the_reverse_step_and_a_rerun_finishes_it(tmp_path):
    backend = Backend("identity")
    backend.seed_fails = 1
    with pytest.raises(OperationFailed) as info:
        run(backend, tmp_path, policy="identity", boundary={"t-0": 5})
    assert "failback B->A stopped at step reverse: FLOW_SEED B->A: Fail: FLOW_SEED B->A: writing 1 position(s)" \
        in str(info.value) and "run the same command again: it resumes there" in str(info.value)
    assert backend.configurations == simple("identity")     # nothing switched while the seed is not written
    backend.calls[:] = []
    assert run(backend, tmp_path, policy="identity", boundary={"t-0": 5})[0] == 0
    assert [c for c, _ in backend.calls][:3] == ["STOP", names.CMD_FLOW_SEED, "SET_FLOWS"]
