"""Ctrl-C in mm2-ambari: one line naming the command and what it had already sent to Ambari, exit 130."""
from rest_helpers import configure, deploy, edited

from mm2_ambari import cli as cli_module
from mm2_ambari.rest import ops
from mm2_ambari.offline import render_cmd


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt()


def test_ctrl_c_before_anything_is_sent(cli, fake, monkeypatch):
    fake.install_started_service(["mm2-1.example.com"])
    monkeypatch.setattr(ops, "status", _interrupt)
    result = cli("status", "--url", fake.url, "--cluster", "prod")
    assert result.code == 130, result
    assert result.err.strip().splitlines()[-1] == "mm2-ambari status: interrupted; nothing was sent to Ambari"
    assert "Traceback" not in result.err


def test_ctrl_c_after_a_change_names_it(cli, fake, tmp_path, monkeypatch):
    assert deploy(cli, fake).code == 0
    monkeypatch.setattr(ops, "restart_stale", _interrupt)
    result = configure(cli, fake, edited(tmp_path, "tasks.max: 8", "tasks.max: 16"))
    assert result.code == 130, result
    last = result.err.strip().splitlines()[-1]
    assert last.startswith("mm2-ambari configure: interrupted after 1 change(s) sent to Ambari (the last: PUT "
                           "/clusters/prod)"), last
    assert "check `mm2-ambari status` before running it again" in last


def test_ctrl_c_in_an_offline_command(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(render_cmd, "_run", _interrupt)
    code = cli_module.main(["render", "--configs", str(tmp_path / "c.json"), "--kafka-version", "3.7.1",
                            "--out", str(tmp_path / "out")])
    assert code == 130
    assert capsys.readouterr().err == ("mm2-ambari render: interrupted; nothing was sent to Ambari, and no file is "
                                       "left half-written (each is written whole or not at all)\n")
