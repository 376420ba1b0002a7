"""What the service advisor recommends, as pure functions of plain dicts and lists.

The service advisor (common-services/KAFKA_MIRRORMAKER2/1.0.0/service_advisor.py) is a thin
adapter: it pulls plain values out of Ambari's advisor input (services.json / hosts.json), calls
these functions and writes the results back through Ambari's putProperty. Nothing here knows
Ambari's data structures, so the rules are tested directly. Stdlib only, Python 2.7 and 3.
"""
import re

from mm2_core.config import names, schema
from mm2_core.config.local_kafka import bootstrap_servers, parse_host_ports
from mm2_core.config.config_values import parse_bool
from mm2_core.config.problems import problem
from mm2_core.host import install
from mm2_core.kafka import versions
from mm2_core.advisor import catchup
from mm2_core.model import parse, placement
from mm2_core.model.topology import RESERVED_ALIASES

CLUSTERS = names.CLUSTERS
REPLICATION = names.REPLICATION

MAX_RECOMMENDED_RF = 3
ALIAS_INVALID_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_TARBALL_VERSION = re.compile(r"kafka_\d+(?:\.\d+)*-(\d+\.\d+(?:\.\d+)?)")


def alias_from_cluster_name(cluster_name):
    """A valid MM2 alias from an Ambari cluster name: letters, digits, '_' and '-' only; None if nothing is left.

    Names MM2 would read as its own settings (topology.RESERVED_ALIASES, e.g. 'config') get '-cluster'.
    """
    alias = ALIAS_INVALID_CHARS.sub("_", (cluster_name or "").strip()).strip("_-")
    if alias.lower() in RESERVED_ALIASES:
        alias += "-cluster"
    return alias or None


def recommended_replication_factor(broker_count):
    """Three replicas where the cluster has them, else as many as there are brokers."""
    if not broker_count or broker_count < 1:
        return None
    return min(MAX_RECOMMENDED_RF, int(broker_count))


def local_endpoint_for(bootstrap, local_kafka):
    """Does `bootstrap` point at the local Kafka? Returns the endpoint dict to recommend, or None.

    Empty means "the local Kafka" (see the property description). A value naming only local
    brokers on one port is local too: the advisor refreshes the broker list (brokers added or
    moved) and takes the protocol of the listener on that port or, when no listener has that port
    any more (the listener was changed), the default endpoint again. Anything else is the
    operator's choice of another cluster and is left alone.
    """
    if not local_kafka or not local_kafka.get("bootstrap.servers"):
        return None
    if not (bootstrap or "").strip():
        return dict((k, local_kafka[k]) for k in
                    ("bootstrap.servers", "security.protocol", "sasl.mechanism", "sasl.kerberos.service.name"))
    entries, bad = parse_host_ports(bootstrap)
    if bad or not entries:
        return None
    hosts = set(local_kafka["hosts"])
    ports = set(port for _, port in entries)
    if len(ports) != 1 or not all(host in hosts for host, _ in entries):
        return None
    port = ports.pop()
    for listener in local_kafka["listeners"]:
        if listener["port"] == port:
            endpoint = {
                "bootstrap.servers": bootstrap_servers(local_kafka["hosts"], port),
                "security.protocol": listener["protocol"],
                "sasl.mechanism": None,
                "sasl.kerberos.service.name": None,
            }
            if listener["protocol"] == local_kafka["security.protocol"]:
                endpoint["sasl.mechanism"] = local_kafka["sasl.mechanism"]
                endpoint["sasl.kerberos.service.name"] = local_kafka["sasl.kerberos.service.name"]
            elif listener["protocol"].startswith("SASL_"):
                endpoint["sasl.mechanism"] = "GSSAPI" if local_kafka["security_enabled"] else None
            return endpoint
    return local_endpoint_for("", local_kafka)


_RF_PROPERTIES = ("replication.factor", "internal.topics.replication.factor")


def _rf_needs_advice(name, current, broker_count):
    """Recommend a replication factor unless the operator chose one that fits (or -1, the broker default)."""
    value = (current or "").strip()
    if value == "-1":
        return False
    if not value.isdigit():
        return True
    return int(value) > broker_count or value == schema.REPLICATION[name].default


def recommend(current, local_kafka=None, cluster_name=None):
    """Recommended values {config_type: {property: value}} given the current configurations.

    current: {config_type: {property: value}} as the operator has them now (missing types are fine).
    local_kafka: describe_local_kafka(...) or None when the cluster has no Kafka brokers.
    cluster_name: the Ambari cluster name when known.
    Only properties with a recommendation appear; values are strings, as Ambari stores them.
    """
    clusters = current.get(CLUSTERS) or {}
    replication = current.get(REPLICATION) or {}
    out = {}

    def put(config_type, name, value):
        if value is not None:
            out.setdefault(config_type, {})[name] = str(value)

    simple = (clusters.get("topology.mode") or "simple").strip() == "simple"
    target_local = False
    if simple and local_kafka:
        endpoint = local_endpoint_for(clusters.get("target.bootstrap.servers"), local_kafka)
        if endpoint:
            target_local = True
            for key, value in sorted(endpoint.items()):
                put(CLUSTERS, "target." + key, value)
        source_local = local_endpoint_for(clusters.get("source.bootstrap.servers"), local_kafka) \
            if (clusters.get("source.bootstrap.servers") or "").strip() else None
        # The side that is this cluster's own Kafka is named after the cluster (once, when empty).
        derived = alias_from_cluster_name(cluster_name)
        for role, is_local in (("target", target_local), ("source", bool(source_local))):
            other = (clusters.get(("source" if role == "target" else "target") + ".alias") or "").strip()
            if is_local and derived and derived.lower() != other.lower() and \
                    not (clusters.get(role + ".alias") or "").strip():
                put(CLUSTERS, role + ".alias", derived)

    if target_local:
        rf = recommended_replication_factor(local_kafka["broker_count"])
        for name in _RF_PROPERTIES:
            if rf and _rf_needs_advice(name, replication.get(name), local_kafka["broker_count"]):
                put(REPLICATION, name, rf)

    if local_kafka and local_kafka.get("ranger_kafka_enabled"):
        # Ranger's authorizer does not implement Kafka's ACL API: ACL sync only fails and logs.
        put(REPLICATION, "sync.topic.acls.enabled", "false")
    # the target producers' batching that let a flow catch up after an outage (advisor/catchup.py)
    for key, value in sorted(catchup.recommend(flow_targets(current, local_kafka), current.get(names.CUSTOM)).items()):
        put(names.CUSTOM, key, value)
    return out


def flow_targets(current, local_kafka=None, version=None):
    """The target aliases of the enabled flows ([] while the topology does not parse: validation says why)."""
    if version is None:
        version = kafka_version_for_validation(current.get(names.ENV))[0]
    try:
        topo, collector = parse.parse(current, version, local_kafka)
    except Exception:  # the advisor degrades: a broken topology is the validator's to report
        return []
    if topo is None or collector.has_errors:
        return []
    return sorted(set(f.target for f in topo.enabled_flows))


def catchup_problems(current, version, local_kafka=None):
    """[(config type, property, level, message)]: settings that slow down a catch-up after an outage."""
    return catchup.problems(flow_targets(current, local_kafka, version), current.get(names.CUSTOM),
                            (current.get(REPLICATION) or {}).get("tasks.max", schema.REPLICATION["tasks.max"].default))


# --- validation items ------------------------------------------------------------------------------

def ambari_property(config_type, name, message):
    """(property, message) Ambari can attach to a field of the form.

    The core names places inside a property, e.g. 'content: flows[0] (a->b)' for a line of the
    topology YAML; the UI shows an item next to the property it names, so the detail moves into
    the message and the item names the property itself.
    """
    ctype = schema.BY_NAME.get(config_type)
    if ctype is None or not ctype.properties or not name or name in ctype:
        return name, message
    for prop in sorted(ctype.properties, key=lambda p: -len(p.name)):
        if name.startswith(prop.name):
            detail = name[len(prop.name):].lstrip(":. ")
            return prop.name, ("%s: %s" % (detail, message)) if detail else message
    return name, message


# --- driver placement ----------------------------------------------------------------------------

def host_targets(driver_hosts, default_targets, config_groups=()):
    """{host: [aliases]} each driver host serves ([]: all), config groups overriding the default.

    config_groups: [(hosts, target.clusters value)] of the groups that set kafka-mm2-driver/target.clusters.
    """
    result = dict((host, placement.parse_targets(default_targets)) for host in driver_hosts)
    for hosts, value in config_groups:
        for host in hosts:
            if host in result:
                result[host] = placement.parse_targets(value)
    return result


def simple_flows(current):
    """(aliases, enabled flows) of simple mode; None in advanced mode or without both aliases."""
    clusters = current.get(CLUSTERS) or {}
    if (clusters.get("topology.mode") or "simple").strip() != "simple":
        return None
    source = (clusters.get("source.alias") or "").strip()
    target = (clusters.get("target.alias") or "").strip()
    if not source or not target or source == target:
        return None
    flows = [(source, target)]
    if ((current.get(REPLICATION) or {}).get("direction") or "").strip() == "active-active":
        flows.append((target, source))
    return [source, target], flows


# --- which Kafka version to validate for -------------------------------------------------------

# A current 3.x release, named in the messages so the operator knows to set the override.
ASSUMED_KAFKA_VERSION = dict(versions.SUPPORTED_LINES)["3.7"]


def _parse_version(value):
    try:
        return versions.KafkaVersion.parse(value) if (value or "").strip() else None
    except ValueError:
        return None


def tarball_version(location):
    """'.../kafka_2.13-3.7.1.tgz' or '/opt/kafka_2.12-2.8.2' -> '3.7.1' / '2.8.2'; None if not named so."""
    match = _TARBALL_VERSION.search(location or "")
    return match.group(1) if match else None


def kafka_version_for_validation(env, stack_kafka_version=None):
    """(version, where it came from) for the advisor's checks.

    The agent detects the real version from the installation at install time; the server side
    cannot look at hosts, so it guesses in this order:
    1. kafka-mm2-env/kafka_version_override (the operator said so);
    2. the stack's KAFKA service version, when MM2 runs from the stack's Kafka (install source
       'stack', or 'auto' with a stack Kafka that has MM2, i.e. versions.MIN_VERSION or newer);
    3. the version in the tarball file name or Kafka home directory name (kafka_2.13-3.7.1);
    4. ASSUMED_KAFKA_VERSION, a current 3.x release that the messages name so the operator can
       set the override when the guess is wrong.
    """
    env = env or {}
    override = (env.get("kafka_version_override") or "").strip()
    if override:
        return override, names.ENV + "/kafka_version_override"
    source = (env.get("kafka_install_source") or "auto").strip()
    stack = _parse_version(stack_kafka_version)
    if stack is not None and (source == "stack" or (source == "auto" and stack >= versions.MIN_VERSION)):
        return "%d.%d.%d" % stack.key, "the stack's KAFKA service version"
    for name in ("kafka_tarball_url", "kafka_home"):
        if source in ("auto", "tarball", "path"):
            found = tarball_version(env.get(name))
            if found:
                return found, names.ENV + "/" + name
    return ASSUMED_KAFKA_VERSION, "assumed: set %s/kafka_version_override" % names.ENV



# --- what the wizard can get wrong -----------------------------------------------------------------

def listener_problems(topo, local_kafka):
    """[Problem] for clusters of the model that point at this Ambari cluster's brokers on a port the
    local Kafka does not listen on, or with another security protocol than that listener's."""
    found = []
    if not local_kafka or not local_kafka.get("hosts"):
        return found
    hosts = set(h.lower() for h in local_kafka["hosts"])
    by_port = dict((l["port"], l) for l in local_kafka.get("listeners") or [])
    listing = ", ".join("%s:%s" % (l["protocol"], l["port"]) for l in local_kafka.get("listeners") or []) or "none"
    for cluster in topo.clusters.values():
        entries, _ = parse_host_ports(cluster.bootstrap)
        local_ports = sorted(set(port for host, port in entries if host.lower() in hosts))
        for port in local_ports:
            listener = by_port.get(port)
            if listener is None:
                config_type, name = cluster.where("bootstrap.servers")
                found.append(problem(config_type, name, "cluster '%s' names this Ambari cluster's brokers on port %s, "
                                                        "but the local Kafka listens on %s; use one of those ports"
                                     % (cluster.alias, port, listing)))
            elif listener["protocol"] != cluster.security_protocol:
                config_type, name = cluster.where("security.protocol")
                found.append(problem(config_type, name, "cluster '%s' uses %s, but the local Kafka's listener on port "
                                                        "%s speaks %s; set %s (or use the port of a %s listener: %s)"
                                     % (cluster.alias, cluster.security_protocol, port, listener["protocol"],
                                        listener["protocol"], cluster.security_protocol, listing)))
    return found


# Stacks whose add-on (stacks/<STACK>/KAFKA_MIRRORMAKER2/1.0.0/metainfo.xml) installs the stack's own
# Kafka package (kafka_${stack_version}) on driver hosts, and the oldest Kafka that package has: MM2 runs
# from it even when the cluster runs no KAFKA service. HDP 3.1's Kafka (2.0) has no MM2: not listed.
STACK_KAFKA_PACKAGES = {
    ("BIGTOP", "3.2.0"): "2.8.1",
    ("BIGTOP", "3.3.0"): "2.8.2",
    ("ODP", "1.0"): "3.1.0",
}


def stack_kafka_version(cluster_kafka_version, stack_name=None, stack_version=None):
    """The Kafka version MM2 gets from the stack: the cluster's KAFKA service version when it runs
    one, else the version of the Kafka package the stack's add-on installs on driver hosts, else None."""
    if cluster_kafka_version:
        return cluster_kafka_version
    return STACK_KAFKA_PACKAGES.get((stack_name, stack_version))


def installation_problems(env, stack_kafka_version, cluster_runs_kafka=None):
    """[Problem] when INSTALL would find no Kafka with MirrorMaker 2 (e.g. HDP 3.1's Kafka 2.0 and an
    empty kafka_tarball_url): said in the wizard instead of at INSTALL on every host."""
    env = env or {}
    source = (env.get("kafka_install_source") or "auto").strip()
    url = (env.get("kafka_tarball_url") or "").strip()
    stack = _parse_version(stack_kafka_version)
    stack_has_mm2 = stack is not None and stack >= versions.MIN_VERSION
    if stack is not None:
        stack_text = "the stack's Kafka is %s (MirrorMaker 2 arrived in %s)" % (stack_kafka_version,
                                                                                versions.MIN_VERSION.line)
    elif cluster_runs_kafka is False:
        stack_text = ("the cluster runs no KAFKA service and this stack has no Kafka package with MirrorMaker 2 "
                      "for the drivers")
    else:
        stack_text = "the stack has no Kafka with MirrorMaker 2"
    example = "https://archive.apache.org/dist/kafka/%s/kafka_2.13-%s.tgz" % ((ASSUMED_KAFKA_VERSION,) * 2)
    if source == "stack" and not stack_has_mm2:
        return [problem(names.ENV, "kafka_install_source", "'stack', but %s; use auto or tarball with "
                                                           "kafka_tarball_url (e.g. %s)" % (stack_text, example))]
    if source == "tarball" and not url:
        return [problem(names.ENV, "kafka_tarball_url", "empty, but kafka_install_source is tarball: enter the URL "
                                                        "or path of a Kafka %s+ tarball (e.g. %s)"
                        % (versions.MIN_VERSION.line, example))]
    if source == "auto" and not stack_has_mm2 and not url:
        return [problem(names.ENV, "kafka_tarball_url", "empty, and %s, so INSTALL would find no Kafka with "
                                                        "MirrorMaker 2: enter a Kafka %s+ tarball (e.g. %s), or, when "
                                                        "one is already unpacked at kafka_home on every MM2 host, set "
                                                        "kafka_install_source to path"
                        % (stack_text, versions.MIN_VERSION.line, example))]
    return []


def metrics_agent_problems(env):
    """[Problem] WARN while metrics are on and the exporter jar is a path on the hosts: the advisor cannot see
    the hosts' files, and neither the stacks nor the mpack ship the jar. An http(s) URL clears it (INSTALL
    downloads the jar, or fails saying why); without the jar MM2 starts anyway, without metrics."""
    env = env or {}
    enabled = env.get("mm2_metrics_enabled")
    if not parse_bool(schema.ENV["mm2_metrics_enabled"].default if enabled in (None, "") else enabled):
        return []
    setting = (env.get("jmx_exporter_jar") or "").strip()
    if install.is_url(setting):
        return []
    where = "at %s on every driver host" % setting if setting else "on every driver host"
    return [problem(names.ENV, "jmx_exporter_jar",
                    "metrics need the Prometheus JMX exporter agent %s, and neither the stack nor the mpack ships "
                    "it: put %s there, or enter its http(s) URL so Install downloads it (this warning then goes). "
                    "Without the jar MirrorMaker 2 still starts, without metrics: the MirrorMaker 2 Process alert "
                    "warns and the replication alerts are UNKNOWN. Or turn mm2_metrics_enabled off"
                    % (where, install.AGENT_JAR), level="WARN")]
