"""What every input mode shares: global settings, the local-Kafka default target, cluster aliases,
custom properties and the host-level inputs (driver, Kerberos), read once into the Topology."""
from mm2_core import placement
from mm2_core.config_values import configs, get, text
from mm2_core.model import (CLUSTERS_T, CUSTOM_T, DRIVER_T, ENV_T, GLOBAL_SETTINGS, REPLICATION_T,
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
        topo.custom[key_text] = text(props[key])


def host_inputs(configurations, topo):
    """Per-host settings rendering needs: --clusters, the internal REST port, Kerberos defaults."""
    topo.driver_targets_text = text(get(configurations, DRIVER_T, "target.clusters")).strip()
    # [] means no --clusters: MM2's own default, every herder runs here, including the reverse ones
    # that emit the heartbeats proving each flow (placement's rule, shared with the agent's start).
    topo.driver_targets = placement.parse_targets(topo.driver_targets_text)
    topo.internal_rest_port = text(get(configurations, DRIVER_T, "internal.rest.port")).strip()
    topo.kerberos_principal = text(get(configurations, ENV_T, "mm2_principal_name")).strip()
    topo.kerberos_keytab = text(get(configurations, ENV_T, "mm2_keytab")).strip()
