"""Names released versions rely on (tests/build/released-names.json): none may disappear.

The same file is the release history: per release its commit, the digest of each property's default
and the alert definitions' tunable values. build.py ships the history in the tarball
(release-history.json) so that `mm2-ambari upgrade` can tell an older release's default, which it may
replace by the new one, from a value the operator set, which it never changes."""

import hashlib
import io
import json
import os
import xml.etree.ElementTree as ET

from .paths import RELEASED_NAMES_REL
from .problems import Problem, Invalid, text_type
from .sources import load_json, load_xml, read_mpack_identity


class ReleasedNamesChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_released_names(self):
        repo = self.core.repo
        path = os.path.join(repo, RELEASED_NAMES_REL)
        if not os.path.isfile(path):
            return
        try:
            src = load_json(path, RELEASED_NAMES_REL)
        except Invalid as e:
            self.problems.append(e.problem)
            return
        releases = src.obj.get("releases") if isinstance(src.obj, dict) else None
        if not isinstance(releases, dict):
            self.problems.append(Problem(RELEASED_NAMES_REL, 1, "needs a 'releases' object"))
            return
        current = current_names(self.layout)
        name, version = read_mpack_identity(repo)
        for problem in version_order_problems(version, releases, current):
            self.problems.append(Problem("mpack.json", 1, problem))
        for released_version in sorted(releases):
            old = releases[released_version]
            line = src.key_line(released_version)
            gone = _names_gone(old, current)
            for what in gone:
                self.problems.append(Problem(RELEASED_NAMES_REL, line, "%s of released version %s is gone: "
                                             "upgrade-mpack would orphan clusters that use it; keep the name"
                                             % (what, released_version)))
            if version != released_version and version.startswith(released_version):
                self.problems.append(Problem("mpack.json", 1, "version %s starts with released version %s: "
                                             "upgrade-mpack from %s would delete the new links too "
                                             "(setupMpacks.remove_symlinks matches paths by substring); pick a "
                                             "version that does not extend an older one" % (version, released_version,
                                                                                            released_version)))


def version_key(version):
    """A dotted version as a tuple of numbers, as setupMpacks compares them (compare_versions)."""
    try:
        return tuple(int(part) for part in str(version).split("."))
    except ValueError:
        return None


def latest_release(releases):
    """The highest recorded version (numerically), or None."""
    keyed = [(version_key(v), v) for v in releases if version_key(v) is not None]
    return max(keyed)[1] if keyed else None


def version_order_problems(version, releases, current=None):
    """Why this checkout's version cannot be built or released next to the recorded releases.

    A version lower than a released one would be refused by upgrade-mpack ("No management packs found
    that can be upgraded!"); the same version with other names would be two different tarballs under
    one name (a cluster that has one can never upgrade-mpack to the other)."""
    key = version_key(version)
    if key is None:
        return []  # check_mpack_json reports the format
    latest = latest_release(releases)
    problems = []
    if latest is not None and key < version_key(latest):
        problems.append("version %s is lower than released version %s: upgrade-mpack only accepts a higher "
                        "version; set mpack.json's version above %s" % (version, latest, latest))
    elif current is not None and version in releases and _names_gone(current, releases[version]):
        problems.append("version %s is already released with other names (%s): a new release needs a higher "
                        "version in mpack.json" % (version, "; ".join(_names_gone(current, releases[version]))))
    return problems


def release_problem(version, releases):
    """Why --record-release must not record this version (None when it may)."""
    latest = latest_release(releases)
    if version in releases:
        return ("version %s is already recorded in %s: bump mpack.json's version (the one place it is written) "
                "before recording the next release" % (version, RELEASED_NAMES_REL))
    if latest is not None and version_key(version) <= version_key(latest):
        return ("version %s is not higher than the last released version %s: upgrade-mpack would refuse it; "
                "set mpack.json's version above %s" % (version, latest, latest))
    return None


def current_names(layout):
    """The names upgrade-mpack must keep stable, as this checkout defines them."""
    core = layout.core
    commands = []
    meta_path = layout.path(core.service_dir + "/metainfo.xml")
    if os.path.isfile(meta_path):
        try:
            root = load_xml(meta_path, "metainfo.xml")
            commands = sorted(n.text_of("name") for n in root.iter() if n.tag == "customCommand")
        except Invalid:
            pass
    return {
        "service": core.names.SERVICE,
        "component": core.names.COMPONENT,
        "custom_commands": commands,
        "config_types": dict((t.name, sorted(p.name for p in t.properties)) for t in core.schema.CONFIG_TYPES),
        "defaults_sha256": default_digests(layout),
        "alert_values": alert_values(layout),
    }


# How release-history.json fingerprints a default (mm2_ambari.upgrade.release applies the same rule).
DIGEST_RULE = "sha256 of the UTF-8 value with surrounding whitespace removed"


def digest(value):
    value = value or u""
    if not isinstance(value, text_type):
        value = value.decode("utf-8")
    return hashlib.sha256(value.strip().encode("utf-8")).hexdigest()


def default_digests(layout):
    """{type: {property: digest of its default}} as configuration/<type>.xml of the layout gives them."""
    out = {}
    folder = layout.path(layout.core.service_dir + "/configuration")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith(".xml"):
            continue
        root = ET.parse(os.path.join(folder, name)).getroot()
        out[name[:-4]] = dict((p.findtext("name"), digest(p.findtext("value") or u""))
                              for p in root.findall("property"))
    return out


def alert_values(layout):
    """{definition: {"parameters": {name: value}, "reporting": {level: value}}}: the values an operator tunes."""
    path = layout.path(layout.core.service_dir + "/alerts.json")
    if not os.path.isfile(path):
        return {}
    with io.open(path, encoding="utf-8") as fh:
        alerts = json.load(fh)
    out = {}
    for definitions in (alerts.get(layout.core.names.SERVICE) or {}).values():
        for definition in definitions or []:
            source = definition.get("source") or {}
            out[definition["name"]] = {
                "parameters": dict((p["name"], p["value"]) for p in source.get("parameters") or []
                                   if isinstance(p, dict) and "name" in p and "value" in p),
                "reporting": dict((level, spec["value"]) for level, spec in (source.get("reporting") or {}).items()
                                  if isinstance(spec, dict) and "value" in spec)}
    return out


def release_history(releases, below):
    """What release-history.json of a tarball holds: the recorded releases below version `below`."""
    key = version_key(below)
    return {"_comment": "The defaults of the earlier releases of this mpack (build.py, from tests/build/"
                        "released-names.json): mm2-ambari upgrade replaces a value that is an earlier release's "
                        "default by this release's, and never changes any other value.",
            "digest": DIGEST_RULE,
            "releases": dict((v, {"defaults_sha256": e.get("defaults_sha256") or {},
                                  "alert_values": e.get("alert_values") or {}})
                             for v, e in releases.items()
                             if isinstance(e, dict) and key is not None and version_key(v) is not None
                             and version_key(v) < key)}


def _names_gone(old, current):
    gone = []
    if old.get("service") != current["service"]:
        gone.append("service %s" % old.get("service"))
    if old.get("component") != current["component"]:
        gone.append("component %s" % old.get("component"))
    for cmd in old.get("custom_commands", []):
        if cmd not in current["custom_commands"]:
            gone.append("custom command %s" % cmd)
    for config_type, props in sorted(old.get("config_types", {}).items()):
        if config_type not in current["config_types"]:
            gone.append("config type %s" % config_type)
            continue
        for prop in props:
            if prop not in current["config_types"][config_type]:
                gone.append("property %s/%s" % (config_type, prop))
    return gone


HISTORY = "release-history.json"


def write_release_history(repo, root, version, origin):
    """release-history.json: the earlier releases' defaults, for `mm2-ambari upgrade` (release_history below)."""
    path = os.path.join(repo, *RELEASED_NAMES_REL.split("/"))
    releases = {}
    if os.path.isfile(path):
        try:
            releases = load_json(path, RELEASED_NAMES_REL).obj.get("releases") or {}
        except (Invalid, AttributeError):
            releases = {}  # check_released_names reports it
    with io.open(os.path.join(root, HISTORY), "w", encoding="utf-8") as fh:
        fh.write(text_type(json.dumps(release_history(releases, version), indent=1, sort_keys=True)) + u"\n")
    os.chmod(os.path.join(root, HISTORY), 0o644)
    origin[HISTORY] = "generated:" + RELEASED_NAMES_REL
