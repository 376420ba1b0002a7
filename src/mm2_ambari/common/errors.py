"""Errors of the mm2-ambari commands, each mapped to one exit code (see cli.py: 0 ok, 1 failed, 2 bad input), and
how one is told (`report`)."""
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130   # Ctrl-C, as a shell reports a SIGINT


class Mm2AmbariError(Exception):
    exit_code = EXIT_FAILED

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.problems = list(problems)


class BadInput(Mm2AmbariError):
    """The operator's input is wrong (file, options, credentials setup): exit 2."""
    exit_code = EXIT_BAD_INPUT


class OperationFailed(Mm2AmbariError):
    """Ambari or the cluster could not do what was asked: exit 1."""


class AmbariHttpError(OperationFailed):
    """Ambari answered an HTTP error; message is Ambari's own text."""

    def __init__(self, method, path, status, message):
        self.method, self.path, self.status, self.ambari_message = method, path, status, message
        Mm2AmbariError.__init__(self, "Ambari answered %d %s to %s %s: %s" % (
            status, _REASONS.get(status, ""), method, path, message or "(no message)"))


class ConnectionFailed(OperationFailed):
    pass


class MaybeSent(ConnectionFailed):
    """A mutating call failed after it may have reached Ambari (read timeout, reset, 502/503/504).
    Sending it again blindly could queue a second install or start: check Ambari's state first."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class RequestFailed(OperationFailed):
    """An Ambari request (install, start, restart, ...) ended in a failed state."""

    def __init__(self, message, request_id=None, status=None, tasks=()):
        super().__init__(message)
        self.request_id, self.status, self.tasks = request_id, status, list(tasks)


_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            409: "Conflict", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout"}


def report(err, exc):
    """The error on one line (`error: ...`), then each of its problems."""
    print("error: %s" % exc, file=err)
    for problem in getattr(exc, "problems", []) or []:
        print("  - %s" % problem, file=err)
