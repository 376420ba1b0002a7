"""Execute mode: the probe service run as the agent runs it, resources really performed."""
import os
import signal
import stat

import pytest

import harness

from probe_fixture import PROBE_SCRIPT, probe_command


@pytest.fixture
def root(tmpdir):
    """A temporary root; any probe process left behind by a failing test is stopped."""
    path = str(tmpdir)
    yield path
    pid_file = os.path.join(path, "var/run/probe/probe.pid")
    if os.path.exists(pid_file):
        try:
            os.kill(int(open(pid_file).read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def run(root, command, **kwargs):
    return harness.run_script(PROBE_SCRIPT, probe_command(command, root=root, **kwargs), root)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_lifecycle_start_status_stop(root):
    started = run(root, "START")
    assert started.exit_code == 0, started
    conf = os.path.join(root, "etc/probe/conf")
    assert _mode(os.path.join(conf, "secret.properties")) == 0o600
    assert open(os.path.join(conf, "secret.properties")).read() == "password=s3cret-pw"  # jinja drops the last newline
    assert open(os.path.join(conf, "probe.conf")).read() == "# probe configuration\nhost=h1\nenabled=yes\ngreeting=hello"
    assert open(os.path.join(conf, "static.txt")).read() == "static content\n"
    assert _mode(os.path.join(root, "var/log/probe")) == 0o755
    assert "Component has started with pid(s):" in started.output

    assert run(root, "STATUS").exit_code == 0
    assert run(root, "START").exit_code == 0  # not_if: already running, nothing started twice
    stopped = run(root, "STOP")
    assert stopped.exit_code == 0, stopped
    status = run(root, "STATUS")
    assert status.exit_code == 1
    assert "ComponentIsNotRunning" in status.stderr


def test_restart_is_stop_then_start(root):
    assert run(root, "START").exit_code == 0
    first_pid = open(os.path.join(root, "var/run/probe/probe.pid")).read()
    restarted = run(root, "RESTART")
    assert restarted.exit_code == 0, restarted
    second_pid = open(os.path.join(root, "var/run/probe/probe.pid")).read()
    assert first_pid != second_pid
    assert run(root, "STOP").exit_code == 0


def test_custom_command_masks_password_and_writes_structured_output(root):
    result = run(root, "PROBE_SECRET")
    assert result.exit_code == 0, result
    assert "s3cret-pw" not in result.output
    assert "--password [PROTECTED]" in result.output
    assert result.structured_out == {"probe": "ok", "enabled": True}


def test_unknown_command_fails_with_ambaris_message(root):
    result = run(root, "NO_SUCH_THING")
    assert result.exit_code == 1
    assert "Script '%s' has no method 'no_such_thing'" % PROBE_SCRIPT in result.stderr


def test_failures_exit_non_zero_with_the_message(root):
    result = run(root, "PROBE_FAIL")
    assert result.exit_code == 1
    assert "Fail: probe failure requested" in result.stderr


def test_command_file_is_written_private(root):
    result = run(root, "STATUS")
    assert stat.S_IMODE(os.stat(result.command_file).st_mode) == 0o600
    assert result.argv[2:] == ["STATUS", result.command_file, os.path.dirname(os.path.dirname(PROBE_SCRIPT)),
                               os.path.join(root, "data", "structured-out-1.json"), "INFO",
                               os.path.join(root, "tmp")]


def test_too_few_arguments_prints_usage(root):
    import subprocess
    import sys
    env = harness.script_environment()
    proc = subprocess.Popen([sys.executable, PROBE_SCRIPT, "START"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    out, _ = proc.communicate()
    assert proc.returncode == 1
    assert b"Script expects at least 6 arguments" in out
