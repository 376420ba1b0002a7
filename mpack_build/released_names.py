"""Names released versions rely on (tests/build/released-names.json): none may disappear."""

import os

from .layout import read_mpack_identity
from .paths import RELEASED_NAMES_REL
from .problems import Problem, _Invalid
from .sources import load_json, load_xml


class ReleasedNamesChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_released_names(self):
        repo = self.core.repo
        path = os.path.join(repo, RELEASED_NAMES_REL)
        if not os.path.isfile(path):
            return
        try:
            src = load_json(path, RELEASED_NAMES_REL)
        except _Invalid as e:
            self.problems.append(e.problem)
            return
        releases = src.obj.get("releases") if isinstance(src.obj, dict) else None
        if not isinstance(releases, dict):
            self.problems.append(Problem(RELEASED_NAMES_REL, 1, "needs a 'releases' object"))
            return
        current = current_names(self.layout)
        name, version = read_mpack_identity(repo)
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


def _stacks(pairs):
    return ", ".join("%s/%s" % p for p in pairs)


def current_names(layout):
    """The names upgrade-mpack must keep stable, as this checkout defines them."""
    core = layout.core
    commands = []
    meta_path = layout.path(core.service_dir + "/metainfo.xml")
    if os.path.isfile(meta_path):
        try:
            root = load_xml(meta_path, "metainfo.xml")
            commands = sorted(n.text_of("name") for n in root.iter() if n.tag == "customCommand")
        except _Invalid:
            pass
    return {
        "service": core.names.SERVICE,
        "component": core.names.COMPONENT,
        "custom_commands": commands,
        "config_types": dict((t.name, sorted(p.name for p in t.properties)) for t in core.schema.CONFIG_TYPES),
    }


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
