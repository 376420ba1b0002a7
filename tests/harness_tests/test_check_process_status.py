"""check_process_status: when a component counts as running."""
import os
import subprocess

import pytest

from resource_management.core.exceptions import ComponentIsNotRunning
from resource_management.libraries.functions.check_process_status import check_process_status


@pytest.fixture
def pid_file(tmpdir):
    return tmpdir.join("x.pid")


def test_missing_or_empty_path_is_not_running(log_lines, pid_file):
    for path in (None, "", str(pid_file)):
        with pytest.raises(ComponentIsNotRunning):
            check_process_status(path)


@pytest.mark.parametrize("content", ["", "abc", "12 13"])
def test_unreadable_pid_is_not_running(log_lines, pid_file, content):
    pid_file.write(content)
    with pytest.raises(ComponentIsNotRunning):
        check_process_status(str(pid_file))


def test_dead_pid_is_not_running(log_lines, pid_file):
    proc = subprocess.Popen(["true"])
    proc.wait()
    pid_file.write(str(proc.pid))
    with pytest.raises(ComponentIsNotRunning):
        check_process_status(str(pid_file))
    assert any("is not running. Stale pid file" in line for line in log_lines)


def test_live_pid_with_newline_is_running(log_lines, pid_file):
    pid_file.write("%d\n" % os.getpid())
    check_process_status(str(pid_file))  # no exception
