# -*- coding: utf-8 -*-
"""Text facts of both Ambari lines that agent code must respect (the double reproduces them;
with MM2_AMBARI_SRC the same tests run against real Ambari):
- the Ambari 2.7 agent's command JSON gives `unicode` on Python 2, ASCII values included;
- ConfigDictionary hands values over as they are: Ambari 3 decrypts sensitive values to bytes;
- on Python 2, a resource whose name is non-ASCII (unicode or UTF-8 bytes) cannot be logged,
  so it fails before it does anything; on Python 3 (trunk) a bytes file name fails with Fail;
- Fail keeps the exception being handled as its cause."""
import json
import os
import sys

import pytest

from resource_management.core.environment import Environment
from resource_management.core.exceptions import Fail
from resource_management.core.resources.system import File
from resource_management.libraries.script.config_dictionary import ConfigDictionary

import harness

PY2 = sys.version_info[0] == 2


def test_command_json_values_are_text(tmpdir):
    """What Script.execute reads (execute mode, both libraries): every string is text."""
    cmd = harness.command_json(command="CONFIGURE", configurations={"x-env": {"ascii": "plain", "u": u"Zürich"}})
    path = harness.write_command_file(cmd, str(tmpdir.join("command-1.json")))
    loader = json
    if harness.using_real_ambari() and PY2:
        import ambari_simplejson as loader   # what 2.7.8's script.py uses
    with open(path) as fh:
        values = loader.load(fh)["configurations"]["x-env"]
    text_type = type(u"")
    assert isinstance(values["ascii"], text_type) and values["u"] == u"Zürich"


def test_config_dictionary_passes_bytes_through():
    """Ambari 3's ensure_decrypted returns bytes for an encrypted value; a bytes value that is
    not encrypted comes back unchanged on both lines, so agent code must decode it."""
    config = ConfigDictionary({"configurations": {"x-env": {"pw": b"p\xc3\xa4ss", "flag": "true"}}})
    assert config["configurations"]["x-env"]["pw"] == b"p\xc3\xa4ss"
    assert config["configurations"]["x-env"]["flag"] is True


@pytest.mark.parametrize("as_bytes", [False, True], ids=["unicode", "bytes"])
def test_non_ascii_resource_name(tmpdir, as_bytes):
    name = os.path.join(str(tmpdir), u"Zürich.txt") if not PY2 else os.path.join(str(tmpdir).decode("utf-8"),
                                                                                   u"Zürich.txt")
    if as_bytes:
        name = name.encode("utf-8")
    with Environment(str(tmpdir)):
        if PY2:   # logging the resource fails (2.7.8 formats it into unicode), so nothing is written
            with pytest.raises(UnicodeError):
                File(name, content="x")
            assert os.listdir(str(tmpdir)) == []
        elif as_bytes:   # trunk moves the temp file with `mv` through the shell: bytes are refused
            with pytest.raises(Fail) as caught:
                File(name, content="x")
            assert "Command should be a list of strings" in str(caught.value)
            assert os.listdir(str(tmpdir)) == []
        else:
            File(name, content="x")
            with open(name, "rb") as fh:
                assert fh.read() == b"x"


def test_fail_remembers_the_exception_it_was_raised_for():
    try:
        try:
            raise KeyError("mm2_user")
        except KeyError:
            raise Fail("User mm2 does not exist")
    except Fail as e:
        assert "KeyError: 'mm2_user'" in e.cause_traceback
        assert str(e) == "User mm2 does not exist"
