"""Checks of the generated configuration/*.xml."""

from .ambari_rules import (CONFIGURATION_ATTRIBUTES, PROPERTY_ELEMENTS, PROPERTY_TYPES, VALUE_ATTRIBUTE_ELEMENTS, VALUE_TYPES)
from .configuration_xml import int_or_none
from .paths import SCHEMA_REL


class ConfigurationChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_configurations(self):
        service_rel = self.core.service_dir
        for rel in sorted(self.layout.origin):
            parts = rel.split("/")
            if len(parts) < 2 or parts[-2] != "configuration" or not rel.endswith(".xml"):
                continue
            config_type = parts[-1][:-4]
            generated = rel.startswith(service_rel + "/configuration/")
            if not generated and config_type not in self.core.own_types:
                self.add(rel, 1, "a stack add-on may only override properties of the service's own config "
                         "types (%s), not define %s" % (", ".join(self.names.OWN_CONFIG_TYPES), config_type))
                continue
            if self._parsable(rel):
                root = self.xml(rel)
                if root is not None:
                    self._check_configuration(rel, config_type, root, overrides_only=not generated)

    def _config_problem(self, rel, config_type, name, line, message):
        if self.layout.source_of(rel).startswith("generated:"):
            # the generated file is not in the checkout: point at the schema entry instead
            self.problems.append(self.core.problem(config_type, name, "generated %s line %d: %s"
                                                   % (rel, line, message)))
        else:
            self.add(rel, line, "%s: %s" % (name, message) if name else message)

    def _check_configuration(self, rel, config_type, root, overrides_only):
        def bad(name, node, message):
            self._config_problem(rel, config_type, name, node.line, message)

        if root.tag != "configuration":
            bad(None, root, "the root element must be <configuration>")
            return
        for attr, value in root.attrib.items():
            if attr not in CONFIGURATION_ATTRIBUTES or value not in ("true", "false"):
                bad(None, root, "unexpected <configuration %s=%r>" % (attr, value))
        seen = set()
        for prop in root.children:
            if prop.tag != "property":
                bad(None, prop, "<configuration> may only contain <property>, not <%s>" % prop.tag)
                continue
            name = prop.text_of("name")
            if not name:
                bad(None, prop, "<property> without <name>")
                continue
            if name in seen:
                bad(name, prop, "defined twice")
            seen.add(name)
            if overrides_only and not self.core.has_property(config_type, name):
                bad(name, prop, "overrides a property that %s does not define in %s" % (config_type, SCHEMA_REL))
            self._check_property(config_type, prop, name, bad)

    def _check_property(self, config_type, prop, name, bad):
        for child in prop.children:
            if child.tag not in PROPERTY_ELEMENTS:
                bad(name, child, "<%s> is not a property element Ambari reads" % child.tag)
        if prop.find("value") is None:
            bad(name, prop, "<value> is missing (use <value></value> for empty)")
        for tag in ("display-name", "description"):
            if not prop.text_of(tag):
                bad(name, prop, "<%s> is missing or empty" % tag)
        upgrade = prop.find("on-ambari-upgrade")
        if upgrade is None:
            bad(name, prop, "<on-ambari-upgrade add=\"true|false\"/> is missing (required by Ambari's "
                "configuration schema; new properties need add=\"true\" to reach existing clusters)")
        else:
            for attr, value in upgrade.attrib.items():
                if attr not in ("add", "delete", "update") or value not in ("true", "false"):
                    bad(name, upgrade, "unexpected on-ambari-upgrade %s=%r" % (attr, value))
        if prop.attrib.get("require-input", "false") not in ("true", "false"):
            bad(name, prop, "require-input must be true or false")
        types = set()
        for node in prop.findall("property-type"):
            types |= set(node.text.split())
        for unknown in sorted(types - PROPERTY_TYPES):
            bad(name, prop, "unknown property-type %s" % unknown)
        attrs = prop.find("value-attributes")
        if attrs is None:
            bad(name, prop, "<value-attributes> is missing (at least its <type>)")
            return
        for child in attrs.children:
            if child.tag not in VALUE_ATTRIBUTE_ELEMENTS:
                bad(name, child, "<%s> is not a value-attributes element Ambari reads" % child.tag)
        value_type = attrs.text_of("type")
        if value_type not in VALUE_TYPES:
            bad(name, attrs, "value-attributes <type> %r is not one Ambari knows" % (value_type,))
        if ("PASSWORD" in types) != (value_type == "password"):
            bad(name, prop, "a password needs both <property-type>PASSWORD</property-type> (stored as a secret "
                "reference) and value-attributes <type>password</type> (masked in the UI)")
        value = prop.find("value")
        text = value.text if value is not None else ""
        empty_ok = attrs.text_of("empty-value-valid") == "true" and text == ""
        if value_type == "value-list":
            entries = attrs.find("entries")
            values = [e.text_of("value") for e in (entries.findall("entry") if entries is not None else [])]
            if not values:
                bad(name, attrs, "a value-list needs <entries>")
            elif text not in values and not empty_ok:
                bad(name, value, "value %r is not one of the entries %s" % (text, values))
        if value_type in ("int", "long") and not empty_ok and int_or_none(text) is None:
            bad(name, value, "value %r is not an integer" % text)
        if value_type == "boolean" and text not in ("true", "false"):
            bad(name, value, "value %r is not true or false" % text)
        deps = prop.find("depends-on")
        for dep in (deps.findall("property") if deps is not None else []):
            problem = self.ref_problem("%s/%s" % (dep.text_of("type"), dep.text_of("name")))
            if problem:
                bad(name, dep, "depends-on: " + problem)
