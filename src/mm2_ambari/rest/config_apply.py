"""Configuration changes of the REST operations: the Kafka version to validate for, the core
validator and placement rules, configurations and config groups applied, stale hosts restarted."""
from mm2_core.advisor import advice
from mm2_core.config import names
from mm2_core.kafka import versions
from mm2_core.model import placement
from mm2_ambari.common import inputs, masking
from mm2_ambari.common.errors import AmbariHttpError, BadInput, MaybeSent, OperationFailed
from mm2_ambari.rest import configplan
from mm2_ambari.rest.deployfile import RESET
from mm2_ambari.transport import ambari_state
from mm2_ambari.transport.ambari_requests import create, restart_hosts
from mm2_ambari.transport.ambari_state import (ConfigState, allowed, read_cluster, read_config_groups,
                                               read_current_configs, read_host_components, read_local_kafka,
                                               why_skipped)

S, C = names.SERVICE, names.COMPONENT


def kafka_version(ctx, explicit, env, stack, source="--kafka-version"):
    """The Kafka version to validate for: --kafka-version / deployment.kafka_version, else what the
    service advisor would use (advice.kafka_version_for_validation: the override, the stack's Kafka
    when MM2 runs from it, the tarball or Kafka home name). The advisor's last resort, an assumed
    version, is not good enough for a pipeline: then the operator must say."""
    if explicit:
        _, warning = inputs.kafka_version(explicit, source)
        if warning:
            ctx.log("warning: %s: %s" % (source, warning))
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


def validate(ctx, df, changes, version, local_kafka=None, skip=None):
    """Run the core validator (the one the agent and the advisor use) on the configurations to send.
    ``skip(problem)``: findings the caller already reported (the version, on the input it came from)."""
    from mm2_core.rendering import render
    configurations = dict((ch.type, dict(ch.properties)) for ch in changes)
    problems = [p for p in render.validate(configurations, version, local_kafka) if not (skip and skip(p))]
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
    return "%s: %s: %s" % (where, label, masking.mask_message(message)) if label else "%s: %s" % (
        where, masking.mask_message(message))


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
    tag = ambari_state.new_tag()
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
        tag = ambari_state.new_tag()
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
    source = "--kafka-version" if opts.kafka_version else "deployment.kafka_version"
    version = kafka_version(ctx, opts.kafka_version or df.kafka_version, env, cluster["stack"], source)
    local_kafka = read_local_kafka(ctx, cluster["desired"])
    explicit = bool(opts.kafka_version or df.kafka_version)
    configurations = validate(ctx, df, changes, version, local_kafka,
                              skip=lambda p: explicit and inputs.is_version_problem(p, version))
    check_placement(ctx, df, configurations, version, local_kafka, driver_hosts, existing_groups)
    note = opts.note or df.note or "mm2-ambari %s %s" % (opts.command, df.path.rsplit("/", 1)[-1])
    return changes, note


def check_placement(ctx, df, configurations, version, local_kafka, driver_hosts, existing_groups):
    """Which driver host serves which target, as the service advisor checks it (mm2_core.model.placement):
    a flow whose target no host serves, missing heartbeats, several drivers per target before 3.5."""
    if not driver_hosts:
        return
    from mm2_core.model import parse, resolved
    topo = parse.build_topology(configurations, version, local_kafka)
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
                                         emits_heartbeats=resolved.resolve(topo).emits_heartbeats)
    errors = [f for f in findings if f.level == placement.ERROR]
    for finding in findings:
        if finding not in errors:
            ctx.log("warning: placement: %s" % finding.message)
    if errors:
        raise BadInput("%s: the driver placement cannot work (deployment.hosts, config_groups, "
                       "kafka-mm2-driver/target.clusters)" % df.path, [f.message for f in errors])
