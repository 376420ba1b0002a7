"""Connect mode: MirrorMaker 2's connectors on a Kafka Connect distributed worker, rendered from the model.

Dedicated mode (connect-mirror-maker.sh) reads its flows once at start: every change is a restart of
every flow. In connect mode each driver host runs one Kafka Connect distributed worker
(connect-distributed.sh) whose internal topics live on the one target cluster the host serves, and
every flow A->T is three connectors created and changed over Connect's REST API:

    A->T.MirrorSourceConnector      records and topic configs A -> T
    A->T.MirrorCheckpointConnector  consumer offsets translated into T
    A->T.MirrorHeartbeatConnector   heartbeats written INTO A (source alias T, target alias A, its producer
                                    overridden to A), which A->T mirrors back as A.heartbeats: the same
                                    evidence as dedicated mode's reverse herder, without a second worker

Nothing here is new configuration: the worker and connector configs are computed from the properties
the dedicated renderer writes, the way MirrorMakerConfig.workerConfig / connectorBaseConfig compute
them inside a dedicated MM2 (Kafka's connect/mirror sources), so both modes replicate the same way.
Secrets never go over REST: every secret value of a connector config becomes a reference
${file:<conf>/mm2-connect-secrets.properties:<connector>/<key>} resolved by the worker's FileConfigProvider.

The REST listener is bound to 127.0.0.1 only, or serves HTTPS with Basic auth (rest_security): the control
plane is never open. A Connect group has one worker: one driver host per target in connect mode (the
advisor and START refuse more).
Pure (stdlib only, Python 2.7 and 3).
"""
from collections import OrderedDict

from mm2_core.kafka import versions
from mm2_core.config.problems import ConfigError, Problem
from mm2_core.connect.rest_security import RestSecurity
from mm2_core.model import resolved

WORKER_FILE = "connect-distributed.properties"
SECRETS_FILE = "mm2-connect-secrets.properties"
LAUNCHER = "connect-distributed.sh"
MAIN_CLASS = "org.apache.kafka.connect.cli.ConnectDistributed"
STARTED_MARKER = "Kafka Connect started"                        # Connect.start(), every version
INITIALIZING_MARKER = "Kafka Connect worker initializing"        # the distributed CLI's first line

DEDICATED, CONNECT = "dedicated", "connect"
RUN_MODES = (DEDICATED, CONNECT)

SOURCE, CHECKPOINT, HEARTBEAT = "MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector"
KINDS = (SOURCE, CHECKPOINT, HEARTBEAT)
CLASS_PACKAGE = "org.apache.kafka.connect.mirror."
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
FILE_PROVIDER_CLASS = "org.apache.kafka.common.config.provider.FileConfigProvider"

# The Connect group of the drivers serving one target; its internal topics on that target (".internal":
# MM2's default topic filter never replicates them).
GROUP_ID = "mm2-connect"   # kafka-mm2-driver/connect.group.id's default


def internal_topics(group_id):
    """(config, offset, status) topics of a connect-mode group on its target."""
    return tuple("%s-%s.internal" % (group_id, kind) for kind in ("configs", "offsets", "status"))
WORKER_TOP_LEVEL_PREFIXES = versions.WORKER_TOP_LEVEL_PREFIXES + ("replication.policy",)
CLIENT_KINDS = ("producer.", "consumer.", "admin.")


def connector_name(flow_name, kind):
    return "%s.%s" % (flow_name, kind)


def split_connector_name(name):
    """(flow name, kind) of one of our connector names, else None."""
    flow, _, kind = (name or "").rpartition(".")
    if kind in KINDS and "->" in flow:
        return flow, kind
    return None


class ConnectPlan(object):
    """What a connect-mode driver host runs: .target (the Connect cluster's alias), .worker [(key, value)],
    .connectors {name: {key: value}} (secrets as references), .secrets [(reference key, value)],
    .flows [flow names, in order], .rest_url (loopback)."""

    def __init__(self, target, worker, connectors, secrets, flows, rest_url, worker_has_secret):
        self.target = target
        self.worker = worker
        self.connectors = connectors
        self.secrets = secrets
        self.flows = flows
        self.rest_url = rest_url
        self.worker_has_secret = worker_has_secret

    def flow_connectors(self, flow_name):
        return [n for n in self.connectors if split_connector_name(n)[0] == flow_name]


def _with_prefix(raw, prefix, strip):
    out = OrderedDict()
    for key, value in raw.items():
        if key.startswith(prefix):
            out[key[len(prefix):] if strip else key] = value
    return out


def _is_client_config_name(version, key):
    """MirrorClientConfig.CLIENT_CONFIG_DEF: connection, security and replication-policy keys."""
    info = versions.MM2_KEYS.get(key)
    if info is not None:
        return info.scope == versions.CLIENT and info.defined_in(version)
    if key.startswith("ssl.") or key.startswith("sasl."):
        return key in versions.COMMON_CLIENT_KEYS
    return False


def cluster_props(raw, alias, version):
    """MirrorMakerConfig.clusterProps: <alias>.* stripped, connection keys copied to producer/consumer/admin,
    top-level connection keys as defaults."""
    props = _with_prefix(raw, alias + ".", True)
    for key in list(props.keys()):
        if _is_client_config_name(version, key):
            for kind in CLIENT_KINDS:
                props.setdefault(kind + key, props[key])
    for key, value in raw.items():
        if _is_client_config_name(version, key):
            for kind in CLIENT_KINDS:
                props.setdefault(kind + key, value)
            props.setdefault(key, value)
    return props


def _connector_config_name(version, key):
    """A top-level key the MM2 connectors' ConfigDefs define (connectorBaseConfig keeps only those)."""
    if key in ("security.protocol",) or _is_client_config_name(version, key):
        return True
    info = versions.MM2_KEYS.get(key)
    if info is not None:
        return info.scope in (versions.CONNECTOR, versions.CLIENT) and info.defined_in(version)
    return versions.connector_key_defined(version, key, False)


def connector_base_config(raw, source, target, kind, version):
    """MirrorMakerConfig.connectorBaseConfig for the pair source->target."""
    props = OrderedDict((k, v) for k, v in raw.items() if _connector_config_name(version, k))
    props.update(_with_prefix(raw, "config.providers", False))
    props.update(_with_prefix(raw, "replication.policy", False))
    for prefix, alias in (("source.", source), ("target.", target)):
        cprops = cluster_props(raw, alias, version)
        for key, value in cprops.items():
            if key.startswith(CLIENT_KINDS):
                props[prefix + key] = value
            else:
                props[prefix + "cluster." + key] = value
    props.setdefault("name", kind)
    props.setdefault("connector.class", CLASS_PACKAGE + kind)
    props.setdefault("source.cluster.alias", source)
    props.setdefault("target.cluster.alias", target)
    props.update(_with_prefix(raw, "%s->%s." % (source, target), True))
    props.setdefault("enabled", "false")
    return props


def served_target(topology, problems):
    """The one target this host's Connect worker serves (its internal topics live there), or None with a
    problem naming kafka-mm2-driver/target.clusters."""
    from mm2_core.config import names
    flows = list(topology.enabled_flows)
    chosen = list(topology.driver_targets) or sorted(set(f.target for f in flows))
    if len(chosen) != 1:
        problems.append(Problem(
            names.DRIVER, "target.clusters",
            "connect mode (kafka-mm2-env/mm2_run_mode) runs one Kafka Connect worker per driver host, and a worker "
            "writes into one target cluster; this host would serve %s: give each driver host one target through a "
            "config group (kafka-mm2-driver/target.clusters)" % (", ".join(chosen) or "no target (no enabled flow)")))
        return None
    target = chosen[0]
    if target not in topology.clusters:
        problems.append(Problem(names.DRIVER, "target.clusters",
                                "this host serves %s, which is not a cluster alias (known: %s)"
                                % (target, ", ".join(sorted(topology.clusters)))))
        return None
    # A pinned target with no enabled flow into it (a failover disabled A->B on the host that serves B) keeps
    # its worker with no copying connector: the reconcile deletes the disabled flow's connectors, and the
    # failback's restore creates them again.
    return target


def plan(properties, topology, hostname, rest_port, secrets_path, group_id=GROUP_ID, security=None):
    """ConnectPlan of this host from the dedicated rendering (properties [(key, value)]); ConfigError naming
    the property when connect mode cannot serve this host's part of the topology. security: the REST
    listener's RestSecurity (loopback when None)."""
    version = topology.version
    security = security or RestSecurity()
    problems = list(security.problems(version))
    unsupported = versions.unsupported(version, versions.CONNECT_MODE, "connect mode")
    if unsupported:
        from mm2_core.config import names
        raise ConfigError([Problem(names.ENV, "mm2_run_mode", unsupported)])
    target = served_target(topology, problems)
    if problems:
        raise ConfigError(problems)
    raw = OrderedDict(properties)
    answers = resolved.resolve(topology)
    worker = _worker(raw, target, version, rest_port, group_id, security, hostname)
    connectors = OrderedDict()
    flows = []
    for flow in topology.enabled_flows:
        if flow.target != target:
            continue
        flows.append(flow.name)
        for kind in (SOURCE, CHECKPOINT):
            config = connector_base_config(raw, flow.source, target, kind, version)
            config["name"] = connector_name(flow.name, kind)
            connectors[config["name"]] = config
        if answers.emits_heartbeats(target, flow.source):
            config = connector_base_config(raw, target, flow.source, HEARTBEAT, version)
            config["name"] = connector_name(flow.name, HEARTBEAT)
            # the worker's producer writes into the Connect cluster (the target): heartbeats must land in the source
            for key, value in cluster_props(raw, flow.source, version).items():
                if key.startswith("producer."):
                    config["producer.override." + key[len("producer."):]] = value
            connectors[config["name"]] = config
    secrets = []
    for name, config in connectors.items():
        for key in list(config.keys()):
            value = config[key]
            if versions.is_secret_key(key) and value and not versions.is_provider_reference(value):
                ref = "%s/%s" % (name, key)
                secrets.append((ref, value))
                config[key] = "${file:%s:%s}" % (secrets_path, ref)
    worker_has_secret = any(versions.is_secret_key(k) and v and not versions.is_provider_reference(v)
                            for k, v in worker)
    return ConnectPlan(target, worker, connectors, secrets, flows, security.url(hostname, rest_port),
                       worker_has_secret)


def _worker(raw, target, version, rest_port, group_id, security, hostname):
    """MirrorMakerConfig.workerConfig for the target, with the connect-mode group, the REST listener (loopback,
    or HTTPS with Basic auth: rest_security) and the FileConfigProvider the connector secrets need."""
    props = cluster_props(raw, target, version)
    for prefix in WORKER_TOP_LEVEL_PREFIXES:
        props.update(_with_prefix(raw, prefix, False))
    props.update(_with_prefix(raw, "config.providers", False))
    config_topic, offset_topic, status_topic = internal_topics(group_id)
    for key, value in (("group.id", group_id), ("offset.storage.topic", offset_topic),
                       ("status.storage.topic", status_topic), ("config.storage.topic", config_topic),
                       ("key.converter", BYTE_ARRAY_CONVERTER), ("value.converter", BYTE_ARRAY_CONVERTER),
                       ("header.converter", BYTE_ARRAY_CONVERTER), ("client.id", "mm2-connect-" + target)):
        props[key] = value
    providers = [p.strip() for p in props.get("config.providers", "").split(",") if p.strip()]
    if "file" not in providers:
        providers.append("file")
    props["config.providers"] = ",".join(providers)
    props.setdefault("config.providers.file.class", FILE_PROVIDER_CLASS)
    # the control plane: loopback only, or HTTPS with Basic auth
    for key, value in security.worker_entries(hostname, rest_port):
        props[key] = value
    # heartbeat connectors send into their source through producer.override.*
    props["connector.client.config.override.policy"] = "All"
    return list(props.items())


def connector_diff(current, wanted):
    """(to_create, to_update, to_delete) names between the running connectors {name: config} and the plan's;
    configs compare as string maps (Connect returns what was PUT, plus nothing else)."""
    create = [n for n in wanted if n not in current]
    update = [n for n in wanted if n in current and dict(current[n]) != dict(wanted[n])]
    delete = [n for n in current if n not in wanted and split_connector_name(n)]
    return create, update, delete


def run_mode(configurations):
    """kafka-mm2-env/mm2_run_mode of a {type: {name: value}} map (dedicated when unset)."""
    from mm2_core.config import names
    value = str(((configurations or {}).get(names.ENV) or {}).get("mm2_run_mode") or DEDICATED).strip()
    return value if value in RUN_MODES else DEDICATED


def placement_problems(flows, host_targets):
    """[(config type, property, level, message)] of connect mode's placement rules over every driver host:
    each host serves exactly one target (the worker's internal topics live there), and a target is served by
    one host (its REST API is loopback-only, so a Connect group cannot span hosts).
    flows: enabled (source, target) pairs; host_targets: {host: [aliases]} ([] meaning every target)."""
    from mm2_core.config import names
    found = []
    all_targets = sorted(set(t for _, t in flows))
    serving = {}
    for host in sorted(host_targets):
        targets = list(host_targets[host] or all_targets)
        if len(targets) != 1:
            found.append((names.DRIVER, "target.clusters", "ERROR",
                          "Host %s: connect mode (kafka-mm2-env/mm2_run_mode) runs one Kafka Connect worker per "
                          "driver host, and a worker writes into one target cluster; this host would serve %s: give "
                          "it one target through a config group" % (host, ", ".join(targets) or "no target")))
            continue
        serving.setdefault(targets[0], []).append(host)
    for target, hosts in sorted(serving.items()):
        if len(hosts) > 1:
            found.append((names.DRIVER, "target.clusters", "ERROR",
                          "Target %s is served by %s in connect mode: a Connect worker's REST API is bound to "
                          "127.0.0.1, so its group cannot span hosts; let one host serve %s (or use dedicated mode "
                          "for several drivers per target)" % (target, ", ".join(hosts), target)))
    return found
