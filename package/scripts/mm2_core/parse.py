"""Configurations -> Topology: pick the input mode's parser, then validate the model.

``parse(configurations, version, local_kafka) -> (Topology or None, Collector)``;
``build_topology`` raises ConfigError listing every error. Rendering (render.py) starts here;
topology.py adds the renderer's own checks for ``validate``.
"""
from mm2_core import parse_advanced, parse_common, parse_simple, validator, versions
from mm2_core.config_values import get, text
from mm2_core.local_kafka import LocalKafka
from mm2_core.model import CLUSTERS_T, ENV_T, Topology
from mm2_core.problems import Collector, ConfigError


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
