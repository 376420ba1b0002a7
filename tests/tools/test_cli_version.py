# py3-only: the off-cluster CLIs are Python 3
"""Both CLIs answer --version with the mpack's version, read from mpack.json (the one place it is written)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from mm2_ambari import cli as ambari_cli
from mm2_ambari import version
from mm2_verify import cli as verify_cli

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mpack_version():
    with open(os.path.join(REPO, "mpack.json")) as fh:
        return json.load(fh)["version"]


def test_mm2_ambari_version(capsys):
    assert ambari_cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == "mm2-ambari " + mpack_version()


def test_mm2_verify_version_needs_no_spark(capsys):
    assert verify_cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == "mm2-verify " + mpack_version()


def test_version_follows_mpack_json(tmp_path, monkeypatch):
    """A new version in mpack.json is what the tools report, without reinstalling them."""
    fake = tmp_path / "mpack.json"
    fake.write_text(json.dumps({"name": "kafka-mirrormaker2-mpack", "version": "9.8.7.6"}))
    monkeypatch.setattr(version, "_MPACK_JSON", str(fake))
    assert version.tools_version() == "9.8.7.6"


@pytest.mark.parametrize("command", ["mm2-ambari", "mm2-verify"])
def test_installed_console_scripts(command):
    path = shutil.which(command, path=os.path.dirname(sys.executable))
    if path is None:
        pytest.skip("%s is not installed next to %s (pip install -e .)" % (command, sys.executable))
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "%s %s" % (command, mpack_version())
