"""Simple mode: one source and one target cluster (kafka-mm2-clusters), one or two flows."""
from mm2_core.config import schema
from mm2_core.config.config_values import configs, get, text
from mm2_core.kafka import versions
from mm2_core.model.parse_common import add_clusters, apply_local
from mm2_core.model.topology import CLUSTERS_T, CONNECTION_FIELDS, REPLICATION_T, Cluster, Flow


def parse(configurations, topo, collector, local):
    props = configs(configurations, CLUSTERS_T)
    clusters = []
    for role in schema.ROLES:
        alias = text(get(configurations, CLUSTERS_T, role + ".alias")).strip()
        if not alias:
            alias = role
            collector.warn(CLUSTERS_T, role + ".alias",
                           "empty; using '%s'. Set an alias (it is part of mirrored topic and internal "
                           "topic names, so choose it before the first start)" % alias)
        cluster = Cluster(alias, (CLUSTERS_T, role + "."))
        for field in CONNECTION_FIELDS:
            name = role + "." + field
            if field == "sasl.jaas.config":
                continue
            value = get(configurations, CLUSTERS_T, name)
            if value is None:
                continue
            # Secrets keep their spaces as written (a password may start or end with one).
            cluster.connection[field] = text(value) if versions.is_secret_key(field) else text(value).strip()
        if role == "target":
            apply_local(cluster, local, collector, props.get("target.security.protocol"))
        clusters.append(cluster)
    add_clusters(topo, clusters, collector)
    if len(topo.clusters) < 2:
        return
    source, target = clusters[0].alias, clusters[1].alias
    topo.flows.append(Flow(source, target, (REPLICATION_T, "direction")))
    direction = topo.settings.get("direction") or "one-way"
    if direction == "active-active":
        topo.flows.append(Flow(target, source, (REPLICATION_T, "direction")))
    elif direction != "one-way":
        collector.error(REPLICATION_T, "direction", "'%s' is not a direction: use one-way or active-active"
                        % direction)
