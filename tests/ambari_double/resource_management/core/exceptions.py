"""Exceptions with the names and constructor signatures of Ambari's core/exceptions.py."""
import sys
import traceback

__all__ = ["Fail", "ExecutionFailed", "ExecuteTimeoutException", "InvalidArgument",
           "ClientComponentHasNoStatus", "ComponentIsNotRunning"]


class Fail(Exception):
    def __init__(self, message="", print_cause=True):
        self.print_cause = print_cause
        # Ambari remembers the exception being handled when Fail was built and prints it first.
        self.cause_traceback = traceback.format_exc()
        super(Fail, self).__init__(message)

    def pre_raise(self):
        if self.print_cause and self.cause_traceback != 'None\n':
            sys.stderr.write(self.cause_traceback)
            sys.stderr.write("\nThe above exception was the cause of the following exception:\n\n")


class ExecuteTimeoutException(Fail):
    pass


class InvalidArgument(Fail):
    pass


class ClientComponentHasNoStatus(Fail):
    """status() of a CLIENT component; script.py exits 1 without a stack dump in the log."""


class ComponentIsNotRunning(Fail):
    """status() found the process not running; script.py turns it into exit code 1."""


class ExecutionFailed(Fail):
    def __init__(self, exception_message, code, out, err=None):
        self.exception_message = exception_message
        self.code = code
        self.out = out
        self.err = err
        super(ExecutionFailed, self).__init__(exception_message)
