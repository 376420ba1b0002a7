"""format(): caller locals + env params, !e / !h / !p conversions and log masking."""
import pytest

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Execute
from resource_management.libraries.functions.format import format


def test_reads_caller_locals_and_env_params(test_env):
    test_env.set_params({"conf_dir": "/etc/mm2", "port": 9405})
    name = "mm2.properties"
    assert format("{conf_dir}/{name}:{port}") == "/etc/mm2/mm2.properties:9405"


def test_caller_locals_override_env_params(test_env):
    test_env.set_params({"conf_dir": "/etc/from-params"})
    conf_dir = "/etc/local"
    assert format("{conf_dir}") == "/etc/local"


def test_kwarg_that_clashes_with_a_local_fails(test_env):
    value = "a"
    with pytest.raises(Fail) as err:
        format("{value}", value="b")
    assert "Variable 'value' already exists more than once" in str(err.value)


def test_e_quotes_for_bash(test_env):
    plain = "abc"
    spaced = "it's a b"
    assert format("{plain!e} {spaced!e}") == "abc 'it'\"'\"'s a b'"


def test_p_quotes_and_hides_the_value_in_every_later_log_line(test_env, log_lines):
    secret = "pa ss"
    cmd = format("kafka-configs --password {secret!p}")
    assert cmd == "kafka-configs --password 'pa ss'"
    Logger.info("running " + cmd)
    Logger.info_resource(Execute(cmd))
    assert log_lines == ["running kafka-configs --password [PROTECTED]",
                         "Execute['kafka-configs --password [PROTECTED]'] {}"]


def test_h_hides_without_quoting(test_env, log_lines):
    token = "t0k en"
    line = format("token={token!h}")
    assert line == "token=t0k en"
    Logger.info(line)
    assert log_lines == ["token=[PROTECTED]"]


def test_masking_is_by_whole_formatted_string_only(test_env, log_lines):
    # Ambari registers the whole formatted text: the bare secret elsewhere is NOT masked.
    secret = "hunter2"
    format("--password {secret!p}")
    Logger.info("secret is hunter2")
    Logger.info("x --password hunter2")
    assert log_lines == ["secret is hunter2", "x --password [PROTECTED]"]


def test_works_without_an_environment():
    host = "h1"
    assert format("{host}:1") == "h1:1"
