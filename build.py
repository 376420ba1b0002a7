#!/usr/bin/env python3
"""Validate and assemble the MirrorMaker 2 management pack.

    python3 build.py                   validate, then write dist/<name>-<version>.tar.gz and .sha256
    python3 build.py --check           validate only
    python3 build.py --record-release  add this version's names to tests/build/released-names.json

Every problem is reported as ``file:line: message`` and nothing is built while any remain.

Importable on Python 2.7 and 3 so tests can reuse the pieces:
    validate(repo) -> [Problem]
    assemble(staging_dir, repo) -> <staging_dir>/<name>-<version>   (the layout install-mpack unpacks)
    build(out_dir, repo) -> path of the tarball   (raises BuildError)
"""
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.sax
import xml.sax.handler

REPO = os.path.dirname(os.path.abspath(__file__))
SCHEMA_REL = "package/scripts/mm2_core/schema.py"
RELEASED_NAMES_REL = "tests/build/released-names.json"
TEMPLATES_REL = "package/templates"

# Fixed so that two builds of the same tree are byte-identical (SOURCE_DATE_EPOCH overrides it).
DEFAULT_MTIME = 1577836800  # 2020-01-01T00:00:00Z

PY2 = sys.version_info[0] == 2
if PY2:  # pragma: no cover - exercised by the Python 2.7 test line
    text_type = unicode  # noqa: F821
else:
    text_type = str

# ---------------------------------------------------------------------------------------------
# What Ambari accepts (read from the Ambari sources, 2.7.8 and trunk)
# ---------------------------------------------------------------------------------------------

# setupMpacks.py artifact types; anything else is logged as "Unknown artifact" and ignored.
ARTIFACT_TYPES = ("service-definitions", "stack-addon-service-definitions",
                  "stack-definitions", "extension-definitions")
MPACK_KEYS = ("type", "name", "version", "description", "prerequisites", "artifacts", "hooks")
PREREQUISITE_KEYS = ("min_ambari_version", "max_ambari_version", "min_stack_versions")
HOOK_NAMES = ("before-install", "after-install", "before-upgrade", "after-upgrade")

# JAXB element names of ServiceInfo / ComponentInfo: unknown elements are silently ignored by
# the server, so a typo would disable a feature without any error.
SERVICE_ELEMENTS = frozenset("""
name displayName version comment serviceType selection maintainer service_advisor_type components
deleted supportDeleteViaUI configuration-dependencies excluded-config-types monitoringService
restartRequiredAfterChange restartRequiredAfterRackChange extends widgetsFileName metricsFileName
credential-store kerberosEnabledTest sso ldap properties osSpecifics configuration-dir themes-dir
themes quickLinksConfigurations-dir quickLinksConfigurations commandScript customCommands
requiredServices rollingRestartSupported""".split())
COMPONENT_ELEMENTS = frozenset("""
name displayName category deleted cardinality versionAdvertised decommissionAllowed
unlimitedKeyJCERequired rollingRestartSupported commandScript logs clientsToUpdateConfigs
configFiles customCommands bulkCommands dependencies configuration-dependencies auto-deploy
recovery_enabled reassignAllowed timelineAppid customFolder componentType""".split())
CUSTOM_COMMAND_ELEMENTS = frozenset(["name", "opsDisplayName", "commandScript", "background", "hidden"])
COMMAND_SCRIPT_ELEMENTS = frozenset(["script", "scriptType", "timeout"])

# PropertyInfo / ValueAttributesInfo
PROPERTY_ELEMENTS = frozenset("""
name value description display-name filename deleted on-ambari-upgrade on-stack-upgrade
property-type value-attributes depends-on used-by supported-refresh-commands final""".split())
VALUE_ATTRIBUTE_ELEMENTS = frozenset("""
type maximum minimum unit delete visible overridable copy empty-value-valid ui-only-property
read-only editable-only-at-install show-property-name increment-step entries hidden
entries_editable selection-cardinality property-file-name property-file-type user-groups
keystore""".split())
PROPERTY_TYPES = frozenset("""PASSWORD USER UID GROUP GID TEXT ADDITIONAL_USER_PROPERTY
NOT_MANAGED_HDFS_PATH VALUE_FROM_PROPERTY_FILE KERBEROS_PRINCIPAL""".split())
VALUE_TYPES = frozenset("""string int long float boolean password value-list directory directories
content user multiLine""".split())
CONFIGURATION_ATTRIBUTES = frozenset(["supports_final", "supports_adding_forbidden", "supports_do_not_extend"])
TIME_UNITS = ("milliseconds", "seconds", "minutes", "hours", "days")

# ambari-web enhanced_configs.js widgetTypeMap (2.7.8 and trunk) and the value types each suits.
WIDGET_VALUE_TYPES = {
    "toggle": ("boolean",), "checkbox": ("boolean",),
    "combo": ("value-list",), "radio-buttons": ("value-list",), "list": ("value-list",),
    "password": ("password",),
    "slider": ("int", "long", "float"),
    "time-interval-spinner": ("int", "long"),
    "directory": ("directory", "string"), "directories": ("directories", "directory"),
    "text-field": ("string", "int", "long", "float", "user", "directory"),
    "text-area": ("content", "string", "multiLine"),
    "label": None, "test-db-connection": None,
}
ROLE_COMMANDS = frozenset("""INSTALL UNINSTALL START RESTART STOP SERVICE_CHECK EXECUTE ABORT UPGRADE
CUSTOM_COMMAND ACTIONEXECUTE""".split())
RCO_SECTIONS = ("general_deps", "optional_glusterfs", "optional_no_glusterfs", "namenode_optional_ha",
                "resourcemanager_optional_ha", "host_ordered_upgrade")
ALERT_SOURCE_TYPES = frozenset("METRIC SCRIPT PORT AGGREGATE PERCENT WEB RECOVERY SERVER AMS".split())
KERBEROS_VARIABLES = frozenset(["realm", "keytab_dir", "cluster_name", "principal_suffix", "hostname",
                                "principal_primary", "principal_name", "principal_type"])

EXCLUDED_DIRS = frozenset(["__pycache__", ".git", ".pytest_cache", ".hypothesis", "tests", "test"])
_EXCLUDED_FILE = re.compile(r"^[.#]|(\.py[co]|~|\.sw[a-p]|\.orig|\.rej|\.bak|\.tmp)$")


# ---------------------------------------------------------------------------------------------
# Problems
# ---------------------------------------------------------------------------------------------

class Problem(object):
    """One validation problem; str() gives 'file:line: message'."""

    def __init__(self, path, line, message):
        self.path = path
        self.line = line or 1
        self.message = message

    def __str__(self):
        return "%s:%d: %s" % (self.path, self.line, self.message)

    __repr__ = __str__


class BuildError(Exception):
    def __init__(self, problems):
        self.problems = list(problems)
        Exception.__init__(self, "\n".join(str(p) for p in self.problems))


class _Invalid(Exception):
    """A file could not be read or parsed; carries the Problem."""

    def __init__(self, problem):
        Exception.__init__(self, str(problem))
        self.problem = problem


def _native(value):
    """Python 2: unicode from json/sax as native str, so messages read 'x' and not u'x'."""
    if not PY2:
        return value
    if isinstance(value, text_type):  # pragma: no cover - Python 2.7 line
        return value.encode("utf-8")
    if isinstance(value, dict):  # pragma: no cover
        return dict((_native(k), _native(v)) for k, v in value.items())
    if isinstance(value, list):  # pragma: no cover
        return [_native(v) for v in value]
    return value


def _u(text):
    if PY2 and isinstance(text, bytes):  # pragma: no cover
        return text.decode("utf-8")
    return text


# ---------------------------------------------------------------------------------------------
# Reading JSON and XML with line numbers
# ---------------------------------------------------------------------------------------------

class Source(object):
    """Text of one file with helpers to point at a line."""

    def __init__(self, rel, text, obj=None):
        self.rel = rel
        self.text = text
        self.obj = obj

    def find_line(self, needle, after=None, nth=1):
        """1-based line of the nth occurrence of needle (after the first `after`), or None."""
        start = 0
        if after is not None:
            found = self.text.find(after)
            if found < 0:
                return None
            start = found
        pos = start - 1
        for _ in range(nth):
            pos = self.text.find(needle, pos + 1)
            if pos < 0:
                return None
        return self.text.count("\n", 0, pos) + 1

    def line_of(self, needle, after=None, nth=1):
        """Like find_line, but line 1 when the needle is not found (the file itself is still named)."""
        return self.find_line(needle, after, nth) or self.find_line(needle, None, nth) or 1

    def key_line(self, key, after=None):
        return self.line_of('"%s"' % key, after=after)


class _DuplicateKey(ValueError):
    def __init__(self, key):
        ValueError.__init__(self, key)
        self.key = key


def _no_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _read_text(path, rel):
    try:
        with io.open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError as e:
        raise _Invalid(Problem(rel, 1, "not UTF-8 text: %s" % e))
    except (IOError, OSError) as e:
        raise _Invalid(Problem(rel, 1, "cannot read: %s" % e))


def load_json(path, rel):
    """Parse a JSON file (rejecting duplicate keys); raises _Invalid with the line of the error."""
    text = _read_text(path, rel)
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as e:
        src = Source(rel, text)
        raise _Invalid(Problem(rel, src.line_of('"%s"' % e.key, nth=2),
                               "duplicate key %r (JSON readers keep only the last one)" % _native(e.key)))
    except ValueError as e:
        match = re.search(r"line (\d+) column (\d+)", str(e))
        line = int(match.group(1)) if match else 1
        raise _Invalid(Problem(rel, line, "invalid JSON: %s" % e))
    return Source(rel, text, _native(obj))


class Node(object):
    """A parsed XML element that remembers its line."""

    def __init__(self, tag, attrib, line):
        self.tag = tag
        self.attrib = attrib
        self.line = line
        self.children = []
        self.text = ""

    def find(self, tag):
        for child in self.children:
            if child.tag == tag:
                return child
        return None

    def findall(self, tag):
        return [c for c in self.children if c.tag == tag]

    def text_of(self, tag, default=None):
        child = self.find(tag)
        return child.text.strip() if child is not None else default

    def iter(self):
        yield self
        for child in self.children:
            for node in child.iter():
                yield node


class _TreeBuilder(xml.sax.handler.ContentHandler):
    def __init__(self):
        xml.sax.handler.ContentHandler.__init__(self)
        self.root = None
        self._stack = []
        self._locator = None

    def setDocumentLocator(self, locator):
        self._locator = locator

    def startElement(self, name, attrs):
        node = Node(_native(name), _native(dict(attrs.items())),
                    self._locator.getLineNumber() if self._locator else 1)
        if self._stack:
            self._stack[-1].children.append(node)
        else:
            self.root = node
        self._stack.append(node)

    def endElement(self, name):
        self._stack.pop()

    def characters(self, content):
        if self._stack:
            self._stack[-1].text += _native(content)


def parse_xml(data, rel):
    """Parse XML bytes into Nodes; raises _Invalid with the line of a well-formedness error."""
    parser = xml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, False)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)  # no entity tricks
    builder = _TreeBuilder()
    parser.setContentHandler(builder)
    try:
        parser.parse(io.BytesIO(data))
    except xml.sax.SAXParseException as e:
        raise _Invalid(Problem(rel, e.getLineNumber(), "XML is not well-formed: %s" % e.getMessage()))
    return builder.root


def load_xml(path, rel):
    with open(path, "rb") as fh:
        return parse_xml(fh.read(), rel)


# ---------------------------------------------------------------------------------------------
# The pure core (names, schema) of a given checkout
# ---------------------------------------------------------------------------------------------

class Core(object):
    """names.py and schema.py of one checkout, plus the line of each property in schema.py."""

    def __init__(self, repo):
        self.repo = repo
        try:
            self.names, self.schema = _import_core(repo)
        except Exception as e:  # a broken schema must read as a problem, not a traceback
            raise _Invalid(_import_problem(repo, e))
        with io.open(os.path.join(repo, SCHEMA_REL), encoding="utf-8") as fh:
            self.schema_source = Source(SCHEMA_REL, fh.read())
        self.own_types = dict((t.name, t) for t in self.schema.CONFIG_TYPES)
        self.known_types = set(self.own_types) | set(self.names.FOREIGN_CONFIG_TYPES)

    @property
    def service_dir(self):
        return "common-services/%s/%s" % (self.names.SERVICE, self.names.SERVICE_VERSION)

    def has_property(self, config_type, name):
        ctype = self.own_types.get(config_type)
        return ctype is not None and name in ctype

    def prop(self, config_type, name):
        ctype = self.own_types.get(config_type)
        return ctype[name] if ctype is not None and name in ctype else None

    def schema_line(self, config_type, name=None):
        """Best line of a property (or config type) definition in schema.py."""
        src = self.schema_source
        type_needles = ["names.%s" % k for k in sorted(dir(self.names))
                        if k.isupper() and getattr(self.names, k) == config_type]
        needles = []
        if name is not None:
            needles += ['"%s"' % name, "'%s'" % name]
            if "." in name:  # cluster properties are built as role + ".suffix"
                needles.append('".%s"' % name.split(".", 1)[1])
        for needle in needles:
            for after in type_needles + [None]:  # inside the type's definition first
                line = src.find_line(needle, after)
                if line:
                    return line
        for needle in type_needles:
            line = src.find_line(needle)
            if line:
                return line
        return 1

    def problem(self, config_type, name, message):
        label = "%s/%s" % (config_type, name) if name else config_type
        return Problem(SCHEMA_REL, self.schema_line(config_type, name), "%s: %s" % (label, message))


def _import_problem(repo, error):
    """Problem for an exception raised while importing mm2_core: its file and line in the checkout."""
    import traceback
    rel, line = SCHEMA_REL, 1
    if isinstance(error, SyntaxError) and error.filename:
        rel, line = os.path.relpath(error.filename, repo).replace(os.sep, "/"), error.lineno or 1
    else:
        for filename, lineno, _, _ in traceback.extract_tb(sys.exc_info()[2]):
            if os.path.abspath(filename).startswith(os.path.abspath(repo) + os.sep):
                rel, line = os.path.relpath(filename, repo).replace(os.sep, "/"), lineno
    return Problem(rel, line, "importing mm2_core failed: %s: %s" % (type(error).__name__, error))


def _import_core(repo):
    """Import mm2_core.names/schema of `repo` without disturbing an mm2_core already imported."""
    import importlib
    scripts = os.path.join(repo, "package", "scripts")
    saved = dict((k, v) for k, v in sys.modules.items() if k == "mm2_core" or k.startswith("mm2_core."))
    for key in saved:
        del sys.modules[key]
    sys.path.insert(0, scripts)
    old_dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # keep the checkout free of caches
    try:
        names = importlib.import_module("mm2_core.names")
        schema = importlib.import_module("mm2_core.schema")
    finally:
        sys.dont_write_bytecode = old_dont_write
        sys.path.remove(scripts)
        for key in [k for k in sys.modules if k == "mm2_core" or k.startswith("mm2_core.")]:
            del sys.modules[key]
        sys.modules.update(saved)
    return names, schema


# ---------------------------------------------------------------------------------------------
# configuration/<type>.xml generated from the schema
# ---------------------------------------------------------------------------------------------

_XML_INVALID_CHARS = re.compile(u"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _esc(text):
    return _u(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _bool(value):
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


def _int_or_none(value):
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
            if _int_or_none(value) is None:
                bad("%s %r is not an integer" % (label, value))
        if not empty_ok:
            number = _int_or_none(prop.default)
            if number is None:
                bad("default %r is not an integer" % (prop.default,))
            else:
                low, high = _int_or_none(prop.minimum), _int_or_none(prop.maximum)
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

    Every property is added on Ambari upgrade (add="true"): AbstractUpgradeCatalog only adds
    properties that are missing from a cluster's current config and never overwrites a value,
    so properties a newer mpack version introduces reach existing clusters at the next
    ambari-server upgrade. (upgrade-mpack itself never touches cluster configs, so the agent
    scripts read every property with its schema default as fallback.)
    """
    lines = [u'<?xml version="1.0"?>',
             u"<!-- Generated by build.py from %s: edit the schema, not this file. -->" % SCHEMA_REL,
             u'<configuration supports_adding_forbidden="%s">' % _bool(ctype.supports_adding_forbidden)]
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
        lines.append(u"      <type>%s</type>" % prop.value_type)
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
                lines.append(u"      <%s>%s</%s>" % (tag, _bool(value_), tag))
        if prop.value_type == "value-list":
            lines.append(u"      <entries>")
            for entry_value, label in prop.entries:
                lines.append(u"        <entry>")
                lines.append(u"          <value>%s</value>" % _esc(entry_value))
                lines.append(u"          <label>%s</label>" % _esc(label))
                lines.append(u"        </entry>")
            lines.append(u"      </entries>")
            lines.append(u"      <selection-cardinality>1</selection-cardinality>")
        if prop.value_type == "user":
            # the before-ANY hook creates USER properties' users in cluster-env/user_group
            lines.append(u"      <user-groups>")
            lines.append(u"        <property>")
            lines.append(u"          <type>cluster-env</type>")
            lines.append(u"          <name>user_group</name>")
            lines.append(u"        </property>")
            lines.append(u"      </user-groups>")
        lines.append(u"    </value-attributes>")
        if prop.depends_on:
            lines.append(u"    <depends-on>")
            for dep_type, dep_name in prop.depends_on:
                lines.append(u"      <property>")
                lines.append(u"        <type>%s</type>" % _esc(dep_type))
                lines.append(u"        <name>%s</name>" % _esc(dep_name))
                lines.append(u"      </property>")
            lines.append(u"    </depends-on>")
        lines.append(u'    <on-ambari-upgrade add="true"/>')
        lines.append(u"  </property>")
    lines.append(u"</configuration>")
    return u"\n".join(lines) + u"\n"


# ---------------------------------------------------------------------------------------------
# Assembling the installed layout
# ---------------------------------------------------------------------------------------------

def _excluded(name, is_dir):
    if is_dir:
        return name in EXCLUDED_DIRS or name.startswith(".")
    return bool(_EXCLUDED_FILE.search(name))


def _makedirs(path):
    if not os.path.isdir(path):
        os.makedirs(path)


def _copy_tree(src, dst, dst_rel, origin, src_rel):
    """Copy src into dst without caches, tests, dotfiles or editor files; record origins."""
    for dirpath, dirnames, filenames in os.walk(src, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not _excluded(d, True))
        rel_dir = os.path.relpath(dirpath, src)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        target_dir = os.path.join(dst, rel_dir) if rel_dir else dst
        _makedirs(target_dir)
        for name in sorted(filenames):
            if _excluded(name, False):
                continue
            source = os.path.join(dirpath, name)
            if not os.path.isfile(source):
                continue
            target = os.path.join(target_dir, name)
            shutil.copyfile(source, target)
            executable = os.stat(source).st_mode & 0o111
            os.chmod(target, 0o755 if executable else 0o644)
            sub = (rel_dir + "/" + name) if rel_dir else name
            origin[dst_rel + "/" + sub] = src_rel + "/" + sub


def read_mpack_identity(repo):
    """(name, version) from mpack.json, the one place the version is written."""
    src = load_json(os.path.join(repo, "mpack.json"), "mpack.json")
    meta = src.obj if isinstance(src.obj, dict) else {}
    name, version = meta.get("name"), meta.get("version")
    if not isinstance(name, (str, text_type)) or not isinstance(version, (str, text_type)):
        raise _Invalid(Problem("mpack.json", 1, "mpack.json needs string 'name' and 'version'"))
    return str(name), str(version)


class Layout(object):
    """An assembled mpack: root dir, the origin of each file, and the checkout's core."""

    def __init__(self, root, origin, core):
        self.root = root
        self.origin = origin  # assembled rel path -> repo rel path (or "generated:<type>")
        self.core = core

    def path(self, rel):
        return os.path.join(self.root, *rel.split("/"))

    def source_of(self, rel):
        return self.origin.get(rel, rel)


def assemble(staging_dir, repo=REPO, core=None):
    """Write the mpack layout to <staging_dir>/<name>-<version>/ and return that path.

    mpack.json, common-services/ (+ package/ copied in, + configuration/ generated from the
    schema) and stacks/. Raises BuildError when the tree cannot be assembled.
    """
    return _assemble(staging_dir, repo, core).root


def _assemble(staging_dir, repo, core=None):
    try:
        name, version = read_mpack_identity(repo)
        core = core or Core(repo)
    except _Invalid as e:
        raise BuildError([e.problem])
    # only what makes assembly impossible blocks it here; validate() reports every other problem
    problems = template_problems(core)
    service_dir = core.service_dir
    for generated in ("configuration", "package"):
        rel = "%s/%s" % (service_dir, generated)
        if os.path.exists(os.path.join(repo, *rel.split("/"))):
            problems.append(Problem(rel, 1, "%s/ is put together by build.py (%s); remove it from the "
                                    "checkout" % (generated, "generated from " + SCHEMA_REL
                                                  if generated == "configuration" else "copied from package/")))
    if problems:
        raise BuildError(problems)

    root = os.path.join(staging_dir, "%s-%s" % (name, version))
    if os.path.exists(root):
        shutil.rmtree(root)
    _makedirs(root)
    origin = {}
    shutil.copyfile(os.path.join(repo, "mpack.json"), os.path.join(root, "mpack.json"))
    os.chmod(os.path.join(root, "mpack.json"), 0o644)
    origin["mpack.json"] = "mpack.json"
    for top in ("common-services", "stacks"):
        if os.path.isdir(os.path.join(repo, top)):
            _copy_tree(os.path.join(repo, top), os.path.join(root, top), top, origin, top)
    service_abs = os.path.join(root, *service_dir.split("/"))
    _copy_tree(os.path.join(repo, "package"), os.path.join(service_abs, "package"),
               service_dir + "/package", origin, "package")
    config_dir = os.path.join(service_abs, "configuration")
    _makedirs(config_dir)
    for ctype in core.schema.CONFIG_TYPES:
        rel = "%s/configuration/%s.xml" % (service_dir, ctype.name)
        with io.open(os.path.join(config_dir, ctype.name + ".xml"), "w", encoding="utf-8") as fh:
            fh.write(generate_configuration_xml(repo, ctype))
        os.chmod(os.path.join(config_dir, ctype.name + ".xml"), 0o644)
        origin[rel] = "generated:" + ctype.name
    return Layout(root, origin, core)


# ---------------------------------------------------------------------------------------------
# Checks of the assembled layout
# ---------------------------------------------------------------------------------------------

class Checker(object):
    def __init__(self, layout):
        self.layout = layout
        self.core = layout.core
        self.names = layout.core.names
        self.problems = []

    # -- helpers -------------------------------------------------------------------------------
    def add(self, rel, line, message):
        self.problems.append(Problem(self.layout.source_of(rel), line, message))

    def json(self, rel, required=True):
        return self._load(rel, load_json, required)

    def xml(self, rel, required=True):
        return self._load(rel, load_xml, required)

    def _load(self, rel, loader, required):
        """Parsed file, or None with the problem recorded (missing file, or not well-formed)."""
        path = self.layout.path(rel)
        if not os.path.isfile(path):
            if required:
                self.add(rel, 1, "missing")
            return None
        try:
            return loader(path, self.layout.source_of(rel))
        except _Invalid as e:
            self.problems.append(e.problem)
            return None

    def ref_problem(self, ref):
        """None if 'type/prop' names a property this service owns or a type it reads, else why not."""
        if not isinstance(ref, (str, text_type)) or "/" not in ref:
            return "%r is not of the form config-type/property" % (ref,)
        config_type, name = ref.split("/", 1)
        if config_type in self.core.own_types:
            if not self.core.has_property(config_type, name):
                return "%s has no property %r (see %s)" % (config_type, name, SCHEMA_REL)
            return None
        if config_type not in self.core.known_types:
            return ("config type %r is neither owned by the service nor listed in "
                    "names.FOREIGN_CONFIG_TYPES" % config_type)
        return None

    # -- everything ----------------------------------------------------------------------------
    def run(self):
        self.problems.extend(p for p in schema_problems(self.core) if TEMPLATES_REL not in p.message)
        self.check_well_formed()
        meta = self.check_mpack_json()
        self.check_service_metainfo()
        self.check_stack_metainfos(meta)
        self.check_configurations()
        self.check_themes()
        self.check_quicklinks()
        self.check_kerberos()
        self.check_role_command_order()
        self.check_alerts()
        self.check_service_advisor()
        self.check_released_names()
        return self.problems

    def check_well_formed(self):
        """Every JSON and XML file that ships must parse (the specific checks re-read them)."""
        for rel in sorted(self.layout.origin):
            if rel.endswith(".json"):
                self.json(rel)
            elif rel.endswith(".xml"):
                self.xml(rel)
        # parse errors are reported once: the specific checks below skip unparsable files
        self._unparsable = set(p.path for p in self.problems)

    def _parsable(self, rel):
        return self.layout.source_of(rel) not in self._unparsable

    # -- mpack.json ----------------------------------------------------------------------------
    def check_mpack_json(self):
        if not self._parsable("mpack.json"):
            return None
        src = self.json("mpack.json")
        meta = src.obj
        rel = "mpack.json"
        if not isinstance(meta, dict):
            self.add(rel, 1, "mpack.json must be a JSON object")
            return None
        for key in meta:
            if key not in MPACK_KEYS:
                self.add(rel, src.key_line(key), "unknown key %r: setupMpacks.py does not read it" % key)
        for key in ("name", "version", "prerequisites", "artifacts"):
            if key not in meta:
                self.add(rel, 1, "missing %r: setupMpacks.py reads mpack_metadata.%s and fails with "
                         "AttributeError without it" % (key, key))
        name, version = meta.get("name"), meta.get("version")
        if "name" in meta and not (isinstance(name, (str, text_type)) and re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", name)):
            self.add(rel, src.key_line("name"), "name must be letters, digits, '.', '_' or '-' "
                     "(it names the staging directory mpacks/<name>-<version>)")
        if "version" in meta and not (isinstance(version, (str, text_type)) and re.match(r"^\d+(\.\d+){1,3}$", version)):
            self.add(rel, src.key_line("version"), "version must be 2 to 4 dot-separated numbers (e.g. 1.0.0.0): "
                     "upgrade-mpack compares versions numerically")
        stacks_required = self._check_prerequisites(src, meta.get("prerequisites"))
        self._check_artifacts(src, meta.get("artifacts"), stacks_required)
        self._check_hooks(src, meta.get("hooks"))
        return meta

    def _check_prerequisites(self, src, prereq):
        rel = "mpack.json"
        if prereq is None:
            return set()
        if not isinstance(prereq, dict):
            self.add(rel, src.key_line("prerequisites"), "prerequisites must be an object")
            return set()
        for key in prereq:
            if "-" in key and key.replace("-", "_") in PREREQUISITE_KEYS:
                self.add(rel, src.key_line(key), "%r is silently ignored by setupMpacks.py, which reads "
                         "underscore keys only: use %r" % (key, key.replace("-", "_")))
            elif key not in PREREQUISITE_KEYS:
                self.add(rel, src.key_line(key), "unknown prerequisite %r (setupMpacks.py reads %s)"
                         % (key, ", ".join(PREREQUISITE_KEYS)))
        if "min_ambari_version" not in prereq:
            self.add(rel, src.key_line("prerequisites"), "prerequisites needs min_ambari_version so that "
                     "install-mpack fails fast on an Ambari that cannot run the service")
        for key in ("min_ambari_version", "max_ambari_version"):
            value = prereq.get(key)
            if value is not None and not re.match(r"^\d+(\.\d+){1,4}$", str(value)):
                self.add(rel, src.key_line(key), "%s must be a dotted version like 2.7.0.0" % key)
        stacks = set()
        msv = prereq.get("min_stack_versions")
        if msv is not None:
            if not isinstance(msv, list) or not msv:
                self.add(rel, src.key_line("min_stack_versions"), "min_stack_versions must be a non-empty list")
            else:
                for entry in msv:
                    pair = self._stack_pair(src, entry, "min_stack_versions")
                    if pair:
                        stacks.add(pair)
        return stacks

    def _stack_pair(self, src, entry, where):
        if not isinstance(entry, dict) or not entry.get("stack_name") or not entry.get("stack_version"):
            self.add("mpack.json", src.key_line(where), "%s entries need stack_name and stack_version" % where)
            return None
        return (entry["stack_name"], entry["stack_version"])

    def _check_artifacts(self, src, artifacts, stacks_required):
        rel = "mpack.json"
        if artifacts is None:
            return
        if not isinstance(artifacts, list) or not artifacts:
            self.add(rel, src.key_line("artifacts"), "artifacts must be a non-empty list")
            return
        seen, linked_stacks, stack_dirs = set(), set(), set()
        for art in artifacts:
            if not isinstance(art, dict):
                self.add(rel, src.key_line("artifacts"), "each artifact must be an object")
                continue
            line = src.line_of('"%s"' % art.get("name")) if art.get("name") else src.key_line("artifacts")
            for key in ("name", "type", "source_dir"):
                if not art.get(key):
                    self.add(rel, line, "artifact needs %r (setupMpacks.py reads artifact.%s)" % (key, key))
            if art.get("name") in seen:
                self.add(rel, line, "duplicate artifact name %r" % art.get("name"))
            seen.add(art.get("name"))
            art_type, source_dir = art.get("type"), art.get("source_dir")
            if art_type and art_type not in ARTIFACT_TYPES:
                self.add(rel, line, "artifact type %r is not one setupMpacks.py processes (%s): it would be "
                         "ignored" % (art_type, ", ".join(ARTIFACT_TYPES)))
            if not source_dir:
                continue
            if source_dir.startswith("/") or ".." in source_dir.split("/"):
                self.add(rel, line, "source_dir %r must be relative to the mpack root" % source_dir)
                continue
            abs_dir = self.layout.path(source_dir)
            if not os.path.isdir(abs_dir):
                self.add(rel, line, "source_dir %r does not exist in the mpack" % source_dir)
                continue
            if source_dir.startswith("stacks/"):
                stack_dirs.add(source_dir)
            if art_type == "service-definitions":
                self._check_service_definitions(line, source_dir)
            elif art_type == "stack-addon-service-definitions":
                linked_stacks |= self._check_addon(src, line, art, source_dir)
        if stacks_required and linked_stacks and stacks_required != linked_stacks:
            missing = sorted(stacks_required - linked_stacks)
            extra = sorted(linked_stacks - stacks_required)
            detail = []
            if missing:
                detail.append("listed in min_stack_versions but never linked: %s" % _stacks(missing))
            if extra:
                detail.append("linked but missing from min_stack_versions: %s" % _stacks(extra))
            self.add(rel, src.key_line("min_stack_versions"), "min_stack_versions and the applicable_stacks "
                     "of the add-on artifacts must list the same stacks; " + "; ".join(detail))
        stacks_root = self.layout.path("stacks")
        if os.path.isdir(stacks_root):
            for name in sorted(os.listdir(stacks_root)):
                if "stacks/" + name not in stack_dirs:
                    self.add(rel, src.key_line("artifacts"), "stacks/%s is in the mpack but no artifact "
                             "links it, so the service would never show up on %s" % (name, name))

    def _check_service_definitions(self, line, source_dir):
        abs_dir = self.layout.path(source_dir)
        for svc in sorted(os.listdir(abs_dir)):
            svc_dir = os.path.join(abs_dir, svc)
            if not os.path.isdir(svc_dir):
                self.add("mpack.json", line, "%s/%s: only service directories belong in a service-definitions "
                         "source_dir" % (source_dir, svc))
                continue
            for ver in sorted(os.listdir(svc_dir)):
                ver_dir = os.path.join(svc_dir, ver)
                rel = "%s/%s/%s" % (source_dir, svc, ver)
                if not os.path.isdir(ver_dir):
                    self.add(rel, 1, "Ambari treats every entry under %s/%s/ as a service version directory; "
                             "move this file into a version directory" % (source_dir, svc))
                elif not os.path.isfile(os.path.join(ver_dir, "metainfo.xml")):
                    self.add(rel, 1, "service version directory without metainfo.xml (ambari-server refuses "
                             "to start)")

    def _check_addon(self, src, line, art, source_dir):
        linked = set()
        svm = art.get("service_versions_map")
        if not isinstance(svm, list) or not svm:
            self.add("mpack.json", line, "a stack-addon-service-definitions artifact needs a non-empty "
                     "service_versions_map (setupMpacks.py: 'Must provide service versions map')")
            return linked
        mapped = set()
        family = source_dir.split("/")[1] if source_dir.startswith("stacks/") else None
        for entry in svm:
            if not isinstance(entry, dict) or not entry.get("service_name") or not entry.get("service_version"):
                self.add("mpack.json", line, "service_versions_map entries need service_name and service_version")
                continue
            mapped.add((entry["service_name"], entry["service_version"]))
            stacks = entry.get("applicable_stacks")
            if not isinstance(stacks, list) or not stacks:
                self.add("mpack.json", line, "service_versions_map entry needs a non-empty applicable_stacks")
                continue
            for stack in stacks:
                pair = self._stack_pair(src, stack, "applicable_stacks")
                if pair is None:
                    continue
                linked.add(pair)
                if family and pair[0] != family:
                    self.add("mpack.json", src.line_of('"%s"' % pair[1], after='"%s"' % art.get("name")),
                             "%s holds the %s add-on definition but is linked into %s/%s"
                             % (source_dir, family, pair[0], pair[1]))
        on_disk = set()
        abs_dir = self.layout.path(source_dir)
        for svc in sorted(os.listdir(abs_dir)):
            svc_dir = os.path.join(abs_dir, svc)
            if not os.path.isdir(svc_dir):
                self.add("mpack.json", line, "%s/%s: only <service>/<version> directories belong here"
                         % (source_dir, svc))
                continue
            for ver in sorted(os.listdir(svc_dir)):
                on_disk.add((svc, ver))
        for svc, ver in sorted(mapped - on_disk):
            self.add("mpack.json", line, "service_versions_map lists %s %s but %s/%s/%s does not exist"
                     % (svc, ver, source_dir, svc, ver))
        for svc, ver in sorted(on_disk - mapped):
            self.add("mpack.json", line, "%s/%s/%s is not in service_versions_map, so install-mpack "
                     "never links it" % (source_dir, svc, ver))
        for svc, ver in sorted(mapped):
            if (svc, ver) != (self.names.SERVICE, self.names.SERVICE_VERSION):
                self.add("mpack.json", line, "service_versions_map names %s %s; names.py says %s %s"
                         % (svc, ver, self.names.SERVICE, self.names.SERVICE_VERSION))
        return linked

    def _check_hooks(self, src, hooks):
        if hooks is None:
            return
        if not isinstance(hooks, list):
            self.add("mpack.json", src.key_line("hooks"), "hooks must be a list")
            return
        for hook in hooks:
            if not isinstance(hook, dict) or hook.get("name") not in HOOK_NAMES \
                    or hook.get("type") not in ("python", "shell") or not hook.get("script"):
                self.add("mpack.json", src.key_line("hooks"), "each hook needs name (%s), type (python|shell) "
                         "and script" % "|".join(HOOK_NAMES))
            elif not os.path.isfile(self.layout.path(hook["script"])):
                self.add("mpack.json", src.line_of(hook["script"]), "hook script %s is not in the mpack"
                         % hook["script"])

    # -- metainfo.xml --------------------------------------------------------------------------
    def _unknown_elements(self, rel, node, allowed, where):
        for child in node.children:
            if child.tag not in allowed:
                self.add(rel, child.line, "<%s> is not a %s element Ambari reads (typo?): it would be "
                         "silently ignored" % (child.tag, where))

    def _bool_element(self, rel, node, tag, expected=None):
        child = node.find(tag)
        if child is None:
            if expected is not None:
                self.add(rel, node.line, "<%s>%s</%s> is required" % (tag, _bool(expected), tag))
            return None
        value = child.text.strip()
        if value not in ("true", "false"):
            self.add(rel, child.line, "<%s> must be true or false, not %r" % (tag, value))
            return None
        if expected is not None and value != _bool(expected):
            self.add(rel, child.line, "<%s> must be %s" % (tag, _bool(expected)))
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
        if timeout is not None and (_int_or_none(timeout) is None or int(timeout) <= 0):
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
            for tag in ("background", "hidden"):
                self._bool_element(rel, cmd, tag)
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
        expected = list(self.names.OWN_CONFIG_TYPES) + list(self.names.FOREIGN_CONFIG_TYPES)
        line = deps.line if deps is not None else service.line
        missing = [t for t in expected if t not in listed]
        unknown = [t for t in listed if t not in expected]
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

    # -- configuration/*.xml -------------------------------------------------------------------
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
        if value_type in ("int", "long") and not empty_ok and _int_or_none(text) is None:
            bad(name, value, "value %r is not an integer" % text)
        if value_type == "boolean" and text not in ("true", "false"):
            bad(name, value, "value %r is not true or false" % text)
        deps = prop.find("depends-on")
        for dep in (deps.findall("property") if deps is not None else []):
            problem = self.ref_problem("%s/%s" % (dep.text_of("type"), dep.text_of("name")))
            if problem:
                bad(name, dep, "depends-on: " + problem)

    # -- themes --------------------------------------------------------------------------------
    def check_themes(self):
        prefix = self.core.service_dir + "/themes/"
        for rel in sorted(self.layout.origin):
            if rel.startswith(prefix) and rel.endswith(".json") and self._parsable(rel):
                src = self.json(rel)
                if src is not None:
                    ThemeChecker(self, rel, src).run()

    # -- quick links ---------------------------------------------------------------------------
    def check_quicklinks(self):
        prefix = self.core.service_dir + "/quicklinks/"
        for rel in sorted(self.layout.origin):
            if not (rel.startswith(prefix) and rel.endswith(".json") and self._parsable(rel)):
                continue
            src = self.json(rel)
            conf = src.obj.get("configuration") if isinstance(src.obj, dict) else None
            if not isinstance(conf, dict) or not src.obj.get("name"):
                self.add(rel, 1, "quick links need 'name' and 'configuration'")
                continue
            protocol = conf.get("protocol") or {}
            for check in protocol.get("checks") or []:
                problem = self.ref_problem("%s/%s" % (check.get("site"), check.get("property")))
                if problem:
                    self.add(rel, src.line_of('"%s"' % check.get("property")), "protocol check: " + problem)
            links = conf.get("links")
            if not isinstance(links, list) or not links:
                self.add(rel, src.key_line("links"), "configuration.links must be a non-empty list")
                continue
            for link in links:
                line = src.line_of('"%s"' % link.get("name")) if isinstance(link, dict) else 1
                if not isinstance(link, dict) or not link.get("name") or not link.get("label") or "%@" not in str(link.get("url", "")):
                    self.add(rel, line, "each link needs name, label and a url with %@ placeholders")
                    continue
                if link.get("component_name") != self.names.COMPONENT:
                    self.add(rel, line, "component_name must be %s" % self.names.COMPONENT)
                port = link.get("port") or {}
                for key in ("http", "https"):
                    if key + "_property" not in port:
                        continue
                    ref = "%s/%s" % (port.get("site"), port[key + "_property"])
                    problem = self.ref_problem(ref)
                    if problem:
                        self.add(rel, src.line_of('"%s"' % port[key + "_property"]), "port.%s_property: %s"
                                 % (key, problem))
                        continue
                    prop = self.core.prop(*ref.split("/", 1))
                    default = port.get(key + "_default_port")
                    if prop is not None and default is not None and str(default) != str(prop.default):
                        self.add(rel, src.line_of('"%s"' % default), "port.%s_default_port %s differs from the "
                                 "default of %s (%s)" % (key, default, ref, prop.default))

    # -- kerberos.json -------------------------------------------------------------------------
    def check_kerberos(self):
        rel = self.core.service_dir + "/kerberos.json"
        if not self._parsable(rel):
            return
        src = self.json(rel)
        if src is None:
            return
        services = src.obj.get("services") if isinstance(src.obj, dict) else None
        if not isinstance(services, list) or [s.get("name") for s in services if isinstance(s, dict)] != [self.names.SERVICE]:
            self.add(rel, 1, "kerberos.json needs services: [{\"name\": \"%s\", ...}]" % self.names.SERVICE)
            return
        service = services[0]
        self._kerberos_identities(src, service.get("identities", []))
        for comp in service.get("components", []):
            if comp.get("name") != self.names.COMPONENT:
                self.add(rel, src.line_of('"%s"' % comp.get("name")), "unknown component %r" % comp.get("name"))
            self._kerberos_identities(src, comp.get("identities", []))
        for block in service.get("configurations", []):
            for config_type, props in block.items():
                for prop in props:
                    problem = self.ref_problem("%s/%s" % (config_type, prop))
                    if problem:
                        self.add(rel, src.line_of('"%s"' % prop), "configurations: " + problem)
        for entry in service.get("auth_to_local_properties", []):
            problem = self.ref_problem(entry.split("|")[0])
            if problem:
                self.add(rel, src.line_of(entry), "auth_to_local_properties: " + problem)
        self._kerberos_tokens(src)

    def _kerberos_identities(self, src, identities):
        rel = src.rel
        for ident in identities:
            if not isinstance(ident, dict) or not ident.get("name"):
                self.add(rel, 1, "every identity needs a name")
                continue
            line = src.line_of('"%s"' % ident["name"])
            if "reference" in ident and not str(ident["reference"]).startswith(("/", "../")):
                self.add(rel, line, "reference %r must be /<identity>, /<SERVICE>/<COMPONENT>/<identity> or ../<identity>"
                         % ident["reference"])
            principal = ident.get("principal")
            keytab = ident.get("keytab")
            if "reference" not in ident and not (principal and keytab):
                self.add(rel, line, "identity %s needs a principal and a keytab (or a reference)" % ident["name"])
            if principal:
                if principal.get("type") not in ("service", "user"):
                    self.add(rel, line, "principal type must be service or user")
                if not principal.get("value"):
                    self.add(rel, line, "principal needs a value")
            if keytab:
                if not keytab.get("file"):
                    self.add(rel, line, "keytab needs a file")
                for who in ("owner", "group"):
                    acl = keytab.get(who)
                    if acl is not None and acl.get("access") not in ("r", "rw", ""):
                        self.add(rel, line, "keytab %s access must be r, rw or empty" % who)
            for part in (principal or {}, keytab or {}):
                if part.get("configuration"):
                    problem = self.ref_problem(part["configuration"])
                    if problem:
                        self.add(rel, src.line_of(part["configuration"]), "configuration: " + problem)

    def _kerberos_tokens(self, src):
        for match in re.finditer(r"\$\{([^}]*)\}", src.text):
            token = match.group(1).split("|")[0]
            line = src.text.count("\n", 0, match.start()) + 1
            if "/" in token:
                problem = self.ref_problem(token)
                if problem:
                    self.add(src.rel, line, "${%s}: %s" % (match.group(1), problem))
            elif token not in KERBEROS_VARIABLES:
                self.add(src.rel, line, "${%s} is not a Kerberos descriptor variable (%s)"
                         % (match.group(1), ", ".join(sorted(KERBEROS_VARIABLES))))

    # -- role_command_order.json ---------------------------------------------------------------
    def check_role_command_order(self):
        rel = self.core.service_dir + "/role_command_order.json"
        if not self._parsable(rel):
            return
        src = self.json(rel)
        if src is None:
            return
        names = self.names
        own_roles = (names.COMPONENT, names.SERVICE_CHECK_ROLE)
        if not isinstance(src.obj, dict) or not isinstance(src.obj.get("general_deps"), dict):
            self.add(rel, 1, "role_command_order.json needs a general_deps object")
            return
        keys = []
        for section, deps in src.obj.items():
            if section not in RCO_SECTIONS:
                self.add(rel, src.key_line(section), "unknown section %r" % section)
                continue
            for blocked, blockers in deps.items():
                if blocked == "_comment":
                    continue
                keys.append(blocked)
                if not isinstance(blockers, list):
                    self.add(rel, src.key_line(blocked), "%s: blockers must be a list" % blocked)
                    continue
                for role_command in [blocked] + blockers:
                    self._role_command(src, role_command, own_roles)
        for required in ("%s-START" % names.COMPONENT, "%s-SERVICE_CHECK" % names.SERVICE_CHECK_ROLE):
            if required not in keys:
                self.add(rel, 1, "no %r entry: the service would start or be checked in no particular order"
                         % required)

    def _role_command(self, src, role_command, own_roles):
        parts = str(role_command).split("-")
        line = src.line_of('"%s"' % role_command)
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "OVERRIDE") or not parts[0]:
            self.add(src.rel, line, "%r must be ROLE-COMMAND (the server splits on '-')" % role_command)
            return
        if parts[1] not in ROLE_COMMANDS:
            self.add(src.rel, line, "%r: unknown command %s" % (role_command, parts[1]))
        role = parts[0]
        mine = role.startswith(self.names.SERVICE) or "MIRRORMAKER" in role
        if mine and role not in own_roles:
            self.add(src.rel, line, "%r: this service's roles are %s" % (role_command, ", ".join(own_roles)))

    # -- alerts.json ---------------------------------------------------------------------------
    def check_alerts(self):
        rel = self.core.service_dir + "/alerts.json"
        if not os.path.isfile(self.layout.path(rel)) or not self._parsable(rel):
            return
        src = self.json(rel)
        names = self.names
        if not isinstance(src.obj, dict) or list(src.obj) != [names.SERVICE]:
            self.add(rel, 1, "alerts.json must have the single top-level key %s" % names.SERVICE)
            return
        groups = src.obj[names.SERVICE]
        all_defs = []
        for group, defs in groups.items():
            if group not in ("service", names.COMPONENT):
                self.add(rel, src.key_line(group), "alerts are grouped under 'service' or %s, not %r"
                         % (names.COMPONENT, group))
                continue
            all_defs.extend(defs if isinstance(defs, list) else [])
        alert_names = [d.get("name") for d in all_defs if isinstance(d, dict)]
        for definition in all_defs:
            self._alert(src, definition, alert_names)
        for match in re.finditer(r"\{\{([^{}]+)\}\}", src.text):
            problem = self.ref_problem(match.group(1).strip())
            if problem:
                self.add(rel, src.text.count("\n", 0, match.start()) + 1, "{{%s}}: %s" % (match.group(1), problem))

    def _alert(self, src, definition, alert_names):
        rel = src.rel
        if not isinstance(definition, dict) or not definition.get("name"):
            self.add(rel, 1, "every alert definition needs a name")
            return
        name = definition["name"]
        line = src.line_of('"%s"' % name)
        if alert_names.count(name) > 1:
            self.add(rel, line, "alert name %s is used twice" % name)
        for key in ("label", "interval", "scope", "source"):
            if key not in definition:
                self.add(rel, line, "alert %s needs %r" % (name, key))
        if "interval" in definition and not (isinstance(definition["interval"], int) and definition["interval"] > 0):
            self.add(rel, line, "alert %s: interval is a positive number of minutes" % name)
        if definition.get("scope", "ANY") not in ("ANY", "HOST", "SERVICE"):
            self.add(rel, line, "alert %s: scope must be ANY, HOST or SERVICE" % name)
        source = definition.get("source") or {}
        kind = source.get("type")
        if kind not in ALERT_SOURCE_TYPES:
            self.add(rel, line, "alert %s: source type %r is not one Ambari knows" % (name, kind))
        if kind == "SCRIPT":
            self._alert_script(src, name, source.get("path"))
        if kind == "AGGREGATE" and source.get("alert_name") not in alert_names:
            self.add(rel, line, "alert %s aggregates %r, which is not defined here" % (name, source.get("alert_name")))
        for param in source.get("parameters", []):
            if not param.get("name") or param.get("type", "STRING") not in ("STRING", "NUMERIC", "PERCENT") \
                    or param.get("threshold", "OK") not in ("OK", "WARNING", "CRITICAL") \
                    or param.get("visibility", "VISIBLE") not in ("VISIBLE", "HIDDEN", "READ_ONLY"):
                self.add(rel, src.line_of('"%s"' % param.get("name")), "alert %s: parameter %r needs a name, type "
                         "STRING|NUMERIC|PERCENT, threshold OK|WARNING|CRITICAL, visibility VISIBLE|HIDDEN|READ_ONLY"
                         % (name, param.get("name")))

    def _alert_script(self, src, name, path):
        """The agent tries the path as absolute, then under its stacks, common-services, host_scripts
        and extensions cache dirs (script_alert.py _load_source); ours must hit common-services."""
        line = src.line_of('"%s"' % path) if path else src.line_of('"%s"' % name)
        prefix = "%s/%s/package/" % (self.names.SERVICE, self.names.SERVICE_VERSION)
        if not path or os.path.isabs(path) or not path.endswith(".py"):
            self.add(src.rel, line, "alert %s: SCRIPT path must be a relative .py path like %salerts/x.py"
                     % (name, prefix))
        elif not path.startswith(prefix):
            self.add(src.rel, line, "alert %s: path %s must start with %s: the agent resolves it against its "
                     "common-services cache directory" % (name, path, prefix))
        elif not os.path.isfile(self.layout.path("common-services/" + path)):
            self.add(src.rel, line, "alert %s: %s does not exist (expected package/%s in the checkout)"
                     % (name, path, path[len(prefix):]))

    # -- service_advisor.py --------------------------------------------------------------------
    def check_service_advisor(self):
        rel = self.core.service_dir + "/service_advisor.py"
        path = self.layout.path(rel)
        if not os.path.isfile(path):
            return
        with io.open(path, encoding="utf-8") as fh:
            text = fh.read()
        classes = [(m.group(1), text.count("\n", 0, m.start()) + 1)
                   for m in re.finditer(r"^class\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.M)]
        # stack_advisor.instantiateServiceAdvisor takes the first dir() name matching this
        pattern = re.compile("%s.*?ServiceAdvisor" % self.names.SERVICE, re.I)
        matching = [(c, line) for c, line in classes if pattern.match(c)]
        wanted = self.names.ADVISOR_CLASS
        if wanted not in [c for c, _ in classes]:
            self.add(rel, 1, "no class %s: Ambari looks the advisor up by that name" % wanted)
        for cls, line in matching:
            if cls != wanted:
                self.add(rel, line, "class %s also matches %s.*?ServiceAdvisor, and Ambari instantiates the "
                         "first match in dir() order: rename it" % (cls, self.names.SERVICE))

    # -- names that released versions rely on -----------------------------------------------------
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


class ThemeChecker(object):
    """A theme lays out the Customize Services step; ambari-web resolves everything by name."""

    def __init__(self, checker, rel, src):
        self.ck = checker
        self.rel = rel
        self.src = src
        self.subsections = set()

    def add(self, line, message):
        self.ck.add(self.rel, line, message)

    def run(self):
        theme = self.src.obj
        if not isinstance(theme, dict) or not theme.get("name") or not isinstance(theme.get("configuration"), dict):
            self.add(1, "a theme needs 'name' and 'configuration'")
            return
        conf = theme["configuration"]
        layouts = conf.get("layouts") or []
        layout_names = [lay.get("name") for lay in layouts if isinstance(lay, dict)]
        for layout in layouts:
            for tab in layout.get("tabs") or []:
                self.tab(tab)
        placement = conf.get("placement") or {}
        if placement.get("configuration-layout") not in layout_names:
            self.add(self.src.key_line("configuration-layout"), "placement.configuration-layout must name one of "
                     "the layouts (%s)" % ", ".join(str(n) for n in layout_names))
        placed = self.placements(placement.get("configs") or [])
        widgets = self.widgets(conf.get("widgets") or [])
        for config in sorted(set(placed) - set(widgets)):
            self.add(self.src.line_of('"%s"' % config), "%s is placed but has no widget, so ambari-web does not "
                     "show it" % config)
        for config in sorted(set(widgets) - set(placed)):
            self.add(self.src.line_of('"%s"' % config, after='"widgets"'), "%s has a widget but no placement" % config)

    def tab(self, tab):
        name = tab.get("name")
        line = self.src.line_of('"%s"' % name)
        if not name or not tab.get("display-name"):
            self.add(line, "every tab needs name and display-name")
        if name == "advanced":
            # themes_mapper ids tabs <SERVICE>_<name>; <SERVICE>_advanced is the generated Advanced tab
            self.add(line, "a tab named 'advanced' collides with the Advanced tab ambari-web generates")
        layout = tab.get("layout") or {}
        rows, cols = _int_or_none(layout.get("tab-rows")), _int_or_none(layout.get("tab-columns"))
        if rows is None or cols is None:
            self.add(line, "tab %s: layout needs numeric tab-rows and tab-columns" % name)
            return
        for section in layout.get("sections") or []:
            self.grid_item(section, "section", rows, cols)
            srows, scols = _int_or_none(section.get("section-rows")), _int_or_none(section.get("section-columns"))
            if srows is None or scols is None:
                self.add(self.src.line_of('"%s"' % section.get("name")), "section %s needs numeric section-rows and "
                         "section-columns" % section.get("name"))
                continue
            for sub in section.get("subsections") or []:
                self.grid_item(sub, "subsection", srows, scols)
                if sub.get("name") in self.subsections:
                    self.add(self.src.line_of('"%s"' % sub.get("name"), nth=2), "subsection name %s is used twice "
                             "(ambari-web ids subsections by name)" % sub.get("name"))
                self.subsections.add(sub.get("name"))
                for cond in sub.get("depends-on") or []:
                    self.condition(cond, self.src.line_of('"%s"' % sub.get("name")))

    def grid_item(self, item, kind, rows, cols):
        name = item.get("name")
        line = self.src.line_of('"%s"' % name)
        if not name:
            self.add(line, "every %s needs a name" % kind)
            return
        numbers = {}
        for key in ("row-index", "column-index", "row-span", "column-span"):
            numbers[key] = _int_or_none(item.get(key))
            if numbers[key] is None:
                self.add(line, "%s %s needs a numeric %s" % (kind, name, key))
                return
        if numbers["row-index"] + numbers["row-span"] > rows or numbers["column-index"] + numbers["column-span"] > cols:
            self.add(line, "%s %s does not fit its %dx%d grid" % (kind, name, rows, cols))

    def placements(self, configs):
        placed = []
        for entry in configs:
            config = entry.get("config")
            line = self.src.line_of('"%s"' % config)
            problem = self.own_ref(config)
            if problem:
                self.add(line, "placement %s: %s" % (config, problem))
            if entry.get("subsection-name") not in self.subsections:
                self.add(line, "placement %s: subsection %r is not defined in the layout"
                         % (config, entry.get("subsection-name")))
            if config in placed:
                self.add(line, "%s is placed twice" % config)
            placed.append(config)
            for cond in entry.get("depends-on") or []:
                self.condition(cond, line)
        return placed

    def own_ref(self, config):
        problem = self.ck.ref_problem(config)
        if problem is None and config.split("/", 1)[0] not in self.ck.core.own_types:
            return "a theme can only lay out the service's own properties"
        return problem

    def widgets(self, widgets):
        found = []
        for entry in widgets:
            config = entry.get("config")
            line = self.src.line_of('"%s"' % config, after='"widgets"')
            problem = self.own_ref(config)
            found.append(config)
            if problem:
                self.add(line, "widget %s: %s" % (config, problem))
                continue
            widget = entry.get("widget") or {}
            kind = widget.get("type")
            prop = self.ck.core.prop(*config.split("/", 1))
            if kind not in WIDGET_VALUE_TYPES:
                self.add(line, "%s: widget type %r is not one ambari-web has (%s)"
                         % (config, kind, ", ".join(sorted(WIDGET_VALUE_TYPES))))
                continue
            suits = WIDGET_VALUE_TYPES[kind]
            if suits is not None and prop.value_type not in suits:
                self.add(line, "%s: a %s widget does not suit value type %s" % (config, kind, prop.value_type))
            if prop.value_type == "password" and kind != "password":
                self.add(line, "%s: passwords need the password widget (any other shows the secret)" % config)
            units = [u.get("unit-name", "") for u in widget.get("units") or []]
            if kind == "slider" and (prop.minimum is None or prop.maximum is None):
                self.add(line, "%s: a slider needs minimum and maximum in the schema" % config)
            if kind == "time-interval-spinner":
                if prop.unit not in TIME_UNITS:
                    self.add(line, "%s: a time-interval-spinner needs a time unit (%s) in the schema, not %r"
                             % (config, ", ".join(TIME_UNITS), prop.unit))
                for unit in units:
                    for part in unit.split(","):
                        if part not in TIME_UNITS:
                            self.add(line, "%s: spinner unit %r is not one of %s" % (config, part, ", ".join(TIME_UNITS)))
        return found

    def condition(self, cond, line):
        """depends-on: {"configs": [...], "if": "${t/p} === v && ...", "then": {...}, "else": {...}}"""
        configs = cond.get("configs") or []
        for config in configs:
            problem = self.ck.ref_problem(config)
            if problem:
                self.add(line, "depends-on %s: %s" % (config, problem))
        expression = cond.get("if")
        if not isinstance(expression, (str, text_type)) or "${" not in expression:
            self.add(line, "depends-on needs an 'if' like ${type/property} === value")
            return
        for part in re.split(r"&&|\|\|", expression):
            # theme.js calculateConfigCondition: split on ===, compare the config value as a string
            left, _, right = part.partition("===")
            token = re.match(r"^\s*\$\{([^}]+)\}\s*$", left)
            if not token:
                self.add(line, "condition %r must be ${type/property} or ${type/property} === value" % part.strip())
                continue
            ref = token.group(1)
            problem = self.ck.ref_problem(ref)
            if problem:
                self.add(line, "condition ${%s}: %s" % (ref, problem))
                continue
            if ref not in configs:
                self.add(line, "condition uses ${%s} but 'configs' does not list it, so ambari-web does not "
                         "re-evaluate it when that property changes" % ref)
            prop = self.ck.core.prop(*ref.split("/", 1))
            if prop is None:
                continue
            value = right.strip() if right else "true"
            if prop.value_type == "value-list" and value not in [v for v, _ in prop.entries]:
                self.add(line, "condition ${%s} === %s can never hold: entries are %s"
                         % (ref, value, [v for v, _ in prop.entries]))
            if prop.value_type == "boolean" and value not in ("true", "false"):
                self.add(line, "condition ${%s} compares a boolean with %r" % (ref, value))
        for branch in ("then", "else"):
            attrs = (cond.get(branch) or {}).get("property_value_attributes")
            if not isinstance(attrs, dict) or not isinstance(attrs.get("visible"), bool):
                self.add(line, "depends-on needs %s.property_value_attributes.visible (true/false)" % branch)


# ---------------------------------------------------------------------------------------------
# Python 2.7 and 3 compile checks of everything that runs inside Ambari
# ---------------------------------------------------------------------------------------------

_COMPILE_CHILD = r"""
import sys
strict = len(sys.argv) > 1
for path in sys.stdin.read().splitlines():
    try:
        with open(path, "rb") as fh:
            src = fh.read()
        compile(src, path, "exec", 0, True)
        if strict:
            import ast
            ast.parse(src, path, feature_version=(3, 9))
    except SyntaxError as e:
        sys.stdout.write("%s\t%s\t%s\n" % (path, e.lineno or 1, e.msg))
    except Exception as e:
        sys.stdout.write("%s\t1\t%s\n" % (path, e))
"""


def _which(program):
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


_VERSIONS = {}


def _python_version(executable):
    """'X.Y' of an interpreter, or None when it does not run (cached: asked once per build)."""
    if executable not in _VERSIONS:
        _VERSIONS[executable] = _ask_python_version(executable)
    return _VERSIONS[executable]


def _ask_python_version(executable):
    try:
        out = subprocess.check_output([executable, "-E", "-S", "-c",
                                       "import sys; print('%d.%d' % sys.version_info[:2])"],
                                      stderr=subprocess.STDOUT)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.decode("ascii", "replace").strip()


_FOUND = {}


def _cached(function):
    def wrapper():
        if function.__name__ not in _FOUND:
            _FOUND[function.__name__] = function()
        return _FOUND[function.__name__]
    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    return wrapper


def _real_executable(executable):
    """Resolve pyenv shims once, so later runs do not pay the shim's start-up."""
    try:
        out = subprocess.check_output([executable, "-E", "-S", "-c", "import sys; print(sys.executable)"])
    except (OSError, subprocess.CalledProcessError):
        return executable
    return out.decode("utf-8").strip() or executable


@_cached
def find_python27():
    """A Python 2.7 interpreter: $MM2_PY27, pyenv's 2.7.18, or python2.7 on PATH."""
    candidates = []
    if os.environ.get("MM2_PY27"):
        candidates.append(os.environ["MM2_PY27"])
    try:
        env = dict(os.environ, PYENV_VERSION="2.7.18")
        with open(os.devnull, "w") as devnull:
            out = subprocess.check_output(["pyenv", "which", "python"], env=env, stderr=devnull)
        candidates.append(out.decode("utf-8").strip())
    except (OSError, subprocess.CalledProcessError):
        pass
    candidates.append(_which("python2.7"))
    for candidate in candidates:
        if candidate and _python_version(candidate) == "2.7":
            return candidate
    return None


@_cached
def find_python3():
    """This interpreter when it is Python 3, else $MM2_PY3 or python3 on PATH."""
    if sys.version_info[0] >= 3:
        return sys.executable
    for candidate in (os.environ.get("MM2_PY3"), _which("python3")):
        if candidate and (_python_version(candidate) or "").startswith("3."):
            return _real_executable(candidate)
    return None


def compile_problems(layout):
    """Every .py file that runs inside Ambari must compile on Python 2.7 and Python 3."""
    files = sorted(rel for rel in layout.origin if rel.endswith(".py"))
    if not files:
        return []
    problems = []
    interpreters = (("Python 2.7", find_python27(),
                     "install it (pyenv install 2.7.18) or set MM2_PY27=/path/to/python2.7"),
                    ("Python 3", find_python3(), "set MM2_PY3=/path/to/python3"))
    for label, executable, how in interpreters:
        if executable is None:
            problems.append(Problem("build.py", 1, "no %s interpreter to check that agent code compiles on "
                                    "it: %s" % (label, how)))
            continue
        args = [executable, "-E", "-S", "-c", _COMPILE_CHILD]  # -E -S: no PYTHONPATH or site of the caller
        version = tuple(int(x) for x in (_python_version(executable) or "0.0").split("."))
        if label == "Python 3" and version >= (3, 8):
            args.append("strict")  # reject grammar newer than 3.9, the oldest Ambari 3 Python
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        out, _ = proc.communicate("\n".join(layout.path(rel) for rel in files).encode("utf-8"))
        by_path = dict((layout.path(rel), rel) for rel in files)
        for row in out.decode("utf-8", "replace").splitlines():
            path, line, message = row.split("\t", 2)
            rel = by_path.get(path, path)
            problems.append(Problem(layout.source_of(rel), _int_or_none(line) or 1,
                                    "does not compile on %s (the agent runs it there): %s" % (label, message)))
    return problems


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

def _validate_layout(layout):
    problems = Checker(layout).run()
    problems.extend(compile_problems(layout))
    return problems


def validate(repo=REPO):
    """All problems of a checkout, as Problem objects ('file:line: message')."""
    staging = tempfile.mkdtemp(prefix="mm2-mpack-validate-")
    try:
        try:
            layout = _assemble(staging, repo)
        except BuildError as e:
            return e.problems
        except _Invalid as e:
            return [e.problem]
        return _validate_layout(layout)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _mtime():
    value = os.environ.get("SOURCE_DATE_EPOCH")
    return int(value) if value and value.isdigit() else DEFAULT_MTIME


def write_tarball(root, out_path):
    """tar.gz with one top-level directory, sorted entries, fixed owners/times, normalised modes."""
    top = os.path.basename(root)
    entries = [(top, root)]
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            entries.append((top + "/" + os.path.relpath(full, root).replace(os.sep, "/"), full))
    entries.sort(key=lambda entry: entry[0].split("/"))
    mtime = _mtime()
    tmp = out_path + ".part"
    with open(tmp, "wb") as raw:
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0)
        tar = tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT)
        for name, full in entries:
            info = tarfile.TarInfo(name)
            info.mtime = mtime
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            if os.path.isdir(full):
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                info.size = os.path.getsize(full)
                info.mode = 0o755 if os.stat(full).st_mode & 0o111 else 0o644
                with open(full, "rb") as fh:
                    tar.addfile(info, fh)
        tar.close()
        gz.close()
    os.rename(tmp, out_path)
    return out_path


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def build(out_dir=None, repo=REPO):
    """Validate the checkout and write <out_dir>/<name>-<version>.tar.gz (+ .sha256); return its path."""
    out_dir = out_dir or os.path.join(repo, "dist")
    staging = tempfile.mkdtemp(prefix="mm2-mpack-build-")
    try:
        try:
            layout = _assemble(staging, repo)
        except _Invalid as e:
            raise BuildError([e.problem])
        problems = _validate_layout(layout)
        if problems:
            raise BuildError(problems)
        _makedirs(out_dir)
        out_path = os.path.join(out_dir, os.path.basename(layout.root) + ".tar.gz")
        write_tarball(layout.root, out_path)
        with io.open(out_path + ".sha256", "w", encoding="utf-8") as fh:
            fh.write(u"%s  %s\n" % (sha256_of(out_path), os.path.basename(out_path)))
        return out_path
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def record_release(repo=REPO):
    """Add the current version's names to the released-names file (run when tagging a release)."""
    staging = tempfile.mkdtemp(prefix="mm2-mpack-names-")
    try:
        layout = _assemble(staging, repo)
        _, version = read_mpack_identity(repo)
        path = os.path.join(repo, RELEASED_NAMES_REL)
        data = {"releases": {}}
        if os.path.isfile(path):
            data = load_json(path, RELEASED_NAMES_REL).obj
        data.setdefault("releases", {})[version] = current_names(layout)
        with io.open(path, "w", encoding="utf-8") as fh:
            fh.write(_u(json.dumps(data, indent=2, sort_keys=True)) + u"\n")
        return version
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def install_commands(tarball, name):
    path = os.path.abspath(tarball)
    return [
        "ambari-server install-mpack --mpack=%s --verbose" % path,
        "ambari-server upgrade-mpack --mpack=%s --verbose" % path,
        "ambari-server uninstall-mpack --mpack-name=%s --verbose" % name,
    ]


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description="Validate and build the MirrorMaker 2 mpack.")
    parser.add_argument("--out", help="output directory (default: dist/ of the checkout)")
    parser.add_argument("--check", action="store_true", help="validate only, build nothing")
    parser.add_argument("--record-release", action="store_true",
                        help="record this version's names in %s" % RELEASED_NAMES_REL)
    args = parser.parse_args(argv)
    try:
        if args.record_release:
            version = record_release(REPO)
            print("Recorded the names of %s in %s" % (version, RELEASED_NAMES_REL))
            return 0
        if args.check:
            problems = validate(REPO)
            if problems:
                raise BuildError(problems)
            print("OK: no problems found")
            return 0
        tarball = build(args.out, REPO)
    except BuildError as e:
        for problem in e.problems:
            sys.stderr.write("%s\n" % problem)
        sys.stderr.write("%d problem(s); nothing was built.\n" % len(e.problems))
        return 1
    name, version = read_mpack_identity(REPO)
    install, upgrade, uninstall = install_commands(tarball, name)
    lines = [
        "Built %s" % os.path.relpath(tarball),
        "sha256 %s" % sha256_of(tarball),
        "",
        "Install (then restart ambari-server and use Add Service):",
        "  " + install,
        "Upgrade an installed older version (then restart ambari-server):",
        "  " + upgrade,
        "Uninstall (delete the %s service from every cluster first):" % Core(REPO).names.SERVICE,
        "  " + uninstall,
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
