"""failover, failback and drill as a new user gets them wrong: every path and number is checked before anything is
sent (exit 2 naming the path or flag and the fix), and a drill result Ambari already gave is printed even when its
history cannot be written."""
import os

from rest_helpers import HOSTS

from mm2_core.config import names
from mm2_ambari.dr import plan as dr

DC1_DC2 = {names.CLUSTERS: {"source.alias": "dc1", "target.alias": "dc2"}}
FAILOVER = ("failover", "--flow", "dc1->dc2", "--groups", "orders", "--keep-flow")


def run(cli, fake, *argv):
    if not fake.services:
        fake.install_started_service(HOSTS, DC1_DC2)
    return cli(*argv, "--url", fake.url, "--cluster", "prod")


def test_a_state_file_that_is_a_directory_or_in_a_missing_directory_is_refused(cli, fake, tmp_path):
    result = run(cli, fake, *FAILOVER, "--state-file", str(tmp_path))
    assert result.code == 2, result
    assert "--state-file %s: is a directory; give the path of a file" % tmp_path in result.err
    missing = tmp_path / "nope" / "state.json"
    result = run(cli, fake, *FAILOVER, "--state-file", str(missing))
    assert result.code == 2, result
    assert "--state-file %s: the directory %s does not exist; create it (mkdir -p %s)" % (
        missing, missing.parent, missing.parent) in result.err
    assert "internal error" not in result.err and fake.mutating_calls() == []


def test_a_state_directory_that_cannot_be_created_names_the_variable(cli, fake, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(dr.STATE_DIR_ENV, str(blocker / "state"))
    result = run(cli, fake, *FAILOVER)
    assert result.code == 2, result
    assert "--state-file (default) %s" % os.path.join(str(blocker), "state") in result.err
    assert "%s is a file, so the directory" % blocker in result.err
    assert "the default directory is $%s, else ~/.mm2-ambari" % dr.STATE_DIR_ENV in result.err
    assert fake.mutating_calls() == []


def test_a_failover_state_that_is_a_directory_is_refused(cli, fake, tmp_path):
    result = run(cli, fake, "failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
                 "--failover-state", str(tmp_path), "--state-file", str(tmp_path / "fb.json"))
    assert result.code == 2, result
    assert "state file %s is a directory" % tmp_path in result.err
    assert fake.mutating_calls() == []


def test_numbers_are_checked_naming_the_flag(cli, fake, tmp_path):
    state = str(tmp_path / "s.json")
    for argv, flag, rule in (((*FAILOVER, "--state-file", state, "--gate-interval", "-5"), "--gate-interval", "> 0"),
                             ((*FAILOVER, "--state-file", state, "--gate-timeout", "0"), "--gate-timeout", "> 0"),
                             (("drill", "--flow", "dc1->dc2", "--groups", "g", "--records", "0"), "--records", ">= 1"),
                             (("status", "--retries", "-1"), "--retries", ">= 0")):
        result = run(cli, fake, *argv)
        assert result.code == 2, result
        assert "argument %s: must be %s" % (flag, rule) in result.err
    assert fake.mutating_calls() == []


def test_drill_history_in_a_missing_directory_is_refused_before_the_drill(cli, fake, tmp_path):
    history = tmp_path / "missing" / "drills.jsonl"
    result = run(cli, fake, "drill", "--flow", "dc1->dc2", "--groups", "orders", "--history", str(history))
    assert result.code == 2, result
    assert "--history %s: the directory %s does not exist" % (history, history.parent) in result.err
    assert fake.mutating_calls() == []


def test_a_drill_result_is_printed_when_its_history_cannot_be_written(cli, fake, tmp_path, monkeypatch):
    fake.custom_output[names.CMD_DRILL] = {"structured_out": {"drill": {"groups": {"orders": {
        "rto_seconds": 1.5, "records_read": 10, "reread": 0, "skipped": 0, "shadow": "orders-drill"}}}}}
    history = tmp_path / "drills.jsonl"

    def full_disk(path, entry):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(dr, "append_history", full_disk)
    result = run(cli, fake, "drill", "--flow", "dc1->dc2", "--groups", "orders", "--history", str(history))
    assert result.code == 2, result
    assert "drill dc1->dc2 orders: first record after 1.5 s" in result.out
    assert ("history file %s: cannot write it (No space left on device): the drill ran in Ambari and its result is "
            "printed above, but it is not recorded" % history) in result.err


# --- consumer groups (issue 33): the list, each id, the flow's groups filter; before anything is sent -----------

def test_a_groups_list_with_an_empty_item_or_a_group_twice_is_refused_by_item(cli, fake, tmp_path):
    result = run(cli, fake, "failover", "--flow", "dc1->dc2", "--groups", "orders,,billing,orders", "--keep-flow",
                 "--state-file", str(tmp_path / "s.json"))
    assert result.code == 2, result
    assert "argument --groups: item 2 is empty (two commas in a row, or a comma at an end): remove the extra " \
           "comma; group 'orders' is given twice (items 1 and 4): give each group once" in result.err
    assert "Traceback" not in result.err and fake.calls == []


def test_a_group_id_with_a_space_is_refused_saying_why(cli, fake):
    result = run(cli, fake, "cutover", "check", "--flow", "dc1->dc2", "--groups", "my app")
    assert result.code == 2, result
    assert "argument --groups: group 'my app' contains a space, tab, line break or control character: " \
           "kafka-consumer-groups.sh prints groups in whitespace-separated columns" in result.err
    assert fake.calls == []


def test_a_group_the_flows_filter_excludes_is_refused_before_anything_is_sent(cli, fake, tmp_path):
    result = run(cli, fake, "failover", "--flow", "dc1->dc2", "--groups", "orders,connect-app", "--keep-flow",
                 "--state-file", str(tmp_path / "s.json"))
    assert result.code == 2, result
    assert "--groups: 1 group(s) the flow cannot translate; nothing was sent" in result.err
    assert "group 'connect-app' of flow dc1->dc2 is excluded by the pattern 'connect-.*' of the flow's " \
           "groups.exclude 'console-consumer-.*, connect-.*, __.*' (kafka-mm2-replication/groups.exclude): " \
           "MirrorMaker 2 never translates its offsets, so it cannot be failed over. Leave it out, or change " \
           "groups.exclude for dc1->dc2" in result.err
    assert "'orders'" not in result.err and fake.mutating_calls() == []
    assert not os.path.exists(str(tmp_path / "s.json"))


def test_the_drill_and_the_gate_name_a_group_no_groups_pattern_matches(cli, fake):
    fake.install_started_service(HOSTS, dict(DC1_DC2, **{names.REPLICATION: {"groups": "app-.*"}}))
    for argv, moved in ((("drill", "--flow", "dc1->dc2", "--groups", "app-1,billing"), "rehearsed"),
                        (("cutover", "check", "--flow", "dc1->dc2", "--groups", "billing"), "checked by the gate")):
        result = run(cli, fake, *argv)
        assert result.code == 2, result
        assert "group 'billing' of flow dc1->dc2 matches none of the flow's groups patterns 'app-.*' " \
               "(kafka-mm2-replication/groups): MirrorMaker 2 never translates its offsets, so it cannot be %s" \
               % moved in result.err
    assert fake.mutating_calls() == []


def test_failback_checks_the_groups_against_the_reverse_flow(cli, fake, tmp_path):
    fake.install_started_service(HOSTS, dict(DC1_DC2, **{names.CUSTOM: {"dc2->dc1.groups": "back-.*"}}))
    result = run(cli, fake, "failback", "--flow", "dc1->dc2", "--groups", "orders", "--restore", "original",
                 "--without-failover", "--state-file", str(tmp_path / "fb.json"))
    assert result.code == 2, result
    assert "group 'orders' of flow dc2->dc1 matches none of the flow's groups patterns 'back-.*' " \
           "(kafka-mm2-custom/dc2->dc1.groups)" in result.err and "cannot be moved back" in result.err
    assert fake.mutating_calls() == []


def test_run_checks_the_flow_and_groups_of_the_dr_commands_before_sending(cli, fake):
    result = run(cli, fake, "run", names.CMD_FAILOVER_GROUPS, "--param", "flow=dc1->dc3", "--param", "groups=orders")
    assert result.code == 2, result
    assert "--param flow 'dc1->dc3': service KAFKA_MIRRORMAKER2 of cluster prod has no such flow" in result.err
    result = run(cli, fake, "run", names.CMD_DRILL, "--param", "flow=dc1->dc2", "--param", "groups=connect-app")
    assert result.code == 2, result
    assert "--param groups: 1 group(s) the flow cannot translate" in result.err
    assert "group 'connect-app' of flow dc1->dc2 is excluded by the pattern 'connect-.*'" in result.err
    result = run(cli, fake, "run", names.CMD_CUTOVER_CHECK, "--param", "groups=a,,a")
    assert result.code == 2, result
    assert "--param groups=a,,a: item 2 is empty" in result.err
    assert fake.mutating_calls() == []
    # a group the flow takes goes through
    assert run(cli, fake, "run", names.CMD_DRILL, "--param", "flow=dc1->dc2", "--param", "groups=orders").code == 0
