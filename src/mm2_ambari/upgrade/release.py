"""What `mm2-ambari upgrade` needs of an mpack release, read without Ambari (pure but for reading the
tarball or directory): its version, alert definitions, property names and release history (`load_release`), and
how a changed alert definition is merged into the cluster's (`merge_source`, `plan_alerts`). The command that
applies them is mm2_ambari.upgrade.commands.
"""
import copy
import hashlib
import io
import json
import os
import posixpath
import tarfile
import xml.etree.ElementTree as ET

from mm2_core.config import names
from mm2_ambari.common.errors import BadInput

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
