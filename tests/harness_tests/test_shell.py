"""shell.call / checked_call: the process environment, exit codes, timeouts, retries."""
import os
import sys

import pytest

from resource_management.core import shell
from resource_management.core.exceptions import ExecuteTimeoutException, ExecutionFailed, Fail

from conftest import double_only


def test_call_returns_code_and_output_without_raising(log_lines):
    assert shell.call("echo out; echo err >&2; exit 3") == (3, "out\nerr")


def test_checked_call_raises_execution_failed_with_code_and_output(log_lines):
    with pytest.raises(ExecutionFailed) as err:
        shell.checked_call(("bash", "-c", "echo boom; exit 4"))
    assert err.value.code == 4
    assert err.value.out == "boom"
    assert "returned 4. boom" in str(err.value)


def test_returns_lists_accepted_codes(log_lines):
    assert shell.checked_call("exit 2", returns=[0, 2]) == (2, "")


def test_tuple_commands_are_quoted(log_lines):
    code, out = shell.call(("echo", "a b", "$HOME", "it's"))
    assert out == "a b $HOME it's"


def test_process_sees_only_path_and_the_given_environment(log_lines, monkeypatch):
    monkeypatch.setenv("MM2_LEAK_CHECK", "leaked")
    code, out = shell.call("echo \"[$MM2_LEAK_CHECK][$MINE]\"", env={"MINE": "mine"})
    assert out == "[][mine]"


def test_separate_stderr_gives_three_values(log_lines):
    import subprocess
    assert shell.call("echo o; echo e >&2", stderr=subprocess.PIPE) == (0, "o", "e")


def test_timeout_kills_and_raises(log_lines):
    with pytest.raises(ExecuteTimeoutException) as err:
        shell.checked_call("sleep 30", timeout=1)
    assert "was killed due timeout after 1 seconds" in str(err.value)


def test_tries_retry_until_success(log_lines, tmpdir):
    marker = tmpdir.join("m")
    cmd = "test -f %s || { touch %s; exit 1; }" % (marker, marker)
    assert shell.checked_call(cmd, tries=2, try_sleep=0) == (0, "")
    assert any("Retrying after 0 seconds" in line for line in log_lines)


def test_arguments_after_the_command_must_be_named(log_lines):
    with pytest.raises(TypeError):
        shell.call("true", True)


def test_quote_bash_args():
    assert shell.quote_bash_args("abc-1.2:/x") == "abc-1.2:/x"
    assert shell.quote_bash_args("") == "''"
    assert shell.quote_bash_args("a'b") == "'a'\"'\"'b'"
    with pytest.raises(Fail):
        shell.quote_bash_args(5)


def test_as_user_and_as_sudo_wrap_through_ambari_sudo(log_lines):
    assert shell.as_user(("id", "-u"), "kafka") == \
        "ambari-sudo.sh su kafka -l -s /bin/bash -c '[RMF_EXPORT_PLACEHOLDER]id -u'"
    assert shell.as_sudo(("ls", "/x")) == "ambari-sudo.sh [RMF_ENV_PLACEHOLDER] -H -E ls /x"
    with pytest.raises(Fail):
        shell.as_sudo("ls /x | wc -l")


@double_only
def test_double_rejects_the_27_only_shell_argument(log_lines):
    # Ambari 2.7.8's call() accepts shell=, trunk's does not: agent code must not use it.
    with pytest.raises(TypeError):
        shell.call("true", shell=False)


def test_user_equal_to_current_user_runs(log_lines, monkeypatch):
    import harness
    monkeypatch.setenv("PATH", harness.paths.DOUBLE_BIN_DIR + os.pathsep + os.environ["PATH"])
    code, out = shell.call("id -un", user=harness.current_user())
    assert (code, out.splitlines()[-1]) == (0, harness.current_user())
