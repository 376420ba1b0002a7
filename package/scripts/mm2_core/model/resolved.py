"""Each flow's effective settings, decided in one place from the parsed Topology.

MirrorMaker 2 reads a flow's setting ``K`` as ``<src>-><tgt>.K`` first, then the top-level ``K``, then
its default (MirrorMakerConfig.clusterPairs / connectorBaseConfig). The model has more places a value
can come from, and this module ranks them once, in that spirit:

1. ``<src>-><tgt>.K`` in kafka-mm2-custom, or ``K`` under the flow's YAML ``config:``;
2. the flow's own setting (YAML flow field);
3. ``K`` in kafka-mm2-custom;
4. the global setting (kafka-mm2-replication, YAML ``settings:``);
5. MirrorMaker 2's default.

``resolve(topo)`` answers for every enabled flow: replication policy and separator, the heartbeat,
checkpoint and offset-sync flags, the replication settings as this Kafka version names and reads them
(``FlowSettings.values``, and ``entries``: the ``<src>-><tgt>.K`` keys where the flow differs from the
top level), the cluster-level settings of each cluster (``cluster_entries``), the top-level ones
(``settings``), and which herder pairs exist (a pair that is no flow still gets a herder when it emits
heartbeats, KAFKA-10710; ``quiet_pairs``: the pairs whose heartbeats no flow carries, turned off). The renderer writes these answers as they are; the advisor's placement checks,
the agent and the alerts read them too; none of them ranks the places again.
"""
from mm2_core.config import names, schema
from mm2_core.config.config_values import parse_bool, parse_int, text
from mm2_core.host import kafka_tools
from mm2_core.kafka import replication_policy, versions
from mm2_core.model.topology import BOOLEAN_SETTINGS, FLOW_SETTINGS, INT_SETTINGS

EMIT_HEARTBEATS = "emit.heartbeats.enabled"
HEARTBEATS_REPLICATION = "heartbeats.replication.enabled"
EMIT_CHECKPOINTS = "emit.checkpoints.enabled"
SYNC_GROUP_OFFSETS = "sync.group.offsets.enabled"
EMIT_OFFSET_SYNCS = "emit.offset-syncs.enabled"
POLICY_CLASS = "replication.policy.class"
SEPARATOR = "replication.policy.separator"

# MM2's defaults of the flags (MirrorConnectorConfig and its subclasses). A version whose key table does
# not define a flag ignores the key, so its default holds there.
FLAG_DEFAULTS = {EMIT_HEARTBEATS: True, HEARTBEATS_REPLICATION: True, EMIT_CHECKPOINTS: True,
                 SYNC_GROUP_OFFSETS: False, EMIT_OFFSET_SYNCS: True}

# Where the clients of one flow take the cluster-level <alias>.<kind>.* overrides from, before Kafka 2.8.
_LEGACY_CLIENT_PLAN = (("source", "consumer", "consumer."), ("source", "producer", "producer."),
                       ("source", "admin", "source.admin."), ("target", "admin", "target.admin."))


class Entry(object):
    """One key MM2 reads, the value it gets and where the value came from ((config_type, property))."""
    __slots__ = ("key", "value", "origin")

    def __init__(self, key, value, origin):
        self.key, self.value, self.origin = key, value, origin

    def __repr__(self):
        return "Entry(%r, %r)" % (self.key, self.value)


def _given(value):
    return value is not None and value != ""


def setting_keys(version):
    """{kafka-mm2-replication setting: the key it has in this Kafka version (schema.Property's kafka_key under
    the version's name), or None when the version does not read it (the property's gate)}."""
    found = _SETTING_KEYS.get(str(version))
    if found is None:
        found = _SETTING_KEYS[str(version)] = dict(
            (p.name, versions.renamed_key(version, p.kafka_key) if p.read_by(version) else None)
            for p in schema.REPLICATION.properties if p.kafka_key is not None)
    return found


_SETTING_KEYS = {}   # version -> setting_keys(version): a handful of versions per process


def setting_key(version, name):
    """The key of one kafka-mm2-replication setting in this Kafka version (None: the version does not read it)."""
    return setting_keys(version)[name]


def kafka_value(name, value):
    """A setting's value in Kafka's form (booleans true/false, whole numbers without padding)."""
    if name in BOOLEAN_SETTINGS:
        return "true" if parse_bool(value) else "false"
    if name in INT_SETTINGS:
        number = parse_int(value)
        return str(number) if number is not None else text(value)
    return text(value)


def setting_value(topo, name, value):
    """A setting's value as MM2 gets it: Kafka's form, Ranger's ACL rule applied."""
    if name == "sync.topic.acls.enabled" and topo.ranger:
        value = "false"   # Ranger authorizes Kafka: MM2's ACL sync would only log errors
    return kafka_value(name, value)


def _flow_setting_names():
    """{Kafka key (every name it had): the flow-scoped kafka-mm2-replication setting that sets it}."""
    found = {}
    for prop in schema.REPLICATION.properties:
        if prop.scope == schema.FLOW:
            rename = versions.rename_of(prop.kafka_key)
            for key in (rename.new, rename.old) if rename is not None else (prop.kafka_key,):
                found[key] = prop.name
    return found


_SETTING_OF_KEY = _flow_setting_names()


def pair_entry(topo, source, target, key, flow=None):
    """(value, origin) of ``key`` for the pair source->target: the value MM2 uses (None: MM2's default), by the one
    precedence of this module: what the user wrote for the pair (custom ``A->B.K``, the flow's YAML ``config:``),
    the flow's own setting, custom ``K``, the global setting (both in Kafka's form); origin is the
    (config_type, property) that sets it (None where nothing does)."""
    pair_key = "%s->%s.%s" % (source, target, key)
    if pair_key in topo.custom:      # written as it is, even empty (an empty list is a value)
        return topo.custom[pair_key], (names.CUSTOM, topo.custom_names.get(pair_key, pair_key))
    if flow is not None and key in flow.overrides:
        return flow.overrides[key], (flow.origin[0], "%s.config.%s" % (flow.origin[1], key))
    name = _SETTING_OF_KEY.get(key)
    if flow is not None and name in flow.settings:
        return setting_value(topo, name, flow.settings[name]), (flow.origin[0], "%s.%s" % (flow.origin[1], name))
    if key in topo.custom:
        return topo.custom[key], (names.CUSTOM, topo.custom_names.get(key, key))
    if name is not None:
        return setting_value(topo, name, topo.settings.get(name)), topo.setting_origins.get(
            name, (names.REPLICATION, name))
    value = topo.settings.get(key)
    return (value, topo.setting_origins.get(key)) if _given(value) else (None, None)


def pair_value(topo, source, target, key, flow=None):
    """The value MM2 uses for ``key`` of the pair source->target (None: MM2's default): pair_entry's value."""
    return pair_entry(topo, source, target, key, flow)[0]


def flow_value(topo, flow, name):
    """The value MM2 uses for ``flow`` of the kafka-mm2-replication setting ``name`` (None: this Kafka
    version does not read it)."""
    key = setting_key(topo.version, name)
    return None if key is None else pair_value(topo, flow.source, flow.target, key, flow)


def flow_setting(topo, flow, name):
    """flow_value, or the setting's declared default (config.schema) where nothing sets it or this Kafka version
    does not read it (MM2's own default then holds, which the declared default is)."""
    value = flow_value(topo, flow, name)
    return value if _given(value) else schema.REPLICATION[name].default


def flow_int(topo, flow, name):
    """A whole-number setting of the flow (flow_setting); its declared default where the value is not one."""
    number = parse_int(flow_setting(topo, flow, name))
    return number if number is not None else int(schema.REPLICATION[name].default)


def topic_filter(topo, flow):
    """The flow's topic filter as MM2 reads it (its ``topics`` and ``topics.exclude``)."""
    return kafka_tools.TopicFilter(flow_value(topo, flow, "topics"), flow_value(topo, flow, "topics.exclude"))


def replicated_topic(topo, flow, topic):
    """Whether the flow replicates source topic `topic`: its topic filter matches, it is not internal, and it did
    not come from the flow's target (MM2's cycle check)."""
    return bool(topic_filter(topo, flow).matches(topic)) and not kafka_tools.is_internal_topic(topic) and \
        not replication_policy.is_cycle(topic, flow.target, topo.policy, topo.separator)


def pair_flag(topo, source, target, key, flow=None):
    """A boolean flag of the pair as this Kafka version reads it."""
    default = FLAG_DEFAULTS[key]
    if not versions.key_defined(topo.version, key):
        return default
    value = parse_bool(pair_value(topo, source, target, key, flow))
    return default if value is None else value


class FlowSettings(object):
    """One enabled flow's effective settings."""

    def __init__(self, topo, flow):
        self.flow = flow
        self.version = topo.version
        self.source = flow.source
        self.target = flow.target
        self.name = flow.name
        policy_class = pair_value(topo, flow.source, flow.target, POLICY_CLASS, flow)
        if _given(policy_class):
            identity = str(policy_class).strip().endswith("IdentityReplicationPolicy")
            self.policy = replication_policy.IDENTITY if identity else replication_policy.PREFIXED
        else:
            self.policy = topo.policy
        self.separator = pair_value(topo, flow.source, flow.target, SEPARATOR, flow) or topo.separator
        flags = dict((key, pair_flag(topo, flow.source, flow.target, key, flow)) for key in FLAG_DEFAULTS)
        self.emit_heartbeats = flags[EMIT_HEARTBEATS]
        # the heartbeats of A prove A->B once they reach B: emitted, and (4.0+) replicated
        self.heartbeats = flags[EMIT_HEARTBEATS] and flags[HEARTBEATS_REPLICATION]
        self.checkpoints = flags[EMIT_CHECKPOINTS]
        self.sync_group_offsets = flags[SYNC_GROUP_OFFSETS]
        self.offset_syncs = flags[EMIT_OFFSET_SYNCS]
        # the replication settings this version reads: {Kafka key: the value MM2 uses for this flow}
        keys = setting_keys(topo.version)
        self.values = dict((keys[name], pair_value(topo, flow.source, flow.target, keys[name], flow))
                           for name in FLOW_SETTINGS if keys[name] is not None)
        # the flow's own settings, written as <src>-><tgt>.K where they differ from the global value as
        # declared (before Ranger's rule); MM2 reads the top-level K otherwise
        self.entries = []
        for name, value in flow.settings.items():
            key = keys[name]
            value = setting_value(topo, name, value)
            if key is not None and value != kafka_value(name, topo.settings.get(name)):
                self.entries.append(Entry("%s.%s" % (flow.name, key), value,
                                          (flow.origin[0], "%s.%s" % (flow.origin[1], name))))
        self.client_entries = [] if versions.supports(topo.version, versions.CLUSTER_CLIENT_OVERRIDES) \
            else _legacy_client_entries(topo, flow)

    def setting(self, name):
        """The value MM2 uses for this flow of the kafka-mm2-replication setting ``name`` (None: this
        Kafka version does not read it)."""
        return self.values.get(setting_key(self.version, name))

    @property
    def identity(self):
        return self.policy == replication_policy.IDENTITY

    def __repr__(self):
        return "FlowSettings(%r)" % self.name


def _cluster_client_items(topo, alias, kind):
    """(setting, value, origin) of a cluster's <alias>.<kind>.* overrides: YAML and custom properties."""
    items = []
    cluster = topo.clusters[alias]
    for key, value in cluster.client_overrides(kind).items():
        items.append((key, value, cluster.where("%s.%s" % (kind, key))))
    prefix = "%s.%s." % (alias, kind)
    for key, value in topo.custom.items():
        if key.startswith(prefix):
            items.append((key[len(prefix):], value, (names.CUSTOM, key)))
    return items


def _legacy_client_entries(topo, flow):
    """Before 2.8 A.consumer.* / A.admin.* did not reach the replication clients: they hold per flow
    (the flow-level consumer./producer./source.admin./target.admin. prefixes work on every version)."""
    if flow.source not in topo.clusters or flow.target not in topo.clusters:
        return []
    entries = []
    for role, kind, flow_prefix in _LEGACY_CLIENT_PLAN:
        alias = flow.source if role == "source" else flow.target
        for key, value, origin in _cluster_client_items(topo, alias, kind):
            rest = flow_prefix + key
            full = "%s.%s" % (flow.name, rest)
            if rest in flow.overrides or full in topo.custom:
                continue
            entries.append(Entry(full, value, origin))
    return entries


class Resolved(object):
    """The answers of resolve(): ``flows`` (FlowSettings of the enabled flows, in order),
    ``settings`` (the top-level entries), ``cluster_entries(alias)``, ``driver_targets`` (the aliases this
    host passes as --clusters, [] for all), ``emits_heartbeats``, and the version-gated features the
    configuration turns on (``exactly_once``, ``secrets_provider``, ``internal_rest``)."""

    def __init__(self, topo):
        self.topology = topo
        self.version = version = topo.version
        self.exactly_once = topo.exactly_once and schema.REPLICATION["exactly.once.enabled"].read_by(version)
        self.secrets_provider = topo.secrets_provider
        self.internal_rest = schema.DRIVER["internal.rest.port"].read_by(version)
        self.settings = self._top_entries(topo)
        self.flows = [FlowSettings(topo, flow) for flow in topo.enabled_flows]
        self.by_name = dict((f.name, f) for f in self.flows)
        self.driver_targets = list(topo.driver_targets)
        self.quiet_pairs = self._quiet_pairs(topo)
        # looked up for every ordered pair of clusters: a list made that clusters^4 (300 clusters: hours)
        self._quiet = frozenset(self.quiet_pairs)

    def _quiet_pairs(self, topo):
        """The pairs (source, target) whose herder would only emit heartbeats nobody reads: no enabled flow, and
        not the reverse of one (the herder B->A writes into A the heartbeats the flow A->B carries to B as
        A.heartbeats). MM2 creates a herder for every ordered pair that emits heartbeats (KAFKA-10710): with 4
        clusters and 3 flows into one, 12 herders where 6 do the work, with N clusters N x (N - 1). Turned off
        with <src>-><tgt>.emit.heartbeats.enabled=false where the version creates herders only for enabled or
        heartbeat pairs, and where the operator did not set that key for the pair."""
        if not versions.supports(self.version, versions.HERDERS_FOR_ENABLED_PAIRS):
            return []
        working = set()
        for flow in topo.enabled_flows:
            working.update([(flow.source, flow.target), (flow.target, flow.source)])
        quiet = []
        for source in topo.aliases:
            for target in topo.aliases:
                pair = (source, target)
                if source == target or pair in working or \
                        "%s->%s.%s" % (source, target, EMIT_HEARTBEATS) in topo.custom:
                    continue
                if pair_flag(topo, source, target, EMIT_HEARTBEATS):
                    quiet.append(pair)
        return quiet

    def quiet_pair_entries(self):
        """<src>-><tgt>.emit.heartbeats.enabled=false for each quiet pair (see _quiet_pairs)."""
        origin = (names.CLUSTERS, "topology.mode")
        return [Entry("%s->%s.%s" % (source, target, EMIT_HEARTBEATS), "false", origin)
                for source, target in self.quiet_pairs]

    def _top_entries(self, topo):
        origins, R = topo.setting_origins, names.REPLICATION
        entries = [Entry(POLICY_CLASS, replication_policy.POLICY_CLASSES[topo.policy],
                         origins.get("replication.policy", (R, "replication.policy"))),
                   Entry(SEPARATOR, topo.separator, origins.get(SEPARATOR, (R, SEPARATOR)))]
        if topo.separator != "." and versions.supports(self.version, versions.INTERNAL_TOPIC_SEPARATOR):
            # Pin KIP-949's default so internal topic names cannot change under an upgrade.
            entries.append(Entry("replication.policy.internal.topic.separator.enabled", "true", origins.get(SEPARATOR)))
        for name in FLOW_SETTINGS:
            key = setting_key(self.version, name)
            if key is not None:
                entries.append(Entry(key, setting_value(topo, name, topo.settings.get(name)),
                                     origins.get(name, (R, name))))
        internal_rf = topo.settings.get("internal.topics.replication.factor")
        for key in schema.REPLICATION["internal.topics.replication.factor"].kafka_keys:
            entries.append(Entry(key, internal_rf, origins.get("internal.topics.replication.factor")))
        return entries

    def flow(self, name):
        return self.by_name.get(name)

    def providers(self):
        """config.providers with Kafka's FileConfigProvider first (the secrets file), then the custom ones."""
        custom = self.topology.custom.get("config.providers", "")
        listed = [n.strip() for n in custom.split(",") if n.strip()]
        if "file" not in listed:
            listed.insert(0, "file")
        return ",".join(listed)

    def cluster_entries(self, alias):
        """Settings MM2 reads per cluster <alias>.K beyond its connection and client overrides."""
        topo, version = self.topology, self.version
        origins = topo.setting_origins
        # Worker setting MM2 ignores at the top level: each herder targeting this cluster reads it here.
        entries = [Entry(alias + ".offset.flush.interval.ms", topo.settings.get("offset.flush.interval.ms"),
                         origins.get("offset.flush.interval.ms", (names.REPLICATION, "offset.flush.interval.ms")))]
        if self.exactly_once:
            origin = origins.get("exactly.once.enabled")
            if alias in topo.targets():
                entries.append(Entry(alias + ".exactly.once.source.support", "enabled", origin))
            if alias in topo.sources():
                entries.append(Entry(alias + ".consumer.isolation.level", "read_committed", origin))
        if self.secrets_provider and versions.supports(version, versions.CONFIG_PROVIDERS_WORKER_BUG):
            # KAFKA-17192: 3.5.0-3.8.0 drop the top-level config.providers from worker configs, so
            # ${file:...} in connector configs would stay unresolved; the cluster-level copy reaches them.
            entries.append(Entry(alias + ".config.providers", self.providers(),
                                 origins.get("secrets.config.provider.enabled")))
        return entries

    def emits_heartbeats(self, source, target):
        """Does the herder source->target run a heartbeat connector (a pair that is no flow included)?"""
        settings = self.by_name.get("%s->%s" % (source, target))
        if settings is not None:
            return settings.emit_heartbeats
        if (source, target) in self._quiet:
            return False
        return pair_flag(self.topology, source, target, EMIT_HEARTBEATS)


def resolve(topo):
    """Resolved answers for a parsed and validated Topology (see the module text)."""
    return Resolved(topo)
