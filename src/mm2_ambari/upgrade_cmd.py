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
import copy
import hashlib
import io
import json
import os
import posixpath
import tarfile
import xml.etree.ElementTree as ET

from mm2_core.config import names, schema
from mm2_ambari import ambari_state, config_apply, configplan, masking
from mm2_ambari.errors import BadInput, MaybeSent, OperationFailed

S, C = names.SERVICE, names.COMPONENT
MARKER = "mpack_version"  # kafka-mm2-env: the release the settings were last reconciled for
SERVICE_DIR = "common-services/%s/%s" % (S, names.SERVICE_VERSION)
# The fields of an alert definition the operator owns (the web UI edits them): never changed here.
OPERATOR_FIELDS = ("interval", "enabled", "scope", "ignore_host", "repeat_tolerance", "repeat_tolerance_enabled")
# The fields a release may change besides the source.
RELEASE_FIELDS = ("label", "description", "help_url")
# How release-history.json fingerprints defaults (mpack_build/released_names.py DIGEST_RULE writes it).
DIGEST_RULE = "sha256 of the UTF-8 value with surrounding whitespace removed"


def digest(value):
    return hashlib.sha256((value or "").strip().encode("utf-8")).hexdigest()


def register(subparsers, common, conn_file):
    p = subparsers.add_parser(
        "upgrade", parents=[common, conn_file],
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
    return p


def release_first(command, report):
    """command(args), after --mpack was read: a wrong path or a file that is no mpack is bad input
    (exit 2) before any connection to Ambari, credentials included."""
    import sys
    from mm2_ambari.errors import EXIT_BAD_INPUT

    def run(args):
        try:
            args.release = load_release(args.mpack)
        except BadInput as exc:
            report(sys.stderr, exc)
            return EXIT_BAD_INPUT
        return command(args)
    return run


def _type_name(text):
    config_type, sep, name = text.partition("/")
    if not sep or not config_type or not name:
        import argparse
        raise argparse.ArgumentTypeError("expected CONFIG-TYPE/PROPERTY, e.g. kafka-mm2-env/content, got %r" % text)
    return config_type, name


# --- the release -----------------------------------------------------------------------------------
class Release(object):
    """What upgrade needs of an mpack: its version, alert definitions and property names."""

    def __init__(self, path, name, version, alerts, property_names, history=None):
        self.path, self.name, self.version = path, name, version
        self.alerts = alerts  # [(component, definition)]
        self.property_names = property_names  # {type: set(name)} from configuration/*.xml, or None
        self.history = history or {}  # {earlier version: {"defaults_sha256": .., "alert_values": ..}}

    def earlier(self, recorded):
        """The earlier releases whose defaults the cluster may hold: the one recorded in the cluster's
        kafka-mm2-env/mpack_version, else (never reconciled) every earlier release."""
        if recorded in self.history:
            return [recorded]
        key = version_key(self.version)
        return sorted((v for v in self.history if version_key(v) is not None and version_key(v) < key),
                      key=version_key)

    def old_default_digests(self, versions, config_type, name):
        return set(d for d in ((self.history[v].get("defaults_sha256") or {}).get(config_type, {}).get(name)
                               for v in versions) if d)

    def old_alert_values(self, versions, definition):
        return [(self.history[v].get("alert_values") or {}).get(definition) or {} for v in versions]

    def definition(self, name):
        return next((d for _, d in self.alerts if d.get("name") == name), None)


def version_key(version):
    try:
        return tuple(int(p) for p in str(version).split("."))
    except ValueError:
        return None


def load_release(path):
    """The Release of an mpack tarball or unpacked mpack directory (BadInput when it is not one)."""
    if not os.path.exists(path):
        raise BadInput("--mpack %s: no such file or directory (the tarball given to ambari-server "
                       "upgrade-mpack, or its directory)" % path)
    if os.path.isdir(path):
        files = _DirFiles(path)
    else:
        try:
            files = _TarFiles(path)
        except (tarfile.TarError, OSError) as exc:
            raise BadInput("--mpack %s: not an mpack tarball or directory (%s)" % (path, exc))
    meta = files.json("mpack.json")
    if meta is None:
        raise BadInput("--mpack %s: no mpack.json in it, so it is not an mpack; give the mpack tarball given to "
                       "ambari-server upgrade-mpack (kafka-mirrormaker2-mpack-*.tar.gz) or the directory it unpacks "
                       "to (the one holding mpack.json)" % path)
    if not isinstance(meta, dict) or not meta.get("version") or version_key(meta.get("version")) is None:
        raise BadInput("--mpack %s: its mpack.json has no numeric version" % path)
    alerts = files.json(SERVICE_DIR + "/alerts.json")
    if not isinstance(alerts, dict) or S not in alerts:
        raise BadInput("--mpack %s: not a %s mpack (no %s/alerts.json with %s)" % (path, S, SERVICE_DIR, S))
    definitions = [(component, d) for component, defs in sorted(alerts[S].items()) for d in defs or []
                   if isinstance(d, dict) and d.get("name") and isinstance(d.get("source"), dict)]
    property_names = None
    xml_files = files.listdir(SERVICE_DIR + "/configuration")
    if xml_files:
        property_names = {}
        for name in xml_files:
            if not name.endswith(".xml"):
                continue
            try:
                root = ET.fromstring(files.read(SERVICE_DIR + "/configuration/" + name))
            except ET.ParseError as exc:
                raise BadInput("--mpack %s: configuration/%s: %s" % (path, name, exc))
            property_names[name[:-4]] = set(p.findtext("name") for p in root.findall("property"))
    history = files.json("release-history.json")
    releases = {}
    if isinstance(history, dict) and history.get("digest") == DIGEST_RULE and isinstance(history.get("releases"), dict):
        releases = dict((v, e) for v, e in history["releases"].items() if isinstance(e, dict))
    return Release(path, str(meta.get("name")), str(meta["version"]), definitions, property_names, releases)


class _DirFiles(object):
    def __init__(self, root):
        self.root = root

    def read(self, rel):
        path = os.path.join(self.root, *rel.split("/"))
        if not os.path.isfile(path):
            return None
        with io.open(path, "rb") as fh:
            return fh.read()

    def listdir(self, rel):
        path = os.path.join(self.root, *rel.split("/"))
        return sorted(os.listdir(path)) if os.path.isdir(path) else []

    def json(self, rel):
        return _json(self.read(rel), self.root, rel)


class _TarFiles(object):
    """Members of an mpack tarball read in memory (nothing is extracted)."""

    def __init__(self, path):
        self.path = path
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            tops = set(m.name.split("/", 1)[0] for m in tar.getmembers())
            if len(tops) != 1:
                raise tarfile.TarError("an mpack tarball has one top-level directory, this one has %d" % len(tops))
            self.top = tops.pop()
            self.data = {}
            for member in members:
                rel = posixpath.normpath(member.name)[len(self.top) + 1:]
                if rel.endswith((".json", ".xml")) and member.size < 10 * 1024 * 1024:
                    self.data[rel] = tar.extractfile(member).read()

    def read(self, rel):
        return self.data.get(rel)

    def listdir(self, rel):
        prefix = rel + "/"
        return sorted(set(k[len(prefix):].split("/", 1)[0] for k in self.data if k.startswith(prefix)))

    def json(self, rel):
        return _json(self.read(rel), self.path, rel)


def _json(data, where, rel):
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise BadInput("--mpack %s: %s is not valid JSON (%s)" % (where, rel, exc))


# --- alert definitions -----------------------------------------------------------------------------
def _norm(value):
    """Values as Ambari stores them: numeric strings become numbers (AlertDefinitionResourceProvider
    turns a numeric string into a number), numbers compare as numbers."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value) if value.strip() and value.strip() == value else value
        except ValueError:
            return value
    if isinstance(value, dict):
        return dict((k, _norm(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def merge_source(cluster_source, release_source, earlier=()):
    """The release's source with the cluster's tunable values kept: (merged, kept, taken).

    Tunables: the `value` of each SCRIPT parameter the release still has (thresholds, timeouts) and the
    `value` of each reporting level (METRIC, PORT, WEB, ...). A cluster value that is an earlier release's
    default (earlier: that release's {"parameters": .., "reporting": ..}) gives way to the release's
    default (taken); any other value is kept. kept and taken list (where, cluster value, release default)
    where they differ."""
    merged = copy.deepcopy(release_source)
    kept, taken = [], []

    def settle(where, spec, old_value, old_defaults):
        if _norm(old_value) == _norm(spec.get("value")):
            spec["value"] = old_value
        elif any(_norm(old_value) == _norm(d) for d in old_defaults):
            taken.append((where, old_value, spec.get("value")))
        else:
            kept.append((where, old_value, spec.get("value")))
            spec["value"] = old_value

    old_params = dict((p.get("name"), p) for p in (cluster_source or {}).get("parameters") or []
                      if isinstance(p, dict) and p.get("name"))
    for param in merged.get("parameters") or []:
        old = old_params.get(param.get("name")) if isinstance(param, dict) else None
        if old is not None and "value" in old:
            defaults = [e.get("parameters", {})[param["name"]] for e in earlier
                        if param["name"] in (e.get("parameters") or {})]
            settle("parameter %s" % param["name"], param, old["value"], defaults)
    old_reporting = (cluster_source or {}).get("reporting") or {}
    for level, spec in sorted((merged.get("reporting") or {}).items()):
        old = old_reporting.get(level)
        if isinstance(spec, dict) and isinstance(old, dict) and "value" in old and "value" in spec:
            defaults = [e.get("reporting", {})[level] for e in earlier if level in (e.get("reporting") or {})]
            settle("reporting %s value" % level, spec, old["value"], defaults)
    return merged, kept, taken


def plan_alerts(cluster_defs, release, earlier_versions=()):
    """([(definition id, name, update body, diff lines)], [missing names], [names not in the release])."""
    by_name = dict((d.get("name"), d) for d in cluster_defs)
    updates, missing = [], []
    for component, definition in release.alerts:
        current = by_name.get(definition["name"])
        if current is None:
            missing.append(definition["name"])
            continue
        merged, kept, taken = merge_source(current.get("source") or {}, definition["source"],
                                           release.old_alert_values(earlier_versions, definition["name"]))
        fields = {}
        lines = []
        if _norm(merged) != _norm(current.get("source") or {}):
            fields["source"] = merged
            lines.extend(_source_diff(current.get("source") or {}, merged))
        for key in RELEASE_FIELDS:
            if key in definition and definition[key] != current.get(key):
                fields[key] = definition[key]
                lines.append("  ~ %s: %r -> %r" % (key, current.get(key), definition[key]))
        if fields:
            for where, value, default in kept:
                lines.append("  = %s: kept %s (this release's default: %s)" % (where, _show(value), _show(default)))
            for where, value, default in taken:
                lines.append("  ~ %s: %s -> %s (an earlier release's default: this release's)" % (
                    where, _show(value), _show(default)))
            updates.append((current.get("id"), definition["name"], {"AlertDefinition": fields}, lines))
    release_names = set(d["name"] for _, d in release.alerts)
    extra = sorted(n for n in by_name if n not in release_names)
    return updates, missing, extra


def _source_diff(before, after):
    lines = []
    for key in sorted(set(before) | set(after)):
        if key == "parameters":
            continue
        if _norm(before.get(key)) != _norm(after.get(key)):
            lines.append("  ~ source.%s: %s -> %s" % (key, _show(before.get(key)), _show(after.get(key))))
    old = dict((p.get("name"), p) for p in before.get("parameters") or [] if isinstance(p, dict))
    new = dict((p.get("name"), p) for p in after.get("parameters") or [] if isinstance(p, dict))
    for name in sorted(set(old) | set(new)):
        if name not in old:
            lines.append("  + parameter %s = %s" % (name, _show(new[name].get("value"))))
        elif name not in new:
            lines.append("  - parameter %s (was %s)" % (name, _show(old[name].get("value"))))
        elif _norm(old[name]) != _norm(new[name]):
            changed = sorted(k for k in set(old[name]) | set(new[name])
                             if _norm(old[name].get(k)) != _norm(new[name].get(k)))
            lines.append("  ~ parameter %s: %s changed" % (name, ", ".join(changed)))
    return lines


def _show(value):
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


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
