# py3-only: hypothesis and PyYAML
"""mm2_core.formats.yamlish agrees with yaml.safe_load on its subset, and never disagrees silently."""
import json
import re

import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mm2_core.formats import yamlish

# --- a generator of documents inside the subset, in several styles --------------------------

PLAIN_WORD = st.from_regex(r"\A[a-zA-Z_][a-zA-Z0-9_.\-]{0,12}\Z")
ALIASY = st.from_regex(r"\A[a-z][a-z0-9_\-]{0,6}(->[a-z][a-z0-9_\-]{0,6})?(\.[a-z]{1,6}){0,3}\Z")
REGEXY = st.sampled_from([".*", "__.*", ".*[\\-\\.]internal", "metrics\\.\\d+", "a-b.c", "x/y:z", "http://h:80",
                          "console-consumer-.*, connect-.*", "it's", "a#b", "C:\\dir"])
FREE_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x85\u2028\u2029"),
                    max_size=12)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6), PLAIN_WORD, ALIASY, REGEXY, FREE_TEXT,
                    st.floats(-1e6, 1e6).map(lambda f: round(f, 3)))


def _needs_quotes(text):
    try:
        value = yamlish.resolve_plain(text)
    except yamlish.YamlError:
        return True
    if value != text or not text or text != text.strip():
        return True
    if text[0] in "-?:,[]{}#&*!|>'\"%@`" or ": " in text or " #" in text or text.endswith(":"):
        return True
    return any(c in text for c in "\t") or not all(" " <= c <= "~" for c in text)


def _scalar(value, style, in_flow=False):
    if value is None:
        return "~" if style % 2 else "null"
    if value is True:
        return ["true", "True", "yes", "on"][style % 4]
    if value is False:
        return ["false", "False", "no", "off"][style % 4]
    if isinstance(value, float):
        return repr(value) if "." in repr(value) and "e" not in repr(value) else json.dumps(repr(value))
    if isinstance(value, int):
        return str(value)
    if style % 3 == 0 and not _needs_quotes(value) and not (in_flow and any(c in value for c in ",[]{}")):
        return value
    if style % 3 == 1 and all(" " <= c <= "~" or c > "\xa0" for c in value):
        return "'" + value.replace("'", "''") + "'"
    return _double_quoted(value)


def _double_quoted(value):
    out = []
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif " " <= c <= "~" or ("\xa0" <= c <= "\ufffd") or c > "\uffff":
            out.append(c)
        else:
            out.append("\\u%04x" % ord(c))
    return '"' + "".join(out) + '"'


KEYS = st.one_of(PLAIN_WORD, ALIASY)


@st.composite
def documents(draw, depth=0):
    kind = draw(st.sampled_from(["map", "map", "list"] if depth < 2 else ["scalar"]))
    if kind == "scalar":
        return draw(SCALARS)
    if kind == "map":
        keys = draw(st.lists(KEYS, min_size=0, max_size=4, unique=True))
        return dict((k, draw(documents(depth + 1))) for k in keys)
    return draw(st.lists(documents(depth + 1), max_size=4))


def emit(value, indent, style, seq_same_indent):
    """Lines of a block-style document for value (a dict or list) at indentation ``indent``."""
    pad = " " * indent
    lines = []
    if isinstance(value, dict):
        for key, item in value.items():
            k = _scalar(key, style)
            if isinstance(item, dict) and item:
                lines.append("%s%s:" % (pad, k))
                lines += emit(item, indent + 2, style + 1, seq_same_indent)
            elif isinstance(item, list) and item:
                lines.append("%s%s:" % (pad, k))
                lines += emit(item, indent if seq_same_indent else indent + 2, style + 1, seq_same_indent)
            else:
                lines.append("%s%s: %s" % (pad, k, _flow(item, style)))
    else:
        for item in value:
            if isinstance(item, (dict, list)) and item:
                sub = emit(item, indent + 2, style + 1, seq_same_indent)
                first = sub[0][indent + 2:]
                lines.append("%s- %s" % (pad, first))
                lines += sub[1:]
            else:
                lines.append("%s- %s" % (pad, _flow(item, style)))
    return lines


def _flow(value, style):
    if isinstance(value, dict):
        return "{" + ", ".join("%s: %s" % (_scalar(k, style, True), _flow(v, style)) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v, style) for v in value) + "]"
    return _scalar(value, style, in_flow=True)


def _flat(value):
    return not any(isinstance(v, (dict, list)) and v for v in (value.values() if isinstance(value, dict) else value))


@settings(max_examples=150, deadline=None)
@given(documents(), st.integers(0, 11), st.booleans(), st.booleans())
def test_subset_documents_agree_with_pyyaml(value, style, seq_same_indent, comments):
    assume(isinstance(value, (dict, list)) and value)
    lines = emit(value, 0, style, seq_same_indent)
    if comments:
        lines = ["# generated"] + [l + ("  # c" if i % 2 else "") for i, l in enumerate(lines)]
    text = "\n".join(lines) + "\n"
    expected = yaml.safe_load(text)
    assert yamlish.load(text) == expected
    assert expected == value


def test_non_printable_characters_are_refused_like_pyyaml():
    for text in ("a: '\x1f'\n", "a: b\x00\n", "a: \x7f\n"):
        try:
            yaml.safe_load(text)
            raise AssertionError("PyYAML accepted %r" % text)
        except yaml.YAMLError:
            pass
        try:
            yamlish.load(text)
            raise AssertionError("yamlish accepted %r" % text)
        except yamlish.YamlError as exc:
            assert exc.line == 1 and "non-printable" in str(exc)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.dictionaries(KEYS, SCALARS, max_size=4), st.lists(SCALARS, max_size=4)), st.integers(0, 5))
def test_flow_collections_agree_with_pyyaml(value, style):
    text = "value: %s\n" % _flow(value, style)
    assert yamlish.load(text) == yaml.safe_load(text) == {"value": value}


LINE_PIECES = st.sampled_from(["a:", "b: 1", "- x", "- y: 2", "  ", "    ", "c: 'q'", 'd: "e\\n"', "e: [1, 2]",
                               "f: {g: h}", "# c", "i: 010", "j: yes", "k: a: b", "l: ~", "m:", "---", "n: 1.5",
                               "o: .5", "p: 1_0", "- - z", "q: x # y", "r: 'it''s'", "s: -", "t: &a 1", "u: |"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), LINE_PIECES), min_size=1, max_size=8))
def test_whatever_yamlish_accepts_pyyaml_reads_the_same(pieces):
    text = "\n".join("  " * depth + piece for depth, piece in pieces) + "\n"
    try:
        ours = yamlish.load(text)
    except yamlish.YamlError as exc:
        assert re.match(r"^line \d+: ", str(exc)) or exc.line == 0
        return
    assert ours == yaml.safe_load(text), text
