"""Command JSON in the agent's format (what the agent writes to command-<taskId>.json).

Shapes follow the fixtures Ambari's own tests use (stacks/2.2/configs/default.json in 2.7.8,
stacks/configs/default.json in trunk) and the server code that builds commands: a custom
command (and RESTART, which the server sends as one) has roleCommand CUSTOM_COMMAND,
commandParams.custom_command and roleParams.component_category.
"""
import copy
import grp
import io
import json
import os
import pwd

from harness import paths

from mm2_core.config import names, schema

ROLE_COMMANDS = ("INSTALL", "START", "STOP", "CONFIGURE", "SERVICE_CHECK", "STATUS")
STACK_ROOTS = {"HDP": "/usr/hdp", "BIGTOP": "/usr/bigtop", "ODP": "/usr/odp"}
STACK_FEATURE_MIN = {"BIGTOP": "3.2.0", "ODP": "1.0.0"}
STACK_SELECTORS = {
    "HDP": ("hdp-select", "/usr/bin/hdp-select", "hdp-select"),
    "BIGTOP": ("distro-select", "/usr/lib/bigtop-select/distro-select", "bigtop-select"),
    "ODP": ("odp-select", "/usr/bin/odp-select", "odp-select"),
}
SERVICE_PACKAGE_FOLDER = "common-services/%s/%s/package" % (names.SERVICE, names.SERVICE_VERSION)


def default_configurations(stack_name="HDP"):
    """cluster-env basics plus every owned config type with its schema defaults; content
    properties get the text of package/templates/<content_file> when that file exists."""
    configurations = {
        "cluster-env": {
            "security_enabled": "false",
            "user_group": "hadoop",
            "smokeuser": "ambari-qa",
            "smokeuser_keytab": "/etc/security/keytabs/smokeuser.headless.keytab",
            "smokeuser_principal_name": "ambari-qa@EXAMPLE.COM",
            "kerberos_domain": "EXAMPLE.COM",
            "ignore_groupsusers_create": "false",
            "override_uid": "true",
            "fetch_nonlocal_groups": "true",
            "manage_dirs_on_root": "true",
            "ignore_bad_mounts": "false",
            "managed_hdfs_resource_property_names": "",
            "stack_name": stack_name,
            "stack_root": json.dumps({stack_name: STACK_ROOTS.get(stack_name, "/usr/" + stack_name.lower())}),
            # The server always sends these; Ambari's version reporting after start/restart
            # needs them (stack_features missing -> Fail). An mpack service is not in the
            # stack-select map, so nothing is selected or reported for it.
            "stack_features": json.dumps({stack_name: {"stack_features": [
                {"name": "rolling_upgrade", "description": "Rolling upgrade support",
                 "min_version": STACK_FEATURE_MIN.get(stack_name, "2.2.0.0")},
                {"name": "config_versioning", "description": "Configurable versions support",
                 "min_version": STACK_FEATURE_MIN.get(stack_name, "2.3.0.0")},
            ]}}),
            "stack_tools": json.dumps({stack_name: {
                "stack_selector": list(STACK_SELECTORS.get(stack_name, STACK_SELECTORS["HDP"])),
                "conf_selector": ["conf-select", "/usr/bin/conf-select", "conf-select"]}}),
            "stack_packages": json.dumps({stack_name: {"stack-select": {}, "conf-select": {},
                                                       "upgrade-dependencies": {}}}),
        },
    }
    for config_type in schema.CONFIG_TYPES:
        values = {}
        for prop in config_type.properties:
            value = prop.default
            if prop.content_file:
                path = os.path.join(paths.TEMPLATES_DIR, prop.content_file)
                if os.path.isfile(path):
                    with io.open(path, "r", encoding="utf-8") as fp:
                        value = fp.read()
            values[prop.name] = value
        configurations[config_type.name] = values
    return configurations


def _merge(base, overrides):
    """Deep-merge overrides into base (a None value removes the key)."""
    for key, value in (overrides or {}).items():
        if value is None:
            base.pop(key, None)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def command_json(role=names.COMPONENT, command="START", configurations=None, hostname="h1",
                 cluster_host_info=None, service_name=names.SERVICE, stack_name="HDP",
                 stack_version="3.1", cluster_name="c1", task_id=1, script=None,
                 package_list=None, command_params=None, role_params=None,
                 host_level_params=None, cluster_level_params=None, ambari_level_params=None,
                 agent_level_params=None, service_level_params=None,
                 configuration_attributes=None, java_home="/usr/jdk64/jdk1.8.0_112",
                 with_defaults=True, extra=None):
    """A command as the agent hands it to a script.

    command: the agent-level command name: INSTALL/START/STOP/CONFIGURE/SERVICE_CHECK/STATUS, or
    a custom command (REPLICATION_STATUS, RESTART, ...), which becomes roleCommand CUSTOM_COMMAND
    with commandParams.custom_command. configurations are deep-merged over the defaults
    (with_defaults=False: used as given). Every *_params dict is merged over its default block;
    extra adds/overrides top-level keys. Returns a plain dict (JSON-serialisable).
    """
    command = command.upper()
    if command == "SERVICE_CHECK" and role == names.COMPONENT:
        role = names.SERVICE_CHECK_ROLE
    is_custom = command not in ROLE_COMMANDS

    configs = default_configurations(stack_name) if with_defaults else {}
    _merge(configs, configurations)

    hosts = {"all_hosts": [hostname], "all_ping_ports": ["8670"], "all_racks": ["/default-rack"],
             "all_ipv4_ips": ["127.0.0.1"], "ambari_server_host": ["ambari.example.com"]}
    if role != names.SERVICE_CHECK_ROLE:
        hosts[role.lower() + "_hosts"] = [hostname]
    _merge(hosts, cluster_host_info)
    if "all_hosts" not in (cluster_host_info or {}):
        # every host named in a <component>_hosts list is a cluster host
        for key, host_list in sorted(hosts.items()):
            if key.endswith("_hosts") and key != "all_hosts" and isinstance(host_list, list):
                hosts["all_hosts"].extend(h for h in host_list if h not in hosts["all_hosts"])
        count = len(hosts["all_hosts"])
        hosts["all_ping_ports"] = ["8670"] * count
        hosts["all_racks"] = ["/default-rack"] * count
        hosts["all_ipv4_ips"] = ["127.0.0.1"] * count

    cmd_params = {
        "command_timeout": "600",
        "script_type": "PYTHON",
        "script": script or ("scripts/service_check.py" if role == names.SERVICE_CHECK_ROLE
                             else "scripts/%s.py" % role.lower()),
        "service_package_folder": SERVICE_PACKAGE_FOLDER,
        "hooks_folder": "stack-hooks",
        "version": stack_version + ".0.0-1",
    }
    if is_custom:
        cmd_params["custom_command"] = command
    if package_list is not None:
        cmd_params["package_list"] = json.dumps(
            [p if isinstance(p, dict) else {"name": p, "condition": "", "skipUpgrade": False}
             for p in package_list])
    _merge(cmd_params, command_params)

    role_params_block = {"component_category": "MASTER"} if is_custom else {}
    _merge(role_params_block, role_params)

    cmd = {
        "configurations": configs,
        "configurationAttributes": _merge(dict((t, {}) for t in configs), configuration_attributes),
        "configurationTags": dict((t, {"tag": "version1"}) for t in configs),
        "clusterHostInfo": hosts,
        "hostLevelParams": _merge({"recoveryConfig": {"type": "AUTO_START", "maxCount": "6",
                                                      "windowInMinutes": "60", "retryGap": "5",
                                                      "maxLifetimeCount": "1024", "components": ""}},
                                  host_level_params),
        "clusterLevelParams": _merge({
            "stack_name": stack_name,
            "stack_version": stack_version,
            "cluster_name": cluster_name,
            "hooks_folder": "stack-hooks",
            "user_groups": "{}",
            "group_list": json.dumps(["hadoop"]),
            "user_list": json.dumps(["ambari-qa"]),
            "not_managed_hdfs_path_list": "[]",
        }, cluster_level_params),
        "ambariLevelParams": _merge({
            "java_home": java_home,
            "java_version": "8",
            "jdk_location": "http://ambari.example.com:8080/resources",
            "jdk_name": "jdk-8u112-linux-x64.tar.gz",
            "jce_name": "jce_policy-8.zip",
            "agent_stack_retry_count": "5",
            "agent_stack_retry_on_unavailability": "false",
            "host_sys_prepped": "false",
            "ambari_server_host": "ambari.example.com",
            "db_name": "ambari",
        }, ambari_level_params),
        "agentLevelParams": _merge({
            "hostname": hostname,
            "public_hostname": hostname,
            "agentCacheDir": "/var/lib/ambari-agent/cache",
            "agentConfigParams": {"agent": {"parallel_execution": 0, "use_system_proxy_settings": True}},
        }, agent_level_params),
        "serviceLevelParams": _merge({
            "credentialStoreEnabled": False,
            "status_commands_timeout": 300,
            "version": names.SERVICE_VERSION,
            "service_package_folder": SERVICE_PACKAGE_FOLDER,
        }, service_level_params),
        "commandParams": cmd_params,
        "roleParams": role_params_block,
        "role": role,
        "roleCommand": "CUSTOM_COMMAND" if is_custom else command,
        "serviceName": service_name,
        "clusterName": cluster_name,
        "clusterId": "2",
        "hostname": hostname,
        "localComponents": [role],
        "taskId": task_id,
        "commandId": "%d-1" % task_id,
        "commandType": "STATUS_COMMAND" if command == "STATUS" else "EXECUTION_COMMAND",
    }
    return _merge(cmd, extra)


def agent_command_name(cmd):
    """The <COMMAND> argument the agent passes to the script for this command JSON."""
    if cmd.get("commandType") == "STATUS_COMMAND":
        return "STATUS"
    if cmd["roleCommand"] == "CUSTOM_COMMAND":
        return cmd["commandParams"]["custom_command"]
    return cmd["roleCommand"]


def current_user():
    return pwd.getpwuid(os.geteuid()).pw_name


def current_group():
    return grp.getgrgid(os.getegid()).gr_name


def localize(cmd, root, keep=(), config_types=None):
    """Copy of cmd made runnable by the current user under a temporary root:
    - every absolute-path value (one token, starting with '/') of the owned config types
      (or config_types) becomes root + value, except properties named in keep
      ("type/name" or "name");
    - every property whose schema type is 'user' becomes the current user, and
      cluster-env/user_group the current user's primary group.
    """
    cmd = copy.deepcopy(cmd)
    types = config_types or names.OWN_CONFIG_TYPES
    for type_name in types:
        values = cmd["configurations"].get(type_name, {})
        for name, value in list(values.items()):
            if name in keep or (type_name + "/" + name) in keep:
                continue
            if isinstance(value, str) and value.startswith("/") and not any(c.isspace() for c in value):
                values[name] = root.rstrip("/") + value
    for config_type in schema.CONFIG_TYPES:
        values = cmd["configurations"].get(config_type.name)
        if values is None:
            continue
        for prop in config_type.properties:
            if prop.value_type == "user" and prop.name in values:
                values[prop.name] = current_user()
    cluster_env = cmd["configurations"].setdefault("cluster-env", {})
    cluster_env["user_group"] = current_group()
    cluster_env["smokeuser"] = current_user()
    return cmd


def write_command_file(cmd, path):
    """Write the JSON as the agent does: created with mode 0600 (it may hold passwords)."""
    if os.path.isfile(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w") as fp:
        fp.write(json.dumps(cmd, sort_keys=False, indent=4))
    return path


__all__ = ["command_json", "default_configurations", "agent_command_name", "localize",
           "write_command_file", "current_user", "current_group"]
