"""configuration/<type>.xml generated from mm2_core/config/schema.py (it exists only in the tarball)."""

import io
import os
import re

from .ambari_rules import PROPERTY_TYPES, VALUE_TYPES
from .paths import SCHEMA_REL, TEMPLATES_REL
from .problems import Problem, unicode_text


_XML_INVALID_CHARS = re.compile(u"[\x00-\x08\x0b\x0c\x0e-\x1f]")



# a file of this repository (docs/configure.md, benchmarks/README.md, ...) named in a help text
_REPOSITORY_PATH = re.compile(r"\b(?:docs|benchmarks|examples|tests|src|package)/[\w./-]+|\b[\w-]+\.md\b")

def _property_ref(config_type, name, indent):
    """<property><type/><name/></property>: how Ambari names another property (depends-on, user-groups)."""
    return [indent + u"<property>", indent + u"  <type>%s</type>" % _esc(config_type),
            indent + u"  <name>%s</name>" % _esc(name), indent + u"</property>"]

def _esc(text):
    return unicode_text(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_bool(value):
    return "true" if value else "false"


def content_default(repo, prop):
    """Default of a content property: its template text, without trailing whitespace because
    ambari-web trims it (App.config.trimProperty) and would otherwise show the value as changed."""
    path = os.path.join(repo, TEMPLATES_REL, prop.content_file)
    with io.open(path, encoding="utf-8") as fh:
        return fh.read().rstrip()


def schema_problems(core):
    """Problems in the property catalog itself, pointing at schema.py."""
    names, problems = core.names, []
    if tuple(t.name for t in core.schema.CONFIG_TYPES) != tuple(names.OWN_CONFIG_TYPES):
        problems.append(Problem(SCHEMA_REL, 1, "CONFIG_TYPES must list names.OWN_CONFIG_TYPES in order"))
    for ctype in core.schema.CONFIG_TYPES:
        if not ctype.name.startswith("kafka-mm2-"):
            problems.append(core.problem(ctype.name, None, "config types must start with 'kafka-mm2-' "
                                         "so they cannot clash with a stack service's types"))
        for prop in ctype.properties:
            problems.extend(_property_problems(core, ctype, prop))
    return problems


def template_problems(core):
    """Content properties whose template (their default) is missing or unusable."""
    problems = []
    for ctype in core.schema.CONFIG_TYPES:
        for prop in ctype.properties:
            if prop.content_file:
                problems.extend(p for p in _property_problems(core, ctype, prop) if TEMPLATES_REL in p.message)
    return problems


def int_or_none(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _property_problems(core, ctype, prop):
    out = []

    def bad(message):
        out.append(core.problem(ctype.name, prop.name, message))

    if not re.match(r"^[A-Za-z0-9_.\-]+$", prop.name):
        bad("property names may contain only letters, digits, '_', '.' and '-'")
    if not (prop.display_name or "").strip():
        bad("display_name is empty")
    if not (prop.description or "").strip():
        bad("description is empty")
    repo_path = _REPOSITORY_PATH.search(prop.description or "")
    if repo_path:
        bad("its help text sends the operator to %s, a file of the mpack's sources that a cluster does not have: "
            "name the documentation page by its title" % repo_path.group(0))
    if prop.value_type not in VALUE_TYPES:
        bad("value_type %r is not one Ambari knows (%s)" % (prop.value_type, ", ".join(sorted(VALUE_TYPES))))
    if prop.property_type is not None and prop.property_type not in PROPERTY_TYPES:
        bad("property_type %r is not one Ambari knows (%s)" % (prop.property_type, ", ".join(sorted(PROPERTY_TYPES))))
    empty_ok = prop.default == "" and prop.empty_value_valid
    if prop.value_type == "value-list":
        values = [v for v, _ in (prop.entries or [])]
        if not values:
            bad("a value-list needs entries")
        elif prop.default not in values and not empty_ok:
            bad("default %r is not one of the entries %s" % (prop.default, values))
    if prop.value_type in ("int", "long"):
        bounds = [(label, v) for label, v in (("minimum", prop.minimum), ("maximum", prop.maximum)) if v is not None]
        for label, value in bounds:
            if int_or_none(value) is None:
                bad("%s %r is not an integer" % (label, value))
        if not empty_ok:
            number = int_or_none(prop.default)
            if number is None:
                bad("default %r is not an integer" % (prop.default,))
            else:
                low, high = int_or_none(prop.minimum), int_or_none(prop.maximum)
                if (low is not None and number < low) or (high is not None and number > high):
                    bad("default %s is outside [%s, %s]" % (number, prop.minimum, prop.maximum))
    if prop.value_type == "boolean" and prop.default not in ("true", "false"):
        bad("a boolean default must be 'true' or 'false', not %r" % (prop.default,))
    if prop.value_type == "content" and prop.content_file:
        path = os.path.join(core.repo, TEMPLATES_REL, prop.content_file)
        if not os.path.isfile(path):
            bad("its default comes from %s/%s, which does not exist: create the template or fix "
                "content_file" % (TEMPLATES_REL, prop.content_file))
        else:
            try:
                text = content_default(core.repo, prop)
            except UnicodeDecodeError:
                bad("%s/%s is not UTF-8 text" % (TEMPLATES_REL, prop.content_file))
            else:
                if _XML_INVALID_CHARS.search(text):
                    bad("%s/%s contains control characters XML cannot carry" % (TEMPLATES_REL, prop.content_file))
    elif prop.content_file:
        bad("content_file is only meaningful for value_type 'content'")
    for dep in prop.depends_on:
        if len(dep) != 2:
            bad("depends_on entries are (config_type, name) pairs, not %r" % (dep,))
        elif dep[0] not in core.known_types:
            bad("depends_on %s/%s: unknown config type" % dep)
        elif dep[0] in core.own_types and not core.has_property(dep[0], dep[1]):
            bad("depends_on %s/%s: no such property" % dep)
    return out


def generate_configuration_xml(repo, ctype):
    """Text of configuration/<type>.xml for one schema.ConfigType (call schema_problems first).

    Every property says add="true" for AbstractUpgradeCatalog.addNewConfigurationsFromXml, but only
    a server upgrade from before Ambari 2.7.5 runs it: properties a newer mpack version introduces
    reach existing clusters through `mm2-ambari upgrade` (docs/install-and-upgrade.md). Until then
    the agent scripts read every property with its schema default as fallback.
    """
    lines = [u'<?xml version="1.0"?>',
             u"<!-- Generated by build.py from %s: edit the schema, not this file. -->" % SCHEMA_REL,
             u'<configuration supports_adding_forbidden="%s">' % xml_bool(ctype.supports_adding_forbidden)]
    for prop in ctype.properties:
        value = content_default(repo, prop) if prop.content_file else prop.default
        lines.append(u'  <property require-input="true">' if prop.require_input else u"  <property>")
        lines.append(u"    <name>%s</name>" % _esc(prop.name))
        lines.append(u"    <value>%s</value>" % _esc(value))
        lines.append(u"    <display-name>%s</display-name>" % _esc(prop.display_name))
        lines.append(u"    <description>%s</description>" % _esc(prop.description))
        if prop.property_type:
            lines.append(u"    <property-type>%s</property-type>" % prop.property_type)
        lines.append(u"    <value-attributes>")
        lines.append(u"      <type>%s</type>" % prop.ambari_value_type)
        for tag, value_ in (("minimum", prop.minimum), ("maximum", prop.maximum), ("unit", prop.unit)):
            if value_ is not None:
                lines.append(u"      <%s>%s</%s>" % (tag, _esc(value_), tag))
        flags = (("overridable", prop.overridable, True), ("visible", prop.visible, True),
                 ("empty-value-valid", prop.empty_value_valid, False),
                 ("read-only", prop.read_only, False),
                 ("editable-only-at-install", prop.editable_only_at_install, False),
                 ("show-property-name", prop.show_property_name, True))
        for tag, value_, default in flags:
            if bool(value_) != default:
                lines.append(u"      <%s>%s</%s>" % (tag, xml_bool(value_), tag))
        if prop.ambari_value_type == "value-list":
            lines.append(u"      <entries>")
            for entry_value, label in prop.ambari_entries:
                lines.append(u"        <entry>")
                lines.append(u"          <value>%s</value>" % _esc(entry_value))
                lines.append(u"          <label>%s</label>" % _esc(label))
                lines.append(u"        </entry>")
            lines.append(u"      </entries>")
            lines.append(u"      <selection-cardinality>1</selection-cardinality>")
        if prop.value_type == "user":
            # the before-ANY hook creates USER properties' users in cluster-env/user_group
            lines.append(u"      <user-groups>")
            lines.extend(_property_ref(u"cluster-env", u"user_group", u"        "))
            lines.append(u"      </user-groups>")
        lines.append(u"    </value-attributes>")
        if prop.depends_on:
            lines.append(u"    <depends-on>")
            for dep_type, dep_name in prop.depends_on:
                lines.extend(_property_ref(dep_type, dep_name, u"      "))
            lines.append(u"    </depends-on>")
        if getattr(prop, "refresh_command", None):
            lines.append(u"    <supported-refresh-commands>")
            component, command = prop.refresh_command
            lines.append(u'      <refresh-command componentName="%s" command="%s"/>' % (_esc(component), _esc(command)))
            lines.append(u"    </supported-refresh-commands>")
        lines.append(u'    <on-ambari-upgrade add="true"/>')
        lines.append(u"  </property>")
    lines.append(u"</configuration>")
    return u"\n".join(lines) + u"\n"
