"""Configurations -> Topology: the one entry point that parses and validates the replication model.

Three inputs, one validator:

- simple mode (parse_simple): kafka-mm2-clusters (one source, one target) + kafka-mm2-replication;
- advanced mode (parse_advanced): the YAML in kafka-mm2-topology/content (N clusters, any flows,
  per-cluster client overrides, per-flow overrides); kafka-mm2-replication still gives the global
  defaults, which the YAML ``settings:`` section may override;
- free-form kafka-mm2-custom properties (parse_common), passed through after the same checks.

The model (model.py) is parsed and typed once; the validator (validator.py, keycheck.py) and the
renderer (render.py) read only the model. ``build_topology`` raises ConfigError listing every
ERROR; ``validate`` returns all problems (errors and warnings) and also runs the renderer's checks,
so the advisor, the REST tool and the agent reject exactly the same input.

The names below are re-exported so callers keep one import (``from mm2_core import topology``).
"""
from mm2_core import parse, render
from mm2_core.parse import build_topology  # noqa: F401
from mm2_core.config_values import get, parse_bool, parse_int, suggest, text  # noqa: F401
from mm2_core.keycheck import safety_findings, versions_check_key  # noqa: F401
from mm2_core.local_kafka import LocalKafka, local_kafka_from  # noqa: F401
from mm2_core.model import (  # noqa: F401
    ALIAS_RE, BOOLEAN_SETTINGS, CLIENT_SECTIONS, CLUSTERS_T, CONNECTION_FIELDS, ENV_T, FLOW_SETTINGS,
    GLOBAL_SETTINGS, INT_SETTINGS, LIST_SETTINGS, POLICY_CLASSES, RESERVED_ALIASES, Cluster, Flow, Topology,
    alias_problem, split_key)
from mm2_core.problems import (  # noqa: F401
    ERROR, WARN, Collector, ConfigError, Problem, problem, without_shadowed_warnings)


def validate(configurations, kafka_version, local_kafka=None):
    """Every problem (ERROR and WARN) the configurations have for this Kafka version.

    Runs the same checks as rendering (with a placeholder host), so anything that would fail at
    configure time is reported here.
    """
    topo, collector = parse.parse(configurations, kafka_version, local_kafka)
    if collector.has_errors or topo is None:
        return _unique(collector.problems)
    topo.problems = collector.problems
    problems = list(collector.problems)
    problems.extend(render.check_rendering(topo, "mm2-host.invalid"))
    return _unique(without_shadowed_warnings(problems))


def driver_targets(configurations, topo):
    """Aliases this host passes as --clusters (the model's ``driver_targets``)."""
    return topo.driver_targets


def _unique(problems):
    seen, out = set(), []
    for found in problems:
        if found.as_tuple() not in seen:
            seen.add(found.as_tuple())
            out.append(found)
    return out
