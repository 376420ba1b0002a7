"""failover, failback and drill as a new user gets them wrong: every path and number is checked before anything is
sent (exit 2 naming the path or flag and the fix), and a drill result Ambari already gave is printed even when its
history cannot be written."""
import os

from rest_helpers import HOSTS

from mm2_core.config import names
from mm2_ambari import dr

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
