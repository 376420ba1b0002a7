"""build.py refuses broken mpacks with 'file:line: message' before packaging anything.

Each test breaks one thing in a copy of the checkout and checks the exact file and line.
"""
import io
import json
import os
import re
import sys

import pytest

import mpack_helpers
from mpack_helpers import replace_in, write_text

SERVICE = "common-services/KAFKA_MIRRORMAKER2/1.0.0"


def _path(repo, rel):
    return os.path.join(repo, *rel.split("/"))


def _line_of(repo, rel, needle):
    with io.open(_path(repo, rel), encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if needle in line:
                return number
    raise AssertionError("%r not in %s" % (needle, rel))


def _problems(build_module, repo):
    return [str(p) for p in build_module.validate(repo)]


def _expect(build_module, repo, rel, line, *fragments):
    problems = _problems(build_module, repo)
    prefix = "%s:%d: " % (rel, line)
    hits = [p for p in problems if p.startswith(prefix) and all(f in p for f in fragments)]
    assert hits, "expected %s... %s among:\n%s" % (prefix, fragments, "\n".join(problems))
    return problems


def test_repository_validates(build_module):
    """The real checkout, with every part in place, has no problem at all."""
    problems = _problems(build_module, mpack_helpers.REPO_ROOT)
    assert problems == [], "\n".join(problems)


def test_copy_with_placeholders_validates(repo_copy, build_module):
    # the baseline for the negative tests below
    assert _problems(build_module, repo_copy) == []


# -- broken references ----------------------------------------------------------------------------

def test_command_script_that_does_not_exist(repo_copy, build_module):
    rel = SERVICE + "/metainfo.xml"
    replace_in(_path(repo_copy, rel), "<script>scripts/service_check.py</script>",
               "<script>scripts/service_chek.py</script>")
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "service_chek.py"),
            "command script scripts/service_chek.py does not exist")


def test_a_command_the_web_ui_cannot_give_input_to_must_be_hidden_from_the_menus(repo_copy, build_module):
    rel = SERVICE + "/metainfo.xml"
    replace_in(_path(repo_copy, rel), "<name>FLOW_PAUSE</name>", "<name>FLOW_PAUSE</name><!--here-->")
    text = mpack_helpers.read_text(_path(repo_copy, rel))
    start = text.index("<!--here-->")
    cut = text.index("<hidden>true</hidden>", start)
    write_text(_path(repo_copy, rel), text[:cut] + text[cut + len("<hidden>true</hidden>"):])
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "<!--here-->") - 1,
            "<customCommand> FLOW_PAUSE: needs <hidden>true</hidden>", "input the web UI cannot give")


def test_a_menu_command_must_not_be_hidden(repo_copy, build_module):
    rel = SERVICE + "/metainfo.xml"
    replace_in(_path(repo_copy, rel), "<name>REPLICATION_STATUS</name>",
               "<name>REPLICATION_STATUS</name><hidden>true</hidden>")
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "<name>REPLICATION_STATUS</name>") - 1,
            "<customCommand> REPLICATION_STATUS: must not be hidden")


def test_theme_placing_a_property_that_does_not_exist(repo_copy, build_module):
    rel = SERVICE + "/themes/theme.json"
    replace_in(_path(repo_copy, rel), '"config": "kafka-mm2-replication/topics"',
               '"config": "kafka-mm2-replication/topicz"')
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "kafka-mm2-replication/topicz"),
            "placement kafka-mm2-replication/topicz", "has no property 'topicz'")


def test_kerberos_descriptor_writing_to_an_unknown_property(repo_copy, build_module):
    rel = SERVICE + "/kerberos.json"
    replace_in(_path(repo_copy, rel), '"kafka-mm2-env/mm2_keytab"', '"kafka-mm2-env/mm2_keytab_path"')
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "mm2_keytab_path"),
            "has no property 'mm2_keytab_path'")


def test_configuration_dependency_on_an_unknown_type(repo_copy, build_module):
    rel = SERVICE + "/metainfo.xml"
    replace_in(_path(repo_copy, rel), "<config-type>kafka-mm2-custom</config-type>",
               "<config-type>kafka-mm2-customs</config-type>")
    problems = _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "<configuration-dependencies>"),
                       "lacks kafka-mm2-custom", "Restart Required")
    assert any("lists kafka-mm2-customs" in p for p in problems)


def test_cluster_env_as_a_restart_dependency_is_refused(repo_copy, build_module):
    """A cluster-env save (Service Auto Start, alert tolerance) must not flag the drivers."""
    rel = SERVICE + "/metainfo.xml"
    replace_in(_path(repo_copy, rel), "<config-type>kafka-broker</config-type>",
               "<config-type>cluster-env</config-type>\n        <config-type>kafka-broker</config-type>")
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "<configuration-dependencies>"),
            "lists cluster-env: every save of it (e.g. Service Auto Start in cluster-env) would flag the drivers")


def test_alert_script_path_the_agent_cannot_resolve(repo_copy, build_module):
    rel = SERVICE + "/alerts.json"
    alerts = {"KAFKA_MIRRORMAKER2": {"MIRRORMAKER2_DRIVER": [{
        "name": "mm2_probe", "label": "probe", "interval": 1, "scope": "HOST",
        "source": {"type": "SCRIPT", "path": "KAFKA_MIRRORMAKER2/1.0.0/package/alerts/no_such_alert.py",
                   "parameters": []}}]}}
    if os.path.exists(_path(repo_copy, rel)):
        with io.open(_path(repo_copy, rel), encoding="utf-8") as fh:
            alerts = json.load(fh)
        first = [d for defs in alerts["KAFKA_MIRRORMAKER2"].values() for d in defs
                 if d["source"]["type"] == "SCRIPT"][0]
        first["source"]["path"] = "KAFKA_MIRRORMAKER2/1.0.0/package/alerts/no_such_alert.py"
    write_text(_path(repo_copy, rel), json.dumps(alerts, indent=2))
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "no_such_alert.py"),
            "no_such_alert.py does not exist")


def test_alert_script_path_relative_to_the_wrong_directory(repo_copy, build_module, tmpdir):
    rel = SERVICE + "/alerts.json"
    write_text(_path(repo_copy, "package/alerts/probe_alert.py"), "def execute(configurations={}, parameters={}, host_name=None):\n    return ('OK', ['ok'])\n")
    alerts = {"KAFKA_MIRRORMAKER2": {"MIRRORMAKER2_DRIVER": [{
        "name": "mm2_probe", "label": "probe", "interval": 1, "scope": "HOST",
        "source": {"type": "SCRIPT", "path": "package/alerts/probe_alert.py"}}]}}
    write_text(_path(repo_copy, rel), json.dumps(alerts, indent=2))
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "probe_alert.py"),
            "must start with KAFKA_MIRRORMAKER2/1.0.0/package/", "common-services cache directory")


def test_alert_token_naming_an_unknown_property(repo_copy, build_module):
    rel = SERVICE + "/alerts.json"
    write_text(_path(repo_copy, "package/alerts/probe_alert.py"), "def execute(configurations={}, parameters={}, host_name=None):\n    return ('OK', ['ok'])\n")
    alerts = {"KAFKA_MIRRORMAKER2": {"MIRRORMAKER2_DRIVER": [{
        "name": "mm2_probe", "label": "probe", "interval": 1, "scope": "HOST",
        "source": {"type": "PORT", "uri": "{{kafka-mm2-env/mm2_metrics_prot}}", "default_port": 9405}}]}}
    write_text(_path(repo_copy, rel), json.dumps(alerts, indent=2))
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "mm2_metrics_prot"),
            "{{kafka-mm2-env/mm2_metrics_prot}}", "has no property")


def test_stack_add_on_extending_the_wrong_service(repo_copy, build_module):
    rel = "stacks/BIGTOP/KAFKA_MIRRORMAKER2/1.0.0/metainfo.xml"
    replace_in(_path(repo_copy, rel), "<extends>common-services/KAFKA_MIRRORMAKER2/1.0.0</extends>",
               "<extends>common-services/KAFKA_MIRRORMAKER2/1.0</extends>")
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "<extends>"),
            "<extends> must be common-services/KAFKA_MIRRORMAKER2/1.0.0")


def test_role_command_order_with_a_misspelt_role(repo_copy, build_module):
    rel = SERVICE + "/role_command_order.json"
    replace_in(_path(repo_copy, rel), '"MIRRORMAKER2_DRIVER-START": [', '"MIRRORMAKER_DRIVER-START": [')
    problems = _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "MIRRORMAKER_DRIVER-START"),
                       "this service's roles are")
    assert any("no 'MIRRORMAKER2_DRIVER-START' entry" in p for p in problems)


def test_theme_tab_named_advanced(repo_copy, build_module):
    rel = SERVICE + "/themes/theme.json"
    replace_in(_path(repo_copy, rel), '"name": "process-tuning"', '"name": "advanced"')
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, '"name": "advanced"'),
            "collides with the Advanced tab")


def _set_widget(repo, config, old_type, new_type):
    rel = SERVICE + "/themes/theme.json"
    text = mpack_helpers.read_text(_path(repo, rel))
    pattern = r'("config": "%s",\s*"widget": \{\s*"type": )"%s"' % (re.escape(config), old_type)
    assert re.search(pattern, text)
    write_text(_path(repo, rel), re.sub(pattern, r'\1"%s"' % new_type, text))
    return rel


@pytest.mark.parametrize("config,old,new,fragment", [
    # issue 38: the combo's menu never opens in Ambari 3.0's web UI (Bootstrap 5), radio-buttons store objects
    ("kafka-mm2-env/mm2_run_mode", "toggle", "combo", "a combo widget does not work for an operator: its caret is a "
                                                      "Bootstrap 3 data-toggle"),
    ("kafka-mm2-env/mm2_run_mode", "toggle", "radio-buttons", "\"[object Object]\""),
    ("kafka-mm2-clusters/source.security.protocol", "text-field", "toggle",
     "a toggle shows exactly two states, not the 4 entries of this value-list"),
])
def test_widgets_an_operator_cannot_click_through(repo_copy, build_module, config, old, new, fragment):
    rel = _set_widget(repo_copy, config, old, new)
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith(rel + ":") and config in p and fragment in p for p in problems), "\n".join(problems)


def test_a_value_list_typed_into_a_text_field_names_every_entry(repo_copy, build_module):
    replace_in(_path(repo_copy, "package/scripts/mm2_core/config/schema.py"),
               "SASL_SSL: GSSAPI, PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512. ", "SASL_SSL. ")
    problems = _problems(build_module, repo_copy)
    assert any("kafka-mm2-clusters/source.sasl.mechanism: a value-list in a text-field needs its description to "
               "name every entry (the operator types one); it lacks SCRAM-SHA-256, SCRAM-SHA-512" in p
               for p in problems), "\n".join(problems)


def test_password_shown_in_a_text_field(repo_copy, build_module):
    rel = SERVICE + "/themes/theme.json"
    text = mpack_helpers.read_text(_path(repo_copy, rel))
    pattern = r'("config": "kafka-mm2-clusters/source.sasl.password",\s*"widget": \{\s*"type": )"password"'
    assert re.search(pattern, text)
    write_text(_path(repo_copy, rel), re.sub(pattern, r'\1"text-field"', text))
    line = _line_of(repo_copy, rel, '"type": "text-field"')  # first text-field may be elsewhere
    problems = _problems(build_module, repo_copy)
    assert any("source.sasl.password: passwords need the password widget" in p and p.startswith(rel + ":")
               for p in problems), "\n".join(problems)
    assert line


# -- configuration XML -------------------------------------------------------------------------

STACK_OVERRIDE = """<?xml version="1.0"?>
<configuration>
  <property>
    <name>kafka_install_source</name>
    <value>tarball</value>
    <display-name>Kafka installation for MM2</display-name>
    <description>HDP 3.1's Kafka has no MirrorMaker 2.</description>
    <value-attributes>
      <type>value-list</type>
      <entries><entry><value>tarball</value><label>tarball</label></entry></entries>
    </value-attributes>
%s  </property>
</configuration>
"""


def test_property_without_on_ambari_upgrade(repo_copy, build_module):
    rel = "stacks/HDP/KAFKA_MIRRORMAKER2/1.0.0/configuration/kafka-mm2-env.xml"
    write_text(_path(repo_copy, rel), STACK_OVERRIDE % "")
    _expect(build_module, repo_copy, rel, 3, "kafka_install_source", "<on-ambari-upgrade",
            "is missing")


def test_stack_override_with_on_ambari_upgrade_is_accepted(repo_copy, build_module):
    rel = "stacks/HDP/KAFKA_MIRRORMAKER2/1.0.0/configuration/kafka-mm2-env.xml"
    write_text(_path(repo_copy, rel), STACK_OVERRIDE % '    <on-ambari-upgrade add="true"/>\n')
    assert _problems(build_module, repo_copy) == []


def test_generated_xml_is_checked_too(repo_copy, build_module, monkeypatch):
    """A generator bug that drops on-ambari-upgrade is caught and pointed at the schema entry."""
    from mpack_build import layout  # where assembling calls the generator (build.py put it on sys.path)
    original = layout.generate_configuration_xml

    def broken(repo, ctype):
        return original(repo, ctype).replace('    <on-ambari-upgrade add="true"/>\n', "", 1)
    monkeypatch.setattr(layout, "generate_configuration_xml", broken)
    problems = _problems(build_module, repo_copy)
    core = build_module.Core(repo_copy)
    first = core.schema.CONFIG_TYPES[0]
    expected = "package/scripts/mm2_core/config/schema.py:%d: %s/%s: generated" % (
        core.schema_line(first.name, first.properties[0].name), first.name, first.properties[0].name)
    assert any(p.startswith(expected) and "on-ambari-upgrade" in p for p in problems), "\n".join(problems)


def test_hand_written_configuration_in_the_common_service_is_refused(repo_copy, build_module):
    rel = SERVICE + "/configuration/kafka-mm2-env.xml"
    write_text(_path(repo_copy, rel), "<configuration/>")
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith(SERVICE + "/configuration:1: configuration/ is put together by build.py")
               for p in problems), "\n".join(problems)


def test_schema_default_outside_its_range(repo_copy, build_module):
    rel = "package/scripts/mm2_core/config/schema.py"
    replace_in(_path(repo_copy, rel), 'Property("tasks.max", "4"', 'Property("tasks.max", "0"')
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, 'Property("tasks.max"'),
            "kafka-mm2-replication/tasks.max", "default 0 is outside [1, 1000]")


def test_schema_that_does_not_import(repo_copy, build_module):
    rel = "package/scripts/mm2_core/config/schema.py"
    replace_in(_path(repo_copy, rel), "CONFIG_TYPES = (", "CONFIG_TYPES = (NO_SUCH_TYPE, ")
    problems = _problems(build_module, repo_copy)
    assert problems == ["%s:%d: importing mm2_core failed: NameError: name 'NO_SUCH_TYPE' is not defined"
                        % (rel, _line_of(repo_copy, rel, "NO_SUCH_TYPE"))]


# -- Python that runs inside Ambari --------------------------------------------------------------

def test_python3_only_syntax_in_agent_code(repo_copy, build_module):
    rel = "package/scripts/mm2_core/py3_only_probe.py"
    write_text(_path(repo_copy, rel), '"""probe"""\n\n\ndef greet(name):\n    return f"hello {name}"\n')
    _expect(build_module, repo_copy, rel, 5, "does not compile on Python 2.7")


def test_python2_only_syntax_in_agent_code(repo_copy, build_module):
    rel = "package/scripts/py2_only_probe.py"
    write_text(_path(repo_copy, rel), "import os\nMODE = 0755\n")
    _expect(build_module, repo_copy, rel, 2, "does not compile on Python 3")


def test_grammar_newer_than_python39_in_the_advisor(repo_copy, build_module):
    rel = SERVICE + "/service_advisor.py"
    text = mpack_helpers.read_text(_path(repo_copy, rel)) if os.path.exists(_path(repo_copy, rel)) else ""
    lines = text.count("\n")
    write_text(_path(repo_copy, rel), text + "\n\ndef _probe(x):\n    match x:\n        case 1:\n            return 1\n")
    _expect(build_module, repo_copy, rel, lines + 4, "does not compile on")


def test_missing_python27_is_explained(repo_copy, build_module, monkeypatch):
    monkeypatch.setattr(build_module, "find_python27", lambda: None)
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("build.py:1: no Python 2.7 interpreter") and "MM2_PY27" in p for p in problems)


# -- mpack.json ----------------------------------------------------------------------------------

def test_malformed_mpack_json(repo_copy, build_module):
    rel = "mpack.json"
    replace_in(_path(repo_copy, rel), '"type": "full-release",', '"type": "full-release"')
    problems = _problems(build_module, repo_copy)
    assert len(problems) == 1 and problems[0].startswith("mpack.json:3: ") and "JSON" in problems[0], problems


def test_hyphenated_prerequisite_key(repo_copy, build_module):
    rel = "mpack.json"
    replace_in(_path(repo_copy, rel), '"min_ambari_version"', '"min-ambari-version"')
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, "min-ambari-version"),
            "'min-ambari-version' is silently ignored", "use 'min_ambari_version'")


def test_mpack_json_without_artifacts(repo_copy, build_module):
    replace_in(_path(repo_copy, "mpack.json"), '"artifacts"', '"artefacts"')
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("mpack.json:1: missing 'artifacts'") and "AttributeError" in p for p in problems)
    assert any("unknown key 'artefacts'" in p for p in problems)


def test_duplicate_key_in_mpack_json(repo_copy, build_module):
    replace_in(_path(repo_copy, "mpack.json"), '"description":', '"name": "other",\n  "description":')
    _expect(build_module, repo_copy, "mpack.json", _line_of(repo_copy, "mpack.json", '"name": "other"'),
            "duplicate key 'name'")


def test_add_on_directory_not_in_the_service_versions_map(repo_copy, build_module):
    write_text(_path(repo_copy, "stacks/BIGTOP/KAFKA_MIRRORMAKER2/2.0.0/metainfo.xml"), "<metainfo/>")
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("mpack.json:") and "stacks/BIGTOP/KAFKA_MIRRORMAKER2/2.0.0 is not in "
               "service_versions_map" in p for p in problems), "\n".join(problems)


def test_applicable_stack_missing_from_min_stack_versions(repo_copy, build_module):
    path = _path(repo_copy, "mpack.json")
    replace_in(path, '{"stack_name": "ODP", "stack_version": "1.0"}\n', '{"stack_name": "BIGTOP", "stack_version": "3.3.0"}\n')
    text = mpack_helpers.read_text(path)
    text = text.replace('      {"stack_name": "BIGTOP", "stack_version": "3.3.0"},\n      {"stack_name": "BIGTOP", "stack_version": "3.3.0"}\n',
                        '      {"stack_name": "BIGTOP", "stack_version": "3.3.0"}\n')
    write_text(path, text)
    _expect(build_module, repo_copy, "mpack.json", _line_of(repo_copy, "mpack.json", "min_stack_versions"),
            "linked but missing from min_stack_versions: ODP/1.0")


def test_version_that_is_not_numeric(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, "1.0.0-SNAPSHOT")
    _expect(build_module, repo_copy, "mpack.json", _line_of(repo_copy, "mpack.json", '"version"'),
            "version must be 2 to 4 dot-separated numbers")


# -- names released versions rely on ---------------------------------------------------------------

def _record(build_module, repo):
    script = _path(repo, "build.py")
    assert os.path.exists(script)
    return build_module.record_release(repo)


# A version above every recorded release (and above the checkout's): the two tests below hold whether or
# not the checkout's own version is recorded yet (build.py --record-release is run when a release is tagged).
FRESH_RELEASE = "9.0.0.0"


@pytest.mark.parametrize("history", ["a fresh release recorded", "the checkout's history as it is"])
def test_released_property_that_disappears(repo_copy, build_module, history):
    if history == "a fresh release recorded":
        mpack_helpers.set_version(repo_copy, FRESH_RELEASE)
        _record(build_module, repo_copy)
    else:
        assert mpack_helpers.released_history(repo_copy), "the checkout records no release"
    replace_in(_path(repo_copy, "package/scripts/mm2_core/config/schema.py"), 'Property("tasks.max",',
               'Property("tasks.maximum",')
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("tests/build/released-names.json:") and
               "property kafka-mm2-replication/tasks.max of released version" in p for p in problems), \
        "\n".join(problems)


def test_released_names_allow_additions(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, FRESH_RELEASE)
    _record(build_module, repo_copy)
    mpack_helpers.set_version(repo_copy, "9.1.0.0")
    replace_in(_path(repo_copy, "package/scripts/mm2_core/config/schema.py"),
               'Property("tasks.max",', 'Property("tasks.extra", "1", "Extra", "An added property.", '
               'value_type="int", overridable=False, not_in_theme="added by a test and shown on no tab"),\n    Property("tasks.max",')
    assert _problems(build_module, repo_copy) == []


def test_version_extending_a_released_one_is_refused(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, "9.0.0.1")
    _record(build_module, repo_copy)
    mpack_helpers.set_version(repo_copy, "9.0.0.10")
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("mpack.json:1: version 9.0.0.10 starts with released version 9.0.0.1")
               for p in problems), "\n".join(problems)


# -- release versions: each release higher than the last --------------------------------------------

def test_the_checkout_is_above_every_recorded_release():
    """mpack.json of the checkout is a version upgrade-mpack accepts over every recorded release."""
    history = mpack_helpers.released_history()
    assert history, "tests/build/released-names.json records no release"
    current = mpack_helpers.current_version()
    for version in history:
        assert mpack_helpers._key(current) >= mpack_helpers._key(version), (current, version)


def test_recording_the_same_version_twice_is_refused(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, "9.0.0.0")
    _record(build_module, repo_copy)
    with pytest.raises(build_module.BuildError) as info:
        _record(build_module, repo_copy)
    assert "version 9.0.0.0 is already recorded in tests/build/released-names.json: bump mpack.json's version" \
        in str(info.value.problems[0])


def test_recording_a_lower_version_is_refused(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, "9.0.0.0")
    _record(build_module, repo_copy)
    mpack_helpers.set_version(repo_copy, "8.9.0.0")
    before = mpack_helpers.read_text(_path(repo_copy, "tests/build/released-names.json"))
    with pytest.raises(build_module.BuildError) as info:
        _record(build_module, repo_copy)
    messages = [str(p) for p in info.value.problems]
    assert any("version 8.9.0.0 is not higher than the last released version 9.0.0.0" in m for m in messages), \
        messages
    assert mpack_helpers.read_text(_path(repo_copy, "tests/build/released-names.json")) == before


def test_building_below_the_last_release_is_refused(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, "9.0.0.0")
    _record(build_module, repo_copy)
    mpack_helpers.set_version(repo_copy, "8.10.0.0")  # numerically lower, though "8.10" > "8.9" > ... as text
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("mpack.json:1: version 8.10.0.0 is lower than released version 9.0.0.0") for p in problems), \
        "\n".join(problems)


def test_a_released_version_built_with_other_names_is_refused(repo_copy, build_module):
    mpack_helpers.set_version(repo_copy, "9.0.0.0")
    _record(build_module, repo_copy)
    replace_in(_path(repo_copy, "package/scripts/mm2_core/config/schema.py"),
               'Property("tasks.max",', 'Property("tasks.extra", "1", "Extra", "An added property.", '
               'value_type="int", overridable=False, not_in_theme="added by a test and shown on no tab"),\n    Property("tasks.max",')
    problems = _problems(build_module, repo_copy)
    assert any(p.startswith("mpack.json:1: version 9.0.0.0 is already released with other names "
                            "(property kafka-mm2-replication/tasks.extra") for p in problems), "\n".join(problems)
    mpack_helpers.set_version(repo_copy, "9.1.0.0")
    assert _problems(build_module, repo_copy) == []


def test_record_release_command_line_refuses_a_recorded_version(repo_copy):
    import subprocess
    mpack_helpers.set_version(repo_copy, "9.0.0.0")
    run = lambda: subprocess.Popen([sys.executable, _path(repo_copy, "build.py"), "--record-release"], cwd=repo_copy,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE).communicate()
    out, _ = run()
    assert b"Recorded the names of 9.0.0.0" in out
    out, err = run()
    assert b"version 9.0.0.0 is already recorded" in err and b"nothing was built or recorded" in err


@pytest.mark.parametrize("rel", ["mpack.json", SERVICE + "/kerberos.json", SERVICE + "/themes/theme.json"])
def test_every_problem_names_file_and_line(repo_copy, build_module, rel):
    with io.open(_path(repo_copy, rel), "a", encoding="utf-8") as fh:
        fh.write(u"\n}")
    problems = _problems(build_module, repo_copy)
    assert problems and all(re.match(r"^[^:]+:\d+: \S", p) for p in problems)
    assert any(p.startswith(rel + ":") for p in problems)


def test_live_properties_offer_refresh_configs_and_the_rest_a_restart(build_module):
    """Ambari's <supported-refresh-commands> (ConfigHelper.calculateRefreshCommand): a change of flow properties
    only is offered as RECONFIGURE reload_configs; env/driver/log4j/custom changes stay Restart Required."""
    import xml.etree.ElementTree as ET
    from mm2_core.config import names, schema
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for ctype in schema.CONFIG_TYPES:
        root = ET.fromstring(build_module.generate_configuration_xml(repo, ctype).encode("utf-8"))
        for prop in root.findall("property"):
            commands = [(c.get("componentName"), c.get("command"))
                        for c in prop.findall("supported-refresh-commands/refresh-command")]
            live = ctype.name in (names.CLUSTERS, names.REPLICATION, names.TOPOLOGY)
            assert commands == ([(names.COMPONENT, "reload_configs")] if live else []), (ctype.name,
                                                                                        prop.findtext("name"))


def test_alerts_are_written_from_the_registry(repo_copy, build_module):
    """alerts.json and the alert scripts come from mm2_core/alerts/registry.py: a registry change not
    written out (or a hand edit) fails the build at the first differing line; --generate-alerts fixes it."""
    registry_rel = "package/scripts/mm2_core/alerts/registry.py"
    replace_in(_path(repo_copy, registry_rel), 'label="MirrorMaker 2 Replication Lag"',
               'label="MirrorMaker 2 Record Lag"')
    rel = SERVICE + "/alerts.json"
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, '"MirrorMaker 2 Replication Lag"'),
            "differs from the alert registry", "build.py --generate-alerts")
    _expect(build_module, repo_copy, "package/alerts/alert_mm2_lag.py", 1, "differs from the alert registry")
    written = build_module.generate_alerts(repo_copy)
    assert rel in written and "package/alerts/alert_mm2_lag.py" in written
    assert _problems(build_module, repo_copy) == []
    with io.open(_path(repo_copy, rel), encoding="utf-8") as fh:
        assert '"label": "MirrorMaker 2 Record Lag"' in fh.read()


def test_telemetry_json_is_checked_against_ambari_3_1s_contract(repo_copy, build_module):
    """telemetry.json is checked against the schema derived from Ambari 3.1's reader of the file
    (mpack_build/schemas/ambari-3.1-telemetry.schema.json): a misspelt key the server would silently ignore (a
    policy without httpsValues never selects HTTPS) and a reference to a property the service lacks are named."""
    rel = SERVICE + "/telemetry.json"
    replace_in(_path(repo_copy, rel), '"httpsValues"', '"httpsValue"')
    replace_in(_path(repo_copy, rel), '"property": "mm2_metrics_port"', '"property": "mm2_metric_port"')
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, '"httpsValue"'),
            "httpsValue is not a key this schema knows", "ambari-3.1-telemetry.schema.json")
    _expect(build_module, repo_copy, rel, _line_of(repo_copy, rel, '"mm2_metric_port"'),
            "kafka-mm2-env/mm2_metric_port, which is not a property")
