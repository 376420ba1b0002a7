"""Terminate strategies for Execute(timeout=...) (Ambari core/signal_utils.py)."""
import os
import signal
import time

from resource_management.core.exceptions import Fail

__all__ = ["TerminateStrategy", "terminate_process"]

GRACEFUL_PG_KILL_TIMEOUT_SECONDS = 5


class TerminateStrategy:
    TERMINATE_PARENT = 0
    KILL_PROCESS_GROUP = 1
    KILL_PROCESS_TREE = 2


def terminate_process(proc, terminate_strategy):
    if terminate_strategy == TerminateStrategy.TERMINATE_PARENT:
        terminate_parent_process(proc)
    elif terminate_strategy == TerminateStrategy.KILL_PROCESS_GROUP:
        killpg_gracefully(proc)
    elif terminate_strategy == TerminateStrategy.KILL_PROCESS_TREE:
        kill_process_tree(proc)
    else:
        raise Fail("Invalid timeout_kill_strategy = '{0}'. Use TerminateStrategy class constants as a value."
                   .format(terminate_strategy))


def killpg_gracefully(proc, timeout=GRACEFUL_PG_KILL_TIMEOUT_SECONDS):
    if proc.poll() is None:
        try:
            pgid = os.getpgid(proc.pid)
            os.killpg(pgid, signal.SIGTERM)
            for _ in range(10 * timeout):
                if proc.poll() is not None:
                    break
                time.sleep(0.1)
            else:
                os.killpg(pgid, signal.SIGKILL)
                proc.wait()
        except OSError:
            pass


def terminate_parent_process(proc):
    if proc.poll() is None:
        try:
            proc.terminate()
            proc.wait()
        except OSError:
            pass


def kill_process_tree(proc):
    # The real one runs files/killtree.sh; killing the process group (the command runs in its
    # own group, see shell.preexec_fn) reaches the same processes for our commands.
    if proc.poll() is None:
        try:
            os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
            proc.wait()
        except OSError:
            pass
