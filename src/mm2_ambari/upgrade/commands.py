"""mm2-ambari upgrade: bring a cluster to the mpack release installed on its Ambari server.

`ambari-server upgrade-mpack` only swaps the service definition on the server. Nothing reaches the
clusters that already run the service:

- new properties: AbstractUpgradeCatalog.addNewConfigurationsFromXml adds a stack's new properties to
  existing clusters, but only UpgradeCatalog251/252/260/270/271/275 call it, and only
  `ambari-server upgrade` to those Ambari versions runs them; an mpack upgrade never does;
- changed alert definitions: AmbariMetaInfo.reconcileAlertDefinitions (at server start) creates the
  missing definitions and never merges a changed one into an existing definition ("definitions from the
  stack that are altered will not be overwritten; use the REST APIs to modify them instead");
- Restart Required: Ambari flags host components only when a config type they depend on changes.

This command does those three things through the REST API, and nothing else:

1. every property of this release that the cluster's config lacks is added with its default (a whole
   config type when the release adds one); a value the operator set is never changed (except the ones
   named with --take-default), a value that is still an earlier release's default (release-history.json
   of the mpack) takes this release's; kafka-mm2-env/mpack_version records the release;
2. every alert definition whose source changed is updated to the release's source, with the cluster's
   values of the parameters (thresholds) and the reporting values kept unless they are an earlier
   release's default; interval, enabled state, scope and repeat tolerance stay as the operator left them;
3. the config change flags the drivers Restart Required (Ambari's own rule), so the next restart runs the
   new release's scripts with the new settings.

--dry-run prints the same diff and the calls without sending them. Every step reads Ambari's state
first, so an interrupted run is finished by running it again.
"""
import argparse
import sys

from mm2_core.config import names, schema
from mm2_ambari.common import cli_args, errors, masking
from mm2_ambari.common.errors import EXIT_BAD_INPUT, BadInput, MaybeSent, OperationFailed
from mm2_ambari.rest import config_apply, configplan
from mm2_ambari.rest.session import command
from mm2_ambari.transport import ambari_state
from mm2_ambari.upgrade.release import C, MARKER, S, digest, load_release, plan_alerts, version_key


def register(subparsers):
    p = subparsers.add_parser(
        "upgrade", parents=[cli_args.connection_parser(), cli_args.conn_file_parser()],
        help="after upgrade-mpack: add this release's new properties, update changed alert definitions, "
             "flag the drivers Restart Required",
        description="Run after `ambari-server upgrade-mpack` and `ambari-server restart`: adds the properties "
                    "this release has and the cluster lacks (with their defaults; a value that is there is never "
                    "changed), updates alert definitions whose source changed (keeping the cluster's thresholds, "
                    "interval and enabled state), records the release in kafka-mm2-env/mpack_version, which flags "
                    "the drivers Restart Required. --dry-run shows the diff. Running it again finishes an "
                    "interrupted run and otherwise changes nothing.")
    p.add_argument("--mpack", required=True, metavar="TARBALL|DIR",
                   help="the mpack given to `ambari-server upgrade-mpack` (the .tar.gz, or its directory under "
                        "/var/lib/ambari-server/resources/mpacks/)")
    p.add_argument("--take-default", dest="take_default", action="append", default=[], type=_type_name,
                   metavar="TYPE/NAME",
                   help="also set this property to the release's default (repeatable), e.g. "
                        "kafka-mm2-env/content for a new mm2-env.sh template; without it a value is never changed")
    p.set_defaults(func=release_first(command(upgrade)))
    return p


def release_first(fn):
    """fn(args), after --mpack was read: a wrong path or a file that is no mpack is bad input
    (exit 2) before any connection to Ambari, credentials included."""
    def run(args):
        try:
            args.release = load_release(args.mpack)
        except BadInput as exc:
            errors.report(sys.stderr, exc)
            return EXIT_BAD_INPUT
        return fn(args)
    return run


def _type_name(text):
    config_type, sep, name = text.partition("/")
    if not sep or not config_type or not name:
        raise argparse.ArgumentTypeError("expected CONFIG-TYPE/PROPERTY, e.g. kafka-mm2-env/content, got %r" % text)
    return config_type, name


# --- the command -----------------------------------------------------------------------------------
def upgrade(ctx, opts):
    release = getattr(opts, "release", None) or load_release(opts.mpack)
    cluster = ambari_state.read_cluster(ctx)
    if ambari_state.read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s: nothing to upgrade (a new install gets this "
                              "release's settings as they are)" % (S, ctx.cluster))
    stack = ambari_state.read_stack_defaults(ctx, cluster["stack"])
    _check_server_has(release, stack, cluster)
    current = ambari_state.read_current_configs(ctx, cluster["desired"])
    env = current.get(names.ENV)
    recorded = (env.properties.get(MARKER) or "").strip() if env else ""
    if recorded and version_key(recorded) is not None and version_key(recorded) > version_key(release.version):
        raise BadInput("cluster %s's settings were reconciled for mpack %s, newer than %s (%s): use the newer mpack"
                       % (ctx.cluster, recorded, release.version, release.path))
    ctx.say("Upgrading %s in cluster %s to mpack %s (settings recorded for: %s)" % (
        S, ctx.cluster, release.version, recorded or "no release"))

    earlier = release.earlier(recorded)
    overrides = _take_defaults(opts.take_default, stack)
    overrides.setdefault(names.ENV, {})[MARKER] = release.version
    _replace_earlier_defaults(ctx, release, earlier, current, stack, overrides)
    changes = configplan.plan(stack, current, overrides, types=list(names.OWN_CONFIG_TYPES))
    _note_kept_templates(ctx, changes, stack, overrides, release.version)
    # Ambari flags every driver, whatever its state (ConfigHelper.checkStaleConfigsStatusOnConfigsUpdate)
    drivers = [hc["host_name"] for hc in ambari_state.read_host_components(ctx) if hc.get("component_name") == C]
    changed_types = config_apply.apply_configs(ctx, changes, "mm2-ambari upgrade to mpack %s" % release.version)

    cluster_defs = _read_alert_definitions(ctx)
    updates, missing, extra = plan_alerts(cluster_defs, release, earlier)
    for did, name, body, lines in updates:
        ctx.say("alert definition %s: changes" % name)
        for line in lines:
            ctx.say(line)
        _put_definition(ctx, did, name, body)
    if not updates:
        ctx.say("alert definitions: no change")
    for name in extra:
        ctx.say("note: alert definition %s is not in mpack %s: left as it is (disable or delete it in Ambari "
                "if you no longer want it)" % (name, release.version))

    if changed_types:
        if ctx.dry_run:
            ctx.say("then Ambari flags %s Restart Required on %s" % (C, ", ".join(drivers) or "no host"))
        else:
            stale = [hc["host_name"] for hc in ambari_state.read_host_components(ctx, "&HostRoles/stale_configs=true")
                     if hc.get("component_name") == C]
            ctx.say("Restart Required: %s on %s. Restart them to run mpack %s: mm2-ambari restart --stale-only "
                    "(add --rolling for one batch at a time)" % (C, ", ".join(stale) or "no host", release.version))
    if missing:
        raise OperationFailed(
            "Ambari has no alert definition %s of mpack %s: ambari-server creates missing definitions when it "
            "starts (AmbariMetaInfo.reconcileAlertDefinitions); restart it after upgrade-mpack, then run this "
            "again" % (", ".join(missing), release.version))
    if ctx.dry_run:
        ctx.say("dry run: %d call(s) planned, none sent" % len(ctx.client.planned))
    elif changed_types or updates:
        ctx.say("done: cluster %s is at mpack %s" % (ctx.cluster, release.version))
    else:
        ctx.say("nothing to change: cluster %s is at mpack %s already" % (ctx.cluster, release.version))
    return 0


def _check_server_has(release, stack, cluster):
    """The server must serve this release's definition (upgrade-mpack, then ambari-server restart)."""
    if release.property_names is None:
        return
    lacking = sorted("%s/%s" % (t, n) for t, props in release.property_names.items() for n in props
                     if n not in stack.properties.get(t, {}))
    if lacking:
        raise OperationFailed(
            "Ambari serves an older %s definition than mpack %s for stack %s (it lacks %s%s): run "
            "`ambari-server upgrade-mpack --mpack=%s --verbose` and `ambari-server restart`, then run this again"
            % (S, release.version, "-".join(cluster["stack"]), ", ".join(lacking[:5]),
               " and %d more" % (len(lacking) - 5) if len(lacking) > 5 else "", release.path))


def _replace_earlier_defaults(ctx, release, earlier, current, stack, overrides):
    """A value that is an earlier release's default (by release-history.json) becomes this release's
    default: nobody chose it. Passwords (never returned by Ambari) and values named elsewhere are left."""
    for config_type, state in sorted(current.items()):
        defaults = stack.properties.get(config_type, {})
        for name, value in sorted(state.properties.items()):
            new = defaults.get(name)
            if new is None or value == new or name in overrides.get(config_type, {}) or \
                    stack.is_password(config_type, name) or masking.is_secret_ref(value) or \
                    masking.is_secret(config_type, name, state.attributes):
                continue
            if digest(value) in release.old_default_digests(earlier, config_type, name):
                overrides.setdefault(config_type, {})[name] = new
                ctx.say("note: %s/%s has an earlier release's default (mpack %s): it takes mpack %s's" % (
                    config_type, name, " or ".join(earlier), release.version))


def _take_defaults(pairs, stack):
    overrides = {}
    for config_type, name in pairs:
        if config_type not in names.OWN_CONFIG_TYPES:
            raise BadInput("--take-default %s/%s: %s is not a config type of %s (%s)" % (
                config_type, name, config_type, S, ", ".join(names.OWN_CONFIG_TYPES)))
        defaults = stack.properties.get(config_type, {})
        if name not in defaults:
            raise BadInput("--take-default %s/%s: the release has no default for it (not a property of %s)"
                           % (config_type, name, config_type))
        if stack.is_password(config_type, name):
            raise BadInput("--take-default %s/%s: a password has no default to take; set it in Ambari"
                           % (config_type, name))
        overrides.setdefault(config_type, {})[name] = defaults[name]
    return overrides


def _note_kept_templates(ctx, changes, stack, overrides, version):
    """Template properties (whole files) are the values an upgrade most often leaves behind: say so."""
    for change in changes:
        ctype = schema.BY_NAME.get(change.type)
        for prop in (ctype.properties if ctype else []):
            if prop.value_type != "content" or prop.name in overrides.get(change.type, {}):
                continue
            default = stack.properties.get(change.type, {}).get(prop.name)
            value = change.properties.get(prop.name)
            if change.current is not None and prop.name in change.current.properties and default is not None \
                    and value != default:
                ctx.say("note: %s/%s differs from mpack %s's default template: kept (yours, or an older "
                        "release's); --take-default %s/%s replaces it" % (change.type, prop.name, version,
                                                                          change.type, prop.name))


def _read_alert_definitions(ctx):
    body = ctx.client.get("%s/alert_definitions?AlertDefinition/service_name=%s&fields=AlertDefinition/*" % (ctx.c, S))
    return [item.get("AlertDefinition") or {} for item in (body or {}).get("items") or []]


def _put_definition(ctx, did, name, body):
    path = "%s/alert_definitions/%s" % (ctx.c, did)
    describe = "update alert definition %s" % name
    try:
        ctx.client.put(path, body, describe=describe)
    except MaybeSent as exc:
        # The update replaces the given fields: sending the same body again is harmless.
        ctx.log("%s: %s; sending the same update again" % (describe, exc))
        ctx.client.put(path, body, describe=describe + " (again)")
