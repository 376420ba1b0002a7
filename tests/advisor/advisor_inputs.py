"""Builders of stack-advisor input in Ambari's own shapes: services.json and hosts.json.

These are the files Ambari's StackAdvisorCommand writes for scripts/stack_advisor.py: "Versions",
"services" (StackServices with advisor_path/advisor_name, components with StackServiceComponents
and hostnames), "configurations" ({type: {"properties": {...}}}), "changed-configurations",
"config-groups", "user-context"; hosts.json is the /api/v1/hosts?fields=Hosts/* answer.
Our own config types start from the schema defaults (mm2_core.config.schema, the one source of truth).
"""
import copy

from mm2_core.config import names, schema

STACKS = {
    # stack -> (stack version, stack KAFKA service version as its metainfo.xml states it)
    "BIGTOP": ("3.2.0", "2.8.1-2"),
    "BIGTOP33": ("3.3.0", "2.8.2-1"),
    "HDP": ("3.1", "2.0.0.3.1"),
    "ODP": ("1.0", "3.1.0"),
}

KAFKA_BROKER_DEFAULTS = {
    "listeners": "PLAINTEXT://localhost:6667",
    "security.inter.broker.protocol": "PLAINTEXT",
    "offsets.topic.replication.factor": "3",
    "log.dirs": "/kafka-logs",
}


def host_entry(name, cluster_name=None, maintenance_state="OFF"):
    return {
        "href": "/api/v1/hosts/" + name,
        "Hosts": {
            "host_name": name,
            "public_host_name": name,
            "cluster_name": cluster_name,
            "ip": "192.168.74.%d" % (100 + sum(ord(c) for c in name) % 100),
            "rack_info": "/default-rack",
            "os_type": "centos7",
            "os_family": "redhat7",
            "os_arch": "x86_64",
            "cpu_count": 4,
            "ph_cpu_count": 4,
            "total_mem": 16266388,
            "host_state": "HEALTHY",
            "host_status": "HEALTHY",
            "maintenance_state": maintenance_state,
            "disk_info": [{"available": "35524932", "used": "3744716", "percent": "10%", "size": "39269648",
                           "device": "/dev/mapper/VolGroup00-LogVol00", "mountpoint": "/", "type": "xfs"}],
            "desired_configs": None,
            "last_agent_env": {"umask": 18, "existingUsers": [], "installedPackages": []},
        },
    }


def hosts_json(host_names, cluster_name="c1"):
    return {"href": "/api/v1/hosts?fields=Hosts/*", "items": [host_entry(h, cluster_name) for h in host_names]}


def component(service, name, display, category, cardinality, hostnames, stack):
    stack_name, stack_version = stack
    return {
        "href": "/api/v1/stacks/%s/versions/%s/services/%s/components/%s" % (stack_name, stack_version, service, name),
        "StackServiceComponents": {
            "component_name": name,
            "display_name": display,
            "service_name": service,
            "component_category": category,
            "cardinality": cardinality,
            "hostnames": list(hostnames),
            "is_master": category == "MASTER",
            "is_client": category == "CLIENT",
            "component_type": None,
            "custom_commands": list(names.CUSTOM_COMMANDS) if service == names.SERVICE else [],
            "recovery_enabled": service == names.SERVICE,
            "rolling_restart_supported": True,
            "reassign_allowed": False,
            "decommission_allowed": False,
            "advertise_version": False,
            "stack_name": stack_name,
            "stack_version": stack_version,
        },
        "dependencies": [],
    }


def service_entry(name, version, components, stack, advisor_path=None, advisor_name=None, configurations=()):
    info = {"service_name": name, "service_version": version, "stack_name": stack[0], "stack_version": stack[1]}
    if advisor_path:
        info["advisor_path"] = advisor_path
        info["advisor_name"] = advisor_name
    return {
        "href": "/api/v1/stacks/%s/versions/%s/services/%s" % (stack[0], stack[1], name),
        "StackServices": info,
        "components": components,
        "configurations": list(configurations),
    }


def stack_configuration(service, config_type, name, depends_on=()):
    """A services[].configurations entry: property `name` and the properties that depend on it."""
    return {
        "StackConfigurations": {"service_name": service, "type": config_type + ".xml", "property_name": name,
                                "property_depends_on": []},
        "dependencies": [{"StackConfigurationDependency": {"dependency_type": t, "dependency_name": n}}
                         for t, n in depends_on],
    }


def advisor_dependencies():
    """[(config type, property, [(dependent type, dependent property)])] from the schema's depends_on.

    Ambari reads <depends-on> from the generated configuration XML and puts the reverse relation
    ("depended by") into services.json under the property depended on.
    """
    by_property = {}
    for config_type in schema.CONFIG_TYPES:
        for prop in config_type.properties:
            for dependency in prop.depends_on:
                by_property.setdefault(tuple(dependency), []).append((config_type.name, prop.name))
    return [(t, n, deps) for (t, n), deps in sorted(by_property.items())]


def services_json(advisor_path, stack="BIGTOP", brokers=("k1.example.com", "k2.example.com", "k3.example.com"),
                  drivers=("m1.example.com",), mm2=None, kafka_broker=None, security_enabled=False,
                  ranger_kafka=None, changed=(), config_groups=None, extra=None, kafka_version=None):
    """services.json for a cluster with our service and, when `brokers` is not None, a local KAFKA.

    mm2: {config type: {property: value}} overriding the schema defaults; kafka_broker: overrides of
    the kafka-broker defaults; ranger_kafka: "Yes"/"No" adds RANGER and its Kafka plugin config.
    """
    stack_version, stack_kafka = STACKS[stack]
    stack_name = "BIGTOP" if stack.startswith("BIGTOP") else stack
    stack_id = (stack_name, stack_version)
    services = []
    configurations = {"cluster-env": {"properties": {
        "security_enabled": "true" if security_enabled else "false", "user_group": "hadoop",
        "smokeuser": "ambari-qa"}}}
    if brokers is not None:
        services.append(service_entry(
            names.KAFKA_SERVICE, kafka_version or stack_kafka,
            [component(names.KAFKA_SERVICE, names.KAFKA_BROKER, "Kafka Broker", "MASTER", "1+", brokers, stack_id)],
            stack_id))
        broker = dict(KAFKA_BROKER_DEFAULTS)
        broker.update(kafka_broker or {})
        configurations["kafka-broker"] = {"properties": broker}
        configurations["kafka-env"] = {"properties": {"kafka_user": "kafka", "kafka_log_dir": "/var/log/kafka"}}
    if ranger_kafka is not None:
        services.append(service_entry("RANGER", "2.4.0", [component(
            "RANGER", "RANGER_ADMIN", "Ranger Admin", "MASTER", "1+", ["r1.example.com"], stack_id)], stack_id))
        configurations["ranger-kafka-plugin-properties"] = {"properties": {"ranger-kafka-plugin-enabled": ranger_kafka}}
        configurations["ranger-env"] = {"properties": {"ranger-kafka-plugin-enabled": ranger_kafka}}
    services.append(service_entry(
        names.SERVICE, names.SERVICE_VERSION,
        [component(names.SERVICE, names.COMPONENT, names.COMPONENT_DISPLAY_NAME, "MASTER", "1+", drivers, stack_id)],
        stack_id, advisor_path=advisor_path, advisor_name=names.ADVISOR_CLASS,
        configurations=[stack_configuration(names.SERVICE, t, n, deps) for t, n, deps in advisor_dependencies()]))
    for config_type, props in schema.defaults().items():
        configurations[config_type] = {"properties": dict(props)}
    for config_type, props in (mm2 or {}).items():
        configurations.setdefault(config_type, {"properties": {}})["properties"].update(props)
    for config_type, props in (extra or {}).items():
        configurations.setdefault(config_type, {"properties": {}})["properties"].update(props)
    result = {
        "href": "/api/v1/stacks/%s/versions/%s/?fields=..." % stack_id,
        "Versions": {"stack_name": stack_name, "stack_version": stack_version, "parent_stack_version": None,
                     "stack_hierarchy": {"stack_name": stack_name, "stack_versions": []}},
        "services": services,
        "configurations": configurations,
        "changed-configurations": [{"type": t, "name": n, "old_value": ""} for t, n in changed],
        "user-context": {"operation": "AddService", "operation_details": names.SERVICE},
        "gpl-license-accepted": True,
        "ambari-server-properties": {},
        "ambari-server-configuration": {},
    }
    if config_groups is not None:
        result["config-groups"] = config_groups
    return copy.deepcopy(result)


def config_group(hosts, driver_props):
    """A config group overriding kafka-mm2-driver for `hosts`."""
    return {"configurations": {names.DRIVER: {"properties": dict(driver_props)}}, "hosts": list(hosts),
            "dependent_configurations": {}}
