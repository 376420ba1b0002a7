"""ConfigDictionary and default(): what params.py sees."""
import sys

import pytest

from resource_management.core.exceptions import Fail
from resource_management.libraries.script.config_dictionary import ConfigDictionary, UnknownConfiguration
from resource_management.libraries.script.script import Script
from resource_management.libraries.functions.default import default

try:
    from unittest import mock
except ImportError:  # Python 2
    import mock
    if not hasattr(mock, "patch"):  # Ambari's bundled mock is a package holding mock.py
        from mock import mock


@pytest.fixture
def config():
    return ConfigDictionary({"configurations": {"x-env": {"on": "true", "off": "false", "n": "5",
                                                          "TRUE": "True"}},
                             "clusterHostInfo": {"all_hosts": ["a", "b"]}})


def test_true_false_strings_become_bools_only_through_brackets(config):
    env = config["configurations"]["x-env"]
    assert env["on"] is True and env["off"] is False
    assert env["n"] == "5" and env["TRUE"] == "True"
    assert env.get("on") == "true"  # dict.get bypasses the conversion, as in Ambari


def test_nested_dicts_are_config_dictionaries_and_immutable(config):
    env = config["configurations"]["x-env"]
    assert isinstance(env, ConfigDictionary)
    with pytest.raises(Fail) as err:
        env["on"] = "false"
    assert "Configuration dictionary is immutable!" in str(err.value)


def test_missing_key_fails_lazily_with_the_key_name(config):
    missing = config["configurations"]["x-env"]["nope"]
    assert isinstance(missing, UnknownConfiguration)
    assert missing["deeper"] is missing
    with pytest.raises(Fail) as err:
        missing.strip()
    assert str(err.value) == "Configuration parameter 'nope' was not found in configurations dictionary!"


@pytest.mark.skipif(sys.version_info[0] != 2, reason="old-style class behaviour exists on Python 2 only")
def test_on_python2_even_truth_testing_a_missing_key_fails(config):
    with pytest.raises(Fail):
        bool(config["configurations"]["x-env"]["nope"])


def test_default_walks_slash_paths(config):
    with mock.patch.object(Script, "get_config", return_value=config):
        assert default("/configurations/x-env/on", None) is True
        assert default("configurations/x-env/n", None) == "5"
        assert default("/configurations/x-env/absent", "dflt") == "dflt"
        assert default("/clusterHostInfo/all_hosts", []) == ["a", "b"]
        assert default("/nothing/at/all", 7) == 7
