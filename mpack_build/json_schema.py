"""A small JSON Schema (draft-07) checker for the subset the build's schemas use (the build has no jsonschema).

Keywords: $ref (to #/definitions/...), type, const, enum, required, properties, additionalProperties,
propertyNames, minProperties, dependencies (property -> required names), items, minItems, minLength, pattern,
minimum, maximum, if/then. A keyword outside the subset is an error, so that a schema never claims more than
is checked.
"""
import io
import json
import re

_KNOWN = {"$schema", "$id", "title", "description", "definitions", "$ref", "type", "const", "enum", "required",
          "properties", "additionalProperties", "propertyNames", "minProperties", "dependencies", "items",
          "minItems", "minLength", "pattern", "minimum", "maximum", "if", "then"}
try:
    _TEXT = (str, unicode)  # noqa: F821 (Python 2)
    _INTEGRAL = (int, long)  # noqa: F821
except NameError:
    _TEXT = (str,)
    _INTEGRAL = (int,)
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, _TEXT),
    "integer": lambda v: isinstance(v, _INTEGRAL) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, _INTEGRAL + (float,)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
}


def load(path):
    with io.open(path, encoding="utf-8") as fh:
        return json.load(fh)


def problems(instance, schema):
    """[(JSON pointer, message)] of instance against schema; [] when it conforms."""
    return _problems(instance, schema, schema)


def _resolve(root, node):
    while "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/definitions/"):
            raise ValueError("unsupported $ref %r" % ref)
        node = root["definitions"][ref[len("#/definitions/"):]]
    return node


def _check(value, node, root, at, found):
    node = _resolve(root, node)
    unknown = set(node) - _KNOWN
    if unknown:
        raise ValueError("schema keywords outside the checked subset: %s" % ", ".join(sorted(unknown)))
    kind = node.get("type")
    if kind is not None and not _TYPES[kind](value):
        found.append((at or "/", "is not of type %s" % kind))
        return
    if "const" in node and value != node["const"]:
        found.append((at or "/", "must be %s" % json.dumps(node["const"])))
    if "enum" in node and value not in node["enum"]:
        found.append((at or "/", "must be one of %s" % ", ".join(json.dumps(e) for e in node["enum"])))
    if isinstance(value, dict):
        _check_object(value, node, root, at, found)
    if isinstance(value, list):
        if len(value) < node.get("minItems", 0):
            found.append((at or "/", "needs at least %d item(s)" % node["minItems"]))
        for i, item in enumerate(value):
            if "items" in node:
                _check(item, node["items"], root, "%s/%d" % (at, i), found)
    if isinstance(value, _TEXT):
        if len(value) < node.get("minLength", 0):
            found.append((at or "/", "is empty"))
        if "pattern" in node and not re.search(node["pattern"], value):
            found.append((at or "/", "%r does not match %s" % (value, node["pattern"])))
    if _TYPES["number"](value):
        if "minimum" in node and value < node["minimum"]:
            found.append((at or "/", "is below %s" % node["minimum"]))
        if "maximum" in node and value > node["maximum"]:
            found.append((at or "/", "is above %s" % node["maximum"]))
    if "if" in node and not _problems(value, node["if"], root):
        _check(value, node.get("then", {}), root, at, found)


def _problems(value, node, root):
    found = []
    _check(value, node, root, "", found)
    return found


def _check_object(value, node, root, at, found):
    for name in node.get("required", []):
        if name not in value:
            found.append((at or "/", "misses %r" % name))
    for name, needs in sorted(node.get("dependencies", {}).items()):
        if name in value:
            for need in needs:
                if need not in value:
                    found.append((at or "/", "has %r, so it needs %r" % (name, need)))
    if len(value) < node.get("minProperties", 0):
        found.append((at or "/", "needs at least %d key(s)" % node["minProperties"]))
    props = node.get("properties", {})
    extra = node.get("additionalProperties", True)
    for name in sorted(value):
        where = "%s/%s" % (at, name)
        if "propertyNames" in node:
            _check(name, node["propertyNames"], root, where, found)
        if name in props:
            _check(value[name], props[name], root, where, found)
        elif extra is False:
            found.append((where, "is not a key this schema knows"))
        elif isinstance(extra, dict):
            _check(value[name], extra, root, where, found)
