"""What every input mode shares: global settings, the local-Kafka default target, cluster aliases,
custom properties and the host-level inputs (driver, Kerberos), read once into the Topology."""
import re

from mm2_core.config import env_checks, names, schema
from mm2_core.config.config_values import configs, get, parse_bool, parse_int, suggest, text
from mm2_core.kafka import versions
from mm2_core.model import placement
from mm2_core.model.keycheck import translated_key
from mm2_core.rendering import templates
from mm2_core.model.topology import (CLUSTERS_T, CUSTOM_T, DRIVER_T, ENV_T, GLOBAL_SETTINGS, REPLICATION_T,
                            alias_problem)


def global_settings(configurations, topo):
    """kafka-mm2-replication (schema defaults for what Ambari did not send)."""
    for name in GLOBAL_SETTINGS:
        topo.settings[name] = text(get(configurations, REPLICATION_T, name)).strip()
        topo.setting_origins[name] = (REPLICATION_T, name)


def apply_local(cluster, local, collector, configured_protocol):
    """Empty target bootstrap: the local Ambari-managed Kafka."""
    if cluster.bootstrap:
        if local is not None and local.bootstrap and same_brokers(cluster.bootstrap, local.bootstrap):
            cluster.local = True
            cluster.broker_count = local.broker_count
        return
    config_type, name = cluster.where("bootstrap.servers")
    if local is None or not local.bootstrap:
        why = ("this Ambari cluster's Kafka listeners could not be read (kafka-broker/listeners)"
               if local is not None and local.hosts else "this Ambari cluster has no Kafka brokers to default to")
        collector.error(config_type, name, "empty, and %s; enter the target cluster's brokers as "
                                           "host:port,host:port" % why)
        return
    cluster.local = True
    cluster.broker_count = local.broker_count
    cluster.connection["bootstrap.servers"] = local.bootstrap
    configured = text(configured_protocol).strip()
    if configured and configured != local.protocol and configured != "PLAINTEXT":
        collector.warn(config_type, cluster.where("security.protocol")[1],
                       "%s ignored: the target is this cluster's Kafka, which listens with %s"
                       % (configured, local.protocol))
    cluster.connection["security.protocol"] = local.protocol
    if local.protocol.startswith("SASL_"):
        if local.sasl_mechanism:
            cluster.connection["sasl.mechanism"] = local.sasl_mechanism
        if local.kerberos_service_name:
            cluster.connection["sasl.kerberos.service.name"] = local.kerberos_service_name


def same_brokers(a, b):
    norm = lambda v: sorted(x.strip().lower() for x in v.split(",") if x.strip())  # noqa: E731
    return norm(a) == norm(b)


def add_clusters(topo, clusters, collector):
    topo.candidates.extend(clusters)  # checked even when the alias is rejected: report everything at once
    seen_lower = {}
    for cluster in clusters:
        config_type, name = cluster.where("alias") if cluster.origin[0] == CLUSTERS_T else (
            cluster.origin[0], cluster.origin[1].rstrip("."))
        message = alias_problem(cluster.alias)
        if message:
            collector.error(config_type, name, message)
            continue
        lowered = cluster.alias.lower()
        if lowered in seen_lower:
            collector.error(config_type, name,
                            "alias '%s' is used twice (aliases must differ, also in letter case: '%s'); "
                            "give each cluster its own alias" % (cluster.alias, seen_lower[lowered]))
            continue
        seen_lower[lowered] = cluster.alias
        topo.clusters[cluster.alias] = cluster


def custom_properties(configurations, topo, collector):
    """kafka-mm2-custom, in key order; the validator checks each key and value."""
    props = configs(configurations, CUSTOM_T)
    for key in sorted(props):
        key_text = text(key)
        if not key_text.strip():
            continue
        if key_text != key_text.strip():
            collector.error(CUSTOM_T, key_text, "the property name has leading or trailing spaces; remove them")
            continue
        written, translation = translated_key(topo.version, key_text, topo.aliases)
        if written in topo.custom:
            collector.error(CUSTOM_T, key_text, "both %s and %s are set, and they are one setting in Kafka %s; "
                                                "keep one" % (topo.custom_names[written], key_text, topo.version))
            continue
        if translation:
            collector.warn(CUSTOM_T, key_text, translation)
        topo.custom[written] = text(props[key])
        topo.custom_names[written] = key_text


def host_inputs(configurations, topo):
    """Per-host settings rendering needs: --clusters, the internal REST port, Kerberos defaults."""
    topo.driver_targets_text = text(get(configurations, DRIVER_T, "target.clusters")).strip()
    # [] means no --clusters: MM2's own default, every herder runs here, including the reverse ones
    # that emit the heartbeats proving each flow (placement's rule, shared with the agent's start).
    topo.driver_targets = placement.parse_targets(topo.driver_targets_text)
    topo.internal_rest_port = text(get(configurations, DRIVER_T, "internal.rest.port")).strip()
    # A line break in either is reported on the property itself (catalog_checks): the model keeps
    # one line, so the JAAS config derived from them does not repeat the error on another property.
    topo.kerberos_principal = _one_line(get(configurations, ENV_T, "mm2_principal_name"))
    topo.kerberos_keytab = _one_line(get(configurations, ENV_T, "mm2_keytab"))


def _one_line(value):
    return " ".join(text(value).split()) if env_checks.line_break_problem(value) else text(value).strip()


# Types whose values the model does not read (or reads without checking): their catalog types are
# checked here. kafka-mm2-replication/clusters/driver values are checked on the model, with the
# place (simple field or YAML line) they came from.
_VALUE_CHECKED_TYPES = (ENV_T, names.LOG4J)


def catalog_checks(configurations, collector):
    """Every property of a kafka-mm2-* type (except kafka-mm2-custom) must be in the catalog
    (schema.py), and env/log4j values must fit their declared type and range."""
    for config_type in schema.CONFIG_TYPES:
        if config_type.name == CUSTOM_T:
            continue
        props = configs(configurations, config_type.name)
        for name in sorted(text(n) for n in props):
            if name not in config_type:
                known = [p.name for p in config_type.properties]
                hint = " (MM2 keys go to kafka-mm2-custom)" if config_type.name == REPLICATION_T else ""
                collector.error(config_type.name, name, "not a property of %s, so it would have no effect%s; "
                                                        "remove it%s" % (config_type.name, suggest(name, known), hint))
                continue
            if config_type.name in _VALUE_CHECKED_TYPES:
                message = catalog_value_problem(config_type[name], props[name])
                if message:
                    collector.error(config_type.name, name, message + env_checks.hint(name, props[name]))
                elif config_type[name].value_type == "content" and text(props[name]).strip():
                    problem = templates.template_problem(text(props[name]))
                    if problem:
                        collector.error(config_type.name, name, "the template cannot be rendered: %s; fix it or "
                                                                "clear the property to use the mpack's default"
                                        % problem)
                elif name in _JVM_OPTION_PROPERTIES:
                    message = jvm_options_problem(text(props[name]))
                    if message:
                        collector.error(config_type.name, name, message)
                if config_type.name == ENV_T and not message:
                    for found in env_checks.env_problems(name, props[name]):
                        collector.error(config_type.name, name, found)
    provider_reference_warnings(configurations, collector)


# Kafka's config provider reference (ConfigTransformer): ${provider:[path:]key}
_PROVIDER_REFERENCE = re.compile(r"\$\{[^}:\s]+:[^}]*\}")


def provider_reference_warnings(configurations, collector):
    """A password that starts like a config provider reference (${...}) but is not one (${vault}, an unclosed
    ${file:...): Kafka would send it as the literal password. The value is never echoed."""
    for config_type in schema.CONFIG_TYPES:
        props = configs(configurations, config_type.name)
        for name in sorted(text(n) for n in props):
            if config_type.name == CUSTOM_T:
                secret = versions.is_secret_key(name)
            else:
                secret = name in config_type and config_type[name].is_secret
            value = text(props[name])
            if secret and "${" in value and not _PROVIDER_REFERENCE.search(value):
                collector.warn(config_type.name, name, "looks like a config provider reference but is not one, so "
                                                       "Kafka would use it as the literal password; write "
                                                       "${provider:path:key} (e.g. ${file:/path/to/secrets.properties:"
                                                       "key}), or the password itself")


def catalog_value_problem(prop, value):
    """None when ``value`` fits the property's declared value type (schema.Property), else why not."""
    raw = text(value).strip()
    if raw == "" and (prop.empty_value_valid or prop.value_type not in ("int", "long", "boolean", "value-list")):
        return None
    if prop.value_type == "boolean" and parse_bool(value) is None:
        return "'%s' is not a boolean: use true or false" % raw
    if prop.value_type in ("int", "long"):
        number = parse_int(value)
        if number is None:
            return "'%s' is not a whole number%s" % (raw, _range_text(prop))
        low = parse_int(prop.minimum) if prop.minimum is not None else None
        high = parse_int(prop.maximum) if prop.maximum is not None else None
        if low is not None and number < low or high is not None and number > high:
            return "%d is out of range%s" % (number, _range_text(prop))
    if prop.value_type == "value-list" and prop.entries:
        allowed = [entry[0] for entry in prop.entries]
        if raw not in allowed:
            return "'%s' is not one of %s" % (raw, ", ".join(allowed))
    return None


def _range_text(prop):
    if prop.minimum is None and prop.maximum is None:
        return ""
    return ": use %s to %s%s" % (prop.minimum, prop.maximum, " " + prop.unit if prop.unit else "")


# Options kafka-run-class.sh expands unquoted ($KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS): split at
# whitespace, quotes kept as characters.
_JVM_OPTION_PROPERTIES = ("mm2_heap_opts", "mm2_jvm_opts")


def jvm_options_problem(value):
    """None when every option reaches Java as written, else why not and what to write instead."""
    if "\n" in value or "\r" in value:
        return "the options contain a line break; put them on one line"
    for char in ("\"", "'", "\\", "`"):
        if char in value:
            return ("%s: kafka-run-class.sh passes these options to Java split at spaces and keeps quotes and "
                    "backslashes as characters, so an option cannot contain a space or a quote (e.g. "
                    "-XX:OnOutOfMemoryError=\"kill -9 %%p\" would reach Java as three broken arguments). "
                    "Use options without spaces, e.g. -XX:+ExitOnOutOfMemoryError, or point to a script: "
                    "-XX:OnOutOfMemoryError=/usr/local/bin/mm2-oom.sh" % (
                        "a quote" if char in "\"'" else "a backslash" if char == "\\" else "a backquote"))
    return None
