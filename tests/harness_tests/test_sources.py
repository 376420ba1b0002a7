"""Template / InlineTemplate / StaticFile semantics."""
import pytest

from resource_management.core.exceptions import Fail
from resource_management.core.source import InlineTemplate, StaticFile, Template


def _write(basedir, rel, text):
    with open("%s/%s" % (basedir, rel), "w") as fp:
        fp.write(text)


def test_template_renders_params_and_kwargs_with_trim_blocks(test_env, basedir):
    _write(basedir, "templates/a.j2", "host={{ host }}\n{% if on %}\non=yes\n{% endif %}\nport={{ port }}\n")
    test_env.set_params({"host": "h1", "on": True})
    assert Template("a.j2", port=1).get_content() == "host=h1\non=yes\nport=1"


def test_template_undefined_variable_fails_when_rendered(test_env, basedir):
    _write(basedir, "templates/b.j2", "x={{ missing_var }}")
    t = Template("b.j2")  # construction works: the failure is lazy
    with pytest.raises(Exception) as err:
        t.get_content()
    assert type(err.value).__name__ == "UndefinedError"
    assert "missing_var" in str(err.value)


def test_missing_template_fails_at_construction(test_env):
    with pytest.raises(Exception) as err:
        Template("nope.j2")
    assert type(err.value).__name__ == "TemplateNotFound"


def test_inline_template_renders_undefined_as_empty_and_keeps_block_newlines(test_env):
    test_env.set_params({"a": "1"})
    assert InlineTemplate("a={{ a }} b={{ b }}").get_content() == "a=1 b="
    assert InlineTemplate("{% if a %}\nx\n{% endif %}\n").get_content() == "\nx\n"  # the single trailing newline is dropped


def test_kwarg_shadowing_a_param_fails(test_env):
    test_env.set_params({"user": "kafka"})
    with pytest.raises(Fail):
        InlineTemplate("{{ user }}", user="other")


def test_filters_newer_than_ambaris_jinja_are_unavailable(test_env):
    test_env.set_params({"d": {"a": 1}})
    with pytest.raises(Exception):  # ambari_jinja2 even fails while reporting it (TypeError)
        InlineTemplate("{{ d | tojson }}").get_content()


def test_static_file_reads_files_dir(test_env, basedir):
    _write(basedir, "files/s.txt", "static\n")
    content = StaticFile("s.txt").get_content()
    assert content == b"static\n"  # bytes on Python 3, str (== bytes) on Python 2
    with pytest.raises(Fail) as err:
        StaticFile("absent.txt").get_content()
    assert "absent.txt is not found" in str(err.value)


def test_sources_compare_by_rendered_content(test_env, basedir):
    _write(basedir, "templates/c.j2", "v={{ v }}")
    test_env.set_params({"v": "1"})
    assert Template("c.j2") == Template("c.j2")
    assert InlineTemplate("v={{ v }}") == InlineTemplate("v=1")
    assert not (InlineTemplate("v=2") == InlineTemplate("v=1"))
    # same text but different classes: never equal (the subclass's __eq__ is tried first)
    assert not (Template("c.j2") == InlineTemplate("v=1"))
    assert not (InlineTemplate("v=1") == Template("c.j2"))
