"""cutover check, failover and drill against the fake Ambari: the requests they post, exit codes, resume."""
import json

from rest_fake_ambari import C, S
from rest_helpers import CL, HOSTS, normalize

from mm2_core.config import names

READY = {"flow": "dc1->dc2", "source": "dc1", "target": "dc2", "verdict": "READY", "reasons": [], "errors": [],
         "unreplicated_records": 0, "rpo_seconds": 0.0, "heartbeat_age_seconds": 3.0, "checkpoint_age_seconds": 9.0,
         "source_reachable": True, "target_reachable": True, "partitions": [], "drift": [], "retention_gap": [],
         "groups": [{"group": "orders", "skipped": 0, "reread": 12, "no_checkpoint": []}]}


DC1_DC2 = {names.CLUSTERS: {"source.alias": "dc1", "target.alias": "dc2"}}


def run(cli, fake, *argv):
    if not getattr(fake, "dr_installed", False):
        fake.install_started_service(HOSTS, DC1_DC2)
        fake.dr_installed = True
    return cli(*argv, "--url", fake.url, "--cluster", "prod")


def test_cutover_check_posts_the_gate_with_its_thresholds_and_exits_0_when_ready(cli, fake):
    fake.custom_output[names.CMD_CUTOVER_CHECK] = {"structured_out": {"cutover_check": [READY]}}
    result = run(cli, fake, "cutover", "check", "--flow", "dc1->dc2", "--groups", "orders",
                 "--threshold", "max.rpo.seconds=30")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [("POST", CL + "/requests", {
        "RequestInfo": {"context": "MirrorMaker 2 %s" % names.CMD_CUTOVER_CHECK, "command": names.CMD_CUTOVER_CHECK,
                        "parameters": {"flow": "dc1->dc2", "groups": "orders", "max.rpo.seconds": "30"}},
        "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": HOSTS[0]}]})]
    assert "Flow dc1->dc2: READY" in result.out and "group orders: skip 0, re-read >= 12" in result.out


def test_cutover_check_exits_1_when_the_command_fails_not_ready(cli, fake):
    fake.fail_next(names.CMD_CUTOVER_CHECK, stderr="Fail: Cut-over NOT ready: dc1->dc2 is NOT_READY")
    result = run(cli, fake, "cutover", "check", "--flow", "dc1->dc2")
    assert result.code == 1
    assert "Cut-over NOT ready: dc1->dc2 is NOT_READY" in result.out


def test_failover_stops_at_a_refused_group_and_resumes_with_the_rest(cli, fake, tmp_path):
    state = str(tmp_path / "state.json")
    fake.custom_output[names.CMD_CUTOVER_CHECK] = {"structured_out": {"cutover_check": [READY]}}
    fake.custom_output[names.CMD_VERIFY] = {"structured_out": {"verify_replication": {
        "status": "OK", "report": "/r.json", "totals": {"offsets_skipped": 0, "offsets_reread": 12}}}}
    refusal = "group billing has 1 active member(s) on dc2 (state Stable): stop its consumers on dc2"
    fake.custom_output[names.CMD_FAILOVER_GROUPS] = {"structured_out": {"failover_groups": {
        "applied": {"orders": {"dc1.t-0": 5}}, "refused": {"billing": refusal}}}}
    fake.fail_next(names.CMD_FAILOVER_GROUPS, stderr="Fail: FAILOVER_GROUPS dc1->dc2: 1 group(s) refused")
    argv = ("failover", "--flow", "dc1->dc2", "--groups", "orders,billing", "--keep-flow", "--state-file", state)
    first = run(cli, fake, *argv)
    assert first.code == 1
    assert "failover dc1->dc2 stopped at step groups" in first.err
    fake.custom_output[names.CMD_FAILOVER_GROUPS] = {"structured_out": {"failover_groups": {
        "applied": {"billing": {"dc1.t-0": 5}}, "refused": {}}}}
    calls = len(fake.mutating_calls())
    again = run(cli, fake, *argv)
    assert again.code == 0, again
    posted = [c[2]["RequestInfo"] for c in fake.mutating_calls()[calls:]]
    assert [(p["command"], p["parameters"]) for p in posted] == [
        (names.CMD_FAILOVER_GROUPS, {"flow": "dc1->dc2", "groups": "billing"}),
        (names.CMD_VERIFY, {"flow": "dc1->dc2"})]
    assert "record: done: RPO 0.0 s" in again.out


def test_failover_dry_run_sends_nothing(cli, fake, tmp_path):
    result = run(cli, fake, "failover", "--flow", "dc1->dc2", "--groups", "orders", "--stop-flow", "--dry-run",
                 "--state-file", str(tmp_path / "s.json"))
    assert result.code == 0 and fake.mutating_calls() == []
    assert "2. [todo] flow: stop the MM2 drivers" in result.out


def test_failback_under_the_prefixed_policy_adds_the_reverse_flow_then_restores_the_original(cli, fake, tmp_path):
    """The reverse step writes direction=active-active as a new config version and restarts the service; restore
    writes one-way back; the custom commands run on the reverse flow."""
    fake.install_started_service(HOSTS, {names.CLUSTERS: {"source.alias": "dc1", "target.alias": "dc2"},
                                         names.REPLICATION: {"replication.policy": "prefixed"}})
    fake.dr_installed = True
    fake.custom_output[names.CMD_CUTOVER_CHECK] = {"structured_out": {"cutover_check": [dict(
        READY, flow="dc2->dc1", source="dc2", target="dc1")]}}
    fake.custom_output[names.CMD_FAILOVER_GROUPS] = {"structured_out": {"failover_groups": {
        "applied": {"orders": {"dc2.t-0": 5}}, "refused": {}}}}
    fake.custom_output[names.CMD_VERIFY] = {"structured_out": {"verify_replication": {
        "status": "OK", "report": "/r.json", "totals": {"offsets_skipped": 0, "offsets_reread": 0}}}}
    argv = ("failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
            "--state-file", str(tmp_path / "fb.json"))
    refused = run(cli, fake, *argv, "--failover-state", str(tmp_path / "no-failover.json"))
    assert refused.code == 2, refused   # no failover of dc1->dc2 recorded: nothing runs
    assert "no failover of dc1->dc2 by mm2-ambari is recorded there" in refused.err
    assert "--without-failover (prefixed policy only)" in refused.err
    assert fake.mutating_calls() == []
    result = run(cli, fake, *argv, "--without-failover")
    assert result.code == 0, result
    with open(str(tmp_path / "fb.json")) as fh:
        assert json.load(fh)["failover"] == "no recorded failover: --without-failover (failed over by hand)"
    calls = fake.mutating_calls()
    directions = [c[2]["Clusters"]["desired_config"][0]["properties"]["direction"] for c in calls
                  if c[0] == "PUT" and c[1] == CL]
    assert directions == ["active-active", "one-way"]
    states = [c[2]["Body"]["ServiceInfo"]["state"] for c in calls if c[0] == "PUT" and c[1].endswith("/services/" + S)]
    assert states == ["INSTALLED", "STARTED", "INSTALLED", "STARTED"]
    posted = [(c[2]["RequestInfo"]["command"], c[2]["RequestInfo"]["parameters"]) for c in calls
              if c[0] == "POST" and c[1] == CL + "/requests"]
    assert posted == [(names.CMD_CUTOVER_CHECK, {"flow": "dc2->dc1", "groups": "orders"}),
                      (names.CMD_FAILOVER_GROUPS, {"flow": "dc2->dc1", "groups": "orders"}),
                      (names.CMD_VERIFY, {"flow": "dc1->dc2,dc2->dc1"})]
    assert fake.desired_properties(names.REPLICATION)["direction"] == "one-way"
    assert "Failback dc1->dc2 (reverse flow dc2->dc1, prefixed policy)" in result.out


def test_failback_under_the_identity_policy_needs_the_failovers_state_file(cli, fake, tmp_path):
    fake.install_started_service(HOSTS, {names.CLUSTERS: {"source.alias": "dc1", "target.alias": "dc2"},
                                         names.REPLICATION: {"replication.policy": "identity"}})
    fake.dr_installed = True
    missing = str(tmp_path / "failover.json")
    result = run(cli, fake, "failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
                 "--failover-state", missing)
    assert result.code == 2 and "failover state file %s does not exist" % missing in result.err
    assert fake.mutating_calls() == []


def test_a_flow_the_service_does_not_have_is_refused_before_anything_is_sent(cli, fake, tmp_path):
    """Against a service with only dc1->dc2, `cutover check --flow 'dc1->dc9'` must not print dc1->dc2's verdict."""
    fake.custom_output[names.CMD_CUTOVER_CHECK] = {"structured_out": {"cutover_check": [READY]}}
    state = str(tmp_path / "state")
    for argv in (["cutover", "check"], ["failover", "--groups", "orders", "--keep-flow", "--state-file", state],
                 ["failback", "--groups", "orders", "--restore", "original", "--without-failover",
                  "--state-file", state], ["drill", "--groups", "orders", "--history", state]):
        result = run(cli, fake, *argv, "--flow", "dc1->dc9")
        assert result.code == 2, result
        assert "--flow 'dc1->dc9': service KAFKA_MIRRORMAKER2 of cluster prod has no such flow; its flows: " \
               "'dc1->dc2'" in result.err
        assert "READY" not in result.out
    assert fake.mutating_calls() == []


def test_failback_after_a_recorded_failover_under_the_prefixed_policy_records_it(cli, fake, tmp_path):
    failover = tmp_path / "failover.json"
    failover.write_text(json.dumps({"kind": "failover", "flow": "dc1->dc2", "steps": {"groups": {"status": "done"}}}))
    result = run(cli, fake, "failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
                 "--failover-state", str(failover), "--state-file", str(tmp_path / "fb.json"), "--dry-run")
    assert result.code == 0, result
    assert "after the failover recorded in %s" % failover in result.out
    unfinished = tmp_path / "unfinished.json"
    unfinished.write_text(json.dumps({"kind": "failover", "flow": "dc1->dc2", "steps": {"gate": {"status": "done"}}}))
    result = run(cli, fake, "failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
                 "--failover-state", str(unfinished))
    assert result.code == 2 and "has not moved its groups: finish it first" in result.err
    assert fake.mutating_calls() == []


def test_without_failover_is_refused_under_the_identity_policy(cli, fake):
    fake.install_started_service(HOSTS, {names.CLUSTERS: {"source.alias": "dc1", "target.alias": "dc2"},
                                         names.REPLICATION: {"replication.policy": "identity"}})
    fake.dr_installed = True
    result = run(cli, fake, "failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
                 "--without-failover")
    assert result.code == 2, result
    assert "under the identity policy the reverse flow dc2->dc1 must start where dc1->dc2" in result.err
    assert fake.mutating_calls() == []
