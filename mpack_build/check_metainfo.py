"""Checks of the service metainfo.xml and the per-stack add-on metainfos."""

import os
import re

from .ambari_rules import (COMMAND_SCRIPT_ELEMENTS, COMPONENT_ELEMENTS, CUSTOM_COMMAND_ELEMENTS, SERVICE_ELEMENTS)
from .configuration_xml import xml_bool, int_or_none


class MetainfoChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def _unknown_elements(self, rel, node, allowed, where):
        for child in node.children:
            if child.tag not in allowed:
                self.add(rel, child.line, "<%s> is not a %s element Ambari reads (typo?): it would be "
                         "silently ignored" % (child.tag, where))

    def _bool_element(self, rel, node, tag, expected=None):
        child = node.find(tag)
        if child is None:
            if expected is not None:
                self.add(rel, node.line, "<%s>%s</%s> is required" % (tag, xml_bool(expected), tag))
            return None
        value = child.text.strip()
        if value not in ("true", "false"):
            self.add(rel, child.line, "<%s> must be true or false, not %r" % (tag, value))
            return None
        if expected is not None and value != xml_bool(expected):
            self.add(rel, child.line, "<%s> must be %s" % (tag, xml_bool(expected)))
        return value == "true"

    def _command_script(self, rel, node, service_rel):
        script = node.find("commandScript")
        if script is None:
            self.add(rel, node.line, "<commandScript> is missing")
            return
        self._unknown_elements(rel, script, COMMAND_SCRIPT_ELEMENTS, "commandScript")
        path = script.text_of("script")
        if not path:
            self.add(rel, script.line, "<commandScript> needs <script>")
        elif not path.startswith("scripts/") or not os.path.isfile(self.layout.path(service_rel + "/package/" + path)):
            self.add(rel, (script.find("script") or script).line, "command script %s does not exist: the agent "
                     "runs package/%s of the service" % (path, path))
        if script.text_of("scriptType", "PYTHON") != "PYTHON":
            self.add(rel, script.line, "<scriptType> must be PYTHON")
        timeout = script.text_of("timeout")
        if timeout is not None and (int_or_none(timeout) is None or int(timeout) <= 0):
            self.add(rel, script.find("timeout").line, "<timeout> must be a positive number of seconds")

    def _metainfo_service(self, rel):
        if not self._parsable(rel):
            return None
        root = self.xml(rel)
        if root is None:
            return None
        if root.tag != "metainfo":
            self.add(rel, root.line, "the root element must be <metainfo>")
            return None
        if root.text_of("schemaVersion") != "2.0":
            self.add(rel, root.line, "<schemaVersion>2.0</schemaVersion> is required")
        services = root.find("services")
        entries = services.findall("service") if services is not None else []
        if len(entries) != 1:
            self.add(rel, root.line, "exactly one <services><service> is expected")
            return None
        service = entries[0]
        self._unknown_elements(rel, service, SERVICE_ELEMENTS, "service")
        if service.text_of("name") != self.names.SERVICE:
            self.add(rel, service.line, "<name> must be %s (names.SERVICE)" % self.names.SERVICE)
        return service

    def check_service_metainfo(self):
        names = self.names
        service_rel = self.core.service_dir
        rel = service_rel + "/metainfo.xml"
        service = self._metainfo_service(rel)
        if service is None:
            return
        for tag, expected in (("displayName", names.SERVICE_DISPLAY_NAME), ("version", names.SERVICE_VERSION)):
            if service.text_of(tag) != expected:
                self.add(rel, service.line, "<%s> must be %s (names.py)" % (tag, expected))
        if not service.text_of("comment"):
            self.add(rel, service.line, "<comment> (shown in the Add Service wizard) is empty")
        self._bool_element(rel, service, "restartRequiredAfterChange", True)
        self._command_script(rel, service, service_rel)  # service check
        components = service.find("components")
        comps = components.findall("component") if components is not None else []
        if [c.text_of("name") for c in comps] != [names.COMPONENT]:
            self.add(rel, (components or service).line, "<components> must hold exactly %s (names.COMPONENT)"
                     % names.COMPONENT)
        for comp in comps:
            self._check_component(rel, comp, service_rel)
        self._check_config_dependencies(rel, service)
        self._check_theme_refs(rel, service, service_rel)
        self._check_os_specifics(rel, service)

    def _check_component(self, rel, comp, service_rel):
        names = self.names
        self._unknown_elements(rel, comp, COMPONENT_ELEMENTS, "component")
        if comp.text_of("displayName") != names.COMPONENT_DISPLAY_NAME:
            self.add(rel, comp.line, "<displayName> must be %s (names.COMPONENT_DISPLAY_NAME)"
                     % names.COMPONENT_DISPLAY_NAME)
        if comp.text_of("category") not in ("MASTER", "SLAVE", "CLIENT"):
            self.add(rel, comp.line, "<category> must be MASTER, SLAVE or CLIENT")
        if not re.match(r"^(\d+|\d+\+|\d+-\d+|ALL)$", comp.text_of("cardinality") or ""):
            self.add(rel, comp.line, "<cardinality> must look like 1, 1+, 0-1 or ALL")
        for tag in ("versionAdvertised", "rollingRestartSupported", "recovery_enabled", "reassignAllowed",
                    "decommissionAllowed"):
            self._bool_element(rel, comp, tag)
        self._command_script(rel, comp, service_rel)
        commands = comp.find("customCommands")
        defined = []
        for cmd in (commands.findall("customCommand") if commands is not None else []):
            self._unknown_elements(rel, cmd, CUSTOM_COMMAND_ELEMENTS, "customCommand")
            defined.append(cmd.text_of("name"))
            self._bool_element(rel, cmd, "background")
            hidden = cmd.text_of("name") in names.MENU_HIDDEN_COMMANDS
            if bool(self._bool_element(rel, cmd, "hidden")) != hidden:
                self.add(rel, cmd.line, "<customCommand> %s: %s (names.MENU_HIDDEN_COMMANDS: %s)" % (
                    cmd.text_of("name"), "needs <hidden>true</hidden>" if hidden else "must not be hidden",
                    "it needs input the web UI cannot give" if hidden else "it runs from the Actions menu"))
            self._command_script(rel, cmd, service_rel)
        missing = [c for c in names.CUSTOM_COMMANDS if c not in defined]
        unknown = [c for c in defined if c not in names.CUSTOM_COMMANDS]
        if missing or unknown or len(defined) != len(set(defined)):
            self.add(rel, (commands or comp).line, "<customCommands> must define %s once each (names.CUSTOM_COMMANDS)%s%s"
                     % (", ".join(names.CUSTOM_COMMANDS),
                        "; missing: " + ", ".join(missing) if missing else "",
                        "; unknown: " + ", ".join(str(u) for u in unknown) if unknown else ""))

    def _check_config_dependencies(self, rel, service):
        deps = service.find("configuration-dependencies")
        listed = [n.text.strip() for n in deps.findall("config-type")] if deps is not None else []
        expected = list(self.names.RESTART_CONFIG_TYPES)
        line = deps.line if deps is not None else service.line
        missing = [t for t in expected if t not in listed]
        needless = [t for t in listed if t in self.names.NO_RESTART_CONFIG_TYPES]
        unknown = [t for t in listed if t not in expected and t not in needless]
        if needless:
            self.add(rel, line, "<configuration-dependencies> lists %s: every save of it (e.g. Service Auto Start "
                     "in cluster-env) would flag the drivers 'Restart Required', and agents get it in every "
                     "command anyway (names.NO_RESTART_CONFIG_TYPES)" % ", ".join(needless))
        if missing:
            self.add(rel, line, "<configuration-dependencies> lacks %s: changing it would not raise 'Restart "
                     "Required'" % ", ".join(missing))
        if unknown:
            self.add(rel, line, "<configuration-dependencies> lists %s, which is neither owned "
                     "(names.OWN_CONFIG_TYPES) nor read (names.FOREIGN_CONFIG_TYPES)" % ", ".join(unknown))
        if len(listed) != len(set(listed)):
            self.add(rel, line, "<configuration-dependencies> lists a type twice")

    def _check_theme_refs(self, rel, service, service_rel):
        themes_dir = service.text_of("themes-dir", "themes")
        themes = service.find("themes")
        defaults = 0
        for theme in (themes.findall("theme") if themes is not None else []):
            name = theme.text_of("fileName")
            if not name or not os.path.isfile(self.layout.path("%s/%s/%s" % (service_rel, themes_dir, name))):
                self.add(rel, theme.line, "theme %s is not in %s/%s/" % (name, service_rel, themes_dir))
            if self._bool_element(rel, theme, "default"):
                defaults += 1
        if themes is not None and defaults != 1:
            self.add(rel, themes.line, "exactly one theme must be <default>true</default> (it lays out the "
                     "Customize Services step)")
        ql_dir = service.text_of("quickLinksConfigurations-dir", "quicklinks")
        qls = service.find("quickLinksConfigurations")
        for ql in (qls.findall("quickLinksConfiguration") if qls is not None else []):
            name = ql.text_of("fileName")
            if not name or not os.path.isfile(self.layout.path("%s/%s/%s" % (service_rel, ql_dir, name))):
                self.add(rel, ql.line, "quick links file %s is not in %s/%s/" % (name, service_rel, ql_dir))

    def _check_os_specifics(self, rel, service):
        specifics = service.find("osSpecifics")
        for spec in (specifics.findall("osSpecific") if specifics is not None else []):
            if not spec.text_of("osFamily"):
                self.add(rel, spec.line, "<osSpecific> needs an <osFamily> (e.g. redhat7,redhat8 or any)")
            packages = spec.find("packages")
            for package in (packages.findall("package") if packages is not None else []):
                if not package.text_of("name"):
                    self.add(rel, package.line, "<package> needs a <name>")

    def check_stack_metainfos(self, meta):
        if not meta or not isinstance(meta.get("artifacts"), list):
            return
        parent = self.core.service_dir
        for art in meta["artifacts"]:
            if not isinstance(art, dict) or art.get("type") != "stack-addon-service-definitions":
                continue
            for entry in art.get("service_versions_map") or []:
                if not isinstance(entry, dict):
                    continue
                rel = "%s/%s/%s/metainfo.xml" % (art.get("source_dir"), entry.get("service_name"),
                                                 entry.get("service_version"))
                if not os.path.isdir(os.path.dirname(self.layout.path(rel))):
                    continue  # reported by the mpack.json check
                service = self._metainfo_service(rel)
                if service is None:
                    continue
                extends = service.text_of("extends")
                if extends != parent:
                    # the server looks the parent up as <name>/<version of its metainfo> among common-services
                    self.add(rel, (service.find("extends") or service).line,
                             "<extends> must be %s so the stack add-on inherits the common definition" % parent)
                if service.text_of("version") not in (None, self.names.SERVICE_VERSION):
                    self.add(rel, service.find("version").line, "<version> must be %s or absent (inherited)"
                             % self.names.SERVICE_VERSION)
                comps = service.find("components")
                for comp in (comps.findall("component") if comps is not None else []):
                    if comp.text_of("name") != self.names.COMPONENT:
                        self.add(rel, comp.line, "a stack add-on may only refine %s" % self.names.COMPONENT)
                if service.find("configuration-dependencies") is not None:
                    self._check_config_dependencies(rel, service)
                self._check_os_specifics(rel, service)
