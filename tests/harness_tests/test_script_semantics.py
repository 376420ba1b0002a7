"""Script.execute() behaviours around the command method (pre/post hooks, status, restart),
checked in execute mode on the probe service."""
import json
import os
import signal

import pytest

import harness

from conftest import double_only
from probe_fixture import PROBE_PACKAGE, PROBE_SCRIPT, probe_command

EXTRA_SCRIPT = os.path.join(PROBE_PACKAGE, "scripts", "probe_variants.py")


@pytest.fixture
def root(tmpdir):
    path = str(tmpdir)
    yield path
    pid_file = os.path.join(path, "var/run/probe/probe.pid")
    if os.path.exists(pid_file):
        try:
            os.kill(int(open(pid_file).read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def run(root, command, script=EXTRA_SCRIPT, cmd=None, **kwargs):
    return harness.run_script(script, cmd or probe_command(command, root=root), root, **kwargs)


def test_post_start_fails_when_a_pid_file_is_missing(root):
    result = run(root, "START")  # probe_variants' start writes no pid file
    assert result.exit_code == 1
    assert "Pid file %s/var/run/probe/probe.pid doesn't exist after starting of the component." % root \
        in result.stderr


def test_status_resets_structured_output(root):
    data = os.path.join(root, "data")
    os.makedirs(data)
    with open(os.path.join(data, "structured-out-1.json"), "w") as fp:
        json.dump({"stale": 1}, fp)
    result = harness.run_script(PROBE_SCRIPT, probe_command("STATUS", root=root), root)
    assert result.structured_out == {}


def test_restart_needs_component_category(root):
    # Ambari's restart() reads roleParams/component_category; the server always sends it with
    # custom commands. Without it the restart fails before stopping anything.
    cmd = probe_command("RESTART", root=root)
    del cmd["roleParams"]["component_category"]
    result = harness.run_script(PROBE_SCRIPT, cmd, root)
    assert result.exit_code == 1
    assert "component_category' was not found" in result.stderr


def test_restart_fails_when_the_stack_defines_no_features(root):
    cmd = probe_command("RESTART", root=root)
    del cmd["configurations"]["cluster-env"]["stack_features"]
    result = harness.run_script(PROBE_SCRIPT, cmd, root)
    assert result.exit_code == 1
    assert "Stack features not defined by stack" in result.stderr
    stop = harness.run_script(PROBE_SCRIPT, probe_command("STOP", root=root), root)
    assert stop.exit_code == 0


def test_client_restart_runs_install(root):
    cmd = probe_command("RESTART", root=root)
    cmd["roleParams"]["component_category"] = "CLIENT"
    result = harness.run_script(EXTRA_SCRIPT, cmd, root)
    assert result.exit_code == 0, result
    assert "variant install ran" in result.stdout


def test_out_files_are_shown_before_start_with_dash_o(root):
    os.makedirs(os.path.join(root, "var/log/probe"))
    with open(os.path.join(root, "var/log/probe/old.out"), "w") as fp:
        fp.write("previous run said goodbye\n")
    result = harness.run_script(PROBE_SCRIPT, probe_command("START", root=root), root, log_out_files=True)
    assert result.exit_code == 0, result
    assert "previous run said goodbye" in result.stdout
    assert harness.run_script(PROBE_SCRIPT, probe_command("STOP", root=root), root).exit_code == 0


@double_only
def test_post_stop_wait_is_bounded_only_in_tests(root):
    # stop() that leaves the process running: Ambari's post_stop would wait forever.
    assert run(root, "START", script=PROBE_SCRIPT).exit_code == 0
    result = run(root, "STOP", post_stop_max_seconds=1)
    assert result.exit_code == 1
    assert "still reports the component running" in result.stderr
    assert run(root, "STOP", script=PROBE_SCRIPT).exit_code == 0


@double_only
def test_packages_are_logged_not_installed(root):
    log = os.path.join(root, "packages.log")
    cmd = harness.localize(harness.command_json(role="PROBE_SERVER", command="INSTALL", service_name="PROBE",
                                                package_list=["kafka", "jmx-exporter"]), root)
    result = harness.run_script(PROBE_SCRIPT, cmd, root, extra_env={"MM2_DOUBLE_PACKAGE_LOG": log})
    assert result.exit_code == 0, result
    assert open(log).read() == "install kafka\ninstall jmx-exporter\n"
