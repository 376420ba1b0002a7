# -*- coding: utf-8 -*-
"""Issue 12: every input reaches MM2 with the meaning written, or is refused; secrets by key only.

Table-driven; runs on Python 2.7 and 3. The refusals themselves (property named, fix said) are in
data/bad_inputs.json; here: what is written when an input is accepted.
"""
import os
import subprocess
import tempfile

import pytest

from mm2_core.formats import javaprops, yamlish
from mm2_core.kafka import versions
from mm2_core.rendering import render, templates

from test_render import configs, rendered  # the same base configuration and render call


def main_props(rendering):
    return javaprops.load_dict(rendering.file(render.PROPERTIES_FILE).text)


# --- renamed filter keys: translated to the name the version reads -------------------------------

@pytest.mark.parametrize("version,written,expected_key,absent_key", [
    ("2.4.1", "east->west.topics.exclude", "east->west.topics.blacklist", "east->west.topics.exclude"),
    ("2.6.3", "east->west.groups.exclude", "east->west.groups.blacklist", "east->west.groups.exclude"),
    ("2.7.2", "east->west.topics.blacklist", "east->west.topics.exclude", "east->west.topics.blacklist"),
    ("3.9.0", "east->west.groups.blacklist", "east->west.groups.exclude", "east->west.groups.blacklist"),
    ("4.0.0", "east->west.topics.blacklist", "east->west.topics.exclude", "east->west.topics.blacklist"),
    ("3.7.1", "config.properties.blacklist", "config.properties.exclude", "config.properties.blacklist"),
    ("2.4.1", "config.properties.exclude", "config.properties.blacklist", "config.properties.exclude"),
])
def test_a_renamed_filter_key_is_written_under_the_name_the_version_reads(version, written, expected_key,
                                                                           absent_key):
    rendering = rendered(version, configs(custom={written: "secret-.*, tmp\\..*"}))
    props = main_props(rendering)
    assert props[expected_key] == "secret-.*, tmp\\..*"
    assert absent_key not in props
    assert any(w.name == written and "written as" in w.message for w in rendering.warnings)


def test_the_name_already_right_for_the_version_is_not_translated():
    rendering = rendered("3.7.1", configs(custom={"east->west.topics.exclude": "tmp.*"}))
    assert main_props(rendering)["east->west.topics.exclude"] == "tmp.*"
    assert not [w for w in rendering.warnings if "written as" in w.message]


# --- typed values that fit are passed through unchanged --------------------------------------------

@pytest.mark.parametrize("key,value", [
    ("east.consumer.max.poll.records", "5000"),
    ("east->west.tasks.max", "1"),
    ("west.producer.compression.type", "zstd"),
    ("east->west.sync.topic.configs.enabled", "FALSE"),
    ("east.sasl.login.refresh.window.factor", "0.75"),
    ("east->west.consumer.max.poll.records", "${file:/etc/mm2/tuning.properties:records}"),
    ("west.producer.acks", "all"),
])
def test_a_value_of_the_right_type_is_accepted_as_written(key, value):
    assert main_props(rendered("3.7.1", configs(custom={key: value})))[key] == value


@pytest.mark.parametrize("version,level", [("3.9.0", "ERROR"), ("4.0.0", "WARN")])
def test_an_unknown_choice_is_refused_up_to_the_table_version_and_warned_after(version, level):
    problems = render.validate(configs(custom={"east.consumer.auto.offset.reset": "by_duration:P1D"}), version)
    assert [p.level for p in problems if p.name == "east.consumer.auto.offset.reset"] == [level]


# --- secrets: by key, never by content -------------------------------------------------------------

SSL_SOURCE = {"source.security.protocol": "SSL", "source.ssl.truststore.location": "/etc/t.jks"}


@pytest.mark.parametrize("password", [
    "pa${ss",                       # a '${' that never closes: literal text, a secret
    "x${file:/etc/s.properties:pw}",  # literal text around a reference: still holds a secret
    "${not a reference}",           # braces, no provider: literal
    u"p\u00e4ss w\u00f6rd",         # non-ASCII and a space
])
def test_a_password_that_is_not_only_a_reference_goes_to_the_0600_secrets_file(password):
    cfg = configs(clusters=dict(SSL_SOURCE, **{"source.ssl.truststore.password": password}),
                  replication={"secrets.config.provider.enabled": "true"})
    problems = [p for p in render.validate(cfg, "3.7.1") if p.level == "ERROR"]
    if problems:  # a malformed reference is refused by name instead; never written in clear
        assert [p.name for p in problems] == ["source.ssl.truststore.password"]
        return
    rendering = rendered("3.7.1", cfg)
    main = rendering.file(render.PROPERTIES_FILE)
    secrets = rendering.file(render.SECRETS_FILE)
    assert password not in main.text and main.mode == 0o640
    assert javaprops.load_dict(secrets.text)["east.ssl.truststore.password"] == password
    assert secrets.mode == 0o600
    assert main_props(rendering)["east.ssl.truststore.password"].startswith("${file:")


def test_a_reference_the_user_wrote_stays_a_reference_and_the_file_stays_0640():
    ref = "${file:/etc/security/mm2.properties:truststore}"
    cfg = configs(clusters=dict(SSL_SOURCE, **{"source.ssl.truststore.password": ref}))
    rendering = rendered("3.7.1", cfg)
    assert main_props(rendering)["east.ssl.truststore.password"] == ref
    assert rendering.file(render.PROPERTIES_FILE).mode == 0o640


@pytest.mark.parametrize("key", ["east.ssl.keystore.key", "west.admin.ssl.keystore.password",
                                 "east->west.consumer.ssl.key.password", "east->west.producer.sasl.jaas.config"])
@pytest.mark.parametrize("provider", ["true", "false"])
def test_a_secret_custom_key_never_lands_in_a_readable_file(key, provider):
    value = "-----BEGIN PRIVATE KEY-----MIIEv-----END PRIVATE KEY-----" if key.endswith(".key") else "s3cr3t"
    cfg = configs(custom={key: value}, replication={"secrets.config.provider.enabled": provider})
    rendering = rendered("3.7.1", cfg)
    holding = [f for f in rendering.files if value in f.text]
    assert len(holding) == 1
    for rendered_file in holding:
        if value in rendered_file.text:
            assert rendered_file.mode == 0o600 and rendered_file.secret


@pytest.mark.parametrize("password", ["  leading", "trailing  ", " both ", "\ttab"])
def test_a_password_keeps_its_spaces(password):
    cfg = configs(clusters={"source.security.protocol": "SASL_SSL", "source.sasl.mechanism": "SCRAM-SHA-512",
                            "source.sasl.username": "mm2", "source.sasl.password": password,
                            "source.ssl.truststore.location": "/t.jks", "source.ssl.keystore.location": "/k.jks",
                            "source.ssl.keystore.password": password})
    props = main_props(rendered("3.7.1", cfg))
    assert props["east.ssl.keystore.password"] == password
    assert 'password="%s"' % password.replace("\\", "\\\\") in props["east.sasl.jaas.config"]


@pytest.mark.parametrize("key,secret", [
    ("ssl.keystore.key", True), ("a.ssl.key.password", True), ("x->y.sasl.jaas.config", True),
    ("sasl.oauthbearer.client.secret", True), ("basic.auth.user.info", True),
    ("ssl.keystore.location", False), ("ssl.truststore.certificates", False), ("sasl.username", False),
])
def test_a_secret_is_decided_by_its_key(key, secret):
    assert versions.is_secret_key(key) is secret


# --- versions ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,parsed", [
    ("3.7.1", "3.7.1"), ("3.9.0-rc3", "3.9.0-rc3"), ("2.0.0.3.1.4.0-315", "2.0.0.3.1.4.0-315"), ("3.7", "3.7.0"),
    ("3.7.1;rm", None), ("3.7.1 && id", None), ("3.7.1-$(id)", None), ("3.7.1/..", None), ("", None),
])
def test_a_version_is_read_whole_or_refused(text, parsed):
    if parsed is None:
        with pytest.raises(ValueError):
            versions.KafkaVersion.parse(text)
    else:
        assert str(versions.KafkaVersion.parse(text)) == parsed


@pytest.mark.parametrize("version,level", [("2.3.1", "ERROR"), ("2.4.0", None), ("4.0.0", None), ("4.1.0", "WARN"),
                                           ("5.0.0", "ERROR"), ("99.0.0", "ERROR")])
def test_versions_outside_the_key_table_are_said(version, level):
    found = versions.support_problem(version)
    assert (found[0] if found else None) == level


# --- bounded YAML in the agent's parser -----------------------------------------------------------

def test_yaml_size_is_bounded():
    with pytest.raises(yamlish.YamlError) as info:
        yamlish.load("a: " + "x" * (yamlish.MAX_CHARS + 1))
    assert "characters long" in str(info.value)


@pytest.mark.parametrize("depth,ok", [(10, True), (yamlish.MAX_DEPTH - 1, True), (yamlish.MAX_DEPTH + 1, False),
                                      (500, False)])
def test_yaml_depth_is_bounded_without_recursion_error(depth, ok):
    text = "".join("  " * i + "k%d:\n" % i for i in range(depth)) + "  " * depth + "v: 1\n"
    if ok:
        assert yamlish.load(text) is not None
    else:
        with pytest.raises(yamlish.YamlError) as info:
            yamlish.load(text)
        assert "nested more than" in str(info.value)


def test_yaml_aliases_are_refused_so_nothing_expands():
    with pytest.raises(yamlish.YamlError):
        yamlish.load("a: &x [1, 2]\nb: *x\n")


# --- templates: syntax checked at validation, agreeing with Jinja2 --------------------------------

TEMPLATES = [
    "plain text", "{{ a }}", "{{ a | replace(\"'\", \"x\") }}", "{% if a %}1{% elif b %}2{% else %}3{% endif %}",
    "{% for x in y %}{{ x }}{% endfor %}", "{# comment #}", "{% raw %}{{ not parsed {% endraw %}",
    "{% macro sh(v) %}'{{ v }}'{% endmacro %}{{ sh(a) }}", "{%- if a -%}x{%- endif -%}", "{{ {'a': [1, (2)]} }}",
    "{{ a", "{{ a }", "{% if a %}", "{% endif %}", "{% for x in y %}{% endif %}", "{% else %}", "{{ 'unclosed }}",
    "{{ a(b }}", "{{ a] }}", "{% bogus %}", "{# never closed", "{% raw %}{{", "{% if %}x{% endif %}", "{{ }}",
]


@pytest.mark.parametrize("source", TEMPLATES)
def test_the_template_check_agrees_with_jinja2(source):
    jinja2 = pytest.importorskip("jinja2")
    try:
        jinja2.Environment().parse(source)
        jinja_ok = True
    except jinja2.TemplateSyntaxError:
        jinja_ok = False
    assert (templates.template_problem(source) is None) == jinja_ok, templates.template_problem(source)


def test_the_shipped_templates_pass_the_check():
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "package", "templates")
    for name in os.listdir(folder):
        if name.endswith(".j2"):
            with open(os.path.join(folder, name)) as fh:
                assert templates.template_problem(fh.read()) is None, name


# --- mm2-env.sh: the shell reads back exactly the configured text ---------------------------------

HOSTILE = {
    "mm2_java_home": "/usr/lib/jvm/java 17",
    "mm2_log_dir": "/var/log/$(touch PWNED)",
    "mm2_heap_opts": "-Xmx1g `touch PWNED`",
    "mm2_jvm_opts": "it's -Dx=$HOME",
    "mm2_log4j_opts": "-Dlog4j.configuration=file:/etc/x;touch PWNED",
    "mm2_kafka_opts": "",
}


def test_mm2_env_sh_quotes_every_value_for_the_shell():
    jinja2 = pytest.importorskip("jinja2")
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "package", "templates")
    with open(os.path.join(folder, "mm2-env.sh.j2")) as fh:
        text = jinja2.Environment().from_string(fh.read()).render(HOSTILE)
    work = tempfile.mkdtemp(prefix="mm2-env-")
    path = os.path.join(work, "mm2-env.sh")
    with open(path, "w") as fh:
        fh.write(text)
    out = subprocess.check_output(
        ["bash", "-c", '. "$1"; printf "%s\\n" "$JAVA_HOME" "$LOG_DIR" "$KAFKA_HEAP_OPTS" '
                       '"$KAFKA_JVM_PERFORMANCE_OPTS" "$KAFKA_LOG4J_OPTS" "$KAFKA_OPTS"', "-", path], cwd=work)
    values = out.decode("utf-8").split("\n")[:6]
    assert values == [HOSTILE[k] for k in ("mm2_java_home", "mm2_log_dir", "mm2_heap_opts", "mm2_jvm_opts",
                                          "mm2_log4j_opts", "mm2_kafka_opts")]
    assert not os.path.exists(os.path.join(work, "PWNED"))
