# -*- coding: utf-8 -*-
"""The properties writer and the Properties.load-equivalent reader (the JDK itself checks them in
tests/tools/test_jdk_properties.py)."""
import pytest

from mm2_core.formats import javaprops

TRICKY = [
    (u"topics.exclude", u".*[\\-\\.]internal, metrics\\.\\d+, __.*"),
    (u"A->B.enabled", u"true"),
    (u"key with spaces", u"  leading and trailing  "),
    (u"#not-a-comment", u"!also = not : a comment"),
    (u"=:", u"=starts with equals"),
    (u"unicode.\u00e9", u"caf\u00e9 \u4e2d\u6587 \U0001F600"),
    (u"tab", u"a\tb\fc"),
    (u"empty", u""),
    (u"ends.with.backslash", u"C:\\dir\\"),
    (u"x", u"\\u0041 is not an escape here"),
]


def test_round_trip_of_tricky_keys_and_values():
    text = javaprops.dumps(TRICKY)
    assert javaprops.loads(text) == TRICKY


def test_output_is_ascii_and_one_line_per_property():
    text = javaprops.dumps(TRICKY)
    text.encode("ascii")
    assert len([l for l in text.splitlines() if l and not l.startswith("#")]) == len(TRICKY)


def test_regex_backslashes_are_doubled_and_readable():
    assert javaprops.format_line("topics", "metrics\\.\\d+") == "topics=metrics\\\\.\\\\d+"
    # Values keep ':' and '=' readable (only a key needs them escaped).
    assert javaprops.format_line("listeners", "http://h:8083") == "listeners=http://h:8083"
    assert javaprops.format_line("a:b", "c") == "a\\:b=c"


@pytest.mark.parametrize("bad", [u"a\nb", u"a\rb", u"line\r\n"])
def test_a_line_break_is_refused_never_written(bad):
    with pytest.raises(javaprops.PropertiesError) as info:
        javaprops.dumps([(u"east.consumer.client.rack", bad)])
    assert "line break" in str(info.value)
    assert "east.consumer.client.rack" in str(info.value)
    assert javaprops.check_value(bad)
    with pytest.raises(javaprops.PropertiesError):
        javaprops.escape_key(u"k\nother=1")


def test_bools_are_written_as_java_booleans():
    assert javaprops.format_line("enabled", True) == "enabled=true"
    assert javaprops.format_line("enabled", False) == "enabled=false"


def test_reader_handles_java_syntax():
    text = (u"# comment\n! other comment\n  a = 1\nb:2\nc 3\nd=multi\\\n   line\ne\n"
            u"f=\\u00e9\\t\\n\ng=x\\\\\nh=last\n")
    assert javaprops.load_dict(text) == {u"a": u"1", u"b": u"2", u"c": u"3", u"d": u"multiline", u"e": u"",
                                         u"f": u"\u00e9\t\n", u"g": u"x\\", u"h": u"last"}


def test_later_duplicates_win_like_java():
    assert javaprops.load_dict(u"a=1\na=2\n") == {u"a": u"2"}
