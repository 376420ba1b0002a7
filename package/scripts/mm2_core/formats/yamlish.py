"""A strict YAML subset parser for the advanced topology (stdlib only: it runs on Ambari agents).

The subset is what a topology needs, and every document in it means the same as with
``yaml.safe_load`` (a property-based test checks this against PyYAML):

- block mappings (``key: value``) and block sequences (``- item``), nested by space indentation;
  a sequence may sit at the same indentation as its parent key, as YAML allows;
- scalars on one line: plain, 'single-quoted' (``''`` is a quote) and "double-quoted" (YAML escapes);
- one-line flow collections of scalars: ``[a, b]``, ``{k: v}``, ``[]``, ``{}``;
- comments (``#`` at line start or after a space), an optional ``---`` first line and ``...`` last line.

Plain scalars resolve as in YAML 1.1 (PyYAML): ``~``/``null``/empty are null, ``true``/``yes``/``on``
(and capitalised forms) are booleans, decimal integers and simple decimals are numbers.

Anything else is refused with a line-numbered error that says how to write it instead: tabs,
anchors/aliases/tags, block scalars (``|``, ``>``), multi-line scalars, complex keys, duplicate keys
(YAML would silently keep the last one), and plain scalars YAML would turn into something surprising
(``010`` is octal 8, ``1_000``, ``1:30`` sexagesimal, ``2024-01-01`` a date): quote those.
"""
import re
from collections import OrderedDict


class YamlError(ValueError):
    """A parse error; ``line`` is 1-based (0 when the whole text is concerned)."""

    def __init__(self, line, message):
        ValueError.__init__(self, "line %d: %s" % (line, message) if line else message)
        self.line = line
        self.message = message


# ---------------------------------------------------------------------------------------------
# Scalar resolution (YAML 1.1 implicit types, as PyYAML's safe loader applies them).

_BOOL_TRUE = ("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
_BOOL_FALSE = ("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_NULLS = ("", "~", "null", "Null", "NULL")
_INT_OK = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT_OK = re.compile(r"^[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?$")
# Forms YAML 1.1 resolves to numbers, dates or special tags that the subset refuses.
_YAML11_FLOAT = re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""", re.X)
_YAML11_INT = re.compile(r"""^(?:[-+]?0b[0-1_]+
                    |[-+]?0[0-7_]+
                    |[-+]?(?:0|[1-9][0-9_]*)
                    |[-+]?0x[0-9a-fA-F_]+
                    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""", re.X)
_YAML11_TIMESTAMP = re.compile(r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
                    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
                     (?:[Tt]|[ \t]+)[0-9][0-9]?
                     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
                     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X)


def resolve_plain(text, line=0):
    """The value YAML 1.1 gives an unquoted scalar, or YamlError for forms the subset refuses."""
    if text in _NULLS:
        return None
    if text in _BOOL_TRUE:
        return True
    if text in _BOOL_FALSE:
        return False
    first = text[0]
    if first in "-+0123456789.":
        if _INT_OK.match(text):
            return int(text)
        if _FLOAT_OK.match(text) and "_" not in text:
            return float(text)
        if _YAML11_FLOAT.match(text) or (first != "." and _YAML11_INT.match(text)):
            raise YamlError(line, "'%s' would be read as a YAML 1.1 number in an unexpected way; "
                                  "quote it ('%s') or write a plain decimal" % (text, text))
        if first in "0123456789" and _YAML11_TIMESTAMP.match(text):
            raise YamlError(line, "'%s' would be read as a date; quote it ('%s')" % (text, text))
    if text == "<<" or text == "=":
        raise YamlError(line, "'%s' has a special meaning in YAML; quote it" % text)
    return text


# ---------------------------------------------------------------------------------------------
# Lines

class _Line(object):
    __slots__ = ("number", "indent", "text")

    def __init__(self, number, indent, text):
        self.number, self.indent, self.text = number, indent, text


def _outside_quotes(text, quote_can_open):
    """Yield (index, char) for each character outside quoted scalars ('' escapes a single quote,
    backslash escapes inside double quotes); a quote opens a scalar only where
    quote_can_open(text, index) allows. Last yields (len(text), the still-open quote or None)."""
    quote = None
    i = 0
    while i < len(text):
        char = text[i]
        if quote == "'":
            if char == "'":
                if text[i + 1:i + 2] == "'":
                    i += 2
                    continue
                quote = None
        elif quote == '"':
            if char == "\\":
                i += 2
                continue
            if char == '"':
                quote = None
        elif char in "'\"" and quote_can_open(text, i):
            quote = char
        else:
            yield i, char
        i += 1
    yield len(text), quote


def _strip_comment(text, number):
    """Drop a trailing comment, respecting quotes; text has no leading indentation."""
    for i, char in _outside_quotes(text, _quote_can_start):
        if i < len(text) and char == "#" and (i == 0 or text[i - 1] == " "):
            return text[:i].rstrip(" ")
    return text.rstrip(" ")


def _quote_can_start(text, i):
    """A quote opens a quoted scalar only where a scalar starts (not inside a plain scalar)."""
    before = text[:i].rstrip(" ")
    if not before or before[-1] in "[{,":
        return True
    return before[-1] in ":-?" and text[i - 1] == " "


# Characters YAML allows in a stream (YAML 1.1 "printable"); others must be escaped in double quotes.
_NON_PRINTABLE = re.compile(u"[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                            u"\U00010000-\U0010FFFF]" if len(u"\U00010000") == 1 else
                            u"[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uFFFD]")


def _split_lines(text):
    if not isinstance(text, type(u"")) and not isinstance(text, str):
        raise YamlError(0, "the topology must be text")
    if isinstance(text, bytes) and not isinstance(text, type(u"")):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise YamlError(0, "the topology is not UTF-8 text")
    bad = _NON_PRINTABLE.search(text)
    if bad:
        number = text.count(u"\n", 0, bad.start()) + 1
        raise YamlError(number, "non-printable character U+%04X; remove it (inside double quotes write it "
                                "as an escape, e.g. \\x%02x)" % (ord(bad.group(0)), ord(bad.group(0)) & 0xFF))
    lines = []
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    seen_start = False
    ended = False
    for index, physical in enumerate(raw):
        number = index + 1
        if "\t" in physical:
            stripped = physical.lstrip(" ")
            if stripped.startswith("\t") or not stripped.startswith("#"):
                raise YamlError(number, "tab character: indent and separate with spaces only")
        body = physical.lstrip(" ")
        indent = len(physical) - len(body)
        content = _strip_comment(body, number)
        if not content:
            continue
        if ended:
            raise YamlError(number, "content after the '...' document end marker")
        if indent == 0 and (content == "---" or content.startswith("--- ")):
            if seen_start or lines:
                raise YamlError(number, "only one YAML document is allowed (remove this '---')")
            seen_start = True
            if content != "---":
                raise YamlError(number, "put the content on the line after '---'")
            continue
        if indent == 0 and content == "...":
            ended = True
            continue
        if indent == 0 and content.startswith("%"):
            raise YamlError(number, "YAML directives (%...) are not supported; remove the line")
        lines.append(_Line(number, indent, content))
    return lines


# ---------------------------------------------------------------------------------------------
# Parser

_KEY_RE = re.compile(r"^(?P<key>[^'\"#][^#]*?|'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\")[ ]*:(?:[ ]+(?P<value>.*))?$")
_DQ_ESCAPES = {"0": u"\x00", "a": u"\x07", "b": u"\x08", "t": u"\x09", "\t": u"\x09", "n": u"\x0a",
               "v": u"\x0b", "f": u"\x0c", "r": u"\x0d", "e": u"\x1b", " ": u" ", "\"": u"\"", "/": u"/",
               "\\": u"\\", "N": u"\x85", "_": u"\xa0", "L": u"\u2028", "P": u"\u2029"}
_DQ_HEX = {"x": 2, "u": 4, "U": 8}


def _unquote_double(text, line):
    out = []
    i = 1
    end = len(text) - 1
    while i < end:
        char = text[i]
        if char == "\\":
            code = text[i + 1:i + 2]
            if code in _DQ_ESCAPES:
                out.append(_DQ_ESCAPES[code])
                i += 2
            elif code in _DQ_HEX:
                width = _DQ_HEX[code]
                digits = text[i + 2:i + 2 + width]
                if len(digits) != width or not re.match(r"^[0-9A-Fa-f]+$", digits):
                    raise YamlError(line, "bad escape \\%s in a double-quoted value" % code)
                out.append(_unichr(int(digits, 16)))
                i += 2 + width
            else:
                raise YamlError(line, "unknown escape \\%s in a double-quoted value; for a regex "
                                      "backslash use single quotes ('a\\.b') or write \\\\" % code)
        else:
            out.append(char)
            i += 1
    return u"".join(out)


def _unichr(code):
    try:
        return unichr(code)  # noqa: F821 (Python 2)
    except NameError:
        return chr(code)
    except ValueError:  # narrow Python 2 build
        return (u"\\U%08x" % code).decode("unicode-escape")


def _to_native(value):
    """Python 2: ASCII-only text stays a native str (Ambari and the renderer use native strings)."""
    if str is bytes and isinstance(value, type(u"")):
        try:
            return value.encode("ascii")
        except UnicodeEncodeError:
            return value
    return value


def _scalar(text, line, in_flow=False):
    """Parse one scalar token (already stripped of comments and surrounding spaces)."""
    if not text:
        return None
    first = text[0]
    if first == "'":
        if len(text) < 2 or not text.endswith("'") or re.search(r"(?<!')'(?!')", text[1:-1].replace("''", "")):
            raise YamlError(line, "unterminated or malformed single-quoted value: %s" % text)
        return _to_native(text[1:-1].replace("''", "'"))
    if first == '"':
        if len(text) < 2 or not text.endswith('"') or _dq_end(text) != len(text) - 1:
            raise YamlError(line, "unterminated or malformed double-quoted value: %s" % text)
        return _to_native(_unquote_double(text, line))
    if first in "&*!":
        # quoting is the fix only when the text is meant: an anchor or alias quoted becomes part of the value
        kind = {"&": "anchor", "*": "alias", "!": "tag"}[first]
        fix = "remove the tag" if first == "!" else "write the value out in each place it is used"
        raise YamlError(line, "a value starting with '%s' is a YAML %s, and the topology takes no anchors, aliases "
                              "or tags (the drivers read it with a strict YAML reader): %s; only if '%s' is the "
                              "text you mean, quote it" % (first, kind, fix, text))
    if first in "|>":
        raise YamlError(line, "block scalars (| and >) are not supported; write the value on one line")
    if first in "%@`":
        raise YamlError(line, "a value cannot start with '%s' in YAML; quote it: '%s'" % (first, text))
    if first in "[{":
        return _flow(text, line)
    if first in "]},":
        raise YamlError(line, "a value cannot start with '%s'; quote it: '%s'" % (first, text))
    if first in "-?:" and (len(text) == 1 or text[1] == " "):
        raise YamlError(line, "unexpected '%s'; quote the value if it is text" % first)
    if ": " in text or text.endswith(":"):
        raise YamlError(line, "'%s' contains ': ' which YAML reads as a nested mapping; quote the value"
                        % text)
    if in_flow and any(c in text for c in ",[]{}"):
        raise YamlError(line, "'%s': quote values that contain , [ ] { } inside [...] or {...}" % text)
    return _to_native(resolve_plain(text, line))


def _dq_end(text):
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _split_flow_items(body, line):
    items, start = [], [0]

    def quote_can_open(text, i):  # at the start of an item, or after "key: "
        before = text[start[0]:i]
        return before.strip() == "" or (before.rstrip().endswith(":") and text[i - 1] == " ")

    quote = None
    for i, char in _outside_quotes(body, quote_can_open):
        if i == len(body):
            quote = char
        elif char in "[{":
            raise YamlError(line, "nested [...] / {...} are not supported; use block style")
        elif char == ",":
            items.append(body[start[0]:i].strip())
            start[0] = i + 1
    if quote:
        raise YamlError(line, "unterminated quoted value inside [...] or {...}")
    last = body[start[0]:].strip()
    if last or items:
        items.append(last)
    if items and items[-1] == "":
        items.pop()  # YAML allows a trailing comma
    if any(item == "" for item in items):
        raise YamlError(line, "empty entry inside [...] or {...}")
    return items


def _flow(text, line):
    opening = text[0]
    closing = "]" if opening == "[" else "}"
    if not text.endswith(closing):
        raise YamlError(line, "'%s' must be closed by '%s' on the same line" % (opening, closing))
    items = _split_flow_items(text[1:-1], line)
    if opening == "[":
        return [_scalar(item, line, in_flow=True) for item in items]
    result = OrderedDict()
    for item in items:
        match = re.match(r"^(?P<key>'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|[^:'\"]+?)[ ]*:(?:[ ]+(?P<value>.*))?$",
                         item)
        if not match:
            raise YamlError(line, "'%s' inside {...} must be 'key: value'" % item)
        key = _scalar(match.group("key").strip(), line, in_flow=True)
        _add_key(result, key, _scalar((match.group("value") or "").strip(), line, in_flow=True), line)
    return result


def _add_key(mapping, key, value, line):
    if isinstance(key, (list, dict)):
        raise YamlError(line, "a key must be a scalar")
    if key in mapping:
        raise YamlError(line, "duplicate key '%s' (YAML would silently keep only the last one)" % (key,))
    mapping[key] = value


# Bounded work on hostile input: the text is read once, line by line; nesting is bounded so a
# deep document gets a line-numbered error instead of a RecursionError (anchors and aliases, the
# other way to blow a document up, are refused by the subset).
MAX_CHARS = 1024 * 1024
MAX_DEPTH = 40


class _Parser(object):
    def __init__(self, lines):
        self.lines = lines
        self.pos = 0
        self.depth = 0

    def enter(self, line):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise YamlError(line.number, "nested more than %d levels deep; a topology needs far fewer" % MAX_DEPTH)

    def leave(self):
        self.depth -= 1

    def peek(self):
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def parse_node(self, indent):
        """Parse the block node whose first line is at position pos and has exactly ``indent``."""
        self.enter(self.peek())
        try:
            return self._parse_node(indent)
        finally:
            self.leave()

    def _parse_node(self, indent):
        line = self.peek()
        if _is_seq_item(line.text):
            return self.parse_sequence(line.indent)
        if _KEY_RE.match(line.text) and not line.text[0] in "[{":
            return self.parse_mapping(line.indent)
        self.pos += 1
        value = _scalar(line.text, line.number)
        self.reject_continuation(line)
        return value

    def reject_continuation(self, line):
        nxt = self.peek()
        if nxt is not None and nxt.indent > line.indent:
            raise YamlError(nxt.number, "unexpected indentation: multi-line values are not supported "
                                        "(keep each value on one line) or the line is indented too far")

    def parse_mapping(self, indent):
        result = OrderedDict()
        while True:
            line = self.peek()
            if line is None or line.indent < indent:
                return result
            if line.indent > indent:
                raise YamlError(line.number, "unexpected indentation (expected %d spaces)" % indent)
            if _is_seq_item(line.text):
                raise YamlError(line.number, "a '- ' list item where a 'key: value' line was expected")
            match = _KEY_RE.match(line.text)
            if not match or line.text[0] in "[{":
                raise YamlError(line.number, "expected 'key: value' (a colon and a space after the key)")
            raw_key = match.group("key").rstrip(" ")
            if raw_key[0] in "?&*!|>%@`-" and (raw_key[0] != "-" or len(raw_key) == 1 or raw_key[1] == " "):
                raise YamlError(line.number, "a key cannot start with '%s'; quote it" % raw_key[0])
            key = _scalar(raw_key, line.number)
            value_text = match.group("value")
            self.pos += 1
            if value_text is not None and value_text.strip() != "":
                value = _scalar(value_text.strip(), line.number)
                self.reject_continuation(line)
            else:
                nxt = self.peek()
                if nxt is not None and nxt.indent > indent:
                    value = self.parse_node(nxt.indent)
                elif nxt is not None and nxt.indent == indent and _is_seq_item(nxt.text):
                    value = self.parse_sequence(indent)
                else:
                    value = None
            _add_key(result, key, value, line.number)

    def parse_sequence(self, indent):
        result = []
        while True:
            line = self.peek()
            if line is None or line.indent < indent:
                return result
            if line.indent > indent:
                raise YamlError(line.number, "unexpected indentation (expected %d spaces)" % indent)
            if not _is_seq_item(line.text):
                return result  # e.g. the next key of a parent mapping at the same indentation
            rest = line.text[1:]
            body = rest.lstrip(" ")
            if not body:
                self.pos += 1
                nxt = self.peek()
                if nxt is not None and nxt.indent > indent:
                    result.append(self.parse_node(nxt.indent))
                else:
                    result.append(None)
                continue
            # "- item": parse the rest of the line as a node indented where its text starts.
            column = indent + 1 + (len(rest) - len(body))
            self.lines[self.pos] = _Line(line.number, column, body)
            result.append(self.parse_node(column))


def _is_seq_item(text):
    return text == "-" or text.startswith("- ")


def load(text):
    """Parse the subset; returns OrderedDict / list / scalar / None, or raises YamlError."""
    if len(text) > MAX_CHARS:
        raise YamlError(0, "the YAML text is %d characters long, more than the %d a topology may have"
                        % (len(text), MAX_CHARS))
    lines = _split_lines(text)
    if not lines:
        return None
    parser = _Parser(lines)
    first = lines[0]
    value = parser.parse_node(first.indent)
    leftover = parser.peek()
    if leftover is not None:
        raise YamlError(leftover.number, "unexpected content (check the indentation of this line)")
    return value
