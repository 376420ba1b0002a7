#!/usr/bin/env ambari-python-wrap
"""Service advisor of MirrorMaker 2 (KAFKA_MIRRORMAKER2 1.0.0).

Ambari's stack advisor runs this file on the server (Python 2.7 on Ambari 2.7.x, Python 3 on
Ambari 3) for the wizard, config changes and blueprints. It is a thin adapter: it turns Ambari's
advisor input (services.json / hosts.json) into plain values, lets the pure core mm2_core decide
(advisor/advice.py: recommendations; rendering/render.validate: validation; model/placement.py:
placement rules for driver hosts) and
turns the answers back into Ambari's structures.

An exception in a service advisor breaks the wizard page, so every entry point catches,
logs and degrades to a warning; MM2_ADVISOR_STRICT=1 makes them raise (tests).
"""
import os
import sys

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
STRICT_ENV = "MM2_ADVISOR_STRICT"


def _load_source(module_name, path):
    """Load a Python file as a module, the way Ambari's own advisors do (imp where it exists)."""
    try:
        import imp
    except ImportError:  # Python 3.12+ has no imp
        imp = None
    if imp is not None:
        with open(path, "rb") as fp:
            return imp.load_module(module_name, fp, path, (".py", "rb", imp.PY_SOURCE))
    import importlib.util
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def _parent_candidates():
    # Ambari's StackAdvisorRunner exports BASE_SERVICE_ADVISOR (2.7.x and 3.x). Without it: the
    # physical mpack location resources/mpacks/<mpack>/common-services/<SVC>/<VER>/ is five levels
    # below resources/; a service copied straight into resources/common-services/ is three.
    real_dir = os.path.dirname(os.path.realpath(__file__))
    candidates = [os.environ.get("BASE_SERVICE_ADVISOR")]
    for base, depth in ((real_dir, 5), (SCRIPT_DIR, 3)):
        candidates.append(os.path.normpath(os.path.join(base, *([".."] * depth + ["stacks", "service_advisor.py"]))))
    return [c for c in candidates if c]


def _load_parent():
    for path in _parent_candidates():
        if os.path.isfile(path):
            return _load_source("service_advisor", path)
    raise ImportError("MirrorMaker 2 advisor: Ambari's stacks/service_advisor.py not found (tried %s)"
                      % ", ".join(_parent_candidates()))


def _import_core():
    """Import mm2_core from package/scripts next to this file (where build.py puts the agent package).

    The directory goes first on sys.path for the import only, so a different mm2_core elsewhere on
    the server (e.g. the off-cluster CLI installed with pip) cannot win, and the agent scripts that
    sit beside mm2_core do not shadow anything afterwards.
    """
    scripts = os.path.join(SCRIPT_DIR, "package", "scripts")
    sys.path.insert(0, scripts)
    try:
        from mm2_core.advisor import advice
        from mm2_core.config import local_kafka, names, problems
        from mm2_core.kafka import versions
        from mm2_core.model import parse, placement, resolved
        from mm2_core.rendering import render
        return advice, local_kafka, names, parse, placement, problems, render, resolved, versions
    finally:
        if scripts in sys.path:
            sys.path.remove(scripts)


service_advisor = _load_parent()
advice, local_kafka, names, parse, placement, problems, render, resolved, versions = _import_core()


def _properties(configurations, config_type):
    """{"type": {"properties": {...}}} -> {...} (a copy, never None)."""
    site = (configurations or {}).get(config_type) or {}
    return dict(site.get("properties") or {})


def _plain(configurations):
    return dict((t, _properties(configurations, t)) for t in (configurations or {}))


class KAFKA_MIRRORMAKER2100ServiceAdvisor(service_advisor.ServiceAdvisor):
    """Recommendations and validation for MirrorMaker 2 (class name: names.ADVISOR_CLASS)."""

    def __init__(self, *args, **kwargs):
        super(KAFKA_MIRRORMAKER2100ServiceAdvisor, self).__init__(*args, **kwargs)

    # --- Ambari entry points (exception-safe) -------------------------------------------------

    def getServiceComponentLayoutValidations(self, services, hosts):
        return self._guarded("component layout validation", self._layout_items, services, hosts,
                             fallback=self._layout_failure_items)

    def getServiceConfigurationRecommendations(self, configurations, clusterData, services, hosts):
        self._guarded("configuration recommendation", self._recommend, configurations, services, hosts,
                      fallback=lambda exc: None)

    def getServiceConfigurationsValidationItems(self, configurations, recommendedDefaults, services, hosts):
        return self._guarded("configuration validation", self._validation_items, configurations,
                             services, hosts, fallback=self._validation_failure_items)

    def _guarded(self, what, method, *args, **kwargs):
        try:
            return method(*args)
        except Exception as exc:
            if os.environ.get(STRICT_ENV) == "1":
                raise
            # The traceback names code, not configuration values, so no secret reaches the log.
            self.logger.exception("MirrorMaker 2 advisor: %s failed", what)
            return kwargs["fallback"](exc)

    def _validation_failure_items(self, exc):
        item = self.getWarnItem(
            "The MirrorMaker 2 advisor could not check the configuration (%s; details in "
            "ambari-server.log). The agent validates again at configure time; if the error "
            "persists, report it with that log." % type(exc).__name__)
        return self.toConfigurationValidationProblems(
            [{"config-name": "topology.mode", "item": item}], names.CLUSTERS)

    def _layout_failure_items(self, exc):
        return [{"type": "host-component", "level": "WARN", "component-name": names.COMPONENT,
                 "message": "The MirrorMaker 2 advisor could not check the host layout (%s; details "
                            "in ambari-server.log)." % type(exc).__name__}]

    # --- reading Ambari's advisor input ---------------------------------------------------------

    def _cluster_name(self, hosts):
        # services.json carries no cluster name; hosts.json does for hosts already in a cluster
        # (Hosts/cluster_name, empty in the install wizard before the cluster exists).
        for item in (hosts or {}).get("items") or []:
            name = (item.get("Hosts") or {}).get("cluster_name")
            if name:
                return name
        return None

    def _cluster_kafka_version(self, services):
        """The KAFKA service's version when the cluster runs (or is adding) one, else None."""
        for service in (services or {}).get("services") or []:
            info = service.get("StackServices") or {}
            if info.get("service_name") == names.KAFKA_SERVICE:
                return info.get("service_version")
        return None

    def _stack_kafka_version(self, services):
        """The cluster's KAFKA version, else that of the Kafka package the stack installs on drivers."""
        stack = (services or {}).get("Versions") or {}
        return advice.stack_kafka_version(self._cluster_kafka_version(services), stack.get("stack_name"),
                                          stack.get("stack_version"))

    def _current(self, services, recommended=None):
        """Plain {type: {name: value}} of the advisor input; other services' fresh recommendations win
        for their own types (e.g. KAFKA's advisor switching listeners to SASL for Kerberos)."""
        current = _plain((services or {}).get("configurations"))
        for config_type, props in _plain(recommended).items():
            if config_type not in names.OWN_CONFIG_TYPES:
                current.setdefault(config_type, {}).update(props)
        return current

    def _local_kafka(self, services, current):
        brokers = self.getHostsForComponent(services, names.KAFKA_SERVICE, names.KAFKA_BROKER)
        ranger = (current.get("ranger-kafka-plugin-properties") or {}).get("ranger-kafka-plugin-enabled", "")
        return local_kafka.describe_local_kafka(
            brokers, current.get("kafka-broker"), current.get("kafka-env"),
            security_enabled=self.isSecurityEnabled(services),
            ranger_kafka_enabled=ranger.strip().lower() == "yes")

    # --- recommendations --------------------------------------------------------------------------

    def _recommend(self, configurations, services, hosts):
        current = self._current(services, configurations)
        local = self._local_kafka(services, current)
        recommended = advice.recommend(current, local, self._cluster_name(hosts))
        for config_type in sorted(recommended):
            # putProperty keeps what the operator changed in this very request (changed-configurations).
            put = self.putProperty(configurations, config_type, services)
            for name, value in sorted(recommended[config_type].items()):
                put(name, value)

    # --- validation -----------------------------------------------------------------------------

    def _validation_items(self, configurations, services, hosts):
        # Not validateListOfConfigUsingMethod: it logs every property in clear (passwords included)
        # and skips types the recommendations did not touch.
        current = self._current(services)
        current.update(_plain(configurations))
        version, origin = advice.kafka_version_for_validation(current.get(names.ENV),
                                                              self._stack_kafka_version(services))
        local = self._local_kafka(services, current)
        # The core validator: the same checks the agent runs before it writes any file.
        found = render.validate(current, version, local_kafka=local)
        found += advice.installation_problems(current.get(names.ENV), self._stack_kafka_version(services),
                                              cluster_runs_kafka=self._cluster_kafka_version(services) is not None)
        found += advice.metrics_agent_problems(current.get(names.ENV))
        if not any(p.level == problems.ERROR for p in found):
            topology = parse.build_topology(current, version, local_kafka=local)
            found += advice.listener_problems(topology, local)
        items = [(p.config_type, p.name, p.level, p.message) for p in found]
        items.extend(advice.catchup_problems(current, version, local))
        if not any(level == problems.ERROR for _, _, level, _ in items):
            items.extend(self._placement_problems(services, current, version, local))
        return self._to_items(items, version, origin)

    def _placement_problems(self, services, current, version, local):
        """Which driver host serves which target (config groups): the --clusters heartbeat pitfall,
        targets nobody serves and several drivers per target before Kafka 3.5 (KAFKA-9981)."""
        drivers = self.getHostsForComponent(services, names.SERVICE, names.COMPONENT)
        if not drivers:
            return []
        topo = parse.build_topology(current, version, local_kafka=local)
        aliases = topo.aliases
        default = placement.parse_targets((current.get(names.DRIVER) or {}).get("target.clusters"))
        # Unknown aliases in the default value are the core validator's to report.
        default = [alias for alias in default if alias in aliases]
        groups = []
        for group in (services or {}).get("config-groups") or []:
            props = _properties(group.get("configurations"), names.DRIVER)
            if "target.clusters" in props:
                groups.append((group.get("hosts") or [], props["target.clusters"]))
        targets = advice.host_targets(drivers, ",".join(default), groups)
        flows = [(f.source, f.target) for f in topo.enabled_flows]
        from mm2_core.connect import connect_mode
        if connect_mode.run_mode(current) == connect_mode.CONNECT:
            return connect_mode.placement_problems(flows, targets)
        findings = placement.check_placement(
            aliases, flows, targets, topo.version.key,
            emits_heartbeats=resolved.resolve(topo).emits_heartbeats)
        return [(f.config_type, f.property, f.level, f.message) for f in findings]

    def _to_items(self, problems, version, origin):
        """[(config type, property, level, message)] -> Ambari validation items, grouped by type."""
        by_type = {}
        for config_type, name, level, message in problems:
            name, message = advice.ambari_property(config_type, name, message)
            if version in message and origin.startswith("assumed"):
                message = "%s (Kafka %s is assumed: set %s/kafka_version_override to the version MM2 runs)" % (
                    message, version, names.ENV)
            item = self.getErrorItem(message) if level == "ERROR" else self.getWarnItem(message)
            by_type.setdefault(config_type or names.CLUSTERS, []).append(
                {"config-name": name or "topology.mode", "item": item})
        items = []
        for config_type in sorted(by_type):
            items.extend(self.toConfigurationValidationProblems(by_type[config_type], config_type))
        return items

    # --- layout ---------------------------------------------------------------------------------

    def _layout_items(self, services, hosts):
        items = self.getServiceComponentCardinalityValidations(services, hosts, names.SERVICE)
        drivers = self.getHostsForComponent(services, names.SERVICE, names.COMPONENT)
        if len(drivers) > 1:
            current = self._current(services)
            version, origin = advice.kafka_version_for_validation(current.get(names.ENV),
                                                                  self._stack_kafka_version(services))
            try:
                too_old = not versions.supports(version, versions.MULTI_NODE)
            except ValueError:
                too_old = False
            if too_old:
                # Config groups (per-host target clusters) come after host assignment, so only warn here.
                items.append({
                    "type": "host-component", "level": "WARN", "component-name": names.COMPONENT,
                    "message": "%d %s hosts with Kafka %s (%s): before Kafka %s several drivers must not "
                               "serve the same target cluster (KAFKA-9981: new topics and config changes "
                               "are not replicated). Give each host its own %s/target.clusters through "
                               "config groups, or keep one driver host." % (
                                   len(drivers), names.COMPONENT_DISPLAY_NAME, version, origin,
                                   versions.feature_first(versions.MULTI_NODE), names.DRIVER)})
        return items


assert KAFKA_MIRRORMAKER2100ServiceAdvisor.__name__ == names.ADVISOR_CLASS
