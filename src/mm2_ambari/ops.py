"""The REST operations behind deploy, configure, restart, status, alerts, check, run and remove.

Every operation first reads Ambari's state (GET), then computes what must change, then sends only
those changes. Re-running with the same file therefore sends nothing. With --dry-run the reads
still happen (they are needed to plan), the changes are printed instead of sent.
"""
import json
import time

from mm2_core import advice, names, placement, versions
from mm2_ambari import configplan, masking
from mm2_ambari.configplan import ConfigState, StackDefaults
from mm2_ambari.errors import AmbariHttpError, BadInput, OperationFailed

S, C = names.SERVICE, names.COMPONENT
HC_FIELDS = ("HostRoles/host_name,HostRoles/component_name,HostRoles/state,HostRoles/desired_state,"
             "HostRoles/stale_configs,HostRoles/maintenance_state")


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
    body = ctx.client.get_or_none("%s?fields=Clusters/version,Clusters/desired_configs" % ctx.c)
    if body is None:
        raise BadInput("cluster %r not found on %s: check deployment.ambari.cluster or --cluster "
                       "(GET %s/api/v1/clusters lists them)" % (ctx.cluster, ctx.client.base, ctx.client.base))
    info = body.get("Clusters") or {}
    stack_name, _, stack_version = (info.get("version") or "").partition("-")
    return {"stack": (stack_name, stack_version), "desired": info.get("desired_configs") or {}}


def read_service(ctx):
    """The service resource, or None when it is not installed (404 Service not found)."""
    try:
        return ctx.client.get("%s/services/%s?fields=ServiceInfo/state,components/ServiceComponentInfo/"
                              "component_name" % (ctx.c, S))
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
def run_async(ctx, method, path, body, label):
    """Send a call that may start an Ambari request; wait for it. Returns the request's tasks."""
    resp = getattr(ctx.client, method.lower())(path, body, describe=label)
    if resp is None:  # dry run
        ctx.say("[dry-run]     then wait for the request Ambari returns (%s)" % label)
        return []
    if resp.request_id is None:
        ctx.log("%s: nothing to do (Ambari answered %d without a request)" % (label, resp.status))
        return []
    return ctx.waiter.wait(resp.request_id, label)


def create(ctx, path, body, what):
    """POST that treats 409 (already exists, e.g. created meanwhile by someone else) as done."""
    try:
        ctx.client.post(path, body, describe="create " + what)
    except AmbariHttpError as exc:
        if exc.status != 409:
            raise
        ctx.log("%s already exists (Ambari: %s); continuing" % (what, exc.ambari_message))


def request_body(ctx, command, context, hosts=None, level="SERVICE", host=None):
    info = {"context": context, "command": command,
            "operation_level": {"level": level, "cluster_name": ctx.cluster, "service_name": S}}
    filt = {"service_name": S}
    if level == "HOST_COMPONENT":
        info["operation_level"].update({"hostcomponent_name": C, "host_name": host})
    if hosts is not None:
        filt.update({"component_name": C, "hosts": ",".join(hosts)})
    return {"RequestInfo": info, "Requests/resource_filters": [filt]}


def restart_hosts(ctx, hosts, rolling, why):
    hosts = sorted(hosts)
    if not hosts:
        return
    if not rolling:
        run_async(ctx, "POST", "%s/requests" % ctx.c,
                  request_body(ctx, "RESTART", "Restart %s (%s)" % (names.COMPONENT_DISPLAY_NAME, why), hosts),
                  "restart %s on %s" % (C, ",".join(hosts)))
        return
    for index, host in enumerate(hosts, 1):
        run_async(ctx, "POST", "%s/requests" % ctx.c,
                  request_body(ctx, "RESTART", "Rolling restart %s %d/%d on %s (%s)" % (
                      names.COMPONENT_DISPLAY_NAME, index, len(hosts), host, why), [host],
                      level="HOST_COMPONENT", host=host),
                  "rolling restart %d/%d: %s" % (index, len(hosts), host))


def kafka_version(ctx, explicit, env, stack):
    """The Kafka version to validate for: --kafka-version / deployment.kafka_version, else what the
    service advisor would use (advice.kafka_version_for_validation: the override, the stack's Kafka
    when MM2 runs from it, the tarball or Kafka home name). The advisor's last resort, an assumed
    version, is not good enough for a pipeline: then the operator must say."""
    if explicit:
        try:
            versions.KafkaVersion.parse(explicit)
        except ValueError as exc:
            raise BadInput("Kafka version: %s" % exc)
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
    resp = ctx.client.put(ctx.c, body, describe="new config version: %s" % ", ".join(ch.type for ch in changed))
    if resp is not None and isinstance(resp.body, dict):
        for res in resp.body.get("resources") or []:
            if res.get("service_config_version") is not None:
                ctx.say("service config version %s created (%s)" % (
                    res.get("service_config_version"), res.get("service_config_version_note") or ""))
    return [ch.type for ch in changed]


def plan_group(spec, existing, stack, rotate):
    """(desired_configs list, changed?) for one config group; pure."""
    current = existing["configs"] if existing else {}
    items, changed = [], existing is None or sorted(spec.hosts) != existing["hosts"] \
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


def sync_config_groups(ctx, df, stack, rotate, note, existing_groups):
    """Create or update the file's config groups. Returns the hosts whose group config changed."""
    if not df.config_groups:
        return set()
    existing = dict((g["name"], g) for g in existing_groups)
    touched = set()
    for spec in df.config_groups:
        group = existing.get(spec.name)
        per_type, changed = plan_group(spec, group, stack, rotate)
        if not changed:
            continue
        tag = new_tag()
        desired = []
        for config_type, (change, differs, state) in sorted(per_type.items()):
            if differs:
                ctx.say("config group %s: %s %s" % (spec.name, config_type, ", ".join(
                    "%s=%s" % (k, masking.mask_value(config_type, k, v)) for k, v in sorted(change.properties.items()))))
                desired.append({"type": config_type, "tag": tag, "properties": change.properties})
            else:
                desired.append({"type": config_type, "tag": state.tag})
        group_body = {"cluster_name": ctx.cluster, "group_name": spec.name, "tag": S, "service_name": S,
                      "description": spec.description, "hosts": [{"host_name": h} for h in spec.hosts],
                      "desired_configs": desired, "service_config_version_note": note}
        if group is None:
            ctx.say("config group %s: create on %s" % (spec.name, ", ".join(spec.hosts)))
            create(ctx, "%s/config_groups" % ctx.c, [{"ConfigGroup": group_body}], "config group " + spec.name)
        else:
            if sorted(spec.hosts) != group["hosts"]:
                ctx.say("config group %s: hosts %s -> %s" % (spec.name, ",".join(group["hosts"]), ",".join(spec.hosts)))
            group_body["id"] = group["id"]
            ctx.client.put("%s/config_groups/%s" % (ctx.c, group["id"]), [{"ConfigGroup": group_body}],
                           describe="update config group " + spec.name)
            touched.update(group["hosts"])
        touched.update(spec.hosts)
    for name in sorted(set(existing) - set(g.name for g in df.config_groups)):
        ctx.log("note: config group %s of %s is not in the file; left as it is" % (name, S))
    return touched


def restart_stale(ctx, rolling, predicted_hosts):
    """Restart the started driver hosts whose configs are stale (Ambari's stale_configs flag)."""
    if ctx.dry_run:
        hosts = sorted(predicted_hosts)
        if hosts:
            restart_hosts(ctx, hosts, rolling, "configuration changed")
        return hosts
    stale = read_host_components(ctx, "&HostRoles/stale_configs=true")
    hosts = [hc["host_name"] for hc in stale if hc.get("state") == "STARTED" and hc.get("maintenance_state") != "ON"]
    skipped = [hc["host_name"] for hc in stale if hc["host_name"] not in hosts]
    if skipped:
        ctx.log("stale but not restarted (not started, or in maintenance mode): %s" % ", ".join(skipped))
    restart_hosts(ctx, hosts, rolling, "configuration changed")
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

    fresh = service is None
    if fresh:
        info = {"service_name": S}
        if df.repository_version_id is not None:
            info["desired_repository_version_id"] = df.repository_version_id
        try:
            create(ctx, "%s/services" % ctx.c, [{"ServiceInfo": info}], "service " + S)
        except AmbariHttpError as exc:
            if exc.status == 400 and "desired_repository_version_id" in (exc.ambari_message or ""):
                raise BadInput("%s; set deployment.repository_version_id to the cluster's current "
                               "repository version (GET %s/api/v1/clusters/%s/stack_versions)"
                               % (exc, ctx.client.base, ctx.cluster))
            raise
    components = [c.get("ServiceComponentInfo", {}).get("component_name") for c in (service or {}).get("components", [])]
    if C not in components:
        create(ctx, "%s/services/%s/components/%s" % (ctx.c, S, C), None, "component " + C)
    have = set(hc["host_name"] for hc in hcs if hc.get("component_name") == C)
    new_hosts = [h for h in df.hosts if h not in have]
    for host in new_hosts:
        create(ctx, "%s/hosts/%s/host_components/%s" % (ctx.c, host, C), None, "%s on %s" % (C, host))
    extra = sorted(have - set(df.hosts))
    if extra:
        ctx.log("note: %s also runs on %s, not in deployment.hosts; left as it is (remove it in Ambari)"
                % (C, ", ".join(extra)))

    changed_types = apply_configs(ctx, changes, note)
    group_hosts = sync_config_groups(ctx, df, stack, opts.rotate_secrets, note, groups)

    started_before = [hc["host_name"] for hc in hcs if hc.get("state") == "STARTED"]
    needs_install = new_hosts or [hc for hc in hcs if hc.get("state") in ("INIT", "INSTALL_FAILED")]
    if needs_install:
        if fresh or not started_before:
            run_async(ctx, "PUT", "%s/services/%s" % (ctx.c, S),
                      {"RequestInfo": {"context": "Install %s" % names.SERVICE_DISPLAY_NAME},
                       "Body": {"ServiceInfo": {"state": "INSTALLED"}}}, "install " + S)
        else:  # a stop of the running hosts must not happen: install only the new ones
            run_async(ctx, "PUT", "%s/host_components?HostRoles/service_name=%s&HostRoles/state.in(INIT,INSTALL_FAILED)"
                      % (ctx.c, S), {"RequestInfo": {"context": "Install %s on new hosts" % names.SERVICE_DISPLAY_NAME},
                                     "Body": {"HostRoles": {"state": "INSTALLED"}}}, "install " + S + " on new hosts")
    if fresh or new_hosts or any(hc.get("state") != "STARTED" and hc.get("maintenance_state") != "ON" for hc in hcs):
        run_async(ctx, "PUT", "%s/services/%s" % (ctx.c, S),
                  {"RequestInfo": {"context": "Start %s" % names.SERVICE_DISPLAY_NAME},
                   "Body": {"ServiceInfo": {"state": "STARTED"}}}, "start " + S)
    predicted = set(started_before) if changed_types else set()
    predicted |= set(h for h in group_hosts if h in started_before)
    restarted = [] if opts.no_restart else restart_stale(ctx, opts.rolling, predicted)
    _summary(ctx, fresh or new_hosts or changed_types or group_hosts or restarted)
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
    changed_types = apply_configs(ctx, changes, note)
    group_hosts = sync_config_groups(ctx, df, stack, opts.rotate_secrets, note, groups)
    started = set(hc["host_name"] for hc in hcs if hc.get("state") == "STARTED" and hc.get("maintenance_state") != "ON")
    predicted = set(started) if changed_types else set()
    predicted |= (group_hosts & started)
    predicted |= set(hc["host_name"] for hc in hcs if hc.get("stale_configs") and hc["host_name"] in started)
    restarted = [] if opts.no_restart else restart_stale(ctx, opts.rolling, predicted)
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
    skipped = [hc["host_name"] for hc in hcs if hc.get("maintenance_state") == "ON"]
    if skipped:
        ctx.log("skipped (maintenance mode): %s" % ", ".join(skipped))
    hosts = [hc["host_name"] for hc in hcs if hc.get("maintenance_state") != "ON"]
    if not hosts:
        ctx.say("nothing to restart")
        return 0
    restart_hosts(ctx, hosts, opts.rolling, "stale configs" if opts.stale_only else "requested")
    if not ctx.dry_run:
        ctx.say("restarted %s on %s" % (C, ", ".join(sorted(hosts))))
    return 0


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
    state = (service.get("ServiceInfo") or {}).get("state")
    bad = [hc for hc in hcs if hc.get("state") != hc.get("desired_state") and hc.get("maintenance_state") != "ON"]
    if opts.json:
        ctx.say(json.dumps({"service": S, "installed": True, "state": state,
                            "stack": "-".join(cluster["stack"]), "host_components": hcs,
                            "healthy": not bad}, indent=2, sort_keys=True))
    else:
        ctx.say("%s in cluster %s (%s): service state %s" % (S, ctx.cluster, "-".join(cluster["stack"]), state))
        rows = [("HOST", "COMPONENT", "STATE", "DESIRED", "STALE CONFIGS", "MAINTENANCE")]
        rows += [(hc.get("host_name"), hc.get("component_name"), hc.get("state"), hc.get("desired_state"),
                  "yes" if hc.get("stale_configs") else "no", hc.get("maintenance_state") or "OFF") for hc in hcs]
        _table(ctx, rows)
        for hc in bad:
            ctx.say("%s on %s is %s, Ambari wants %s" % (hc["component_name"], hc["host_name"], hc.get("state"),
                                                         hc.get("desired_state")))
    return 1 if bad else 0


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


def check(ctx, opts):
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    body = {"RequestInfo": {"context": "%s Service Check" % names.SERVICE_DISPLAY_NAME,
                            "command": names.SERVICE_CHECK_ROLE,
                            "operation_level": {"level": "SERVICE", "cluster_name": ctx.cluster, "service_name": S}},
            "Requests/resource_filters": [{"service_name": S}]}
    tasks = run_async(ctx, "POST", "%s/requests" % ctx.c, body, "service check")
    _print_tasks(ctx, tasks)
    if not ctx.dry_run:
        ctx.say("service check passed")
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
        started = [hc["host_name"] for hc in hcs if hc.get("state") == "STARTED"]
        hosts = (started or all_hosts)[:1]
    if not hosts:
        raise OperationFailed("%s has no host to run %s on" % (C, opts.custom_command))
    body = {"RequestInfo": {"context": "%s %s" % (names.SERVICE_DISPLAY_NAME, opts.custom_command),
                            "command": opts.custom_command},
            "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(hosts)}]}
    try:
        tasks = run_async(ctx, "POST", "%s/requests" % ctx.c, body, opts.custom_command)
    except Exception as exc:
        _print_tasks(ctx, getattr(exc, "tasks", []))
        raise
    _print_tasks(ctx, tasks)
    return 0


def remove(ctx, opts):
    service = read_service(ctx)
    if service is None:
        ctx.say("%s is not installed in cluster %s: nothing to remove" % (S, ctx.cluster))
        return 0
    hcs = read_host_components(ctx)
    if any(hc.get("state") not in ("INIT", "INSTALLED", "INSTALL_FAILED", "UNINSTALLED", "UNKNOWN", "DISABLED")
           for hc in hcs) or (service.get("ServiceInfo") or {}).get("state") == "STARTED":
        run_async(ctx, "PUT", "%s/services/%s" % (ctx.c, S),
                  {"RequestInfo": {"context": "Stop %s" % names.SERVICE_DISPLAY_NAME},
                   "Body": {"ServiceInfo": {"state": "INSTALLED"}}}, "stop " + S)
    for hc in hcs:
        ctx.client.delete("%s/hosts/%s/host_components/%s" % (ctx.c, hc["host_name"], hc["component_name"]),
                          describe="delete %s on %s" % (hc["component_name"], hc["host_name"]))
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
