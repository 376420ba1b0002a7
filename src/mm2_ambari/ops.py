"""The REST operations behind deploy, configure, restart, status, alerts, check, run and remove.

Every operation first reads Ambari's state (GET), then computes what must change, then sends only
those changes. Re-running with the same file therefore sends nothing. With --dry-run the reads
still happen (they are needed to plan), the changes are printed instead of sent.
"""
import json
import re
import math
import time

from mm2_core import advice, names, placement, versions
from mm2_ambari import configplan, credentials, masking
from mm2_ambari.configplan import ConfigState, StackDefaults
from mm2_ambari.deployfile import RESET
from mm2_ambari.errors import AmbariHttpError, BadInput, MaybeSent, OperationFailed, RequestFailed

S, C = names.SERVICE, names.COMPONENT
HC_FIELDS = ("HostRoles/host_name,HostRoles/component_name,HostRoles/state,HostRoles/desired_state,"
             "HostRoles/stale_configs,HostRoles/maintenance_state")
KDC_CREDENTIAL = "kdc.admin.credential"
# Host component states that mean the driver is not installed (yet): never healthy.
NOT_INSTALLED = ("INIT", "INSTALL_FAILED")
# States from which Ambari lets a host component be deleted (ServiceComponentHostImpl.canBeRemoved).
REMOVABLE = ("INIT", "INSTALLED", "INSTALL_FAILED", "UNINSTALLED", "UNKNOWN", "DISABLED")
# Which effective maintenance states an operation level still acts on
# (MaintenanceStateHelper.isOperationAllowed(Resource.Type, ServiceComponentHost)); HOST_COMPONENT: all.
ALLOWED_AT = {"CLUSTER": ("OFF",), "SERVICE": ("OFF", "IMPLIED_FROM_SERVICE"), "HOST": ("OFF", "IMPLIED_FROM_HOST")}
MAINTENANCE_WHY = {"ON": "the component is in maintenance mode",
                   "IMPLIED_FROM_HOST": "its host is in maintenance mode",
                   "IMPLIED_FROM_SERVICE": "the service is in maintenance mode",
                   "IMPLIED_FROM_SERVICE_AND_HOST": "the service and its host are in maintenance mode"}


def maintenance(hc):
    """The effective maintenance state Ambari reports for a host component (OFF when absent)."""
    return hc.get("maintenance_state") or "OFF"


def allowed(level, hc):
    """Would Ambari act on this host component at this operation level, given its maintenance state?"""
    return level == "HOST_COMPONENT" or maintenance(hc) in ALLOWED_AT[level]


def why_skipped(hc):
    return MAINTENANCE_WHY.get(maintenance(hc), "maintenance state %s" % maintenance(hc))


def new_tag():
    """A config tag as ambari-web makes them: 'version' + milliseconds."""
    return "version%d" % int(time.time() * 1000)


class Context(object):
    """What one command works with: the client, the cluster, the waiter and the output stream."""

    def __init__(self, client, cluster, waiter, out, err, dry_run=False):
        self.client, self.cluster, self.waiter = client, cluster, waiter
        self.out, self.err, self.dry_run = out, err, dry_run

    def say(self, message=""):
        print(message, file=self.out)

    def log(self, message):
        print(message, file=self.err)

    @property
    def c(self):
        return "/clusters/" + self.cluster


# --- reads -----------------------------------------------------------------------------------------
def read_cluster(ctx):
    body = ctx.client.get_or_none("%s?fields=Clusters/version,Clusters/desired_configs,Clusters/security_type" % ctx.c)
    if body is None:
        raise BadInput("cluster %r not found on %s: check deployment.ambari.cluster or --cluster "
                       "(GET %s/api/v1/clusters lists them)" % (ctx.cluster, ctx.client.base, ctx.client.base))
    info = body.get("Clusters") or {}
    stack_name, _, stack_version = (info.get("version") or "").partition("-")
    return {"stack": (stack_name, stack_version), "desired": info.get("desired_configs") or {},
            "kerberos": info.get("security_type") == "KERBEROS"}


def read_service(ctx):
    """The service resource, or None when it is not installed (404 Service not found)."""
    try:
        return ctx.client.get("%s/services/%s?fields=ServiceInfo/state,ServiceInfo/maintenance_state,"
                              "components/ServiceComponentInfo/component_name" % (ctx.c, S))
    except AmbariHttpError as exc:
        if exc.status != 404:
            raise
        if "Cluster not found" in (exc.ambari_message or ""):
            raise BadInput("cluster %r not found on %s (Ambari: %s)" % (ctx.cluster, ctx.client.base,
                                                                        exc.ambari_message))
        return None


def read_host_components(ctx, extra=""):
    body = ctx.client.get("%s/host_components?HostRoles/service_name=%s%s&fields=%s" % (ctx.c, S, extra, HC_FIELDS))
    return sorted((item.get("HostRoles") or {} for item in body.get("items", [])),
                  key=lambda hr: (hr.get("host_name"), hr.get("component_name")))


def read_cluster_hosts(ctx):
    body = ctx.client.get("%s/hosts?fields=Hosts/host_name" % ctx.c)
    return set((item.get("Hosts") or {}).get("host_name") for item in body.get("items", []))


def read_config(ctx, config_type, tag):
    body = ctx.client.get("%s/configurations?type=%s&tag=%s" % (ctx.c, config_type, tag))
    items = body.get("items") or []
    if not items:
        raise OperationFailed("Ambari lists %s tag %s as desired but has no such configuration" % (config_type, tag))
    item = items[0]
    return ConfigState(config_type, item.get("tag", tag), item.get("version"), item.get("properties"),
                       item.get("properties_attributes"))


def read_current_configs(ctx, desired):
    return dict((t, read_config(ctx, t, desired[t]["tag"])) for t in sorted(desired)
                if t in names.OWN_CONFIG_TYPES)


def read_local_kafka(ctx, desired):
    """This cluster's own Kafka as the service advisor describes it for the validator (broker count,
    listeners), or None when the cluster has no KAFKA_BROKER."""
    body = ctx.client.get("%s/host_components?HostRoles/component_name=%s&fields=HostRoles/host_name"
                          % (ctx.c, names.KAFKA_BROKER))
    brokers = sorted(set((item.get("HostRoles") or {}).get("host_name") for item in body.get("items", [])))
    if not brokers:
        return None

    def props(config_type):
        return read_config(ctx, config_type, desired[config_type]["tag"]).properties if config_type in desired else {}
    security = str(props("cluster-env").get("security_enabled", "false")).strip().lower() == "true"
    ranger = str(props("ranger-kafka-plugin-properties").get("ranger-kafka-plugin-enabled", "")).strip().lower()
    return advice.describe_local_kafka(brokers, props("kafka-broker"), props("kafka-env"),
                                       security_enabled=security, ranger_kafka_enabled=ranger == "yes")


def read_stack_defaults(ctx, stack):
    name, version = stack
    body = ctx.client.get_or_none("/stacks/%s/versions/%s/services/%s/configurations?fields=StackConfigurations/*"
                                  % (name, version, S))
    if body is None:
        raise OperationFailed(
            "stack %s %s has no service %s: install the mpack on the Ambari server "
            "(ambari-server install-mpack --mpack=kafka-mirrormaker2-mpack-<version>.tar.gz) and restart "
            "it" % (name, version, S))
    return StackDefaults.from_response(body)


def read_config_groups(ctx):
    body = ctx.client.get("%s/config_groups?ConfigGroup/tag=%s&fields=ConfigGroup/*" % (ctx.c, S))
    groups = []
    for item in body.get("items", []):
        group = item.get("ConfigGroup") or {}
        configs = dict((d["type"], read_config(ctx, d["type"], d["tag"]))
                       for d in group.get("desired_configs") or [])
        groups.append({"id": group.get("id"), "name": group.get("group_name"),
                       "description": group.get("description") or "",
                       "hosts": sorted(h.get("host_name") for h in group.get("hosts") or []),
                       "configs": configs})
    return groups


# --- helpers ---------------------------------------------------------------------------------------
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


def kafka_version(ctx, explicit, env, stack):
    """The Kafka version to validate for: --kafka-version / deployment.kafka_version, else what the
    service advisor would use (advice.kafka_version_for_validation: the override, the stack's Kafka
    when MM2 runs from it, the tarball or Kafka home name). The advisor's last resort, an assumed
    version, is not good enough for a pipeline: then the operator must say."""
    if explicit:
        kafka_version_given(explicit)
        ctx.log("validating for Kafka %s (as given)" % explicit)
        return str(explicit)
    stack_version = None
    if not (env.get("kafka_version_override") or "").strip():
        name, version = stack
        body = ctx.client.get_or_none("/stacks/%s/versions/%s/services/%s?fields=StackServices/service_version"
                                      % (name, version, names.KAFKA_SERVICE))
        stack_version = ((body or {}).get("StackServices") or {}).get("service_version")
    found, origin = advice.kafka_version_for_validation(env, stack_version)
    if origin.startswith("assumed"):
        raise BadInput("cannot tell which Kafka version MirrorMaker 2 runs: the stack %s %s %s; set "
                       "deployment.kafka_version (e.g. '3.7.1') or --kafka-version, or "
                       "kafka-mm2-env/kafka_version_override" % (
                           stack[0], stack[1], "has Kafka %s, which has no MirrorMaker 2 (%s+ needed)" % (
                               stack_version, versions.MIN_VERSION.line) if stack_version else "has no KAFKA service"))
    ctx.log("validating for Kafka %s (from %s)" % (found, origin))
    return found


def kafka_version_given(text):
    try:
        versions.KafkaVersion.parse(str(text))
    except ValueError as exc:
        raise BadInput("Kafka version: %s" % exc)


def validate(ctx, df, changes, version, local_kafka=None):
    """Run the core validator (the one the agent and the advisor use) on the configurations to send."""
    from mm2_core import topology  # the pure core shared with the agent
    configurations = dict((ch.type, dict(ch.properties)) for ch in changes)
    problems = topology.validate(configurations, version, local_kafka)
    errors = [p for p in problems if getattr(p, "level", "ERROR") == "ERROR"]
    for problem in problems:
        if problem not in errors:
            ctx.log("warning: %s" % _problem_text(df, problem))
    if errors:
        raise BadInput("%s: the configuration is invalid for Kafka %s" % (df.path, version),
                       [_problem_text(df, p) for p in errors])
    return configurations


def _problem_text(df, problem):
    config_type = getattr(problem, "config_type", None)
    prop = getattr(problem, "property", None) or getattr(problem, "name", None)
    message = getattr(problem, "message", None) or str(problem)
    if config_type == names.TOPOLOGY:
        where = df.path
    elif config_type and prop and config_type in df.configurations and prop in df.configurations[config_type]:
        where = df.where("deployment", "configurations", config_type, prop)
    else:
        where = df.path
    label = "%s/%s" % (config_type, prop) if config_type and prop else (config_type or "")
    return "%s: %s: %s" % (where, label, masking.mask_text(message)) if label else "%s: %s" % (where, message)


# --- configuration apply ---------------------------------------------------------------------------
def apply_configs(ctx, changes, note):
    """PUT the changed config types as one new service config version. Returns the changed types."""
    changed = [ch for ch in changes if ch.changed]
    for ch in changed:
        for line in configplan.render_diff(ch):
            ctx.say(line)
    if not changed:
        ctx.say("configurations: no change")
        return []
    tag = new_tag()
    body = {"Clusters": {"desired_config": [ch.desired_config(tag, note) for ch in changed]}}
    describe = "new config version: %s" % ", ".join(ch.type for ch in changed)
    try:
        resp = ctx.client.put(ctx.c, body, describe=describe)
    except MaybeSent as exc:
        desired = read_cluster(ctx)["desired"]
        if all((desired.get(ch.type) or {}).get("tag") == tag for ch in changed):
            ctx.log("%s: %s; Ambari has tag %s as desired: the change went through" % (describe, exc, tag))
            resp = None
        else:
            ctx.log("%s: %s; Ambari does not have tag %s: sending it once more" % (describe, exc, tag))
            resp = ctx.client.put(ctx.c, body, describe=describe + " (again)")
    if resp is not None and isinstance(resp.body, dict):
        for res in resp.body.get("resources") or []:
            if res.get("service_config_version") is not None:
                ctx.say("service config version %s created (%s)" % (
                    res.get("service_config_version"), res.get("service_config_version_note") or ""))
    return [ch.type for ch in changed]


def plan_group(spec, existing, stack, rotate):
    """({type: (TypeChange, differs, current ConfigState)}, changed?) for one config group; pure."""
    current = existing["configs"] if existing else {}
    changed = existing is None or sorted(spec.hosts) != existing["hosts"] \
        or spec.description != existing["description"]
    if existing and set(current) != set(spec.configurations):
        changed = True
    per_type = {}
    for config_type in sorted(spec.configurations):
        state = current.get(config_type)
        overrides = dict((k, v) for k, v in spec.configurations[config_type].items())
        base = ConfigState(config_type, state.tag, state.version, dict(
            (k, v) for k, v in state.properties.items() if k in overrides), state.attributes) if state else None
        change = configplan.plan(stack, {config_type: base} if base else {}, {config_type: overrides},
                                 rotate, types=[config_type])[0]
        # A group holds only its overrides, not the stack defaults.
        change.properties = dict((k, v) for k, v in change.properties.items() if k in overrides)
        differs = state is None or change.properties != state.properties
        per_type[config_type] = (change, differs, state)
        changed = changed or differs
    return per_type, changed


def group_properties(spec, config_type, change):
    """The properties a config group stores for one type. Ambari resolves SECRET references only in
    the cluster's desired configs (AmbariManagementControllerImpl.updateCluster), not in config
    groups (ConfigGroupResourceProvider stores what it gets), so a reference is replaced by the
    file's own value, and refused when the file has none."""
    props = dict(change.properties)
    for name, value in sorted(props.items()):
        if masking.is_secret_ref(value):
            wanted = spec.configurations.get(config_type, {}).get(name)
            if wanted in (None, RESET) or masking.is_secret_ref(wanted):
                raise BadInput("config group %s: %s/%s: Ambari has only a secret reference (%s) and config "
                               "groups store values as given; give the password in the file "
                               "({from_env: VAR} or {from_file: PATH})" % (spec.name, config_type, name, value))
            props[name] = wanted
    return props


def plan_group_hosts(ctx, df, existing_groups):
    """Check host membership before any change: a host belongs to at most one config group of the
    service (ConfigGroupResourceProvider.verifyHostList answers 409 'Host is already associated with
    a config group'). Hosts may move between groups of the file; a host held by a group that is not
    in the file is a conflict the operator resolves."""
    in_file = set(spec.name for spec in df.config_groups)
    problems = []
    for spec in df.config_groups:
        for host in spec.hosts:
            for group in existing_groups:
                if group["name"] != spec.name and group["name"] not in in_file and host in group["hosts"]:
                    problems.append("%s: config group %s: host %s is already in config group %s of %s, which "
                                    "is not in the file; Ambari allows one group per host: remove the host "
                                    "from %s in Ambari, or add %s to the file without it"
                                    % (df.where("deployment", "config_groups"), spec.name, host, group["name"],
                                       S, group["name"], group["name"]))
    if problems:
        raise BadInput("%s: config group host conflicts" % df.path, problems)


def sync_config_groups(ctx, df, stack, rotate, note, existing_groups):
    """Create or update the file's config groups. Returns the hosts whose group config changed.

    Hosts moving between groups are first taken out of the groups that lose them, then added to
    the groups that gain them, so no call asks Ambari to put a host in two groups."""
    if not df.config_groups:
        return set()
    plan_group_hosts(ctx, df, existing_groups)
    existing = dict((g["name"], g) for g in existing_groups)
    touched, plans = set(), []
    for spec in df.config_groups:
        group = existing.get(spec.name)
        per_type, changed = plan_group(spec, group, stack, rotate)
        if not changed:
            continue
        tag = new_tag()
        desired = []
        for config_type, (change, differs, state) in sorted(per_type.items()):
            if differs:
                props = group_properties(spec, config_type, change)
                ctx.say("config group %s: %s %s" % (spec.name, config_type, ", ".join(
                    "%s=%s" % (k, masking.mask_value(config_type, k, v)) for k, v in sorted(props.items()))))
                desired.append({"type": config_type, "tag": tag, "properties": props})
            else:
                desired.append({"type": config_type, "tag": state.tag})
        plans.append((spec, group, desired))

    def body(spec, group, desired, hosts):
        group_body = {"cluster_name": ctx.cluster, "group_name": spec.name, "tag": S, "service_name": S,
                      "description": spec.description, "hosts": [{"host_name": h} for h in hosts],
                      "desired_configs": desired, "service_config_version_note": note}
        if group is not None:
            group_body["id"] = group["id"]
        return [{"ConfigGroup": group_body}]

    # 1. groups that lose hosts first (keeping only the hosts they keep)
    for spec, group, desired in plans:
        if group is not None and set(group["hosts"]) - set(spec.hosts):
            keep = sorted(set(group["hosts"]) & set(spec.hosts))
            ctx.say("config group %s: hosts %s -> %s" % (spec.name, ",".join(group["hosts"]) or "-",
                                                         ",".join(keep) or "-"))
            update_group(ctx, group, body(spec, group, desired, keep), spec.name)
            touched.update(group["hosts"])
            group = dict(group, hosts=keep)
            existing[spec.name] = group
    # 2. then creates and the groups that gain hosts or change configs
    for spec, _group, desired in plans:
        group = existing.get(spec.name)
        if group is None:
            ctx.say("config group %s: create on %s" % (spec.name, ", ".join(spec.hosts)))
            create_group(ctx, body(spec, None, desired, spec.hosts), spec.name)
        elif sorted(spec.hosts) != sorted(group["hosts"]) or group is _group:
            if sorted(spec.hosts) != sorted(group["hosts"]):
                ctx.say("config group %s: hosts %s -> %s" % (spec.name, ",".join(group["hosts"]) or "-",
                                                             ",".join(spec.hosts)))
            update_group(ctx, group, body(spec, group, desired, spec.hosts), spec.name)
        touched.update(spec.hosts)
    for name in sorted(set(existing) - set(g.name for g in df.config_groups)):
        ctx.log("note: config group %s of %s is not in the file; left as it is" % (name, S))
    return touched


def _group_conflict(exc, name):
    if exc.status == 409 and "already associated" in (exc.ambari_message or ""):
        return OperationFailed("config group %s: Ambari refused a host (%s); another change of the "
                               "service's config groups happened meanwhile: run the command again"
                               % (name, exc.ambari_message))
    return None


def create_group(ctx, body, name):
    create(ctx, "%s/config_groups" % ctx.c, body, "config group " + name,
           exists=lambda: any(g["name"] == name for g in read_config_groups(ctx)),
           conflict=lambda exc: _group_conflict(exc, name))


def update_group(ctx, group, body, name):
    path = "%s/config_groups/%s" % (ctx.c, group["id"])
    try:
        try:
            ctx.client.put(path, body, describe="update config group " + name)
        except MaybeSent as exc:
            # A group update is a full replacement: sending the same body again is harmless.
            ctx.log("update config group %s: %s; sending the same update again" % (name, exc))
            ctx.client.put(path, body, describe="update config group %s (again)" % name)
    except AmbariHttpError as exc:
        raise _group_conflict(exc, name) or exc


def restart_stale(ctx, rolling, predicted_hosts, settings=None):
    """Restart the started driver hosts whose configs are stale (Ambari's stale_configs flag), except
    those Ambari would skip at SERVICE level for maintenance (host or component in maintenance)."""
    if ctx.dry_run:
        hosts = sorted(predicted_hosts)
        if hosts:
            restart_hosts(ctx, hosts, rolling, "configuration changed", settings)
        return hosts
    stale = read_host_components(ctx, "&HostRoles/stale_configs=true")
    hosts = [hc["host_name"] for hc in stale if hc.get("state") == "STARTED" and allowed("SERVICE", hc)]
    for hc in stale:
        if hc["host_name"] not in hosts:
            ctx.log("stale but not restarted on %s: %s" % (
                hc["host_name"], "it is %s" % hc.get("state") if hc.get("state") != "STARTED" else why_skipped(hc)))
    restart_hosts(ctx, hosts, rolling, "configuration changed", settings)
    return hosts


def plan_configs(ctx, df, opts, cluster, stack, driver_hosts, existing_groups):
    """Plan every config type and validate the result with the core validator and the advisor's
    placement checks, before any change."""
    current = read_current_configs(ctx, cluster["desired"])
    changes = configplan.plan(stack, current, df.desired_overrides(), opts.rotate_secrets)
    env = next(ch for ch in changes if ch.type == names.ENV).properties
    version = kafka_version(ctx, opts.kafka_version or df.kafka_version, env, cluster["stack"])
    local_kafka = read_local_kafka(ctx, cluster["desired"])
    configurations = validate(ctx, df, changes, version, local_kafka)
    check_placement(ctx, df, configurations, version, local_kafka, driver_hosts, existing_groups)
    note = opts.note or df.note or "mm2-ambari %s %s" % (opts.command, df.path.rsplit("/", 1)[-1])
    return changes, note


def check_placement(ctx, df, configurations, version, local_kafka, driver_hosts, existing_groups):
    """Which driver host serves which target, as the service advisor checks it (mm2_core.placement):
    a flow whose target no host serves, missing heartbeats, several drivers per target before 3.5."""
    if not driver_hosts:
        return
    from mm2_core import topology
    topo = topology.build_topology(configurations, version, local_kafka)
    default = [a for a in placement.parse_targets((configurations.get(names.DRIVER) or {}).get("target.clusters"))
               if a in topo.aliases]
    groups = [(g.hosts, g.configurations[names.DRIVER]["target.clusters"]) for g in df.config_groups
              if "target.clusters" in g.configurations.get(names.DRIVER, {})]
    named = set(g.name for g in df.config_groups)
    for group in existing_groups:
        state = group["configs"].get(names.DRIVER)
        if group["name"] not in named and state is not None and "target.clusters" in state.properties:
            groups.append((group["hosts"], state.properties["target.clusters"]))
    targets = advice.host_targets(sorted(driver_hosts), ",".join(default), groups)
    findings = placement.check_placement(topo.aliases, [(f.source, f.target) for f in topo.enabled_flows],
                                         targets, topo.version.key,
                                         heartbeats_enabled=advice.heartbeats_enabled(configurations))
    errors = [f for f in findings if f.level == placement.ERROR]
    for finding in findings:
        if finding not in errors:
            ctx.log("warning: placement: %s" % finding.message)
    if errors:
        raise BadInput("%s: the driver placement cannot work (deployment.hosts, config_groups, "
                       "kafka-mm2-driver/target.clusters)" % df.path, [f.message for f in errors])


# --- commands --------------------------------------------------------------------------------------
def kdc_credential_needed(ctx, cluster):
    """On a kerberized cluster, installing a component makes Ambari create its principals and keytabs
    (AmbariManagementControllerImpl.doStageCreation -> KerberosHelper.ensureIdentities), which needs
    the KDC administrator credential in Ambari's credential store (persisted or temporary). Returns
    None when Ambari has one (or the cluster is not kerberized), else (principal, password) to store
    as a temporary credential. Raises BadInput when there is none to give (before any change)."""
    if not cluster.get("kerberos"):
        return None
    stored = ctx.client.get_or_none("%s/credentials/%s" % (ctx.c, KDC_CREDENTIAL))
    if stored is not None:
        ctx.log("Kerberos: using the KDC administrator credential stored in Ambari (%s)" % (
            (stored.get("Credential") or {}).get("type") or "stored"))
        return None
    given = credentials.kdc_admin()
    if given is None:
        raise BadInput(credentials.KDC_HELP % {"cluster": ctx.cluster})
    return given


def store_kdc_credential(ctx, given):
    principal, password = given
    body = {"Credential": {"principal": principal, "key": password, "type": "temporary"}}
    path = "%s/credentials/%s" % (ctx.c, KDC_CREDENTIAL)
    try:
        try:
            ctx.client.post(path, body, describe="store the KDC administrator credential of %s "
                                                 "(temporary: Ambari keeps it in memory only)" % principal)
        except MaybeSent:
            if ctx.client.get_or_none(path) is None:
                ctx.client.post(path, body, describe="store the KDC administrator credential (again)")
    except AmbariHttpError as exc:
        if exc.status != 409:  # stored meanwhile (CredentialResourceProvider: 'already exists')
            raise


def kerberos_hint(exc):
    if isinstance(exc, AmbariHttpError) and "KDC administrator credentials" in (exc.ambari_message or ""):
        return BadInput("Ambari needs the KDC administrator credential to create the Kerberos identities of "
                        "%s (Ambari: %s): set MM2_KDC_ADMIN_PRINCIPAL and MM2_KDC_ADMIN_PASSWORD, or run "
                        "interactively to be prompted" % (C, exc.ambari_message.splitlines()[0]))
    return None


def verify_started(ctx, hosts, what):
    """After install and start: every driver of `hosts` must be STARTED, except an installed one kept
    stopped in maintenance mode. Ambari skips host components in maintenance without an error (200
    without a request), so a driver it never installed shows here."""
    if ctx.dry_run:
        return
    hcs = dict((hc["host_name"], hc) for hc in read_host_components(ctx) if hc.get("component_name") == C)
    problems = []
    for host in sorted(hosts):
        hc = hcs.get(host)
        if hc is None or hc.get("state") == "STARTED":
            continue
        if hc.get("state") not in NOT_INSTALLED and not allowed("SERVICE", hc):
            # Installed, stopped and in maintenance: what maintenance mode is for; left as it is.
            ctx.log("note: %s on %s is %s and left so: %s" % (C, host, hc.get("state"), why_skipped(hc)))
            continue
        reason = why_skipped(hc) if not allowed("SERVICE", hc) else "see the request's output in Ambari"
        problems.append("%s on %s is %s (%s)%s" % (
            C, host, hc.get("state"), reason,
            ": turn maintenance mode off there and run again, or take the host out of deployment.hosts"
            if not allowed("SERVICE", hc) else ""))
    if problems:
        raise OperationFailed("%s: not every driver runs" % what, problems)


def deploy(ctx, df, opts):
    cluster = read_cluster(ctx)
    _check_stack(df, cluster)
    if not df.hosts:
        raise BadInput("%s: deployment.hosts: list the hosts that run %s" % (df.where("deployment"), C))
    known = read_cluster_hosts(ctx)
    unknown = [h for h in df.hosts if h not in known]
    if unknown:
        raise BadInput("%s: deployment.hosts: %s %s not in cluster %s (its hosts: %s)" % (
            df.where("deployment", "hosts"), ", ".join(unknown), "is" if len(unknown) == 1 else "are",
            ctx.cluster, ", ".join(sorted(known)) or "none"))
    stack = read_stack_defaults(ctx, cluster["stack"])
    service = read_service(ctx)
    hcs = read_host_components(ctx) if service else []
    groups = read_config_groups(ctx)
    drivers = set(df.hosts) | set(hc["host_name"] for hc in hcs if hc.get("component_name") == C)
    # Plan and validate before the first change: bad input must not leave a half-made service.
    changes, note = plan_configs(ctx, df, opts, cluster, stack, drivers, groups)
    plan_group_hosts(ctx, df, groups)
    have = set(hc["host_name"] for hc in hcs if hc.get("component_name") == C)
    new_hosts = [h for h in df.hosts if h not in have]
    needs_install = new_hosts or [hc for hc in hcs if hc.get("state") in NOT_INSTALLED]
    kdc = kdc_credential_needed(ctx, cluster) if needs_install else None

    fresh = service is None
    if fresh:
        info = {"service_name": S}
        if df.repository_version_id is not None:
            info["desired_repository_version_id"] = df.repository_version_id
        try:
            create(ctx, "%s/services" % ctx.c, [{"ServiceInfo": info}], "service " + S,
                   exists=exists_at(ctx, "%s/services/%s" % (ctx.c, S)))
        except AmbariHttpError as exc:
            if exc.status == 400 and "desired_repository_version_id" in (exc.ambari_message or ""):
                raise BadInput("%s; set deployment.repository_version_id to the cluster's current "
                               "repository version (GET %s/api/v1/clusters/%s/stack_versions)"
                               % (exc, ctx.client.base, ctx.cluster))
            raise
    components = [c.get("ServiceComponentInfo", {}).get("component_name") for c in (service or {}).get("components", [])]
    if C not in components:
        create(ctx, "%s/services/%s/components/%s" % (ctx.c, S, C), None, "component " + C,
               exists=exists_at(ctx, "%s/services/%s/components/%s" % (ctx.c, S, C)))
    for host in new_hosts:
        path = "%s/hosts/%s/host_components/%s" % (ctx.c, host, C)
        create(ctx, path, None, "%s on %s" % (C, host), exists=exists_at(ctx, path))
    extra = sorted(have - set(df.hosts))
    if extra:
        ctx.log("note: %s also runs on %s, not in deployment.hosts; left as it is (remove it in Ambari)"
                % (C, ", ".join(extra)))

    changed_types = apply_configs(ctx, changes, note)
    group_hosts = sync_config_groups(ctx, df, stack, opts.rotate_secrets, note, groups)

    started_before = [hc["host_name"] for hc in hcs if hc.get("state") == "STARTED"]
    if needs_install:
        if kdc is not None:
            store_kdc_credential(ctx, kdc)
        try:
            if fresh or not started_before:
                submit(ctx, "PUT", "%s/services/%s" % (ctx.c, S),
                       service_state_body(ctx, "INSTALLED", "Install %s" % names.SERVICE_DISPLAY_NAME), "install " + S)
            else:  # a stop of the running hosts must not happen: install only the new ones
                submit(ctx, "PUT", "%s/host_components?HostRoles/service_name=%s&HostRoles/state.in(INIT,INSTALL_FAILED)"
                       % (ctx.c, S), host_component_state_body(ctx, "INSTALLED", "Install %s on new hosts"
                                                               % names.SERVICE_DISPLAY_NAME),
                       "install " + S + " on new hosts")
        except AmbariHttpError as exc:
            raise kerberos_hint(exc) or exc
    if fresh or new_hosts or any(hc.get("state") != "STARTED" and allowed("SERVICE", hc) for hc in hcs):
        submit(ctx, "PUT", "%s/services/%s" % (ctx.c, S),
               service_state_body(ctx, "STARTED", "Start %s" % names.SERVICE_DISPLAY_NAME), "start " + S)
    verify_started(ctx, df.hosts, "deploy")
    predicted = set(started_before) if changed_types else set()
    predicted |= set(h for h in group_hosts if h in started_before)
    restarted = [] if opts.no_restart else restart_stale(ctx, opts.rolling, predicted, batch_settings(opts))
    changed = fresh or new_hosts or changed_types or group_hosts or restarted
    if changed and not getattr(opts, "no_service_check", False):
        # The web UI runs the service check after it starts a new service (add service wizard).
        service_check(ctx)
    _summary(ctx, changed)
    return 0


def configure(ctx, df, opts):
    cluster = read_cluster(ctx)
    _check_stack(df, cluster)
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s: run `mm2-ambari deploy %s` first"
                              % (S, ctx.cluster, df.path))
    stack = read_stack_defaults(ctx, cluster["stack"])
    hcs = read_host_components(ctx)
    groups = read_config_groups(ctx)
    drivers = set(hc["host_name"] for hc in hcs if hc.get("component_name") == C)
    changes, note = plan_configs(ctx, df, opts, cluster, stack, drivers, groups)
    plan_group_hosts(ctx, df, groups)
    changed_types = apply_configs(ctx, changes, note)
    group_hosts = sync_config_groups(ctx, df, stack, opts.rotate_secrets, note, groups)
    started = set(hc["host_name"] for hc in hcs if hc.get("state") == "STARTED" and allowed("SERVICE", hc))
    predicted = set(started) if changed_types else set()
    predicted |= (group_hosts & started)
    predicted |= set(hc["host_name"] for hc in hcs if hc.get("stale_configs") and hc["host_name"] in started)
    restarted = [] if opts.no_restart else restart_stale(ctx, opts.rolling, predicted, batch_settings(opts))
    if opts.no_restart and (changed_types or group_hosts):
        ctx.say("not restarted (--no-restart): run `mm2-ambari restart --stale-only` to apply")
    _summary(ctx, changed_types or group_hosts or restarted)
    return 0


def restart(ctx, opts):
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    hcs = read_host_components(ctx, "&HostRoles/stale_configs=true" if opts.stale_only else "")
    hcs = [hc for hc in hcs if hc.get("component_name") == C]
    if opts.hosts:
        unknown = sorted(set(opts.hosts) - set(hc["host_name"] for hc in read_host_components(ctx)))
        if unknown:
            raise BadInput("--hosts: %s does not run %s" % (", ".join(unknown), C))
        hcs = [hc for hc in hcs if hc["host_name"] in opts.hosts]
    # As the web UI's restart: hosts and components in maintenance are left out; a service in
    # maintenance is not (MaintenanceStateHelper.isOperationAllowed at SERVICE level).
    for hc in hcs:
        if not allowed("SERVICE", hc):
            ctx.log("skipped %s: %s" % (hc["host_name"], why_skipped(hc)))
    hosts = [hc["host_name"] for hc in hcs if allowed("SERVICE", hc)]
    if not hosts:
        ctx.say("nothing to restart")
        return 0
    restart_hosts(ctx, hosts, opts.rolling, "stale configs" if opts.stale_only else "requested", batch_settings(opts))
    if not ctx.dry_run:
        ctx.say("restarted %s on %s" % (C, ", ".join(sorted(hosts))))
    return 0


def health_problems(hcs):
    """Why host components are unhealthy: never installed (INIT, INSTALL_FAILED), or not in the state
    Ambari wants, except when maintenance mode (any effective state but OFF) silences them."""
    problems = []
    for hc in hcs:
        state, desired = hc.get("state"), hc.get("desired_state")
        if state in NOT_INSTALLED:
            problems.append((hc, "%s on %s is %s: not installed%s" % (
                hc["component_name"], hc["host_name"], state,
                " (%s)" % why_skipped(hc) if maintenance(hc) != "OFF" else "")))
        elif state != desired and maintenance(hc) == "OFF":
            problems.append((hc, "%s on %s is %s, Ambari wants %s" % (hc["component_name"], hc["host_name"],
                                                                       state, desired)))
    return problems


def status(ctx, opts):
    cluster = read_cluster(ctx)
    service = read_service(ctx)
    if service is None:
        if opts.json:
            ctx.say(json.dumps({"service": S, "installed": False}))
        else:
            ctx.say("%s is not installed in cluster %s" % (S, ctx.cluster))
        return 1
    hcs = read_host_components(ctx)
    info = service.get("ServiceInfo") or {}
    state, service_maintenance = info.get("state"), info.get("maintenance_state") or "OFF"
    problems = health_problems(hcs)
    if opts.json:
        ctx.say(json.dumps({"service": S, "installed": True, "state": state, "maintenance_state": service_maintenance,
                            "stack": "-".join(cluster["stack"]), "host_components": hcs,
                            "healthy": not problems, "problems": [text for _hc, text in problems]},
                           indent=2, sort_keys=True))
    else:
        ctx.say("%s in cluster %s (%s): service state %s%s" % (
            S, ctx.cluster, "-".join(cluster["stack"]), state,
            ", maintenance mode %s" % service_maintenance if service_maintenance != "OFF" else ""))
        rows = [("HOST", "COMPONENT", "STATE", "DESIRED", "STALE CONFIGS", "MAINTENANCE")]
        rows += [(hc.get("host_name"), hc.get("component_name"), hc.get("state"), hc.get("desired_state"),
                  "yes" if hc.get("stale_configs") else "no", maintenance(hc)) for hc in hcs]
        _table(ctx, rows)
        for _hc, text in problems:
            ctx.say(text)
    return 1 if problems else 0


SEVERITY = {"CRITICAL": 3, "WARNING": 2, "UNKNOWN": 1, "OK": 0}


def alerts(ctx, opts):
    body = ctx.client.get("%s/alerts?Alert/service_name=%s&fields=Alert/*" % (ctx.c, S))
    items = [item.get("Alert") or {} for item in body.get("items", [])]
    items.sort(key=lambda a: (-SEVERITY.get(a.get("state"), 1), a.get("label") or a.get("definition_name") or "",
                              a.get("host_name") or ""))
    for alert in items:
        alert["text"] = masking.mask_text(alert.get("text") or "")
    if opts.json:
        ctx.say(json.dumps(items, indent=2, sort_keys=True))
    elif not items:
        ctx.say("no alerts for %s (is the service installed?)" % S)
    else:
        rows = [("STATE", "ALERT", "HOST", "MAINTENANCE", "TEXT")]
        rows += [(a.get("state"), a.get("label") or a.get("definition_name"), a.get("host_name") or "-",
                  a.get("maintenance_state") or "OFF", (a.get("text") or "").replace("\n", " ")) for a in items]
        _table(ctx, rows)
    if opts.fail_on:
        threshold = SEVERITY[opts.fail_on]
        firing = [a for a in items if SEVERITY.get(a.get("state"), 0) >= threshold
                  and a.get("maintenance_state") != "ON"]
        if firing:
            ctx.log("%d alert(s) at %s or worse" % (len(firing), opts.fail_on))
            return 1
    return 0


def service_check(ctx):
    """The service check as the web UI sends it (ajax.js 'service.item.smoke', SERVICE level)."""
    body = {"RequestInfo": {"context": "%s Service Check" % names.SERVICE_DISPLAY_NAME,
                            "command": names.SERVICE_CHECK_ROLE,
                            "operation_level": {"level": "SERVICE", "cluster_name": ctx.cluster, "service_name": S}},
            "Requests/resource_filters": [{"service_name": S}]}
    tasks = submit(ctx, "POST", "%s/requests" % ctx.c, body, "service check")
    if tasks is None:
        raise OperationFailed("Ambari ran no service check (no driver host it may use: all in maintenance?)")
    _print_tasks(ctx, tasks)
    if not ctx.dry_run:
        ctx.say("service check passed")


def check(ctx, opts):
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    service_check(ctx)
    return 0


def run_command(ctx, opts):
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    hcs = [hc for hc in read_host_components(ctx) if hc.get("component_name") == C]
    all_hosts = [hc["host_name"] for hc in hcs]
    if opts.hosts:
        unknown = sorted(set(opts.hosts) - set(all_hosts))
        if unknown:
            raise BadInput("--hosts: %s does not run %s (it runs on %s)" % (", ".join(unknown), C, ", ".join(all_hosts)))
        hosts = list(opts.hosts)
    elif opts.all_hosts:
        hosts = all_hosts
    else:
        started = [hc["host_name"] for hc in hcs if hc.get("state") == "STARTED" and allowed("CLUSTER", hc)]
        hosts = (started or all_hosts)[:1]
    if not hosts:
        raise OperationFailed("%s has no host to run %s on" % (C, opts.custom_command))
    # As the web UI's custom command (ajax.js 'service.item.executeCustomCommand'): no operation
    # level, so Ambari guesses HOST_COMPONENT from the filter and runs on the hosts named.
    info = {"context": "%s %s" % (names.SERVICE_DISPLAY_NAME, opts.custom_command), "command": opts.custom_command}
    if getattr(opts, "parameters", None):
        info["parameters"] = dict(opts.parameters)  # commandParams/<name> on the agent
    body = {"RequestInfo": info,
            "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(hosts)}]}
    try:
        tasks = run_async(ctx, "POST", "%s/requests" % ctx.c, body, opts.custom_command)
    except Exception as exc:
        _print_tasks(ctx, getattr(exc, "tasks", []))
        raise
    _print_tasks(ctx, tasks)
    return 0


FLOW_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*->\s*([A-Za-z0-9_.-]+)\s*$")


def flow_command(ctx, opts):
    """`mm2-ambari flow pause|resume|stop --flow A->B` (connect mode): the FLOW_* custom command on every driver
    host; the hosts whose Connect worker serves the flow act on it, the others say so. No host serving it is an
    error naming the flow."""
    match = FLOW_NAME.match(opts.flow or "")
    if not match:
        raise BadInput("--flow must name one flow as SOURCE->TARGET (cluster aliases), e.g. --flow A->B; got %r"
                       % (opts.flow,))
    flow = "%s->%s" % match.groups()
    command = names.FLOW_COMMANDS[opts.action]
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    hosts = [hc["host_name"] for hc in read_host_components(ctx) if hc.get("component_name") == C]
    if not hosts:
        raise OperationFailed("%s has no host to run %s on" % (C, command))
    info = {"context": "%s %s %s" % (names.SERVICE_DISPLAY_NAME, opts.action, flow), "command": command,
            "parameters": {"flow": flow}}
    body = {"RequestInfo": info,
            "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(hosts)}]}
    try:
        tasks = run_async(ctx, "POST", "%s/requests" % ctx.c, body, command)
    except Exception as exc:
        _print_tasks(ctx, getattr(exc, "tasks", []))
        raise
    _print_tasks(ctx, tasks)
    outs = [_structured(t) for t in tasks]
    if tasks and outs and all(o is not None and o.get("served") is False for o in outs):
        raise OperationFailed("flow %s runs on no driver host: %s" % (flow, ", ".join(
            "%s serves %s" % (t.get("host_name"), o.get("target_here")) for t, o in zip(tasks, outs))))
    return 0


def _structured(task):
    structured = task.get("structured_out")
    if isinstance(structured, str):
        try:
            return json.loads(structured) if structured.strip() else None
        except ValueError:
            return None
    return structured if isinstance(structured, dict) else None


def delete_result_errors(resp):
    """Ambari answers a DELETE of several host components 200 with {"deleteResult": [{"deleted":
    {"key"}} | {"error": {"key", "code", "message"}}]} (JsonSerializer.processResultMetadata): a
    failed delete is not an HTTP error there."""
    body = getattr(resp, "body", None)
    if not isinstance(body, dict):
        return []
    return [item["error"] for item in body.get("deleteResult") or [] if isinstance(item, dict) and item.get("error")]


def remove(ctx, opts):
    service = read_service(ctx)
    if service is None:
        ctx.say("%s is not installed in cluster %s: nothing to remove" % (S, ctx.cluster))
        return 0
    hcs = read_host_components(ctx)
    running = [hc for hc in hcs if hc.get("state") not in REMOVABLE]
    if running or (service.get("ServiceInfo") or {}).get("state") == "STARTED":
        run_async(ctx, "PUT", "%s/services/%s" % (ctx.c, S),
                  service_state_body(ctx, "INSTALLED", "Stop %s" % names.SERVICE_DISPLAY_NAME), "stop " + S)
    # A stop at SERVICE level skips hosts and components in maintenance; the removal needs them
    # stopped too, so they are stopped one by one at HOST_COMPONENT level (as the host page does).
    for hc in running:
        if not allowed("SERVICE", hc):
            ctx.log("stopping %s on %s one by one: %s" % (hc["component_name"], hc["host_name"], why_skipped(hc)))
            run_async(ctx, "PUT", "%s/hosts/%s/host_components/%s" % (ctx.c, hc["host_name"], hc["component_name"]),
                      host_component_state_body(ctx, "INSTALLED", "Stop %s on %s" % (
                          names.COMPONENT_DISPLAY_NAME, hc["host_name"]), host=hc["host_name"]),
                      "stop %s on %s" % (hc["component_name"], hc["host_name"]))
    if hcs:
        resp = ctx.client.delete("%s/host_components?HostRoles/service_name=%s" % (ctx.c, S),
                                 describe="delete the host components of %s (%s)" % (
                                     S, ", ".join("%s on %s" % (hc["component_name"], hc["host_name"]) for hc in hcs)))
        errors = delete_result_errors(resp)
        if errors:
            raise OperationFailed("Ambari did not delete every host component of %s; the service is kept" % S,
                                  ["%s: %s %s" % (e.get("key"), e.get("code"), masking.mask_text(str(e.get("message"))))
                                   for e in errors])
    ctx.client.delete("%s/services/%s" % (ctx.c, S), describe="delete service %s (Ambari drops its configs "
                                                               "and config groups)" % S)
    if not ctx.dry_run:
        ctx.say("%s removed from cluster %s" % (S, ctx.cluster))
    return 0


# --- output ----------------------------------------------------------------------------------------
def _check_stack(df, cluster):
    if df.stack and tuple(df.stack) != tuple(cluster["stack"]):
        raise BadInput("%s: deployment.stack is %s %s but cluster runs %s %s" % (
            df.where("deployment", "stack"), df.stack[0], df.stack[1], cluster["stack"][0], cluster["stack"][1]))


def _summary(ctx, changed):
    if ctx.dry_run:
        ctx.say("dry run: %d call(s) planned, none sent" % len(ctx.client.planned))
    elif changed:
        ctx.say("done: %d change(s) sent to Ambari" % len(ctx.client.planned))
    else:
        ctx.say("nothing to change: Ambari already matches the file")


def _print_tasks(ctx, tasks):
    for task in tasks:
        ctx.say("--- %s on %s: %s" % (task.get("custom_command_name") or task.get("role"), task.get("host_name"),
                                      task.get("status")))
        structured = task.get("structured_out")
        if isinstance(structured, str):
            try:
                structured = json.loads(structured) if structured.strip() else None
            except ValueError:
                structured = None
        if structured:
            ctx.say(masking.mask_text(json.dumps(structured, indent=2, sort_keys=True)))
        elif task.get("stdout"):
            ctx.say(masking.mask_text(str(task["stdout"]).rstrip()))


def _table(ctx, rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        ctx.say("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
