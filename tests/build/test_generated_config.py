"""configuration/<type>.xml is generated from mm2_core.config.schema: the one source of truth."""
import json
import os
import tarfile
import xml.etree.ElementTree as ET

import pytest

import mpack_helpers


@pytest.fixture(scope="module")
def generated(built_mpack):
    """{config type: parsed <configuration> root} from the built tarball."""
    result = {}
    with tarfile.open(built_mpack, "r:gz") as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if member.isfile() and parts[-2] == "configuration" and parts[1] == "common-services":
                result[parts[-1][:-4]] = ET.fromstring(tar.extractfile(member).read())
    return result


@pytest.fixture(scope="module")
def core(session_repo, build_module):
    return build_module.Core(session_repo)


def _props(root):
    return dict((p.findtext("name"), p) for p in root.findall("property"))


def test_one_file_per_owned_type_with_exactly_the_schema_properties(generated, core):
    assert sorted(generated) == sorted(core.names.OWN_CONFIG_TYPES)
    for ctype in core.schema.CONFIG_TYPES:
        assert [p.findtext("name") for p in generated[ctype.name].findall("property")] == \
            [p.name for p in ctype.properties]


def test_every_property_carries_what_ambari_requires(generated, core):
    for ctype in core.schema.CONFIG_TYPES:
        props = _props(generated[ctype.name])
        for prop in ctype.properties:
            node = props[prop.name]
            label = "%s/%s" % (ctype.name, prop.name)
            upgrade = node.find("on-ambari-upgrade")
            assert upgrade is not None and upgrade.get("add") == "true", label
            assert node.findtext("display-name") == prop.display_name, label
            assert node.findtext("description") == prop.description, label
            assert node.find("value-attributes").findtext("type") == prop.ambari_value_type, label
            assert (node.get("require-input") == "true") == bool(prop.require_input), label


def test_passwords_are_secret_references_and_masked(generated, core):
    secrets = core.schema.secret_properties()
    assert secrets, "the schema has passwords (SASL, keystores)"
    for config_type, name in secrets:
        node = _props(generated[config_type])[name]
        assert node.findtext("property-type") == "PASSWORD", name
        assert node.find("value-attributes").findtext("type") == "password", name
    # and nothing else is a password
    for config_type, root in generated.items():
        for name, node in _props(root).items():
            if (config_type, name) not in secrets:
                assert node.findtext("property-type") != "PASSWORD", name


def test_defaults_value_lists_and_ranges_come_from_the_schema(generated, core):
    for ctype in core.schema.CONFIG_TYPES:
        props = _props(generated[ctype.name])
        for prop in ctype.properties:
            node = props[prop.name]
            attrs = node.find("value-attributes")
            if not prop.content_file:
                assert (node.findtext("value") or "") == prop.default, prop.name
            if prop.ambari_value_type == "value-list":
                assert [(e.findtext("value"), e.findtext("label")) for e in attrs.find("entries")] == \
                    [tuple(e) for e in prop.ambari_entries], prop.name
            assert attrs.findtext("minimum") == prop.minimum, prop.name
            assert attrs.findtext("maximum") == prop.maximum, prop.name
            assert attrs.findtext("unit") == prop.unit, prop.name
            expected_overridable = None if prop.overridable else "false"
            assert attrs.findtext("overridable") == expected_overridable, prop.name


def test_every_toggle_has_the_two_states_ambari_web_reads(generated, core, session_repo):
    # ambari-web's toggle widget (toggle_config_widget_view.js) takes "on" and "off" from the property's
    # value-attributes entries, the first being "on"; without them Customize Services throws and shows no
    # widget of the tabs after the first. A boolean's default must be one of the two states. A two-entry choice
    # (topology mode, run mode...) is a toggle too: the combo's menu never opens in Ambari 3.0's web UI.
    theme = json.loads(mpack_helpers.read_text(os.path.join(session_repo, "common-services", core.names.SERVICE,
                                                            core.names.SERVICE_VERSION, "themes", "theme.json")))
    toggles = [w["config"] for w in theme["configuration"]["widgets"] if w["widget"]["type"] == "toggle"]
    assert toggles, "the theme has toggles"
    for config in toggles:
        config_type, name = config.split("/", 1)
        attrs = _props(generated[config_type])[name].find("value-attributes")
        values = [e.findtext("value") for e in attrs.find("entries")]
        prop = core.prop(config_type, name)
        two_states = ["true", "false"] if prop.value_type == "boolean" else [v for v, _ in prop.entries]
        assert attrs.findtext("type") == "value-list" and values == two_states and len(values) == 2, config
        assert all(e.findtext("label") for e in attrs.find("entries")), config   # the switch's two captions
        assert attrs.findtext("selection-cardinality") == "1", config
        assert _props(generated[config_type])[name].findtext("value") in values, config


def test_content_defaults_are_the_templates(generated, core, session_repo):
    contents = [(t.name, p) for t in core.schema.CONFIG_TYPES for p in t.properties if p.content_file]
    assert contents
    for config_type, prop in contents:
        template = mpack_helpers.read_text(os.path.join(session_repo, "package", "templates", prop.content_file))
        value = _props(generated[config_type])[prop.name].findtext("value") or ""
        # ambari-web trims trailing whitespace of values; the default is the template without it
        assert value == template.rstrip(), prop.content_file


def test_user_property_puts_the_user_in_the_cluster_group(generated, core):
    users = [(t.name, p.name) for t in core.schema.CONFIG_TYPES for p in t.properties if p.value_type == "user"]
    assert users
    for config_type, name in users:
        node = _props(generated[config_type])[name]
        assert node.findtext("property-type") == "USER"
        group = node.find("value-attributes/user-groups/property")
        assert (group.findtext("type"), group.findtext("name")) == ("cluster-env", "user_group")


def test_custom_type_accepts_added_properties_and_others_do_not(generated, core):
    for ctype in core.schema.CONFIG_TYPES:
        assert generated[ctype.name].get("supports_adding_forbidden") == \
            ("true" if ctype.supports_adding_forbidden else "false"), ctype.name
    assert generated[core.names.CUSTOM].get("supports_adding_forbidden") == "false"


def test_special_characters_survive_generation(repo_copy, tmpdir, build_module):
    core = build_module.Core(repo_copy)
    text = "a <b> & 'c' \"d\" {{ e }} {% if x %}\n  indented\n]]> --> \u00e9\n"
    contents = [(t.name, p) for t in core.schema.CONFIG_TYPES for p in t.properties if p.content_file]
    for _, prop in contents:
        mpack_helpers.write_text(os.path.join(repo_copy, "package", "templates", prop.content_file), text)
    root = build_module.assemble(str(tmpdir.join("staging")), repo=repo_copy)
    for config_type, prop in contents:
        path = os.path.join(root, "common-services", "KAFKA_MIRRORMAKER2", "1.0.0", "configuration",
                            config_type + ".xml")
        node = _props(ET.parse(path).getroot())[prop.name]
        assert node.findtext("value") == u"%s" % text.rstrip()


def test_missing_template_is_a_clear_error(repo_copy, build_module):
    content = mpack_helpers.content_files(repo_copy)[0]
    os.remove(os.path.join(repo_copy, "package", "templates", content))
    problems = build_module.validate(repo_copy)
    text = mpack_helpers.problems_text(problems)
    assert "package/templates/%s, which does not exist" % content in text
    for problem in problems:
        if content in problem.message:
            assert problem.path == "package/scripts/mm2_core/config/schema.py"
            assert "/" in problem.message.split(":")[0]  # names config-type/property
    with pytest.raises(build_module.BuildError):
        build_module.assemble(os.path.join(repo_copy, "..", "staging"), repo=repo_copy)
