"""Would java.util.regex.Pattern accept this pattern? Answered in pure Python (2.7 and 3).

MM2 compiles topic and group filters with Java (DefaultTopicFilter / DefaultGroupFilter: the LIST
value is split at commas and the pieces joined with '|' into one Pattern). Python's `re` disagrees
with Java on many points, so the pattern is walked here with Java's rules, translated into an
equivalent-for-syntax Python pattern, and only then compiled by `re` (which catches unbalanced
groups, bad ranges and quantifiers on nothing).

Java-only syntax that is understood: possessive quantifiers (a*+), atomic groups (?>...),
\\p{...}/\\P{...} (categories, POSIX and java* names checked; Is/In/script=/block= names are
accepted without checking the script or block exists), \\Q...\\E, \\h \\H \\v \\V \\R \\X \\G \\z \\e
\\cX \\x{...} \\uXXXX \\N{name} \\b{g}, named groups (?<name>...) with \\k<name>, inline flags
anywhere (including d and U), nested classes and && intersections, quantifiers after anchors and
{n} after a quantifier, comments mode (?x). Python-only syntax is rejected as Java rejects it:
(?P<...>), (?#...), (?(1)..|..), \\U, a{,3}, and a '{' that is not a complete {n}, {n,} or {n,m}.
Limits (accepted here, Java may differ): lookbehind length rules beyond "no back reference in a
lookbehind", unknown script/block names, the exact Unicode name table of \\N{...} (Python's
unicodedata is used). A seeded differential test compares thousands of generated patterns with
the JDK's verdicts (tests/advisor/test_javaregex.py).
"""
import re
import sys
import unicodedata
import warnings

_PY2 = sys.version_info[0] == 2
_chr = unichr if _PY2 else chr  # noqa: F821 (Python 2 name)
_text = unicode if _PY2 else str  # noqa: F821

_FLAGS = "idmsuxU"
_CATEGORIES = set("L Lu Ll Lt Lm Lo LC LD L1 M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So "
                  "Z Zs Zl Zp C Cc Cf Co Cs Cn".split())
_POSIX = set("Lower Upper ASCII Alpha Digit Alnum Punct Graph Print Blank Cntrl XDigit Space all".split())
_JAVA = set(("java" + n) for n in (
    "LowerCase UpperCase Whitespace Mirrored Letter Digit LetterOrDigit Alphabetic Ideographic TitleCase "
    "Defined IdentifierIgnorable ISOControl JavaIdentifierStart JavaIdentifierPart UnicodeIdentifierStart "
    "UnicodeIdentifierPart SpaceChar").split())
_KEYED = re.compile(r"^(?:script|sc|block|blk|general_category|gc)=[A-Za-z0-9_ -]+$")
_NAMED = re.compile(r"^(?:Is|In)[A-Za-z0-9_ -]+$")
_ANCHORS = {"^": "(?:^)", "$": "(?:$)"}
_ESCAPED_ANCHORS = {"b": "(?:\\b)", "B": "(?:\\B)", "A": "(?:\\A)", "Z": "(?:\\Z)", "z": "(?:\\Z)", "G": "(?:)"}
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\a", "e": "\x1b"}
_CLASS_SHORTHANDS = {"d": "\\d", "D": "\\D", "s": "\\s", "S": "\\S", "w": "\\w", "W": "\\W",
                     "h": "\\s", "H": "\\S", "v": "\\s", "V": "\\S"}
_HEX = "0123456789abcdefABCDEF"
_MAX_INT = 2 ** 31 - 1


class _Invalid(Exception):
    def __init__(self, reason, index):
        Exception.__init__(self, reason)
        self.reason = "%s near index %d" % (reason, index)


def java_regex_error(pattern):
    """None if Java's Pattern.compile(pattern) accepts the pattern, else the reason (Java's wording)."""
    if _PY2 and isinstance(pattern, str):
        pattern = pattern.decode("utf-8", "replace")
    try:
        translated = _Translator(pattern).run()
    except _Invalid as exc:
        return exc.reason
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and friends: Java syntax, handled
            re.compile(translated)
    except (re.error, OverflowError, RecursionError if not _PY2 else RuntimeError) as exc:
        return re.sub(r" at position \d+.*$", "", str(exc)) or "invalid pattern"
    return None


def split_list(value):
    """How Kafka reads a LIST property: trimmed, split at commas with the spaces around them."""
    value = (value or "").strip()
    return re.split(r"\s*,\s*", value) if value else []


def pattern_list_error(value):
    """None if MM2 compiles exactly the regexes written in this comma-separated filter list, else why not.

    Kafka splits a LIST value at every comma (escaped or not, inside [] or () too) and MM2 joins
    the pieces with '|'. A piece that is not a regex by itself means a comma cut one: the joined
    pattern may even compile ('team\\,a' -> 'team\\|a'), but it is not what was written.
    """
    pieces = split_list(value)
    if not pieces:
        return None
    cut = any(re.search(r"\{\d*$", left) and re.match(r"^\d*\}", right) for left, right in zip(pieces, pieces[1:]))
    for piece in pieces:
        error = java_regex_error(piece)
        if error:
            if cut:
                hint = (" (the value is a comma-separated list, so the comma inside {n,m} splits the "
                        "regex; write the repetition without a comma, e.g. (?:a|aa|aaa) for a{1,3})")
            elif len(pieces) > 1 and java_regex_error("|".join(pieces)) is None:
                hint = (" (the value is a comma-separated list: Kafka splits it at every comma, escaped or "
                        "inside [] or (), and MM2 would compile '%s'; write the regex without a comma, e.g. "
                        "\\x2C for a literal comma or (?:a|b) for alternatives)" % "|".join(pieces))
            else:
                hint = ""
            return "'%s' is not a valid Java regex: %s%s" % (piece, error, hint)
    joined_error = java_regex_error("|".join(pieces))
    if joined_error:
        return "the patterns joined with '|' are not a valid Java regex: %s" % joined_error
    return None


class _Translator(object):
    """Walks a pattern with Java's grammar, emitting a Python pattern with the same syntax verdict."""

    def __init__(self, pattern):
        self.p = pattern
        self.i = 0
        self.out = []
        self.comments = False
        self.groups = set()
        self.lookbehind = []  # one entry per open group: is it a lookbehind?

    def run(self):
        quantifiable = False
        after_quantifier = False
        after_flags = False  # right after (?i): Java finds nothing to repeat there
        while self.i < len(self.p):
            c = self.p[self.i]
            if self.comments and self._skip_comment_or_space():
                continue
            if c in "*+?":
                if after_quantifier or after_flags:
                    raise _Invalid("Dangling meta character '%s'" % c, self.i)
                self.out.append(c)
                self.i += 1
                self._quantifier_suffix()
                quantifiable, after_quantifier = False, True
                continue
            if c == "{":
                start = self.i
                text = self._counted_closure()
                if after_quantifier:  # Java accepts a{2}{3}+ and a*{2}; Python would not: drop it
                    kept = len(self.out)
                    self._quantifier_suffix()
                    del self.out[kept:]
                    continue
                if quantifiable:
                    self.out.append(text)
                else:
                    self.out.append(re.escape(self.p[start:self.i]))  # leading {2}: harmless
                self._quantifier_suffix()
                quantifiable, after_quantifier = False, True
                continue
            after_quantifier = after_flags = False
            quantifiable = True
            if c == "\\":
                self.out.append(self._escape(in_class=False))
            elif c == "[":
                self.out.append(self._char_class())
            elif c == "(":
                after_flags = not self._group_open()
                quantifiable = False
            elif c == ")":
                self.out.append(")")
                self.i += 1
                if self.lookbehind:
                    self.lookbehind.pop()
            elif c == "|":
                self.out.append("|")
                self.i += 1
                quantifiable = False
            elif c in _ANCHORS:
                self.out.append(_ANCHORS[c])
                self.i += 1
            elif c == ".":
                self.out.append(".")
                self.i += 1
            else:
                self.out.append(re.escape(c))
                self.i += 1
        return "".join(self.out)

    # --- pieces -------------------------------------------------------------------------------

    def _skip_comment_or_space(self):
        c = self.p[self.i]
        if c in " \t\n\r\f\x0b":
            self.i += 1
            return True
        if c == "#":
            while self.i < len(self.p) and self.p[self.i] not in "\r\n":
                self.i += 1
            return True
        return False

    def _quantifier_suffix(self):
        if self.i < len(self.p) and self.p[self.i] == "?":
            self.out.append("?")
            self.i += 1
        elif self.i < len(self.p) and self.p[self.i] == "+":
            self.i += 1  # possessive: same syntax as greedy for our purpose

    def _counted_closure(self):
        start = self.i
        match = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.p, self.i)
        if not match:
            if re.compile(r"\{\d+(,\d*)?$").match(self.p, self.i):
                raise _Invalid("Unclosed counted closure", len(self.p))
            raise _Invalid("Illegal repetition", start)
        low = int(match.group(1))
        high = match.group(3)
        if low > _MAX_INT or (high and int(high) > _MAX_INT) or (high and int(high) < low):
            raise _Invalid("Illegal repetition range", start)
        self.i = match.end()
        return match.group(0)

    def _group_open(self):
        self.i += 1
        if not self.p.startswith("?", self.i):
            self.out.append("(?:")  # no capturing groups in the translation: no group limits
            self.lookbehind.append(False)
            return True
        self.i += 1
        rest = self.p[self.i:]
        for prefix in (":", "=", "!", ">", "<=", "<!"):
            if rest.startswith(prefix):
                self.i += len(prefix)
                self.out.append("(?:")
                self.lookbehind.append(prefix in ("<=", "<!"))
                return True
        if rest.startswith("<"):
            match = re.compile(r"<([^>]*)(>?)").match(self.p, self.i)
            name = match.group(1)
            if not re.match(r"^[A-Za-z]", name):
                raise _Invalid("capturing group name does not start with a Latin letter", self.i + 1)
            valid = re.match(r"^[A-Za-z][A-Za-z0-9]*", name).group(0)
            if valid != name or not match.group(2):
                raise _Invalid("named capturing group is missing trailing '>'", self.i + 1 + len(valid))
            if name in self.groups:
                raise _Invalid("Named capturing group <%s> is already defined" % name, self.i)
            self.groups.add(name)
            self.i = match.end()
            self.out.append("(?:")
            self.lookbehind.append(False)
            return True
        match = re.compile(r"([%s]*)(?:-([%s]*))?([:)])" % (_FLAGS, _FLAGS)).match(self.p, self.i)
        if not match:
            raise _Invalid("Unknown inline modifier", self.i)
        if "x" in match.group(1):
            self.comments = True
        elif "x" in (match.group(2) or ""):
            self.comments = False
        self.i = match.end()
        if match.group(3) == ":":
            self.out.append("(?:")
            self.lookbehind.append(False)
            return True
        return False  # a flag switch only, nothing to emit (Python rejects flags after the start)

    def _escape(self, in_class):
        start = self.i
        self.i += 1
        if self.i >= len(self.p):
            raise _Invalid("Unexpected internal error", start)
        c = self.p[self.i]
        self.i += 1
        if c in _SIMPLE_ESCAPES:
            return self._literal(_SIMPLE_ESCAPES[c])
        if c in _CLASS_SHORTHANDS:
            return _CLASS_SHORTHANDS[c]
        if c in ("p", "P"):
            self._property(start)
            return "\\w"
        if c == "Q":
            end = self.p.find("\\E", self.i)
            end = len(self.p) if end < 0 else end
            quoted = self.p[self.i:end]
            self.i = min(end + 2, len(self.p))
            if not quoted:
                return "(?:)" if not in_class else ""
            return "".join(self._literal(ch) for ch in quoted)
        if c == "c":
            if self.i >= len(self.p):
                raise _Invalid("Illegal control escape sequence", self.i)
            self.i += 1
            return self._literal(_chr(ord(self.p[self.i - 1]) ^ 64))
        if c == "x":
            return self._literal(_chr(self._hex_escape(start)))
        if c == "u":
            digits = self.p[self.i:self.i + 4]
            if len(digits) < 4 or any(d not in _HEX for d in digits):
                raise _Invalid("Illegal Unicode escape sequence", self.i)
            self.i += 4
            return self._literal(_chr(int(digits, 16)))
        if c == "0":
            return self._literal(_chr(self._octal(start)))
        if c == "N":
            match = re.compile(r"\{([^}]*)\}").match(self.p, self.i)
            if not match:
                raise _Invalid("Unknown character name", self.i)
            self.i = match.end()
            try:
                return self._literal(unicodedata.lookup(match.group(1)))
            except KeyError:
                raise _Invalid("Unknown character name [%s]" % match.group(1), self.i)
            except ValueError:  # a character outside a narrow Python 2 build's range
                return "\\w"
        if in_class:
            if c.isdigit() or (c.isalpha() and ord(c) < 128):
                raise _Invalid("Illegal/unsupported escape sequence", start + 1)
            return self._literal(c)
        if c in _ESCAPED_ANCHORS:
            if c == "b" and self.p.startswith("{g}", self.i):
                self.i += 3
            return _ESCAPED_ANCHORS[c]
        if c == "R":
            return "(?:\r\n|[\n\x0b\f\r\x85\u2028\u2029])" if not _PY2 else "(?:\r\n|\n)"
        if c == "X":
            return "(?:.)"
        if (c.isdigit() or c == "k") and any(self.lookbehind):
            raise _Invalid("Look-behind group does not have an obvious maximum length", start)
        if c.isdigit():
            while self.i < len(self.p) and self.p[self.i].isdigit():
                self.i += 1
            return "(?:)"  # a back reference: Java accepts one to a group that does not exist
        if c == "k":
            match = re.compile(r"<([^>]*)>").match(self.p, self.i)
            if not self.p.startswith("<", self.i):
                raise _Invalid("\\k is not followed by '<' for named capturing group", self.i)
            if not match or not re.match(r"^[A-Za-z][A-Za-z0-9]*$", match.group(1)):
                raise _Invalid("capturing group name does not start with a Latin letter", self.i + 1)
            if match.group(1) not in self.groups:
                raise _Invalid("named capturing group <%s> does not exist" % match.group(1), self.i)
            self.i = match.end()
            return "(?:)"
        if c.isalpha() and ord(c) < 128:
            raise _Invalid("Illegal/unsupported escape sequence", start + 1)
        return self._literal(c)

    def _literal(self, ch):
        return "\\x%02x" % ord(ch) if ord(ch) < 0x100 else re.escape(ch)

    def _hex_escape(self, start):
        if self.p.startswith("{", self.i):
            end = self.p.find("}", self.i)
            digits = self.p[self.i + 1:end] if end > 0 else ""
            if end < 0 or not digits or any(d not in _HEX for d in digits):
                raise _Invalid("Unclosed hexadecimal escape sequence" if end < 0
                               else "Illegal hexadecimal escape sequence", self.i)
            if int(digits, 16) > 0x10FFFF:
                raise _Invalid("Hexadecimal codepoint is too big", self.i)
            self.i = end + 1
            value = int(digits, 16)
        else:
            digits = self.p[self.i:self.i + 2]
            if len(digits) < 2 or any(d not in _HEX for d in digits):
                raise _Invalid("Illegal hexadecimal escape sequence", self.i)
            self.i += 2
            value = int(digits, 16)
        return value if value < 0x10000 or not _PY2 or sys.maxunicode > 0xFFFF else 0xFFFD

    def _octal(self, start):
        digits = ""
        while self.i < len(self.p) and len(digits) < 3 and self.p[self.i] in "01234567":
            candidate = digits + self.p[self.i]
            if len(candidate) == 3 and candidate[0] > "3":
                break
            digits = candidate
            self.i += 1
        if not digits:
            raise _Invalid("Illegal octal escape sequence", self.i)
        return int(digits, 8)

    def _property(self, start):
        if self.i >= len(self.p):
            raise _Invalid("Illegal/unsupported escape sequence", self.i)
        if self.p[self.i] == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise _Invalid("Unclosed character family", len(self.p))
            name = self.p[self.i + 1:end]
            self.i = end + 1
        else:
            name = self.p[self.i]
            self.i += 1
        if not self._known_property(name):
            raise _Invalid("Unknown character property name {%s}" % name, self.i)

    @staticmethod
    def _known_property(name):
        if name in _CATEGORIES or name in _POSIX or name in _JAVA or _KEYED.match(name):
            return True
        if name.startswith("Is") and (name[2:] in _CATEGORIES or name[2:] in _POSIX):
            return True
        return bool(_NAMED.match(name)) and len(name) > 2

    def _char_class(self):
        """A Java class (nested classes and && allowed), flattened into one Python class."""
        start = self.i
        self.i += 1
        negated = self.p.startswith("^", self.i)
        if negated:
            self.i += 1
        body = self._class_body(start, first=True)
        return "[" + ("^" if negated else "") + (body or "\\x00") + "]"

    def _class_body(self, start, first):
        parts = []
        previous_atom = False
        while True:
            if self.i >= len(self.p):
                raise _Invalid("Unclosed character class", len(self.p) - 1)
            c = self.p[self.i]
            if self.comments and c in " \t\n\r\f\x0b":
                self.i += 1
                continue
            if c == "]" and not (first and not parts):
                self.i += 1
                return "".join(parts)
            first = False
            if c == "[":
                inner_start = self.i
                self.i += 1
                if self.p.startswith("^", self.i):
                    self.i += 1
                parts.append(self._class_body(inner_start, first=True))
                previous_atom = False
            elif c == "&" and self.p.startswith("&&", self.i):
                self.i += 2
                previous_atom = False
            elif c == "\\":
                item = self._escape(in_class=True)
                parts.append(item)
                # After a shorthand (\w) Java reads '-' literally; Python would call it a bad range.
                previous_atom = not (item.startswith("\\") and item[1:2] in "dDsSwW")
            elif c == "-" and previous_atom and not self.p.startswith("-]", self.i) \
                    and not self.p.startswith("-[", self.i) and not self.p.startswith("-&&", self.i):
                self.i += 1
                end_start = self.i
                if self.i >= len(self.p):
                    raise _Invalid("Unclosed character class", len(self.p) - 1)
                if self.p.startswith("\\", self.i):
                    end = self._escape(in_class=True)
                    if end.startswith("\\") and end[1:2] in "dDsSwW":
                        raise _Invalid("Illegal character range", end_start)
                else:
                    end = self._literal(self.p[self.i])
                    self.i += 1
                parts.append("-" + end)
                previous_atom = False
            else:
                parts.append(self._literal(c))
                self.i += 1
                previous_atom = True
