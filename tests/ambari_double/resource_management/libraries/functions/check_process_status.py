"""check_process_status(pid_file) (Ambari semantics): ComponentIsNotRunning when the pid file is
missing, empty or not a number, or when kill(pid, 0) fails."""
import os

from resource_management.core.exceptions import ComponentIsNotRunning
from resource_management.core.logger import Logger

__all__ = ["check_process_status"]


def check_process_status(pid_file):
    from resource_management.core import sudo
    if not pid_file or not os.path.isfile(pid_file):
        Logger.info("Pid file {0} is empty or does not exist".format(str(pid_file)))
        raise ComponentIsNotRunning()
    try:
        pid = int(sudo.read_file(pid_file))
    except Exception:
        Logger.info("Pid file {0} does not exist or does not contain a process id number".format(pid_file))
        raise ComponentIsNotRunning()
    try:
        sudo.kill(pid, 0)
    except OSError:
        Logger.info("Process with pid {0} is not running. Stale pid file at {1}".format(pid, pid_file))
        raise ComponentIsNotRunning()


def wait_process_stopped(pid_file):
    import time
    counter = 0
    while True:
        try:
            if counter % 10 == 0:
                Logger.logger.info("Waiting for actual component stop")
            check_process_status(pid_file)
            time.sleep(1)
            counter += 1
        except ComponentIsNotRunning:
            return
