"""Requests the REST operations send to Ambari: submitted once (a lost answer is looked up, never
sent again), created idempotently, and the bodies of state changes, commands and rolling restarts."""
import math

from mm2_core.config import names
from mm2_ambari.common.errors import AmbariHttpError, MaybeSent, OperationFailed, RequestFailed

S, C = names.SERVICE, names.COMPONENT


# The most recent requests, as the web UI's background operations read them (ajax.js
# 'background_operations.get_most_recent': to=end&page_size=N).
REQUEST_LIST = "%s/requests?to=end&page_size=%d&fields=Requests/id,Requests/request_context"


def recent_requests(ctx, count):
    body = ctx.client.get(REQUEST_LIST % (ctx.c, count))
    return [item.get("Requests") or {} for item in (body or {}).get("items") or []]


def latest_request_id(ctx):
    return max([int(req.get("id") or 0) for req in recent_requests(ctx, 1)] or [0])


def accepted_request(ctx, context, after):
    """The id of a request with this context that Ambari created after request `after`, or None."""
    for req in sorted(recent_requests(ctx, 50), key=lambda r: -int(r.get("id") or 0)):
        if int(req.get("id") or 0) > after and req.get("request_context") == context:
            return req.get("id")
    return None


def submit(ctx, method, path, body, label):
    """Send a call that may start an Ambari request (state change, command) and wait for it.

    Returns the request's tasks, or None when Ambari answered without a request (nothing to do, or
    every target skipped for maintenance). When the call fails in a way that may have reached Ambari
    (MaybeSent), Ambari's request list is checked first: an accepted request is waited for, and the
    call is sent once more only when Ambari has no request for it."""
    send = getattr(ctx.client, method.lower())
    if ctx.dry_run:
        send(path, body, describe=label)
        ctx.say("[dry-run]     then wait for the request Ambari returns (%s)" % label)
        return []
    context = ((body or {}).get("RequestInfo") or {}).get("context") if isinstance(body, dict) else None
    baseline = latest_request_id(ctx)
    try:
        resp = send(path, body, describe=label)
    except MaybeSent as exc:
        rid = accepted_request(ctx, context, baseline)
        if rid is not None:
            ctx.log("%s: %s; Ambari had accepted it as request %s: waiting for it" % (label, exc, rid))
            return ctx.waiter.wait(rid, label)
        ctx.log("%s: %s; Ambari has no request for it: sending it once more" % (label, exc))
        resp = send(path, body, describe=label + " (again)")
    if resp.request_id is None:
        ctx.log("%s: Ambari answered %d without a request" % (label, resp.status))
        return None
    return ctx.waiter.wait(resp.request_id, label)


def run_async(ctx, method, path, body, label):
    """submit(), with 'no request' as no tasks."""
    return submit(ctx, method, path, body, label) or []


def create(ctx, path, body, what, exists=None, conflict=None):
    """POST a new resource. 409 (created meanwhile, e.g. by another pipeline) counts as done, unless
    `conflict(exc)` returns the error it means instead. When the POST may have reached Ambari
    (MaybeSent), `exists()` (a GET) decides before it is re-sent."""
    try:
        try:
            ctx.client.post(path, body, describe="create " + what)
        except MaybeSent as exc:
            if exists is not None and exists():
                ctx.log("create %s: %s; Ambari has it: continuing" % (what, exc))
                return
            ctx.log("create %s: %s; Ambari does not have it: sending it once more" % (what, exc))
            ctx.client.post(path, body, describe="create %s (again)" % what)
    except AmbariHttpError as exc:
        if exc.status != 409:
            raise
        if conflict is not None and conflict(exc) is not None:
            raise conflict(exc)
        ctx.log("%s already exists (Ambari: %s); continuing" % (what, exc.ambari_message))


def exists_at(ctx, path):
    return lambda: ctx.client.get_or_none(path) is not None


def service_state_body(ctx, state, context):
    """A service state change as the web UI sends it (ajax.js 'common.service.update'): at SERVICE
    level, so Ambari acts on the service and its components even when the service is in maintenance
    mode; without a level Ambari assumes CLUSTER and skips everything in maintenance."""
    return {"RequestInfo": {"context": context,
                            "operation_level": {"level": "SERVICE", "cluster_name": ctx.cluster, "service_name": S}},
            "Body": {"ServiceInfo": {"state": state}}}


def host_component_state_body(ctx, state, context, host=None):
    """A host component state change: one host at HOST_COMPONENT level (ajax.js
    'common.host.host_component.update'), else the service's at SERVICE level
    ('common.service.host_component.update')."""
    if host is not None:
        level = {"level": "HOST_COMPONENT", "cluster_name": ctx.cluster, "host_name": host, "service_name": S}
    else:
        level = {"level": "SERVICE", "cluster_name": ctx.cluster, "service_name": S}
    return {"RequestInfo": {"context": context, "operation_level": level}, "Body": {"HostRoles": {"state": state}}}


def request_body(ctx, command, context, hosts=None, level="SERVICE", host=None, parameters=None):
    info = {"context": context, "command": command,
            "operation_level": {"level": level, "cluster_name": ctx.cluster, "service_name": S}}
    filt = {"service_name": S}
    if level == "HOST_COMPONENT":
        info["operation_level"].update({"hostcomponent_name": C, "host_name": host})
    if hosts is not None:
        filt.update({"component_name": C, "hosts": ",".join(hosts)})
    if parameters:
        info["parameters"] = dict(parameters)
    return {"RequestInfo": info, "Requests/resource_filters": [filt]}


class BatchSettings(object):
    """Rolling restart settings with the web UI's defaults (rolling_restart_view.js initialize):
    batches of 1 host (a tenth of the hosts above 10), 120 s between batches, tolerate as many failed
    tasks as one batch has."""

    def __init__(self, size=None, pause=None, tolerance=None):
        self.size, self.pause, self.tolerance = size, pause, tolerance

    def resolved(self, count):
        size = self.size or (1 if count <= 10 else int(math.ceil(count / 10.0)))
        size = min(size, max(count, 1))
        pause = 120 if self.pause is None else int(self.pause)
        tolerance = size if self.tolerance is None else int(self.tolerance)
        return size, pause, tolerance


def batch_settings(opts):
    return BatchSettings(getattr(opts, "batch_size", None), getattr(opts, "batch_pause", None),
                         getattr(opts, "failure_tolerance", None))


def rolling_schedule_body(ctx, hosts, size, pause, tolerance):
    """Ambari's batched request schedule as the web UI builds it for a rolling restart
    (batch_scheduled_requests.js getBatchesForRollingRestartRequest, ajax.js 'common.batch.request_schedules')."""
    batches = [hosts[i:i + size] for i in range(0, len(hosts), size)]
    requests = [{"order_id": index + 1, "type": "POST", "uri": "/clusters/%s/requests" % ctx.cluster,
                 "RequestBodyInfo": {
                     "RequestInfo": {"context": "_PARSE_.ROLLING-RESTART.%s.%d.%d" % (C, index + 1, len(batches)),
                                     "command": "RESTART"},
                     "Requests/resource_filters": [{"service_name": S, "component_name": C,
                                                    "hosts": ",".join(batch)}]}}
                for index, batch in enumerate(batches)]
    return [{"RequestSchedule": {"batch": [{"requests": requests},
                                           {"batch_settings": {"batch_separation_in_seconds": pause,
                                                               "task_failure_tolerance": tolerance}}]}}]


def schedule_ids(ctx):
    body = ctx.client.get("%s/request_schedules?fields=RequestSchedule/id" % ctx.c)
    return set((item.get("RequestSchedule") or {}).get("id") for item in (body or {}).get("items") or [])


def rolling_restart(ctx, hosts, settings, why):
    """Restart through Ambari's request schedule: Ambari runs the batches one after the other, waits
    `pause` seconds between them and stops when more tasks failed than tolerated. Raises
    OperationFailed when a batch failed."""
    size, pause, tolerance = settings.resolved(len(hosts))
    body = rolling_schedule_body(ctx, hosts, size, pause, tolerance)
    label = "rolling restart of %s on %d host(s) (%s): batches of %d, %d s apart, tolerating %d failed task(s)" % (
        C, len(hosts), why, size, pause, tolerance)
    if ctx.dry_run:
        ctx.client.post("%s/request_schedules" % ctx.c, body, describe=label)
        ctx.say("[dry-run]     then follow the schedule's batch requests")
        return
    before = schedule_ids(ctx)
    try:
        resp = ctx.client.post("%s/request_schedules" % ctx.c, body, describe=label)
        resources = (resp.body or {}).get("resources") or [] if isinstance(resp.body, dict) else []
        sid = ((resources[0] if resources else {}).get("RequestSchedule") or {}).get("id")
    except MaybeSent as exc:
        new = sorted(i for i in schedule_ids(ctx) - before if i is not None)
        if not new:
            raise OperationFailed("%s: %s; Ambari has no new request schedule: nothing was restarted, "
                                  "run the command again" % (label, exc))
        sid = new[-1]
        ctx.log("%s; Ambari had accepted it as request schedule %s" % (exc, sid))
    if sid is None:
        raise OperationFailed("Ambari accepted the rolling restart but returned no request schedule id")
    ctx.log("%s: request schedule %s" % (label, sid))
    follow_schedule(ctx, sid, tolerance, len(body[0]["RequestSchedule"]["batch"][0]["requests"]), pause)


def follow_schedule(ctx, sid, tolerance, batch_count, pause):
    path = "%s/request_schedules/%s" % (ctx.c, sid)
    waited, failures, failed_tasks = set(), [], 0
    deadline = ctx.waiter.clock() + ctx.waiter.timeout + pause * batch_count
    while True:
        schedule = (ctx.client.get(path) or {}).get("RequestSchedule") or {}
        batches = sorted(((schedule.get("batch") or {}).get("batch_requests") or []),
                         key=lambda b: b.get("order_id") or 0)
        for batch in batches:
            rid = batch.get("request_id")
            if rid is None or rid in waited:
                continue
            waited.add(rid)
            label = "rolling restart batch %s/%d" % (batch.get("order_id"), batch_count)
            try:
                ctx.waiter.wait(rid, label)
            except RequestFailed as exc:
                failed = [t for t in exc.tasks if t.get("status") not in ("COMPLETED",)]
                failed_tasks += len([t for t in failed if t.get("status") in ("FAILED", "TIMEDOUT", "ABORTED")])
                failures.append(str(exc))
                ctx.log(str(exc))
        done = len(waited) == batch_count
        if failed_tasks > tolerance:
            raise OperationFailed("rolling restart (request schedule %s) stopped: %d failed task(s), more than "
                                  "the %d tolerated (--failure-tolerance); Ambari runs no further batch\n%s"
                                  % (sid, failed_tasks, tolerance, "\n".join(failures)))
        if schedule.get("status") in ("ABORTED", "PAUSED", "DISABLED"):
            raise OperationFailed("rolling restart (request schedule %s) is %s in Ambari after %d of %d batch(es)"
                                  % (sid, schedule.get("status"), len(waited), batch_count))
        if done:
            if failures:
                raise OperationFailed("rolling restart (request schedule %s) finished with %d failed task(s) "
                                      "(within the tolerance of %d)\n%s" % (sid, failed_tasks, tolerance,
                                                                            "\n".join(failures)))
            return
        if ctx.waiter.clock() >= deadline:
            raise OperationFailed("rolling restart (request schedule %s) has run %d of %d batch(es) after the "
                                  "wait timeout; it goes on in Ambari: watch %s/api/v1%s"
                                  % (sid, len(waited), batch_count, ctx.client.base, path))
        ctx.waiter.sleep(ctx.waiter.poll_interval)


def restart_hosts(ctx, hosts, rolling, why, settings=None):
    hosts = sorted(hosts)
    if not hosts:
        return
    if rolling:
        rolling_restart(ctx, hosts, settings or BatchSettings(), why)
        return
    submit(ctx, "POST", "%s/requests" % ctx.c,
           request_body(ctx, "RESTART", "Restart %s (%s)" % (names.COMPONENT_DISPLAY_NAME, why), hosts),
           "restart %s on %s" % (C, ",".join(hosts)))
