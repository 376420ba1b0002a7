"""Configurations -> Topology: pick the input mode's parser, then validate the model.

``parse(configurations, version, local_kafka) -> (Topology or None, Collector)``;
``build_topology`` raises ConfigError listing every error. Rendering (rendering/render.py) starts here;
render.validate adds the renderer's own checks.
"""
from mm2_core.config.config_values import get, text
from mm2_core.config.local_kafka import LocalKafka
from mm2_core.config.problems import Collector, ConfigError
from mm2_core.kafka import versions
from mm2_core.model import parse_advanced, parse_common, parse_simple, validator
from mm2_core.model.topology import CLUSTERS_T, ENV_T, Topology


def build_topology(configurations, kafka_version, local_kafka=None):
    """Topology from Ambari configurations; raises ConfigError listing every error."""
    topo, collector = parse(configurations, kafka_version, local_kafka)
    if collector.has_errors:
        raise ConfigError(collector.problems)
    topo.problems = collector.problems
    return topo


def parse(configurations, kafka_version, local_kafka):
    collector = Collector()
    try:
        version = versions.KafkaVersion.parse(kafka_version)
    except ValueError as exc:
        collector.error(ENV_T, "kafka_version_override", "%s" % exc)
        return None, collector
    unsupported = versions.support_problem(version)
    if unsupported and unsupported[0] == "ERROR":
        collector.error(ENV_T, "kafka_version_override", unsupported[1])
        return None, collector
    if unsupported:
        collector.warn(ENV_T, "kafka_version_override", unsupported[1])
    parse_common.catalog_checks(configurations, collector)
    local = LocalKafka.coerce(local_kafka)
    mode = text(get(configurations, CLUSTERS_T, "topology.mode")).strip() or "simple"
    topo = Topology(mode, version)
    topo.ranger = bool(local and local.ranger)
    parse_common.global_settings(configurations, topo)
    parse_common.host_inputs(configurations, topo)
    if mode == "simple":
        parse_simple.parse(configurations, topo, collector, local)
    elif mode == "advanced":
        parse_advanced.parse(configurations, topo, collector, local)
    else:
        collector.error(CLUSTERS_T, "topology.mode", "'%s' is not a topology mode: use simple or advanced"
                        % mode)
        return topo, collector
    parse_common.custom_properties(configurations, topo, collector)
    validator.check(topo, collector)
    return topo, collector
