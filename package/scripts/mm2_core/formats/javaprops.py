"""Java .properties files written so that java.util.Properties.load reads back exactly what was meant.

MM2 loads its file with Properties.load(InputStream), i.e. ISO-8859-1 with backslash escapes.  So the
writer escapes every character outside printable ASCII as \\uXXXX (UTF-16 units, surrogate pairs
beyond the BMP), escapes backslashes (regexes such as ``metrics\\.\\d+`` survive), key separators
(``=``, ``:``, whitespace), comment starters (``#``, ``!``) and leading value spaces.  A value with a
line break is refused: escaping it would be correct, but a line break in an Ambari property is almost
always a paste mistake, and refusing it rules out property injection by construction.

``loads`` is a reader equivalent to Properties.load, used by tests and by code that reads files back.
"""
import re
import sys

if sys.version_info[0] >= 3:  # pragma: no cover - the branch depends on the interpreter
    text_type = str
    unichr_ = chr
else:  # pragma: no cover
    text_type = unicode  # noqa: F821 (Python 2)
    unichr_ = unichr  # noqa: F821 (Python 2)

LINE_BREAKS = ("\n", "\r")


class PropertiesError(ValueError):
    """A key or value that cannot be written safely."""


def _to_text(value):
    if isinstance(value, bool):  # Ambari hands "true"/"false" over as Python bools
        return u"true" if value else u"false"
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, text_type):
        return value
    return text_type(value)


def _utf16_units(char):
    code = ord(char)
    if code <= 0xFFFF:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


_SPECIAL = {u"\\": u"\\\\", u"\t": u"\\t", u"\f": u"\\f"}
# Only a key can end early or start a comment; in a value (after "key=") these are plain text.
_KEY_SPECIAL = {u"=": u"\\=", u":": u"\\:", u"#": u"\\#", u"!": u"\\!"}


def _escape(text, is_key):
    out = []
    for index, char in enumerate(text):
        if char in _SPECIAL:
            out.append(_SPECIAL[char])
        elif is_key and char in _KEY_SPECIAL:
            out.append(_KEY_SPECIAL[char])
        elif char == u" " and (is_key or index == 0):
            out.append(u"\\ ")
        elif u" " <= char <= u"~":
            out.append(char)
        else:
            # Non-printable or non-ASCII: \\uXXXX is independent of the file encoding.  On a narrow
            # Python 2 build a non-BMP character already arrives as two surrogate units.
            for unit in _utf16_units(char):
                out.append(u"\\u%04X" % unit)
    return u"".join(out)


def check_value(value):
    """Return None when the value can be written, else the reason (used by validators)."""
    text = _to_text(value)
    for brk in LINE_BREAKS:
        if brk in text:
            return "contains a line break; Java properties values are single lines (remove it)"
    return None


def escape_key(key):
    text = _to_text(key)
    if not text:
        raise PropertiesError("empty property key")
    reason = check_value(text)
    if reason:
        raise PropertiesError("property key %r %s" % (text, reason))
    return _escape(text, True)


def escape_value(value, key=None):
    text = _to_text(value)
    reason = check_value(text)
    if reason:
        raise PropertiesError("value of %s %s" % (key or "a property", reason))
    return _escape(text, False)


def format_line(key, value):
    return u"%s=%s" % (escape_key(key), escape_value(value, key))


def dumps(items, header=None):
    """Text of a properties file: items is a list of (key, value) or (None, comment) pairs.

    Returns text that is pure ASCII, so any encoding writes the same bytes.
    """
    lines = []
    for line in _to_text(header or u"").splitlines():
        lines.append(_comment(line))
    for key, value in items:
        if key is None:
            for line in _to_text(value).splitlines() or [u""]:
                lines.append(_comment(line))
        else:
            lines.append(format_line(key, value))
    text = u"\n".join(lines) + u"\n"
    return str(text) if sys.version_info[0] >= 3 else text.encode("ascii")


def _comment(line):
    if not line:
        return u""
    # Java ignores comment lines; non-ASCII is escaped only to keep the file pure ASCII.
    return u"# " + u"".join(c if u" " <= c <= u"~" else u"\\u%04X" % ord(c) for c in line)


# ---------------------------------------------------------------------------------------------
# Reader equivalent to java.util.Properties.load(Reader/InputStream after ISO-8859-1 decoding).

_WS = u" \t\f"


def _logical_lines(text):
    """Yield logical lines: comments and blank lines dropped, continuations joined (as Java does)."""
    physical = text.replace(u"\r\n", u"\n").replace(u"\r", u"\n").split(u"\n")
    index = 0
    while index < len(physical):
        line = physical[index].lstrip(_WS)
        index += 1
        if not line or line[0] in u"#!":
            continue
        parts = []
        while True:
            # An odd number of trailing backslashes continues the line.
            count = len(line) - len(line.rstrip(u"\\"))
            if count % 2 == 1:
                parts.append(line[:-1])
                if index >= len(physical):
                    break
                line = physical[index].lstrip(_WS)
                index += 1
            else:
                parts.append(line)
                break
        yield u"".join(parts)


def _unescape(text):
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != u"\\":
            out.append(char)
            i += 1
            continue
        i += 1
        if i >= len(text):
            break
        char = text[i]
        i += 1
        if char == u"u":
            digits = text[i:i + 4]
            if len(digits) < 4 or any(c not in u"0123456789abcdefABCDEF" for c in digits):
                raise PropertiesError("Malformed \\uxxxx encoding.")
            out.append(unichr_(int(digits, 16)))
            i += 4
        else:
            out.append({u"t": u"\t", u"n": u"\n", u"r": u"\r", u"f": u"\f"}.get(char, char))
    return _join_surrogates(u"".join(out))


_SURROGATE_PAIR = re.compile(u"[\ud800-\udbff][\udc00-\udfff]")


def _join_surrogates(text):
    """Combine UTF-16 surrogate pairs written as two \\u escapes into one character."""
    def combine(match):
        high, low = ord(match.group(0)[0]), ord(match.group(0)[1])
        return unichr_(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    try:
        return _SURROGATE_PAIR.sub(combine, text)
    except ValueError:  # narrow Python 2 build keeps the pair, which is how it stores the character
        return text


def _split_key_value(line):
    i = 0
    length = len(line)
    key_end = length
    while i < length:
        char = line[i]
        if char == u"\\":
            i += 2
            continue
        if char in u"=:" or char in _WS:
            key_end = i
            break
        i += 1
    key = line[:key_end]
    rest = line[key_end:]
    rest = rest.lstrip(_WS)
    if rest[:1] in (u"=", u":"):
        rest = rest[1:].lstrip(_WS)
    return key, rest


def loads(text):
    """Parse properties text like java.util.Properties.load; returns an ordered list of (key, value).

    Later duplicates win in Java; ``load_dict`` applies that rule.
    """
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    items = []
    for line in _logical_lines(text):
        key, value = _split_key_value(line)
        items.append((_unescape(key), _unescape(value)))
    return items


def load_dict(text):
    return dict(loads(text))
