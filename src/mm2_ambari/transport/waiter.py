"""Wait for an Ambari request (install, start, restart, service check...) with a progress bar.

Request and task statuses are Ambari's HostRoleStatus values. COMPLETED is success; FAILED, TIMEDOUT,
ABORTED and SKIPPED_FAILED are failures; HOLDING_FAILED / HOLDING_TIMEDOUT wait for an operator's
decision in the Ambari UI, which a pipeline cannot give, so they count as failures here too.
Ambari being unreachable while we poll (a server restart) is tolerated until the wait timeout.
"""
import sys
import time

from tqdm import tqdm

from mm2_ambari.common import masking
from mm2_ambari.common.errors import ConnectionFailed, OperationFailed, RequestFailed

SUCCESS = frozenset(["COMPLETED"])
FAILURE = frozenset(["FAILED", "TIMEDOUT", "ABORTED", "SKIPPED_FAILED", "HOLDING_FAILED",
                     "HOLDING_TIMEDOUT"])
REQUEST_FIELDS = ("Requests/id,Requests/request_status,Requests/progress_percent,"
                  "Requests/request_context,Requests/task_count,Requests/failed_task_count")
TASK_FIELDS = ("Tasks/id,Tasks/host_name,Tasks/role,Tasks/command,Tasks/custom_command_name,"
               "Tasks/status,Tasks/exit_code,Tasks/stdout,Tasks/stderr,Tasks/structured_out")


class Waiter(object):
    def __init__(self, client, cluster, poll_interval=2.0, timeout=3600.0, progress=None,
                 stream=None, clock=time.monotonic, sleep=time.sleep):
        self.client, self.cluster = client, cluster
        self.poll_interval, self.timeout = poll_interval, timeout
        self.stream = stream or sys.stderr
        self.progress = _isatty(self.stream) if progress is None else progress
        self.clock, self.sleep = clock, sleep

    def wait(self, request_id, label):
        """Poll until the request ends; return its tasks. Raise RequestFailed on a failed end."""
        path = "/clusters/%s/requests/%s?fields=%s" % (self.cluster, request_id, REQUEST_FIELDS)
        deadline = self.clock() + self.timeout
        bar = tqdm(total=100, desc="%s (request %s)" % (label, request_id), file=self.stream,
                   unit="%", bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix}",
                   disable=not self.progress, leave=True)
        last, shown, unreachable = None, 0.0, False
        try:
            while True:
                try:
                    body = self.client.get(path)
                    if unreachable:
                        self._say(bar, "Ambari is reachable again; still waiting for request %s" % request_id)
                        unreachable = False
                except ConnectionFailed as exc:
                    if self.clock() >= deadline:
                        raise
                    if not unreachable:
                        self._say(bar, "Ambari unreachable while waiting for request %s (%s); "
                                       "retrying until the wait timeout" % (request_id, exc))
                    unreachable = True
                    self.sleep(max(self.poll_interval, 0.01))
                    continue
                req = body.get("Requests") or {}
                status = req.get("request_status") or "PENDING"
                percent = float(req.get("progress_percent") or 0.0)
                if status in SUCCESS:
                    percent = 100.0
                if percent > shown:
                    bar.update(percent - shown)
                    shown = percent
                bar.set_postfix_str(status, refresh=True)
                if (status, int(percent)) != last and not self.progress:
                    print("request %s %s: %s %d%%" % (request_id, label, status, int(percent)), file=self.stream)
                last = (status, int(percent))
                if status in SUCCESS:
                    return self.tasks(request_id)
                if status in FAILURE:
                    tasks = self.tasks(request_id)
                    raise RequestFailed(_failure_message(request_id, label, status, tasks),
                                        request_id, status, tasks)
                if self.clock() >= deadline:
                    raise OperationFailed(
                        "request %s (%s) is still %s after %ds; it goes on in Ambari: watch "
                        "%s/api/v1/clusters/%s/requests/%s" % (request_id, label, status, self.timeout,
                                                               self.client.base, self.cluster, request_id))
                self.sleep(self.poll_interval)
        finally:
            bar.close()

    def tasks(self, request_id):
        body = self.client.get("/clusters/%s/requests/%s/tasks?fields=%s" % (self.cluster, request_id, TASK_FIELDS))
        return [item.get("Tasks") or {} for item in (body or {}).get("items", [])]

    def _say(self, bar, message):
        if self.progress:
            bar.write(message, file=self.stream)
        else:
            print(message, file=self.stream)


def _failure_message(request_id, label, status, tasks):
    failed = [t for t in tasks if t.get("status") not in SUCCESS]
    lines = ["request %s (%s) ended %s" % (request_id, label, status)]
    for task in failed or tasks:
        lines.append("  task %s: %s %s on %s: %s" % (
            task.get("id"), task.get("role"), task.get("custom_command_name") or task.get("command"),
            task.get("host_name"), task.get("status")))
        tail = _tail(task.get("stderr")) or _tail(task.get("stdout"))
        if tail and task.get("status") in FAILURE:
            lines.extend("      " + line for line in tail)
    return "\n".join(lines)


def _tail(text, count=12):
    if not text:
        return []
    return masking.mask_text(str(text)).rstrip().splitlines()[-count:]


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
