"""The declarative replication topology, built from Ambari configurations and validated.

Three inputs, one validator:

- simple mode: kafka-mm2-clusters (one source, one target) + kafka-mm2-replication;
- advanced mode: the YAML in kafka-mm2-topology/content (N clusters, any flows, per-cluster client
  overrides, per-flow overrides); kafka-mm2-replication still gives the global defaults, which the
  YAML ``settings:`` section may override;
- free-form kafka-mm2-custom properties, passed through after the same checks.

Every problem names the config type and property (and the YAML line) and says how to fix it.
``build_topology`` raises ConfigError listing every ERROR; ``validate`` returns all problems
(errors and warnings) and also runs the renderer's checks, so the advisor, the REST tool and the
agent reject exactly the same input.
"""
import difflib
import re
from collections import OrderedDict

from mm2_core import javaprops, javaregex, names, placement, replication_policy, schema, versions, yamlish

ERROR, WARN = "ERROR", "WARN"
CLUSTERS_T, REPLICATION_T, TOPOLOGY_T, CUSTOM_T, ENV_T, DRIVER_T = (
    names.CLUSTERS, names.REPLICATION, names.TOPOLOGY, names.CUSTOM, names.ENV, names.DRIVER)

ALIAS_RE = re.compile(r"^[A-Za-z0-9_-]+$")
# First segments of top-level keys MM2 treats specially (worker prefixes, REST, client prefixes):
# an alias equal to one of them would make its cluster keys leak into other settings.
RESERVED_ALIASES = ("clusters", "config", "offset", "status", "key", "value", "header", "task", "tasks",
                    "worker", "replication", "listeners", "rest", "producer", "consumer", "admin",
                    "dedicated", "emit", "sync", "refresh", "topics", "groups", "enabled", "access",
                    "response", "metric", "auto", "use")
HOST_PORT_RE = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
FILE_REF_RE = re.compile(r"\$\{file:([^}:]+):([^}]+)\}")
ANY_REF_RE = re.compile(r"\$\{[^}]*\}")

POLICY_CLASSES = replication_policy.POLICY_CLASSES

# Connection fields of one cluster (simple mode: "<role>.<field>"; YAML: "clusters.<alias>.<field>").
CONNECTION_FIELDS = ("bootstrap.servers", "security.protocol", "sasl.mechanism", "sasl.kerberos.service.name",
                     "sasl.kerberos.principal", "sasl.kerberos.keytab", "sasl.username", "sasl.password",
                     "sasl.jaas.config", "ssl.truststore.location", "ssl.truststore.type",
                     "ssl.truststore.password", "ssl.keystore.location", "ssl.keystore.type",
                     "ssl.keystore.password", "ssl.key.password", "ssl.endpoint.identification.algorithm")
CLIENT_SECTIONS = ("producer", "consumer", "admin")
CLUSTER_YAML_FIELDS = CONNECTION_FIELDS + CLIENT_SECTIONS + ("config",)

# Replication settings that may differ per flow (rendered as <src>-><tgt>.<key> when they do).
FLOW_SETTINGS = ("topics", "topics.exclude", "groups", "groups.exclude", "sync.group.offsets.enabled",
                 "sync.group.offsets.interval.seconds", "emit.checkpoints.interval.seconds",
                 "emit.heartbeats.interval.seconds", "refresh.topics.interval.seconds",
                 "refresh.groups.interval.seconds", "sync.topic.configs.enabled", "sync.topic.acls.enabled",
                 "offset-syncs.topic.location", "replication.factor", "tasks.max")
FLOW_YAML_FIELDS = ("source", "target", "enabled", "config") + FLOW_SETTINGS
GLOBAL_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties)
BOOLEAN_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties if p.value_type == "boolean")
INT_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties if p.value_type == "int")
LIST_SETTINGS = ("topics", "topics.exclude", "groups", "groups.exclude")
TOP_LEVEL_YAML = ("clusters", "flows", "settings", "deployment")

HEARTBEAT_WARN_SECONDS = 60
CHECKPOINT_WARN_SECONDS = 600


# ---------------------------------------------------------------------------------------------
# Problems

class Problem(object):
    """One finding: config type, property name, message, level ERROR or WARN."""

    def __init__(self, config_type, name, message, level=ERROR):
        self.config_type = config_type
        self.name = name
        self.message = message
        self.level = level

    @property
    def is_error(self):
        return self.level == ERROR

    def __str__(self):
        return _native(self.__unicode__())

    def __unicode__(self):  # Python 2: unicode(problem) keeps a non-ASCII value the message echoes
        return u"%s/%s: %s" % (self.config_type, self.name, self.message)

    def __repr__(self):
        return "Problem(%r, %r, %r, %r)" % (self.config_type, self.name, self.message, self.level)

    def __eq__(self, other):
        return isinstance(other, Problem) and self.as_tuple() == other.as_tuple()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.as_tuple())

    def as_tuple(self):
        return (self.config_type, self.name, self.message, self.level)

    def to_dict(self):
        return {"config_type": self.config_type, "property": self.name, "message": self.message,
                "level": self.level}

    # Alias of ``name`` (last in the class body: it shadows the builtin from here on).
    property = property(lambda self: self.name)


class ConfigError(ValueError):
    """The configuration cannot be rendered; ``problems`` lists every error (warnings too)."""

    def __init__(self, problems):
        self.problems = list(problems)
        ValueError.__init__(self, _native(u"\n".join(p.__unicode__() for p in self.errors)))

    @property
    def errors(self):
        return [p for p in self.problems if p.level == ERROR]

    @property
    def warnings(self):
        return [p for p in self.problems if p.level != ERROR]


def problem(config_type, name, message, level=ERROR):
    """A Problem; a YAML location given as name 'content: <path>' moves into the message, so the
    property is always the real one (kafka-mm2-topology/content) for the advisor and the UI."""
    if name.startswith("content: "):
        name, message = "content", "%s: %s" % (name[len("content: "):], message)
    return Problem(config_type, name, message, level)


class _Collector(object):
    def __init__(self):
        self.problems = []

    def error(self, config_type, name, message):
        self.problems.append(problem(config_type, name, message, ERROR))

    def warn(self, config_type, name, message):
        self.problems.append(problem(config_type, name, message, WARN))

    @property
    def has_errors(self):
        return any(p.level == ERROR for p in self.problems)


# ---------------------------------------------------------------------------------------------
# Value helpers (Ambari's ConfigDictionary hands "true"/"false" over as bools)

def text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return value if isinstance(value, str) else _native(value)


def _native(value):
    try:
        return str(value)
    except UnicodeEncodeError:  # Python 2 unicode with non-ASCII text: keep it unicode
        return value


def parse_bool(value):
    """True/False for Ambari booleans (bools or 'true'/'false' in any case); None if neither."""
    if isinstance(value, bool):
        return value
    lowered = text(value).strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    return None


def parse_int(value):
    if isinstance(value, bool):
        return None
    raw = text(value).strip()
    if re.match(r"^[-+]?\d+$", raw):
        return int(raw)
    return None


def _configs(configurations, config_type):
    value = (configurations or {}).get(config_type)
    return value if isinstance(value, dict) else {}


def get(configurations, config_type, name):
    """A property's value, or the schema default when Ambari did not send it."""
    props = _configs(configurations, config_type)
    if name in props and props[name] is not None:
        return props[name]
    owned = schema.BY_NAME.get(config_type)
    if owned is not None and name in owned:
        return owned[name].default
    return None


def suggest(word, candidates):
    """' (did you mean X?)' for a likely typo, else ''."""
    lowered = dict((c.lower(), c) for c in candidates)
    if word.lower() in lowered and lowered[word.lower()] != word:
        return " (did you mean %s? keys are case-sensitive)" % lowered[word.lower()]
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.8)
    return " (did you mean %s?)" % close[0] if close else ""


# ---------------------------------------------------------------------------------------------
# Local Kafka (the default target in simple mode)

class LocalKafka(object):
    """This Ambari cluster's own Kafka, as far as MM2 needs it.

    Built from advice.describe_local_kafka's dict (hosts, broker_count, bootstrap.servers,
    security.protocol, sasl.mechanism, sasl.kerberos.service.name, ranger_kafka_enabled), or from
    a small dict with those keys (or hosts/port/protocol).
    """

    def __init__(self, bootstrap, protocol="PLAINTEXT", broker_count=None, sasl_mechanism=None,
                 kerberos_service_name=None, ranger=False, hosts=()):
        self.bootstrap = bootstrap or ""
        self.protocol = protocol or "PLAINTEXT"
        self.broker_count = broker_count
        self.sasl_mechanism = sasl_mechanism
        self.kerberos_service_name = kerberos_service_name
        self.ranger = bool(ranger)
        self.hosts = list(hosts or ())

    @classmethod
    def coerce(cls, value):
        if value is None or isinstance(value, LocalKafka):
            return value
        if isinstance(value, dict):
            hosts = list(value.get("hosts") or [])
            bootstrap = value.get("bootstrap.servers") or value.get("bootstrap") or ""
            if not bootstrap and hosts and value.get("port"):
                bootstrap = ",".join("%s:%s" % (h, value["port"]) for h in hosts)
            count = value.get("broker_count")
            if count is None and hosts:
                count = len(hosts)
            return cls(bootstrap, value.get("security.protocol") or value.get("protocol") or "PLAINTEXT",
                       count, value.get("sasl.mechanism"), value.get("sasl.kerberos.service.name"),
                       value.get("ranger_kafka_enabled") or value.get("ranger"), hosts)
        raise TypeError("local_kafka must be a dict or LocalKafka, not %r" % (value,))

    def __repr__(self):
        return "LocalKafka(%r, %r, brokers=%r)" % (self.bootstrap, self.protocol, self.broker_count)


def local_kafka_from(configurations, broker_hosts):
    """LocalKafka from Ambari configurations (kafka-broker, kafka-env, cluster-env, Ranger) and the
    KAFKA_BROKER hosts (clusterHostInfo kafka_broker_hosts); None when there are no brokers."""
    from mm2_core import advice  # the advisor's reading of kafka-broker listeners, shared
    configurations = configurations or {}
    security_enabled = parse_bool(_configs(configurations, "cluster-env").get("security_enabled")) or False
    ranger_value = text(_configs(configurations, "ranger-kafka-plugin-properties").get(
        "ranger-kafka-plugin-enabled")).strip().lower()
    described = advice.describe_local_kafka(
        broker_hosts, _configs(configurations, "kafka-broker"), _configs(configurations, "kafka-env"),
        security_enabled=security_enabled, ranger_kafka_enabled=ranger_value in ("yes", "true"))
    return LocalKafka.coerce(described)


# ---------------------------------------------------------------------------------------------
# Model

class Cluster(object):
    """One Kafka cluster: alias, connection settings and client overrides.

    ``origin`` is (config_type, property prefix) so messages can name the property to fix.
    """

    def __init__(self, alias, origin):
        self.alias = alias
        self.origin = origin
        self.connection = OrderedDict()   # CONNECTION_FIELDS present (text values)
        self.producer = OrderedDict()
        self.consumer = OrderedDict()
        self.admin = OrderedDict()
        self.extra = OrderedDict()        # other cluster-level keys (<alias>.<key>)
        self.local = False
        self.broker_count = None

    @property
    def bootstrap(self):
        return self.connection.get("bootstrap.servers", "")

    @property
    def security_protocol(self):
        return self.connection.get("security.protocol", "PLAINTEXT") or "PLAINTEXT"

    @property
    def security(self):
        return dict((k, v) for k, v in self.connection.items() if k != "bootstrap.servers")

    def client_overrides(self, kind):
        return getattr(self, kind)

    def where(self, field):
        config_type, prefix = self.origin
        return config_type, prefix + field

    def __repr__(self):
        return "Cluster(%r, %r)" % (self.alias, self.bootstrap)


class Flow(object):
    """A replication flow source -> target with its settings that differ from the global ones and
    raw per-flow connector overrides (``overrides``: key without the 'A->B.' prefix)."""

    def __init__(self, source, target, origin, enabled=True):
        self.source = source
        self.target = target
        self.origin = origin             # (config_type, property) to name in messages
        self.enabled = enabled
        self.settings = OrderedDict()    # FLOW_SETTINGS given for this flow
        self.overrides = OrderedDict()   # raw connector keys of this flow

    @property
    def name(self):
        return "%s->%s" % (self.source, self.target)

    @property
    def config(self):
        return self.overrides

    def __repr__(self):
        return "Flow(%r)" % self.name


class Topology(object):
    def __init__(self, mode, version):
        self.mode = mode
        self.version = version
        self.clusters = OrderedDict()
        self.candidates = []             # every cluster described, valid alias or not
        self.flows = []
        self.settings = OrderedDict()    # effective global settings (kafka-mm2-replication names)
        self.setting_origins = {}        # setting -> (config_type, property)
        self.custom = OrderedDict()      # kafka-mm2-custom, passed through
        self.deployment = None
        self.ranger = False
        self.problems = []

    @property
    def policy(self):
        return self.settings.get("replication.policy", "prefixed")

    @property
    def separator(self):
        return self.settings.get("replication.policy.separator", ".")

    @property
    def exactly_once(self):
        return parse_bool(self.settings.get("exactly.once.enabled")) is True

    @property
    def secrets_provider(self):
        return parse_bool(self.settings.get("secrets.config.provider.enabled")) is True

    @property
    def aliases(self):
        return list(self.clusters.keys())

    @property
    def enabled_flows(self):
        return [f for f in self.flows if f.enabled]

    @property
    def warnings(self):
        return [p for p in self.problems if p.level != ERROR]

    def targets(self):
        """Aliases that are targets of enabled flows, in flow order."""
        out = []
        for flow in self.enabled_flows:
            if flow.target not in out:
                out.append(flow.target)
        return out

    def sources(self):
        out = []
        for flow in self.enabled_flows:
            if flow.source not in out:
                out.append(flow.source)
        return out

    def flow(self, source, target):
        for flow in self.flows:
            if flow.source == source and flow.target == target:
                return flow
        return None

    def flow_setting(self, flow, name):
        if name in flow.settings:
            return flow.settings[name]
        return self.settings.get(name)

    def mirrored_topic(self, flow, topic):
        """Name of source topic ``topic`` on the target of ``flow`` under the replication policy."""
        source = flow.source if isinstance(flow, Flow) else flow[0]
        return replication_policy.remote_topic(source, topic, self.policy, self.separator)

    def __repr__(self):
        return "Topology(%s, clusters=%r, flows=%r)" % (self.mode, self.aliases, [f.name for f in self.flows])


# ---------------------------------------------------------------------------------------------
# Building

def build_topology(configurations, kafka_version, local_kafka=None):
    """Topology from Ambari configurations; raises ConfigError listing every error."""
    topo, collector = _build(configurations, kafka_version, local_kafka)
    if collector.has_errors:
        raise ConfigError(collector.problems)
    topo.problems = collector.problems
    return topo


def validate(configurations, kafka_version, local_kafka=None):
    """Every problem (ERROR and WARN) the configurations have for this Kafka version.

    Runs the same checks as rendering (with a placeholder host), so anything that would fail at
    configure time is reported here.
    """
    topo, collector = _build(configurations, kafka_version, local_kafka)
    if collector.has_errors or topo is None:
        return _unique(collector.problems)
    from mm2_core import render  # render imports topology; late import keeps the cycle harmless
    topo.problems = collector.problems
    problems = list(collector.problems)
    problems.extend(render.check_rendering(configurations, topo, "mm2-host.invalid"))
    return _unique(problems)


def _unique(problems):
    seen, out = set(), []
    for problem in problems:
        if problem.as_tuple() not in seen:
            seen.add(problem.as_tuple())
            out.append(problem)
    return out


def _build(configurations, kafka_version, local_kafka):
    collector = _Collector()
    try:
        version = versions.KafkaVersion.parse(kafka_version)
    except ValueError as exc:
        collector.error(ENV_T, "kafka_version_override", "%s" % exc)
        return None, collector
    if version < versions.MIN_VERSION:
        collector.error(ENV_T, "kafka_version_override",
                        "Kafka %s has no MirrorMaker 2 (it arrived in %s); install a Kafka %s or newer "
                        "distribution (kafka_install_source / kafka_tarball_url)"
                        % (version, versions.MIN_VERSION.line, versions.MIN_VERSION.line))
        return None, collector
    local = LocalKafka.coerce(local_kafka)
    mode = text(get(configurations, CLUSTERS_T, "topology.mode")).strip() or "simple"
    topo = Topology(mode, version)
    topo.ranger = bool(local and local.ranger)
    _global_settings(configurations, topo, collector)
    if mode == "simple":
        _simple(configurations, topo, collector, local)
    elif mode == "advanced":
        _advanced(configurations, topo, collector, local)
    else:
        collector.error(CLUSTERS_T, "topology.mode", "'%s' is not a topology mode: use simple or advanced"
                        % mode)
        return topo, collector
    _check_settings(topo, collector)
    _check_flows(topo, collector)
    for cluster in topo.candidates:
        _check_cluster(configurations, topo, cluster, collector)
    _custom(configurations, topo, collector)
    _check_driver(configurations, topo, collector)
    return topo, collector


def _global_settings(configurations, topo, collector):
    for name in GLOBAL_SETTINGS:
        topo.settings[name] = text(get(configurations, REPLICATION_T, name)).strip()
        topo.setting_origins[name] = (REPLICATION_T, name)


# --- simple mode ------------------------------------------------------------------------------

def _simple(configurations, topo, collector, local):
    props = _configs(configurations, CLUSTERS_T)
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
            cluster.connection[field] = text(value).strip()
        if role == "target":
            _apply_local(cluster, local, collector, props.get("target.security.protocol"))
        clusters.append(cluster)
    _add_clusters(topo, clusters, collector)
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


def _apply_local(cluster, local, collector, configured_protocol):
    """Empty target bootstrap: the local Ambari-managed Kafka."""
    if cluster.bootstrap:
        if local is not None and local.bootstrap and _same_brokers(cluster.bootstrap, local.bootstrap):
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


def _same_brokers(a, b):
    norm = lambda v: sorted(x.strip().lower() for x in v.split(",") if x.strip())  # noqa: E731
    return norm(a) == norm(b)


def _add_clusters(topo, clusters, collector):
    topo.candidates.extend(clusters)  # checked even when the alias is rejected: report everything at once
    seen_lower = {}
    for cluster in clusters:
        config_type, name = cluster.where("alias") if cluster.origin[0] == CLUSTERS_T else (
            cluster.origin[0], cluster.origin[1].rstrip("."))
        if not _check_alias(cluster.alias, collector, config_type, name):
            continue
        lowered = cluster.alias.lower()
        if lowered in seen_lower:
            collector.error(config_type, name,
                            "alias '%s' is used twice (aliases must differ, also in letter case: '%s'); "
                            "give each cluster its own alias" % (cluster.alias, seen_lower[lowered]))
            continue
        seen_lower[lowered] = cluster.alias
        topo.clusters[cluster.alias] = cluster


def alias_problem(alias):
    """None when ``alias`` is a usable cluster alias, else the message saying why not (for the advisor)."""
    collector = _Collector()
    _check_alias(alias, collector, "", "")
    return collector.problems[0].message if collector.problems else None


def _check_alias(alias, collector, config_type, name):
    if not ALIAS_RE.match(alias):
        collector.error(config_type, name,
                        "'%s' is not a valid cluster alias: use letters, digits, '_' and '-' only (no '.', "
                        "'->', ':' or whitespace), e.g. %s" % (alias, re.sub(r"[^A-Za-z0-9_-]+", "_", alias)
                                                              .strip("_") or "primary"))
        return False
    if "->" in alias:
        collector.error(config_type, name, "'%s' contains '->', which MM2 uses between flow aliases" % alias)
        return False
    if alias.lower() in RESERVED_ALIASES:
        collector.error(config_type, name,
                        "'%s' cannot be a cluster alias: MM2 reads keys starting with '%s.' as its own "
                        "settings; choose another name, e.g. %s-cluster" % (alias, alias, alias))
        return False
    return True


# --- advanced mode ----------------------------------------------------------------------------

def _advanced(configurations, topo, collector, local):
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
                cluster.connection[field] = text(value).strip()
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
            _apply_local(cluster, local, collector, body.get("security.protocol"))
        elif local is not None and local.bootstrap and _same_brokers(cluster.bootstrap, local.bootstrap):
            cluster.local = True
            cluster.broker_count = local.broker_count
        clusters.append(cluster)
    _add_clusters(topo, clusters, collector)
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
                    flow.overrides[text(key)] = text(item)
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
            if value and not ANY_REF_RE.search(value):
                found.append(".".join(path))

    walk(doc, [])
    for path in found:
        collector.warn(TOPOLOGY_T, "content",
                       "%s: a literal secret in the topology YAML is stored and shown by Ambari in clear; "
                       "prefer a ${file:/path/to/secrets.properties:key} reference (the rendered file is "
                       "protected either way)" % path)


# --- checks -----------------------------------------------------------------------------------

def _setting_where(topo, name):
    return topo.setting_origins.get(name, (REPLICATION_T, name))


def _check_settings(topo, collector):
    version = topo.version
    for name in BOOLEAN_SETTINGS:
        value = topo.settings.get(name, "")
        if parse_bool(value) is None:
            config_type, prop = _setting_where(topo, name)
            collector.error(config_type, prop, "'%s' is not a boolean: use true or false" % value)
    for name in INT_SETTINGS:
        _check_int_setting(topo, collector, name, topo.settings.get(name, ""), _setting_where(topo, name))
    policy = topo.settings.get("replication.policy")
    config_type, prop = _setting_where(topo, "replication.policy")
    if policy not in POLICY_CLASSES:
        collector.error(config_type, prop, "'%s' is not a replication policy: use prefixed or identity" % policy)
    elif policy == "identity" and not versions.supports(version, versions.IDENTITY_POLICY):
        collector.error(config_type, prop, "the identity policy (IdentityReplicationPolicy) needs Kafka %s or "
                        "newer, this MM2 is %s; use prefixed or a newer Kafka"
                        % (versions.feature_first(versions.IDENTITY_POLICY).line, version))
    separator = topo.settings.get("replication.policy.separator", "")
    config_type, prop = _setting_where(topo, "replication.policy.separator")
    if not separator or re.search(r"[\s,]", separator) or "->" in separator:
        collector.error(config_type, prop, "'%s' is not a usable separator: use a short non-empty string "
                                           "without spaces or commas, e.g. '.'" % separator)
    elif separator != "." and version >= "3.1.0":
        collector.warn(config_type, prop, "a separator other than '.' also renames MM2's internal topics "
                                          "since Kafka 3.1 (KIP-690); keep it unchanged after the first start")
    for name in ("sync.group.offsets.enabled",):
        if parse_bool(topo.settings.get(name)) and not versions.supports(version, versions.OFFSET_SYNC):
            config_type, prop = _setting_where(topo, name)
            collector.error(config_type, prop, "consumer offset sync needs Kafka %s or newer, this MM2 is %s; "
                            "set it to false or use a newer Kafka"
                            % (versions.feature_first(versions.OFFSET_SYNC).line, version))
    location = topo.settings.get("offset-syncs.topic.location")
    _check_location(topo, collector, location, _setting_where(topo, "offset-syncs.topic.location"))
    if topo.exactly_once and not versions.supports(version, versions.EXACTLY_ONCE):
        config_type, prop = _setting_where(topo, "exactly.once.enabled")
        collector.error(config_type, prop, "exactly-once replication needs Kafka %s or newer, this MM2 is %s; "
                        "set it to false or use a newer Kafka"
                        % (versions.feature_first(versions.EXACTLY_ONCE).line, version))
    for name in LIST_SETTINGS:
        _check_patterns(collector, _setting_where(topo, name), name, topo.settings.get(name, ""))
    _check_intervals(topo, collector, topo.settings, lambda n: _setting_where(topo, n))
    if topo.ranger and parse_bool(topo.settings.get("sync.topic.acls.enabled")):
        config_type, prop = _setting_where(topo, "sync.topic.acls.enabled")
        collector.warn(config_type, prop, "Ranger authorizes this cluster's Kafka, so MM2's ACL sync is turned "
                                          "off (sync.topic.acls.enabled=false is rendered); manage access "
                                          "with Ranger policies")


def _check_int_setting(topo, collector, name, value, where):
    config_type, prop = where
    number = parse_int(value)
    owned = schema.REPLICATION[name] if name in schema.REPLICATION else None
    if number is None:
        collector.error(config_type, prop, "'%s' is not a whole number" % value)
        return None
    if owned is not None:
        low = parse_int(owned.minimum) if owned.minimum is not None else None
        high = parse_int(owned.maximum) if owned.maximum is not None else None
        if low is not None and number < low or high is not None and number > high:
            collector.error(config_type, prop, "%d is out of range: use %s to %s%s"
                            % (number, owned.minimum, owned.maximum, " " + owned.unit if owned.unit else ""))
            return None
    if name.endswith("replication.factor") and number == 0:
        collector.error(config_type, prop, "0 is not a replication factor: use 1 or more, or -1 for the "
                                           "brokers' default.replication.factor")
        return None
    return number


def _check_location(topo, collector, location, where):
    config_type, prop = where
    if location not in ("source", "target"):
        collector.error(config_type, prop, "'%s' is not a location: use source or target" % location)
    elif location == "target" and not versions.supports(topo.version, versions.OFFSET_SYNCS_LOCATION):
        collector.error(config_type, prop, "offset-syncs.topic.location=target needs Kafka %s or newer, this "
                        "MM2 is %s; use source" % (versions.feature_first(versions.OFFSET_SYNCS_LOCATION).line,
                                                  topo.version))


def _check_patterns(collector, where, name, value):
    config_type, prop = where
    pieces = javaregex.split_list(value)
    if name in ("topics", "groups") and not pieces:
        collector.error(config_type, prop, "empty: nothing would be %s; use .* for all"
                        % ("replicated" if name == "topics" else "checkpointed"))
        return
    error = javaregex.pattern_list_error(value)
    if error:
        collector.error(config_type, prop, "%s; fix the pattern (MM2 reads comma-separated Java regexes)" % error)


def _check_intervals(topo, collector, settings, where_of):
    heartbeat = parse_int(settings.get("emit.heartbeats.interval.seconds"))
    if heartbeat is not None and heartbeat > HEARTBEAT_WARN_SECONDS:
        config_type, prop = where_of("emit.heartbeats.interval.seconds")
        collector.warn(config_type, prop, "%d s between heartbeats makes the heartbeat-gap alert slow to notice "
                                          "a stalled flow; 1-10 s is usual" % heartbeat)
    checkpoint = parse_int(settings.get("emit.checkpoints.interval.seconds"))
    sync_interval = parse_int(settings.get("sync.group.offsets.interval.seconds"))
    if checkpoint is not None and checkpoint > CHECKPOINT_WARN_SECONDS:
        config_type, prop = where_of("emit.checkpoints.interval.seconds")
        collector.warn(config_type, prop, "%d s between checkpoints means consumers may replay that much after a "
                                          "failover; 60 s is the default" % checkpoint)
    if parse_bool(settings.get("sync.group.offsets.enabled")) and checkpoint is not None and \
            sync_interval is not None and sync_interval < checkpoint:
        config_type, prop = where_of("sync.group.offsets.interval.seconds")
        collector.warn(config_type, prop, "offsets are synced from checkpoints, so syncing every %d s is no "
                                          "fresher than the %d s checkpoint interval"
                       % (sync_interval, checkpoint))


def _check_flows(topo, collector):
    seen = set()
    for flow in topo.flows:
        config_type, prop = flow.origin
        for role, alias in (("source", flow.source), ("target", flow.target)):
            if alias not in topo.clusters:
                collector.error(config_type, prop, "%s '%s' is not a cluster alias defined under clusters:%s"
                                % (role, alias, suggest(alias, topo.aliases) or
                                   " (defined: %s)" % ", ".join(topo.aliases)))
        if flow.source == flow.target:
            collector.error(config_type, prop, "source and target are both '%s'; a flow needs two clusters"
                            % flow.source)
        if (flow.source, flow.target) in seen:
            collector.error(config_type, prop, "the flow %s is listed twice; merge the two entries" % flow.name)
        seen.add((flow.source, flow.target))
        # Per-flow settings: same checks as the global ones.
        for name, value in flow.settings.items():
            where = (config_type, "%s.%s" % (prop, name) if config_type == TOPOLOGY_T else prop)
            if name in BOOLEAN_SETTINGS and parse_bool(value) is None:
                collector.error(where[0], where[1], "'%s' is not a boolean: use true or false" % value)
            elif name in INT_SETTINGS:
                _check_int_setting(topo, collector, name, value, where)
            elif name in LIST_SETTINGS:
                _check_patterns(collector, where, name, value)
            elif name == "offset-syncs.topic.location":
                _check_location(topo, collector, value, where)
            if name == "sync.group.offsets.enabled" and parse_bool(value) and \
                    not versions.supports(topo.version, versions.OFFSET_SYNC):
                collector.error(where[0], where[1], "consumer offset sync needs Kafka %s or newer, this MM2 is "
                                "%s" % (versions.feature_first(versions.OFFSET_SYNC).line, topo.version))
        _check_intervals(topo, collector, flow.settings,
                         lambda n: (config_type, "%s.%s" % (prop, n) if config_type == TOPOLOGY_T else prop))
        for key, value in flow.overrides.items():
            _check_key(topo, collector, (config_type, "%s.config.%s" % (prop, key)),
                       "%s.%s" % (flow.name, key), value, from_model=False)
    if topo.policy == "identity":
        cycle = _find_cycle(topo)
        if cycle:
            config_type, prop = _setting_where(topo, "replication.policy")
            where = (REPLICATION_T, "direction") if topo.mode == "simple" else (config_type, prop)
            collector.error(where[0], where[1], "the identity policy keeps topic names, so the loop %s would "
                            "replicate records back and forth forever; use the prefixed policy for "
                            "active-active or remove a flow of the loop" % " -> ".join(cycle))
        by_target = {}
        for flow in topo.enabled_flows:
            by_target.setdefault(flow.target, []).append(flow.source)
        for target, sources in by_target.items():
            if len(sources) > 1:
                config_type, prop = _setting_where(topo, "replication.policy")
                collector.warn(config_type, prop, "under the identity policy the same topic name from %s lands "
                               "in one topic on %s; make sure the topic sets do not overlap"
                               % (", ".join(sources), target))


def _find_cycle(topo):
    graph = OrderedDict()  # flow order, so the reported loop is stable on every Python
    for flow in topo.enabled_flows:
        graph.setdefault(flow.source, []).append(flow.target)
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if state.get(nxt) is None:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for start in list(graph):
        if state.get(start) is None:
            found = visit(start, [start])
            if found:
                return found
    return None


def _check_cluster(configurations, topo, cluster, collector):
    conn = cluster.connection
    where = cluster.where
    bootstrap = conn.get("bootstrap.servers", "")
    if not bootstrap:
        if not cluster.local:
            config_type, name = where("bootstrap.servers")
            if not any(p.config_type == config_type and p.name == name for p in collector.problems):
                collector.error(config_type, name, "empty: enter the brokers of cluster '%s' as "
                                                   "host:port,host:port" % cluster.alias)
    else:
        bad = [item.strip() for item in bootstrap.split(",") if item.strip() and not _host_port_ok(item.strip())]
        if bad or not [i for i in bootstrap.split(",") if i.strip()]:
            config_type, name = where("bootstrap.servers")
            collector.error(config_type, name, "'%s' is not a host:port list (bad: %s); write e.g. "
                            "broker1.example.com:9092,broker2.example.com:9092" % (bootstrap, ", ".join(bad)))
    protocol = conn.get("security.protocol") or "PLAINTEXT"
    if protocol not in schema.PROTOCOLS:
        config_type, name = where("security.protocol")
        collector.error(config_type, name, "'%s' is not a security protocol: use one of %s"
                        % (protocol, ", ".join(schema.PROTOCOLS)))
        return
    if protocol.startswith("SASL_"):
        _check_sasl(configurations, topo, cluster, collector)
    if protocol in ("SSL", "SASL_SSL"):
        for store in ("truststore", "keystore"):
            kind = conn.get("ssl.%s.type" % store, "JKS") or "JKS"
            if kind not in ("JKS", "PKCS12", "PEM"):
                config_type, name = where("ssl.%s.type" % store)
                collector.error(config_type, name, "'%s' is not a store type: use JKS, PKCS12 or PEM" % kind)
        if not conn.get("ssl.truststore.location"):
            config_type, name = where("ssl.truststore.location")
            collector.warn(config_type, name, "empty: cluster '%s' uses %s, so the JVM's default CA certificates "
                                              "must trust its brokers; set a truststore otherwise"
                           % (cluster.alias, protocol))
        if conn.get("ssl.keystore.location") and not conn.get("ssl.keystore.password"):
            config_type, name = where("ssl.keystore.password")
            collector.error(config_type, name, "empty, but a keystore is set for cluster '%s'; enter its password "
                                               "(or clear the keystore path)" % cluster.alias)
        algorithm = conn.get("ssl.endpoint.identification.algorithm")
        if algorithm is not None and algorithm not in ("", "https"):
            config_type, name = where("ssl.endpoint.identification.algorithm")
            collector.error(config_type, name, "'%s': use https (verify broker host names) or leave it empty"
                            % algorithm)
    valid_alias = topo.clusters.get(cluster.alias) is cluster
    for kind in CLIENT_SECTIONS if valid_alias else ():
        for key, value in cluster.client_overrides(kind).items():
            origin = cluster.where("%s.%s" % (kind, key))
            _check_key(topo, collector, origin, "%s.%s.%s" % (cluster.alias, kind, key), value, from_model=False)
    for key, value in cluster.extra.items() if valid_alias else ():
        _check_key(topo, collector, cluster.where("config.%s" % key), "%s.%s" % (cluster.alias, key), value,
                   from_model=False)
    for field, value in conn.items():
        reason = javaprops.check_value(value)
        if reason:
            config_type, name = where(field)
            collector.error(config_type, name, reason)
        _check_reference(collector, where(field), value)
    if cluster.broker_count:
        _check_rf_against_brokers(topo, cluster, collector)


def _host_port_ok(item):
    match = HOST_PORT_RE.match(item)
    return bool(match) and 0 < int(match.group(2)) < 65536


def _check_rf_against_brokers(topo, cluster, collector):
    count = cluster.broker_count
    checks = [("internal.topics.replication.factor", "its internal topics")]
    if cluster.alias in topo.targets():
        checks.append(("replication.factor", "mirrored topics"))
    for name, what in checks:
        value = parse_int(topo.settings.get(name))
        if value is not None and value > count:
            config_type, prop = _setting_where(topo, name)
            collector.error(config_type, prop, "%d is more than the %d broker(s) of cluster '%s', so %s cannot be "
                                               "created; use %d (or -1 for the brokers' default)"
                            % (value, count, cluster.alias, what, min(count, 3)))


def _check_sasl(configurations, topo, cluster, collector):
    conn = cluster.connection
    where = cluster.where
    mechanism = conn.get("sasl.mechanism") or "GSSAPI"
    if mechanism not in schema.SASL_MECHANISMS:
        config_type, name = where("sasl.mechanism")
        collector.error(config_type, name, "'%s' is not a supported SASL mechanism: use one of %s"
                        % (mechanism, ", ".join(schema.SASL_MECHANISMS)))
        return
    if conn.get("sasl.jaas.config"):
        if conn.get("sasl.username") or conn.get("sasl.password"):
            config_type, name = where("sasl.jaas.config")
            collector.error(config_type, name, "set either sasl.jaas.config or sasl.username/sasl.password for "
                                               "cluster '%s', not both" % cluster.alias)
        return
    if mechanism == "GSSAPI":
        principal = conn.get("sasl.kerberos.principal") or text(get(configurations, ENV_T, "mm2_principal_name")).strip()
        keytab = conn.get("sasl.kerberos.keytab") or text(get(configurations, ENV_T, "mm2_keytab")).strip()
        if not principal or not keytab:
            config_type, name = where("sasl.kerberos.principal")
            collector.error(config_type, name, "cluster '%s' uses Kerberos (GSSAPI) but no principal/keytab is "
                                               "known: enable Kerberos for the cluster in Ambari (it sets "
                                               "kafka-mm2-env/mm2_principal_name and mm2_keytab) or set "
                                               "sasl.kerberos.principal and sasl.kerberos.keytab for this "
                                               "cluster" % cluster.alias)
        if not conn.get("sasl.kerberos.service.name"):
            config_type, name = where("sasl.kerberos.service.name")
            collector.error(config_type, name, "empty: enter the primary of the brokers' Kerberos principal "
                                               "(usually kafka)")
    else:
        for field in ("sasl.username", "sasl.password"):
            if not conn.get(field):
                config_type, name = where(field)
                collector.error(config_type, name, "empty: cluster '%s' uses SASL %s, which needs a user name and "
                                                   "password" % (cluster.alias, mechanism))


def _check_reference(collector, where, value):
    if "${" not in value:
        return
    for ref in ANY_REF_RE.findall(value):
        if not FILE_REF_RE.match(ref) and not re.match(r"^\$\{[A-Za-z0-9_-]+:[^}]*\}$", ref):
            collector.error(where[0], where[1], "'%s' is not a config provider reference: write "
                                                "${file:/path/to/file.properties:key}" % ref)


# --- custom properties and key checks ----------------------------------------------------------

def _custom(configurations, topo, collector):
    props = _configs(configurations, CUSTOM_T)
    for key in sorted(props):
        value = props[key]
        key_text = text(key)
        if not key_text.strip():
            continue
        if key_text != key_text.strip():
            collector.error(CUSTOM_T, key_text, "the property name has leading or trailing spaces; remove them")
            continue
        value_text = text(value)
        topo.custom[key_text] = value_text
        _check_key(topo, collector, (CUSTOM_T, key_text), key_text, value_text, from_model=False)


def _check_key(topo, collector, where, key, value, from_model):
    """Check one full MM2 key (as written in the file) and its value; problems go to ``where``."""
    config_type, prop = where
    reason = javaprops.check_value(value)
    if reason:
        collector.error(config_type, prop, reason)
    if "\n" in key or "\r" in key:
        collector.error(config_type, prop, "the key contains a line break; remove it")
        return
    message = versions_check_key(topo.version, key, topo.aliases)
    if message:
        collector.error(config_type, prop, message)
        return
    for level, msg in safety_findings(topo, key, value):
        if level == ERROR:
            collector.error(config_type, prop, msg)
        else:
            collector.warn(config_type, prop, msg)
    _check_reference(collector, where, value)


def split_key(key, aliases):
    """('flow', 'A->B', rest) | ('cluster', 'A', rest) | ('top', None, key)."""
    if "->" in key:
        source, remainder = key.split("->", 1)
        if "." in remainder:
            target, rest = remainder.split(".", 1)
            return "flow", (source, target), rest
        return "flow", (source, remainder), ""
    if "." in key:
        head, rest = key.split(".", 1)
        if head in aliases:
            return "cluster", head, rest
    return "top", None, key


def versions_check_key(version, key, aliases):
    """None when the full key is one MM2 (this version) reads, else the message saying what is wrong."""
    version = versions.KafkaVersion.parse(version)
    scope, owner, rest = split_key(key, aliases)
    if scope == "flow":
        source, target = owner
        unknown = [a for a in (source, target) if a not in aliases]
        if unknown:
            return "'%s' names the flow %s->%s but '%s' is not a cluster alias (known: %s)" % (
                key, source, target, unknown[0], ", ".join(aliases))
        if not rest:
            return "'%s' has no setting after the flow name; write %s->%s.<key>" % (key, source, target)
        return _flow_key_message(version, rest, key)
    if scope == "cluster":
        return _cluster_key_message(version, rest, key, owner)
    return _top_key_message(version, key, aliases)


def _not_in_version(version, info, key):
    if version < info.first:
        return "'%s' needs Kafka %s or newer; this MM2 is %s. Remove it or use a newer Kafka%s" % (
            key, info.first.line if info.first.patch == 0 else str(info.first), version,
            _older_name_hint(info.key))
    return "'%s' was removed in Kafka %s; this MM2 is %s.%s" % (
        key, info.removed.line, version, _replacement_hint(info.key))


def _replacement_hint(name):
    if name.endswith(".blacklist"):
        return " Use %s.exclude instead" % name[:-len(".blacklist")]
    return " Remove it"


def _older_name_hint(name):
    if name.endswith(".exclude"):
        return " (before Kafka 2.7 it is called %s.blacklist)" % name[:-len(".exclude")]
    return ""


def _client_key_message(version, kind, name, key):
    table = versions.CLIENT_KINDS[kind]
    info = table.get(name)
    if info is None:
        return "'%s': '%s' is not a Kafka %s setting%s" % (key, name, kind, suggest(name, table.keys()))
    if not info.defined_in(version):
        return _not_in_version(version, info, key)
    return None


def _flow_key_message(version, rest, key):
    info = versions.MM2_KEYS.get(rest)
    if info is not None:
        if info.scope == versions.INTERNAL:
            return "'%s' is set by MM2 itself; remove it" % key
        if info.scope in (versions.MM2, versions.REST):
            return "'%s' is a top-level MM2 setting, not a per-flow one; write %s without the flow prefix" % (
                key, rest)
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if rest in versions.MM2_MANAGED_CONNECTOR_KEYS:
        return "'%s' is set by MM2 for each connector; remove it" % key
    for prefix in ("source.cluster.", "target.cluster."):
        if rest.startswith(prefix):
            return "'%s': MM2 builds %s* from the cluster's own settings; set them on the cluster" % (key, prefix)
    for kind in versions.CLIENT_KINDS:
        for prefix in (kind + ".override.", kind + "."):
            if rest.startswith(prefix):
                return _client_key_message(version, kind, rest[len(prefix):], key)
        for side in ("source.", "target."):
            if rest.startswith(side + kind + "."):
                if kind != "admin" and not versions.supports(version, versions.CLUSTER_CLIENT_OVERRIDES):
                    return "'%s': %s%s.* overrides need Kafka %s or newer; this MM2 is %s. Use %s.* on the flow" % (
                        key, side, kind, versions.feature_first(versions.CLUSTER_CLIENT_OVERRIDES).line,
                        version, kind)
                return _client_key_message(version, kind, rest[len(side + kind + "."):], key)
    if rest in versions.CONNECT_CONNECTOR_KEYS:
        if versions.connector_key_defined(version, rest, per_flow=True):
            return None
        info = versions.CONNECT_CONNECTOR_KEYS[rest]
        if rest in versions.SOURCE_ONLY_CONNECTOR_KEYS and version >= info.first:
            return "'%s' needs MM2 %s or newer (exactly-once in dedicated mode)" % (
                key, versions.feature_first(versions.EXACTLY_ONCE).line)
        return _not_in_version(version, info, key)
    if rest.split(".", 1)[0] in ("transforms", "predicates", "errors"):
        return None
    candidates = list(versions.MM2_KEYS) + list(versions.CONNECT_CONNECTOR_KEYS)
    return "'%s': '%s' is not a MirrorMaker 2 connector setting in Kafka %s%s" % (
        key, rest, version, suggest(rest, candidates))


def _cluster_key_message(version, rest, key, alias):
    info = versions.MM2_KEYS.get(rest)
    if info is not None and info.scope == versions.CLIENT:
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    for kind in versions.CLIENT_KINDS:
        if rest.startswith(kind + "."):
            name = rest[len(kind) + 1:]
            if name.startswith("override."):
                return "'%s': use %s.%s without 'override.' for a cluster, or <src>-><tgt>.%s.override.* for " \
                       "one flow" % (key, kind, name[len("override."):], kind)
            return _client_key_message(version, kind, name, key)
    if rest.startswith("ssl.") or rest.startswith("sasl."):
        table = versions.COMMON_CLIENT_KEYS
        if rest in table:
            return None if table[rest].defined_in(version) else _not_in_version(version, table[rest], key)
        return "'%s': '%s' is not a Kafka client security setting%s" % (key, rest, suggest(rest, table.keys()))
    if rest == "config.providers" or rest.startswith("config.providers."):
        return None
    if rest in versions.MM2_MANAGED_WORKER_KEYS:
        return "'%s': MM2 sets %s for each herder from the source alias; overriding it makes flows share " \
               "internal topics. Remove it" % (key, rest)
    if rest in versions.WORKER_KEYS:
        info = versions.WORKER_KEYS[rest]
        if rest == "exactly.once.source.support" and not versions.supports(version, versions.EXACTLY_ONCE):
            return "'%s' needs MM2 %s or newer" % (key, versions.feature_first(versions.EXACTLY_ONCE).line)
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if rest in versions.COMMON_CLIENT_KEYS:
        return None
    if versions.mm2_key(rest) is not None:
        return "'%s': %s is a connector setting, not a cluster one; write it at the top level or per flow " \
               "as <src>-><tgt>.%s" % (key, rest, rest)
    candidates = list(versions.WORKER_KEYS) + [k for k, i in versions.MM2_KEYS.items() if i.scope == versions.CLIENT]
    return "'%s': '%s' is not a setting MM2 reads for cluster '%s' in Kafka %s%s" % (
        key, rest, alias, version, suggest(rest, candidates))


def _top_key_message(version, key, aliases):
    info = versions.MM2_KEYS.get(key)
    if info is not None:
        if info.scope == versions.INTERNAL:
            return "'%s' is set by MM2 itself; remove it" % key
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if key.startswith("config.providers.") or key.startswith("replication.policy."):
        return None
    if key in versions.CONNECT_CONNECTOR_KEYS:
        if key in versions.SOURCE_ONLY_CONNECTOR_KEYS:
            return "'%s' only works per flow: write <src>-><tgt>.%s" % (key, key)
        if key in versions.MM2_MANAGED_CONNECTOR_KEYS:
            return "'%s' is set by MM2 for each connector; remove it" % key
        info = versions.CONNECT_CONNECTOR_KEYS[key]
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if key.split(".", 1)[0] in ("transforms", "predicates", "errors"):
        return None
    for prefix in versions.WORKER_TOP_LEVEL_PREFIXES:
        if key.startswith(prefix):
            if key in versions.MM2_MANAGED_WORKER_KEYS:
                return "'%s': MM2 sets it for each herder from the source alias; remove it" % key
            info = versions.WORKER_KEYS.get(key)
            if info is not None:
                return None if info.defined_in(version) else _not_in_version(version, info, key)
    if key.startswith("ssl.") or key.startswith("sasl."):
        table = versions.COMMON_CLIENT_KEYS
        if key in table:
            return None if table[key].defined_in(version) else _not_in_version(version, table[key], key)
    if key in versions.WORKER_KEYS:
        return "'%s' is a Connect worker setting that MM2 ignores at the top level; set it per target cluster " \
               "as <alias>.%s" % (key, key)
    for kind in versions.CLIENT_KINDS:
        if key.startswith(kind + "."):
            return "'%s' has no effect at the top level; write <alias>.%s for a cluster or " \
                   "<src>-><tgt>.%s.override.%s for one flow" % (key, key, kind, key[len(kind) + 1:])
    head = key.split(".", 1)[0]
    if "." in key and head not in aliases and ALIAS_RE.match(head) and \
            head not in ("sync", "emit", "refresh", "offset", "replication", "topics", "groups", "config",
                         "heartbeats", "checkpoints", "offset-syncs", "admin", "consumer", "metric", "use"):
        return "'%s': '%s' is not a cluster alias (known: %s) nor an MM2 setting%s" % (
            key, head, ", ".join(aliases), suggest(key, list(versions.MM2_KEYS)))
    candidates = list(versions.MM2_KEYS) + list(versions.CONNECT_CONNECTOR_KEYS)
    return "'%s' is not a MirrorMaker 2 setting in Kafka %s%s" % (key, version, suggest(key, candidates))


# --- data-safety rules ---------------------------------------------------------------------------

def _client_context(key, aliases):
    """(client kind, setting) when the key configures a Kafka client, else (None, None)."""
    scope, owner, rest = split_key(key, aliases)
    if scope == "top":
        return None, None
    for kind in CLIENT_SECTIONS:
        for prefix in (kind + ".override.", kind + ".", "source." + kind + ".", "target." + kind + "."):
            if rest.startswith(prefix):
                return kind, rest[len(prefix):]
    return None, None


def safety_findings(topo, key, value, siblings=None):
    """[(level, message)] for settings that would weaken delivery guarantees or silently do nothing."""
    findings = []
    kind, name = _client_context(key, topo.aliases)
    scope, owner, rest = split_key(key, topo.aliases)
    low = text(value).strip().lower()
    if kind == "producer":
        if name == "acks" and low not in ("all", "-1"):
            findings.append((ERROR, "acks=%s can lose records when a broker fails; MM2 (Connect) produces with "
                                    "acks=all. Remove the override" % value))
        elif name == "retries" and parse_int(value) is not None and parse_int(value) < 1:
            findings.append((ERROR, "retries=%s drops records on the first transient error; remove the override "
                                    "(Connect retries indefinitely)" % value))
        elif name == "max.in.flight.requests.per.connection":
            number = parse_int(value)
            idempotent = _sibling(topo, key, "enable.idempotence")
            if number is None or number < 1:
                findings.append((ERROR, "'%s' is not a positive number" % value))
            elif number > 1 and parse_bool(idempotent) is not True:
                findings.append((ERROR, "max.in.flight.requests.per.connection=%d without "
                                        "enable.idempotence=true can reorder records on retries; set "
                                        "enable.idempotence=true next to it or remove it" % number))
            elif number > 5:
                findings.append((ERROR, "max.in.flight.requests.per.connection=%d is more than idempotence "
                                        "allows (5)" % number))
        elif name in ("delivery.timeout.ms", "max.block.ms"):
            findings.append((WARN, "%s=%s: Connect sets it to the maximum so a send waits out a target outage; a "
                                   "finite value fails the replication task instead" % (name, value)))
        elif name == "transactional.id":
            findings.append((ERROR, "transactional.id is managed by Connect (exactly-once); remove it"))
    elif kind == "consumer":
        if name == "enable.auto.commit":
            findings.append((ERROR, "MM2 always sets enable.auto.commit=false (its positions live in the offsets "
                                    "topic); remove the override"))
        elif name == "auto.offset.reset":
            if low == "none":
                findings.append((ERROR, "auto.offset.reset=none makes replication tasks fail on new partitions; "
                                        "remove it"))
            elif low == "latest":
                findings.append((WARN, "auto.offset.reset=latest skips records written before MM2 first reads a "
                                       "partition (new topics lose their start)"))
        elif name == "isolation.level" and low == "read_uncommitted" and topo.exactly_once:
            findings.append((ERROR, "exactly-once replication needs isolation.level=read_committed on the "
                                    "source consumers; remove this override"))
        elif name == "group.id" and scope == "flow":
            findings.append((WARN, "the MM2 replication consumer uses assign(); group.id has no effect"))
    rest_name = rest if scope != "top" else key
    if scope in ("flow", "top"):
        if rest_name == "errors.tolerance" and low == "all":
            findings.append((ERROR, "errors.tolerance=all makes MM2 skip records it cannot replicate; remove it"))
        elif rest_name == "emit.heartbeats.enabled" and low == "false":
            findings.append((WARN, "without heartbeats the heartbeat-gap alert cannot tell whether the flow is "
                                   "alive"))
        elif rest_name == "enabled" and scope == "top":
            findings.append((ERROR, "a top-level enabled=... has no effect; flows are enabled one by one"))
    return findings


def _sibling(topo, key, name):
    """The value set for ``name`` next to ``key`` (same prefix), in custom properties or YAML overrides."""
    prefix = key[:key.rfind(".max.in.flight.requests.per.connection")] if \
        key.endswith(".max.in.flight.requests.per.connection") else key.rsplit(".", 1)[0]
    wanted = prefix + "." + name
    if wanted in topo.custom:
        return topo.custom[wanted]
    scope, owner, rest = split_key(wanted, topo.aliases)
    if scope == "cluster" and owner in topo.clusters:
        for kind in CLIENT_SECTIONS:
            if rest.startswith(kind + "."):
                return topo.clusters[owner].client_overrides(kind).get(rest[len(kind) + 1:])
        return topo.clusters[owner].extra.get(rest)
    if scope == "flow":
        flow = topo.flow(owner[0], owner[1])
        if flow is not None:
            return flow.overrides.get(rest)
    return None


def _check_driver(configurations, topo, collector):
    targets_value = text(get(configurations, DRIVER_T, "target.clusters")).strip()
    if targets_value:
        wanted = [t for t in re.split(r"[\s,;]+", targets_value) if t]
        for alias in wanted:
            if alias not in topo.clusters:
                collector.error(DRIVER_T, "target.clusters", "'%s' is not a cluster alias%s (known: %s)"
                                % (alias, suggest(alias, topo.aliases), ", ".join(topo.aliases)))
            elif alias not in topo.targets() and topo.targets():
                collector.warn(DRIVER_T, "target.clusters", "no enabled flow targets '%s'; this host only emits "
                                                            "heartbeats into it" % alias)
    port = parse_int(get(configurations, DRIVER_T, "internal.rest.port"))
    if port is None or not 1024 <= port <= 65535:
        collector.error(DRIVER_T, "internal.rest.port", "'%s' is not a port: use 1024-65535"
                        % text(get(configurations, DRIVER_T, "internal.rest.port")))


def driver_targets(configurations, topo):
    """Aliases this host passes as --clusters (kafka-mm2-driver/target.clusters).

    [] means no --clusters: MM2's own default, every herder runs here, including the reverse
    ones that emit the heartbeats proving each flow (the placement module's rule, shared with
    the agent's start so the offline preview and the agent agree).
    """
    return placement.parse_targets(text(get(configurations, DRIVER_T, "target.clusters")))
