"""Advanced mode: the topology YAML (kafka-mm2-topology/content), N clusters and any flows.

kafka-mm2-replication still gives the global defaults, which the YAML ``settings:`` may override.
"""
from mm2_core.config.config_values import get, parse_bool, suggest, text
from mm2_core.formats import yamlish
from mm2_core.kafka import versions
from mm2_core.model.topology import (CLIENT_SECTIONS, CLUSTER_YAML_FIELDS, CONNECTION_FIELDS, FLOW_SETTINGS,
                            FLOW_YAML_FIELDS, GLOBAL_SETTINGS, LIST_SETTINGS, TOP_LEVEL_YAML, TOPOLOGY_T, Cluster,
                            Flow)
from mm2_core.model.keycheck import translated_key
from mm2_core.model.parse_common import add_clusters, apply_local, same_brokers


def parse(configurations, topo, collector, local):
    content = text(get(configurations, TOPOLOGY_T, "content"))
    if not content.strip():
        collector.error(TOPOLOGY_T, "content", "empty, but kafka-mm2-clusters/topology.mode is advanced: "
                        "describe clusters and flows in YAML (see the README) or switch topology.mode "
                        "to simple")
        return
    try:
        doc = yamlish.load(content)
    except yamlish.YamlError as exc:
        collector.error(TOPOLOGY_T, "content", "%s" % exc)
        return
    if doc is None:
        collector.error(TOPOLOGY_T, "content", "has only comments, but kafka-mm2-clusters/topology.mode is "
                                               "advanced: uncomment the example (remove the leading '# ') and "
                                               "describe your clusters and flows, or switch topology.mode to simple")
        return
    if not isinstance(doc, dict):
        collector.error(TOPOLOGY_T, "content", "the topology must be a YAML mapping with clusters: and flows:")
        return
    for key in doc:
        if key not in TOP_LEVEL_YAML:
            collector.error(TOPOLOGY_T, "content", "unknown top-level key '%s'%s; allowed: %s"
                            % (key, suggest(text(key), TOP_LEVEL_YAML), ", ".join(TOP_LEVEL_YAML)))
    deployment = doc.get("deployment")
    if deployment is not None and not isinstance(deployment, dict):
        collector.error(TOPOLOGY_T, "content", "deployment: must be a mapping (it is read by mm2-ambari deploy)")
    topo.deployment = deployment
    settings = doc.get("settings")
    if settings is not None:
        if not isinstance(settings, dict):
            collector.error(TOPOLOGY_T, "content", "settings: must be a mapping of kafka-mm2-replication "
                                                   "properties, e.g. replication.policy: prefixed")
        else:
            for key, value in settings.items():
                key = text(key)
                if key == "direction":
                    collector.error(TOPOLOGY_T, "content", "settings.direction: not used in advanced mode; "
                                                           "list each flow under flows: instead")
                elif key not in GLOBAL_SETTINGS:
                    collector.error(TOPOLOGY_T, "content", "settings.%s: unknown setting%s; allowed: the "
                                                           "kafka-mm2-replication properties (%s)"
                                    % (key, suggest(key, GLOBAL_SETTINGS), ", ".join(GLOBAL_SETTINGS[1:])))
                elif isinstance(value, (dict, list)):
                    collector.error(TOPOLOGY_T, "content", "settings.%s: must be a single value" % key)
                else:
                    topo.settings[key] = text(value).strip()
                    topo.setting_origins[key] = (TOPOLOGY_T, "content: settings.%s" % key)
    clusters_doc = doc.get("clusters")
    if not isinstance(clusters_doc, dict) or not clusters_doc:
        collector.error(TOPOLOGY_T, "content", "clusters: must map each cluster alias to its settings, e.g. "
                                               "clusters: {east: {bootstrap.servers: 'e1:9092'}}")
        clusters_doc = {}
    clusters = []
    for alias, body in clusters_doc.items():
        alias_text = text(alias)
        if not isinstance(alias, str) and not _is_text(alias):
            collector.error(TOPOLOGY_T, "content", "clusters: alias %r is not text; quote it" % (alias,))
            continue
        cluster = Cluster(alias_text, (TOPOLOGY_T, "content: clusters.%s." % alias_text))
        if body is None:
            body = {}
        if not isinstance(body, dict):
            collector.error(TOPOLOGY_T, "content", "clusters.%s: must be a mapping with bootstrap.servers and "
                                                   "security settings" % alias_text)
            continue
        for field, value in body.items():
            field = text(field)
            if field in CONNECTION_FIELDS:
                if isinstance(value, (dict, list)):
                    collector.error(TOPOLOGY_T, "content", "clusters.%s.%s: must be a single value"
                                    % (alias_text, field))
                    continue
                cluster.connection[field] = _field_value(field, value)
            elif field in CLIENT_SECTIONS or field == "config":
                if value is None:
                    continue
                if not isinstance(value, dict):
                    collector.error(TOPOLOGY_T, "content", "clusters.%s.%s: must be a mapping of %s"
                                    % (alias_text, field, "Kafka %s settings" % field if field != "config"
                                       else "cluster-level MM2 keys"))
                    continue
                target = cluster.extra if field == "config" else cluster.client_overrides(field)
                for key, item in value.items():
                    if isinstance(item, (dict, list)):
                        collector.error(TOPOLOGY_T, "content", "clusters.%s.%s.%s: must be a single value"
                                        % (alias_text, field, text(key)))
                        continue
                    target[text(key)] = text(item)
            else:
                collector.error(TOPOLOGY_T, "content",
                                "clusters.%s.%s: unknown cluster setting%s; allowed: %s. Put other "
                                "cluster-level keys under clusters.%s.config"
                                % (alias_text, field, suggest(field, CLUSTER_YAML_FIELDS),
                                   ", ".join(CLUSTER_YAML_FIELDS), alias_text))
        if not cluster.bootstrap:
            apply_local(cluster, local, collector, body.get("security.protocol"))
        elif local is not None and local.bootstrap and same_brokers(cluster.bootstrap, local.bootstrap):
            cluster.local = True
            cluster.broker_count = local.broker_count
        clusters.append(cluster)
    add_clusters(topo, clusters, collector)
    if clusters_doc and len(clusters_doc) < 2:
        collector.error(TOPOLOGY_T, "content", "clusters: at least two clusters are needed for a flow")
    flows_doc = doc.get("flows")
    if not isinstance(flows_doc, list) or not flows_doc:
        collector.error(TOPOLOGY_T, "content", "flows: must be a list of flows, e.g. flows: [{source: east, "
                                               "target: west}]")
        flows_doc = []
    for index, body in enumerate(flows_doc):
        label = "flows[%d]" % index
        if not isinstance(body, dict):
            collector.error(TOPOLOGY_T, "content", "%s: must be a mapping with source: and target:" % label)
            continue
        source, target = text(body.get("source")).strip(), text(body.get("target")).strip()
        if source and target:
            label = "flows[%d] (%s->%s)" % (index, source, target)
        enabled = parse_bool(body.get("enabled", True))
        if enabled is None:
            collector.error(TOPOLOGY_T, "content", "%s.enabled: must be true or false" % label)
            enabled = True
        flow = Flow(source, target, (TOPOLOGY_T, "content: %s" % label), enabled)
        for field, value in body.items():
            field = text(field)
            if field in ("source", "target", "enabled"):
                continue
            if field == "config":
                if value is None:
                    continue
                if not isinstance(value, dict):
                    collector.error(TOPOLOGY_T, "content", "%s.config: must be a mapping of connector keys "
                                                           "for this flow" % label)
                    continue
                for key, item in value.items():
                    if isinstance(item, (dict, list)):
                        collector.error(TOPOLOGY_T, "content", "%s.config.%s: must be a single value"
                                        % (label, text(key)))
                        continue
                    written, translation = translated_key(topo.version, "%s->%s.%s" % (source, target, text(key)),
                                                          [source, target])
                    written = written.split(".", 1)[1] if translation else text(key)
                    if translation:
                        collector.warn(TOPOLOGY_T, "content", "%s.config.%s: %s" % (label, text(key), translation))
                    if written in flow.overrides:
                        collector.error(TOPOLOGY_T, "content", "%s.config: %s is set twice (also as its old or new "
                                                               "name); keep one" % (label, written))
                        continue
                    flow.overrides[written] = text(item)
            elif field in FLOW_SETTINGS:
                if isinstance(value, list) and field in LIST_SETTINGS:
                    value = ", ".join(text(v) for v in value)
                if isinstance(value, (dict, list)):
                    collector.error(TOPOLOGY_T, "content", "%s.%s: must be a single value" % (label, field))
                    continue
                flow.settings[field] = text(value).strip()
            else:
                collector.error(TOPOLOGY_T, "content",
                                "%s.%s: unknown flow setting%s; allowed: %s. Put other connector keys under "
                                "%s.config" % (label, field, suggest(field, FLOW_YAML_FIELDS),
                                               ", ".join(FLOW_YAML_FIELDS), label))
        if not source or not target:
            collector.error(TOPOLOGY_T, "content", "%s: needs both source: and target: (cluster aliases)" % label)
            continue
        topo.flows.append(flow)
    _check_literal_secrets(doc, collector)


def _is_text(value):
    return isinstance(value, type(u""))


def _check_literal_secrets(doc, collector):
    found = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [text(key)])
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, path + [str(index)])
        elif node is not None and path and versions.is_secret_key(path[-1]):
            value = text(node)
            if value and not versions.is_provider_reference(value):
                found.append(".".join(path))

    walk(doc, [])
    for path in found:
        collector.warn(TOPOLOGY_T, "content",
                       "%s: a literal secret in the topology YAML is stored and shown by Ambari in clear; "
                       "prefer a ${file:/path/to/secrets.properties:key} reference (the rendered file is "
                       "protected either way)" % path)


def _field_value(field, value):
    """Connection values are trimmed, except secrets: a password keeps its spaces as written."""
    return text(value) if versions.is_secret_key(field) else text(value).strip()
