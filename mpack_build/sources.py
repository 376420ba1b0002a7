"""Reading JSON and XML with line numbers, so every problem can say 'file:line'."""

import io
import json
import os
import re
import xml.sax
import xml.sax.handler

from .problems import Problem, Invalid, native, text_type


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
        raise Invalid(Problem(rel, 1, "not UTF-8 text: %s" % e))
    except (IOError, OSError) as e:
        raise Invalid(Problem(rel, 1, "cannot read: %s" % e))


def load_json(path, rel):
    """Parse a JSON file (rejecting duplicate keys); raises Invalid with the line of the error."""
    text = _read_text(path, rel)
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as e:
        src = Source(rel, text)
        raise Invalid(Problem(rel, src.line_of('"%s"' % e.key, nth=2),
                               "duplicate key %r (JSON readers keep only the last one)" % native(e.key)))
    except ValueError as e:
        match = re.search(r"line (\d+) column (\d+)", str(e))
        line = int(match.group(1)) if match else 1
        raise Invalid(Problem(rel, line, "invalid JSON: %s" % e))
    return Source(rel, text, native(obj))


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
        node = Node(native(name), native(dict(attrs.items())),
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
            self._stack[-1].text += native(content)


def parse_xml(data, rel):
    """Parse XML bytes into Nodes; raises Invalid with the line of a well-formedness error."""
    parser = xml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, False)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)  # no entity tricks
    builder = _TreeBuilder()
    parser.setContentHandler(builder)
    try:
        parser.parse(io.BytesIO(data))
    except xml.sax.SAXParseException as e:
        raise Invalid(Problem(rel, e.getLineNumber(), "XML is not well-formed: %s" % e.getMessage()))
    return builder.root


def load_xml(path, rel):
    with open(path, "rb") as fh:
        return parse_xml(fh.read(), rel)


def read_mpack_identity(repo):
    """(name, version) from mpack.json, the one place the version is written."""
    src = load_json(os.path.join(repo, "mpack.json"), "mpack.json")
    meta = src.obj if isinstance(src.obj, dict) else {}
    name, version = meta.get("name"), meta.get("version")
    if not isinstance(name, (str, text_type)) or not isinstance(version, (str, text_type)):
        raise Invalid(Problem("mpack.json", 1, "mpack.json needs string 'name' and 'version'"))
    return str(name), str(version)
