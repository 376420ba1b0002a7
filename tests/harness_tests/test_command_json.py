"""The command JSON builder produces what the agent hands to scripts."""
import json
import os
import stat

import harness
from mm2_core.config import names, schema

TOP_LEVEL = {"configurations", "configurationAttributes", "configurationTags", "clusterHostInfo",
             "hostLevelParams", "clusterLevelParams", "ambariLevelParams", "agentLevelParams",
             "serviceLevelParams", "commandParams", "roleParams", "role", "roleCommand",
             "serviceName", "clusterName", "taskId", "commandType"}


def test_has_every_top_level_key_of_an_agent_command():
    cmd = harness.command_json()
    assert TOP_LEVEL <= set(cmd)
    assert (cmd["role"], cmd["roleCommand"], cmd["serviceName"]) == (names.COMPONENT, "START", names.SERVICE)
    assert cmd["clusterHostInfo"][names.COMPONENT.lower() + "_hosts"] == ["h1"]
    assert cmd["agentLevelParams"]["hostname"] == "h1"
    json.dumps(cmd)


def test_custom_commands_and_restart_go_through_custom_command():
    for command in names.CUSTOM_COMMANDS + ("RESTART",):
        cmd = harness.command_json(command=command)
        assert cmd["roleCommand"] == "CUSTOM_COMMAND"
        assert cmd["commandParams"]["custom_command"] == command
        assert cmd["roleParams"]["component_category"] == "MASTER"
        assert harness.agent_command_name(cmd) == command


def test_status_and_service_check():
    assert harness.agent_command_name(harness.command_json(command="STATUS")) == "STATUS"
    assert harness.command_json(command="STATUS")["commandType"] == "STATUS_COMMAND"
    check = harness.command_json(command="SERVICE_CHECK")
    assert check["role"] == names.SERVICE_CHECK_ROLE
    assert check["commandParams"]["script"] == "scripts/service_check.py"


def test_defaults_cover_every_owned_property():
    configs = harness.command_json()["configurations"]
    for config_type in schema.CONFIG_TYPES:
        assert set(configs[config_type.name]) == set(p.name for p in config_type.properties)
        for prop in config_type.properties:
            path = os.path.join(harness.TEMPLATES_DIR, prop.content_file or "-")
            if prop.content_file and os.path.isfile(path):
                assert configs[config_type.name][prop.name] == open(path).read()
            elif not prop.content_file:
                assert configs[config_type.name][prop.name] == prop.default
    assert configs["cluster-env"]["security_enabled"] == "false"


def test_overrides_merge_deeply_and_none_removes():
    cmd = harness.command_json(configurations={names.ENV: {"mm2_heap_opts": "-Xmx8g", "mm2_keytab": None}},
                               cluster_host_info={"kafka_broker_hosts": ["b1", "b2"]},
                               package_list=["kafka"])
    env = cmd["configurations"][names.ENV]
    assert env["mm2_heap_opts"] == "-Xmx8g" and "mm2_keytab" not in env and "mm2_user" in env
    assert cmd["clusterHostInfo"]["all_hosts"] == ["h1", "b1", "b2"]
    assert json.loads(cmd["commandParams"]["package_list"]) == [
        {"name": "kafka", "condition": "", "skipUpgrade": False}]


def test_localize_moves_absolute_paths_and_users():
    cmd = harness.localize(harness.command_json(), "/tmp/root", keep=("jmx_exporter_jar",))
    env = cmd["configurations"][names.ENV]
    assert env["mm2_log_dir"] == "/tmp/root" + schema.ENV["mm2_log_dir"].default
    assert env["jmx_exporter_jar"] == schema.ENV["jmx_exporter_jar"].default
    assert env["mm2_user"] == harness.current_user()
    assert cmd["configurations"]["cluster-env"]["user_group"] == harness.current_group()


def test_command_file_is_private(tmpdir):
    path = harness.write_command_file(harness.command_json(), str(tmpdir.join("command-1.json")))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
