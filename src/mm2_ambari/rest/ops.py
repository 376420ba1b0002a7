"""The REST operations behind deploy, configure, restart, status, alerts, check, run and remove.

Every operation first reads Ambari's state (GET), then computes what must change, then sends only
those changes. Re-running with the same file therefore sends nothing. With --dry-run the reads
still happen (they are needed to plan), the changes are printed instead of sent.
"""
import json
import re

from mm2_core.config import names
from mm2_ambari.common import masking
from mm2_ambari.common.errors import AmbariHttpError, BadInput, MaybeSent, OperationFailed
from mm2_ambari.rest.config_apply import apply_configs, plan_configs, plan_group_hosts, restart_stale, sync_config_groups
from mm2_ambari.transport import credentials
from mm2_ambari.transport.ambari_requests import (batch_settings, create, exists_at, host_component_state_body,
                                                  restart_hosts, run_async, service_state_body, submit)
from mm2_ambari.transport.ambari_state import (KDC_CREDENTIAL, NOT_INSTALLED, REMOVABLE, allowed, maintenance,
                                               read_cluster, read_cluster_hosts, read_config_groups,
                                               read_host_components, read_service, read_stack_defaults, why_skipped)

S, C = names.SERVICE, names.COMPONENT


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
    _check_flow_parameters(ctx, opts.custom_command, dict(getattr(opts, "parameters", None) or []))
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


def _check_flow_parameters(ctx, command, parameters):
    """`run CUTOVER_CHECK|FAILOVER_GROUPS|DRILL --param flow=A->B [--param groups=g1,g2]`: the flow and the groups
    checked as `cutover check`, `failover` and `drill` check them, before anything is sent."""
    from mm2_core.model import groups as group_rules
    from mm2_ambari.rest import flows
    action = group_rules.COMMAND_ACTIONS.get(command)
    flow = (parameters.get("flow") or "").replace(" ", "")
    if action is None:
        return
    groups, problems = group_rules.parse(parameters.get("groups") or "")
    if problems:
        raise BadInput("--param groups=%s: %s; nothing was sent" % (parameters.get("groups"), "; ".join(problems)))
    if flow:
        flows.check_groups(flows.check(ctx, flow, option="--param flow"), flow, groups, action,
                           option="--param groups")


FLOW_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*->\s*([A-Za-z0-9_.-]+)\s*$")


def flow_command(ctx, opts):
    """`mm2-ambari flow pause|resume|stop --flow A->B` (connect mode): the FLOW_* custom command on every driver
    host; the hosts whose Connect worker serves the flow act on it, the others say so. No host serving it is an
    error naming the flow. `flow seed --flow A->B --at end | --offsets t-0=N,...`: FLOW_SEED the same way."""
    match = FLOW_NAME.match(opts.flow or "")
    if not match:
        raise BadInput("--flow must name one flow as SOURCE->TARGET (cluster aliases), quoted: --flow 'A->B' "
                       "(unquoted, the shell reads > as a redirect); got '%s'" % (opts.flow or "",))
    flow = "%s->%s" % match.groups()
    command = names.FLOW_COMMANDS[opts.action]
    parameters = {"flow": flow}
    at, offsets = getattr(opts, "at", None), getattr(opts, "offsets", None)
    if command == names.CMD_FLOW_SEED:
        if bool(at) == bool(offsets):
            raise BadInput("flow seed needs one of --at end (skip to the source's end) or --offsets "
                           "TOPIC-P=NEXT,... (e.g. --offsets orders-0=0,orders-1=0 to replay)")
        parameters.update({"at": at} if at else {"offsets": offsets.replace(" ", "")})
    elif at or offsets:
        raise BadInput("--at and --offsets belong to flow seed, not flow %s" % opts.action)
    if read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    from mm2_ambari.rest import flows
    flows.check(ctx, flow)
    hosts = [hc["host_name"] for hc in read_host_components(ctx) if hc.get("component_name") == C]
    if not hosts:
        raise OperationFailed("%s has no host to run %s on" % (C, command))
    info = {"context": "%s %s %s" % (names.SERVICE_DISPLAY_NAME, opts.action, flow), "command": command,
            "parameters": parameters}
    body = {"RequestInfo": info,
            "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(hosts)}]}
    try:
        tasks = run_async(ctx, "POST", "%s/requests" % ctx.c, body, command)
    except Exception as exc:
        _print_tasks(ctx, getattr(exc, "tasks", []))
        raise
    _print_tasks(ctx, tasks)
    outs = [_structured(t) for t in tasks]
    outs = [(o.get("flow_seed") or o) if o is not None else None for o in outs]   # FLOW_SEED nests its result
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


def remove(ctx, opts):
    service = read_service(ctx)
    if service is None:
        ctx.say("%s is not installed in cluster %s: nothing to remove" % (S, ctx.cluster))
        return 0
    hcs = read_host_components(ctx)
    from mm2_ambari.rest import host_cmds  # a driver that cannot be stopped must not be deleted (UNKNOWN)
    stuck = host_cmds.refuse_unstoppable(hcs)
    if stuck is not None:
        raise stuck
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
    # One DELETE per host component, as the web UI deletes one: the real server refuses a delete by service
    # name alone ("Cluster name and hostname must be specified", AmbariManagementControllerImpl
    # .deleteHostComponents). A failed delete keeps the service; the others are reported with it.
    errors = []
    for hc in hcs:
        host, comp = hc["host_name"], hc["component_name"]
        try:
            ctx.client.delete("%s/hosts/%s/host_components/%s" % (ctx.c, host, comp),
                              describe="delete %s on %s" % (comp, host))
        except AmbariHttpError as exc:
            errors.append("%s/%s: %s %s" % (host, comp, exc.status, masking.mask_text(str(exc.ambari_message))))
    if errors:
        raise OperationFailed("Ambari did not delete every host component of %s; the service is kept" % S, errors)
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
