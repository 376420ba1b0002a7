"""Kafka versions, the MirrorMaker 2 key table per version, and feature gates.

The key table was read from Kafka's sources (the ``.define(...)`` calls of MirrorMakerConfig,
MirrorConnectorConfig, MirrorSourceConfig, MirrorCheckpointConfig, MirrorHeartbeatConfig and
MirrorClientConfig at every release tag from 2.4.1 to trunk of 2024-10, i.e. 4.0).  "first" is the
first release that defines a key and "removed" the first release that no longer does.

Everything the renderer writes is checked against this table: a key the chosen version does not
define is never written, and an option the version lacks is a validation error naming the property.
"""
import re

from mm2_core.kafka import kafka_keys


class KafkaVersion(object):
    """A Kafka release number.  Compares by (major, minor, patch); the qualifier is kept for str().

    Accepts "3.7.1", "3.9.0-rc3", "4.0.0-SNAPSHOT", "3.7" and vendor builds such as
    "2.0.0.3.1.4.0-315" (HDP) or "3.1.0.1.0.0.0-1" (ODP), whose first three numbers are Kafka's.
    """

    # The qualifier is made of separators and letters/digits only: '3.7.1;rm' is not a version.
    _RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?((?:[.\-+_~][0-9A-Za-z]+)*)\s*$")

    def __init__(self, major, minor, patch=0, qualifier=""):
        self.major, self.minor, self.patch = int(major), int(minor), int(patch)
        self.qualifier = qualifier or ""

    @classmethod
    def parse(cls, text):
        if isinstance(text, KafkaVersion):
            return text
        match = cls._RE.match(str(text or ""))
        if not match:
            raise ValueError("'%s' is not a Kafka version: expected major.minor.patch, e.g. 3.7.1"
                             % (text,))
        major, minor, patch, qualifier = match.groups()
        return cls(major, minor, patch or 0, qualifier or "")

    @property
    def key(self):
        return (self.major, self.minor, self.patch)

    @property
    def line(self):
        """The release line used in messages and golden file names: '3.7', or '4.x' from 4.0 on."""
        return "%d.x" % self.major if self.major >= 4 else "%d.%d" % (self.major, self.minor)

    def __eq__(self, other):
        return self.key == _as_version(other).key

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return self.key < _as_version(other).key

    def __le__(self, other):
        return self.key <= _as_version(other).key

    def __gt__(self, other):
        return self.key > _as_version(other).key

    def __ge__(self, other):
        return self.key >= _as_version(other).key

    def __hash__(self):
        return hash(self.key)

    def __str__(self):
        return "%d.%d.%d%s" % (self.major, self.minor, self.patch, self.qualifier)

    def __repr__(self):
        return "KafkaVersion(%r)" % str(self)


def _as_version(value):
    """KafkaVersion of a version text, a KafkaVersion or a (major, minor, patch) tuple."""
    if isinstance(value, KafkaVersion):
        return value
    if isinstance(value, (tuple, list)):
        value = ".".join(str(part) for part in value)
    return KafkaVersion.parse(value)


MIN_VERSION = KafkaVersion.parse("2.4.0")

# Representative release of each supported line (golden tests render every example for each).
SUPPORTED_LINES = (
    ("2.4", "2.4.1"),
    ("2.8", "2.8.2"),
    ("3.2", "3.2.3"),
    ("3.7", "3.7.1"),
    ("4.x", "4.0.0"),
)


# ---------------------------------------------------------------------------------------------
# Feature gates: name -> (first version, removed version or None, what it is)
EXCLUDE_KEYS = "exclude-keys"
BLACKLIST_KEYS = "blacklist-keys"
OFFSET_SYNC = "group-offset-sync"
CLUSTER_CLIENT_OVERRIDES = "cluster-client-overrides"
HERDERS_FOR_ENABLED_PAIRS = "herders-for-enabled-pairs"
IDENTITY_POLICY = "identity-policy"
OFFSET_SYNCS_LOCATION = "offset-syncs-topic-location"
WORKER_REPLICATION_POLICY = "worker-replication-policy"
INTERNAL_TOPIC_SEPARATOR = "internal-topic-separator"
INTERNAL_REST = "internal-rest"
MULTI_NODE = "multi-node"
EXACTLY_ONCE = "exactly-once"
CONFIG_PROVIDERS_WORKER_BUG = "config-providers-worker-bug"
EMIT_OFFSET_SYNCS = "emit-offset-syncs"
HEARTBEATS_REPLICATION = "heartbeats-replication"
LOG4J2 = "log4j2"
JAVA17 = "java17"
# The control plane of connect mode (MM2's connectors on a Kafka Connect distributed worker, driven over
# Connect's REST API): what each Connect version can do to a running flow.
CONNECT_MODE = "connect-mode"
CONNECT_RESTART_TASKS = "connect-restart-tasks"
CONNECT_STOP = "connect-stop"
CONNECT_OFFSETS = "connect-offsets"
CONNECT_REST_TLS_AUTH = "connect-rest-tls-auth"
PRODUCER_BOOTSTRAP_SERVER = "producer-bootstrap-server"
MM2_FORMATTERS = "mm2-formatters"
GET_OFFSETS_TOOL = "get-offsets-tool"
INTERNAL_TOPICS_USE_SEPARATOR = "internal-topics-use-separator"
JAVA8_DEPRECATED = "java8-deprecated"
TOPICS_IF_NOT_EXISTS_WITH_BOOTSTRAP = "topics-if-not-exists-with-bootstrap"
SIMPLE_GROUP_CHECKPOINTS = "simple-group-checkpoints"
OFFSET_SYNC_HISTORY = "offset-sync-history"
OFFSET_SYNC_HISTORY_ACROSS_RESTARTS = "offset-sync-history-across-restarts"
OFFSET_SYNCS_AT_COMMIT = "offset-syncs-at-commit"
CHECKPOINTS_ONLY_WHEN_CHANGED = "checkpoints-only-when-changed"
CONSOLE_COMMAND_OPTIONS = "console-command-options"
CONFIGS_DESCRIBE_ALL = "configs-describe-all"

FEATURES = {
    EXCLUDE_KEYS: ("2.7.0", None, "topics.exclude / groups.exclude / config.properties.exclude (KIP-629)"),
    BLACKLIST_KEYS: ("2.4.0", "4.0.0", "topics.blacklist / groups.blacklist / config.properties.blacklist"),
    OFFSET_SYNC: ("2.7.0", None, "sync.group.offsets.enabled (KIP-545)"),
    CLUSTER_CLIENT_OVERRIDES: ("2.8.0", None,
                               "per-cluster <alias>.consumer./producer./admin. overrides reach the "
                               "replication clients (cf202cb)"),
    HERDERS_FOR_ENABLED_PAIRS: ("2.7.1", None, "herders only for enabled or heartbeat pairs (KAFKA-10710, backported to 2.7.1)"),
    IDENTITY_POLICY: ("3.0.0", None, "IdentityReplicationPolicy (KAFKA-9726)"),
    OFFSET_SYNCS_LOCATION: ("3.0.0", None, "offset-syncs.topic.location (KIP-716)"),
    WORKER_REPLICATION_POLICY: ("3.0.0", None, "workers accept replication.policy.*"),
    INTERNAL_TOPIC_SEPARATOR: ("3.5.2", None, "replication.policy.internal.topic.separator.enabled (KIP-949)"),
    INTERNAL_REST: ("3.5.0", None, "dedicated.mode.enable.internal.rest (KIP-710)"),
    MULTI_NODE: ("3.5.0", None, "several MM2 nodes serving the same target clusters (KIP-710)"),
    EXACTLY_ONCE: ("3.5.0", None, "exactly-once replication in dedicated mode (KIP-618)"),
    CONFIG_PROVIDERS_WORKER_BUG: ("3.5.0", "3.8.1",
                                  "top-level config.providers not passed to worker configs (KAFKA-17192)"),
    EMIT_OFFSET_SYNCS: ("3.9.0", None, "emit.offset-syncs.enabled (KIP-1031)"),
    HEARTBEATS_REPLICATION: ("4.0.0", None, "heartbeats.replication.enabled (KIP-1089)"),
    LOG4J2: ("4.0.0", None, "log4j2 configuration (KIP-653)"),
    JAVA17: ("4.0.0", None, "Connect and MM2 need Java 17"),
    CONNECT_MODE: ("2.4.0", None, "MM2's connectors on a Kafka Connect distributed worker (connect mode): "
                                  "PUT /connectors/<name>/config, PUT .../pause, PUT .../resume"),
    CONNECT_RESTART_TASKS: ("3.0.0", None, "POST /connectors/<name>/restart?includeTasks=true&onlyFailed=true "
                                           "(KIP-745)"),
    CONNECT_STOP: ("3.5.0", None, "PUT /connectors/<name>/stop, the STOPPED state (KIP-875)"),
    CONNECT_OFFSETS: ("3.6.0", None, "GET/PATCH/DELETE /connectors/<name>/offsets (KIP-875)"),
    CONNECT_REST_TLS_AUTH: ("2.0.0", None, "an HTTPS REST listener (listeners.https.ssl.*, KIP-208, 1.1) with Basic "
                                           "auth by BasicAuthSecurityRestExtension (rest.extension.classes, KIP-285)"),
    PRODUCER_BOOTSTRAP_SERVER: ("2.5.0", None, "kafka-console-producer.sh --bootstrap-server (KIP-499)"),
    MM2_FORMATTERS: ("2.7.0", None, "org.apache.kafka.connect.mirror.formatters.* for the console consumer"),
    GET_OFFSETS_TOOL: ("3.0.0", None, "bin/kafka-get-offsets.sh with --command-config (KIP-635)"),
    INTERNAL_TOPICS_USE_SEPARATOR: ("3.1.0", None,
                                    "internal topic names use replication.policy.separator (KIP-690)"),
    JAVA8_DEPRECATED: ("3.0.0", "4.0.0", "Java 8 still runs Kafka but is deprecated (KIP-750)"),
    TOPICS_IF_NOT_EXISTS_WITH_BOOTSTRAP: ("2.6.0", None,
                                          "kafka-topics --create --if-not-exists together with --bootstrap-server "
                                          "(TopicCommand 2.4.0-2.5.1 refuses the pair)"),
    SIMPLE_GROUP_CHECKPOINTS: ("2.8.0", None,
                               "checkpoints of groups that commit without the group protocol (assign(), "
                               "kafka-consumer-groups --reset-offsets); 2.4-2.7 skip them (isSimpleConsumerGroup)"),
    OFFSET_SYNC_HISTORY: ("3.4.1", None,
                          "checkpoints of groups behind the latest offset sync, from the offset syncs read since the "
                          "checkpoint task started (KAFKA-14666; OffsetSyncStore's history is in the 3.4.1 jar, not "
                          "in 3.4.0); before, only groups at or past the latest offset sync are translated"),
    OFFSET_SYNC_HISTORY_ACROSS_RESTARTS: ("3.7.1", None,
                                          "the offset-sync history also covers syncs from before the checkpoint "
                                          "task's last start (KAFKA-15905: in the 3.7.1 jar, not in 3.7.0 or 3.6.2; "
                                          "on real 3.4.1 and 3.6.2 a group behind a driver restart never translated)"),
    OFFSET_SYNCS_AT_COMMIT: ("3.7.0", None,
                             "an offset sync for the last record copied, at the task's offset commit (KAFKA-15906: "
                             "delayedOffsetSyncs in the 3.7.0 jar, not in 3.6.2): a group at the end translates "
                             "exactly; from 3.4.1 to 3.6.x it translates to its latest offset sync + 1 (measured on "
                             "real 3.4.1: 302 and 403 for ends 394 and 406)"),
    CHECKPOINTS_ONLY_WHEN_CHANGED: ("3.4.1", None,
                                    "the checkpoint task emits a checkpoint only when it changed "
                                    "(checkpointIsMoreRecent); before, every interval re-emits all of them"),
    CONFIGS_DESCRIBE_ALL: ("2.5.0", None,
                           "kafka-configs.sh --describe --all: every effective value, defaults included (KIP-524); "
                           "topics with --bootstrap-server at all (2.4 answers \"Invalid entity-type topics\")"),
    CONSOLE_COMMAND_OPTIONS: ("4.2.0", None,
                              "console producer/consumer take --command-config, --command-property, "
                              "--formatter-property / --reader-property; --consumer.config, --producer.config, "
                              "--consumer-property, --producer-property and --property are deprecated (to go in "
                              "5.0) and print a warning"),
}

# Java releases each Kafka line was built and tested with: (first Kafka version, newest Java known to work).
# From 4.0 Connect needs Java 17 (JAVA17) and no newest is known to fail.
_JAVA_TESTED = (("3.6.0", 21), ("3.0.0", 17), ("2.6.0", 15), ("2.4.0", 11))


def supports(version, feature):
    """True when the Kafka version has the feature (see FEATURES)."""
    first, removed, _ = FEATURES[feature]
    version = _as_version(version)
    return version >= first and (removed is None or version < removed)


# Which per-cluster <alias>.<kind>.* client overrides MM2 reads, by kind (the feature that brings them, None: every
# version). Producer ones reach the Connect workers' task producers of the herders targeting the cluster on every
# version. Consumer and admin ones reach MM2's replication clients from 2.8 (cf202cb); before, MirrorConnectorConfig
# keeps only the connection keys of source.cluster.* / target.cluster.*, and the workers give consumer.* / admin.*
# to sink tasks only, which MM2 has none of: they hold per flow (consumer., source.admin., target.admin.).
CLUSTER_CLIENT_KINDS = {"producer": None, "consumer": CLUSTER_CLIENT_OVERRIDES, "admin": CLUSTER_CLIENT_OVERRIDES}


def cluster_client_override_read(version, kind):
    """True when this version's MM2 reads <alias>.<kind>.* overrides per cluster (kind producer/consumer/admin)."""
    feature = CLUSTER_CLIENT_KINDS[kind]
    return feature is None or supports(version, feature)


def feature_first(feature):
    return KafkaVersion.parse(FEATURES[feature][0])


def unsupported(version, feature, action):
    """None when the version has the feature, else the sentence refusing `action` (names the version,
    the feature and the first version that has it)."""
    if supports(version, feature):
        return None
    first, removed, what = FEATURES[feature]
    if removed and _as_version(version) >= removed:
        return "%s is not possible on Kafka %s: %s was removed in %s" % (action, version, what, removed)
    return "%s needs Kafka %s or newer (%s); this driver runs Kafka %s" % (action, first, what, version)


# ---------------------------------------------------------------------------------------------
# MM2 key table.  Scopes say where a key may appear in connect-mirror-maker.properties:
#   MM2        top level only (MirrorMakerConfig)
#   CONNECTOR  top level as default for every flow, or per flow as <src>-><tgt>.<key>
#   CLIENT     per cluster <alias>.<key> (also a top-level default for every cluster; connector key too)
#   REST       top level, internal REST server of dedicated mode (3.5+)
#   INTERNAL   set by MM2 itself; never written
MM2, CONNECTOR, CLIENT, REST, INTERNAL = "mm2", "connector", "client", "rest", "internal"


class KeyInfo(object):
    def __init__(self, key, first, removed, scope, secret=False):
        self.key = key
        self.first = KafkaVersion.parse(first)
        self.removed = KafkaVersion.parse(removed) if removed else None
        self.scope = scope
        self.secret = secret

    def defined_in(self, version):
        version = _as_version(version)
        return version >= self.first and (self.removed is None or version < self.removed)

    def __repr__(self):
        return "KeyInfo(%r, %s, %s, %s)" % (self.key, self.first, self.removed, self.scope)


_MM2_KEY_ROWS = (
    # key, first, removed, scope
    ("clusters", "2.4.0", None, MM2),
    ("config.providers", "2.4.0", None, MM2),
    ("dedicated.mode.enable.internal.rest", "3.5.0", None, MM2),
    ("listeners", "3.5.0", None, REST),
    ("rest.advertised.host.name", "3.5.0", None, REST),
    ("rest.advertised.port", "3.5.0", None, REST),
    ("rest.advertised.listener", "3.5.0", None, REST),
    ("access.control.allow.origin", "3.5.0", None, REST),
    ("access.control.allow.methods", "3.5.0", None, REST),
    ("response.http.headers.config", "3.5.0", None, REST),
    ("admin.listeners", "3.5.0", None, REST),
    ("rest.extension.classes", "3.5.0", None, REST),
    ("bootstrap.servers", "2.4.0", None, CLIENT),
    ("security.protocol", "2.4.0", None, CLIENT),
    ("replication.policy.class", "2.4.0", None, CLIENT),
    ("replication.policy.separator", "2.4.0", None, CLIENT),
    ("replication.policy.internal.topic.separator.enabled", "3.5.2", None, CLIENT),
    ("forwarding.admin.class", "3.4.0", None, CLIENT),
    ("enabled", "2.4.0", None, CONNECTOR),
    ("source.cluster.alias", "2.4.0", None, INTERNAL),
    ("target.cluster.alias", "2.4.0", None, INTERNAL),
    ("admin.timeout.ms", "2.4.0", None, CONNECTOR),
    ("metric.reporters", "2.4.0", None, CONNECTOR),
    ("auto.include.jmx.reporter", "3.4.0", "4.0.0", CONNECTOR),
    ("topics", "2.4.0", None, CONNECTOR),
    ("topics.exclude", "2.7.0", None, CONNECTOR),
    ("topics.blacklist", "2.4.0", "4.0.0", CONNECTOR),
    ("groups", "2.4.0", None, CONNECTOR),
    ("groups.exclude", "2.7.0", None, CONNECTOR),
    ("groups.blacklist", "2.4.0", "4.0.0", CONNECTOR),
    ("config.properties.exclude", "2.7.0", None, CONNECTOR),
    ("config.properties.blacklist", "2.4.0", "4.0.0", CONNECTOR),
    ("use.defaults.from", "3.5.0", None, CONNECTOR),
    ("use.incremental.alter.configs", "3.5.0", "4.0.0", CONNECTOR),
    ("topic.filter.class", "2.4.0", None, CONNECTOR),
    ("group.filter.class", "2.4.0", None, CONNECTOR),
    ("config.property.filter.class", "2.4.0", None, CONNECTOR),
    ("replication.factor", "2.4.0", None, CONNECTOR),
    ("heartbeats.topic.replication.factor", "2.4.0", None, CONNECTOR),
    ("checkpoints.topic.replication.factor", "2.4.0", None, CONNECTOR),
    ("offset-syncs.topic.replication.factor", "2.4.0", None, CONNECTOR),
    ("offset-syncs.topic.location", "3.0.0", None, CONNECTOR),
    ("emit.offset-syncs.enabled", "3.9.0", None, CONNECTOR),
    ("offset.lag.max", "2.4.0", None, CONNECTOR),
    ("consumer.poll.timeout.ms", "2.4.0", None, CONNECTOR),
    ("refresh.topics.enabled", "2.4.0", None, CONNECTOR),
    ("refresh.topics.interval.seconds", "2.4.0", None, CONNECTOR),
    ("refresh.groups.enabled", "2.4.0", None, CONNECTOR),
    ("refresh.groups.interval.seconds", "2.4.0", None, CONNECTOR),
    ("sync.topic.configs.enabled", "2.4.0", None, CONNECTOR),
    ("sync.topic.configs.interval.seconds", "2.4.0", None, CONNECTOR),
    ("sync.topic.acls.enabled", "2.4.0", None, CONNECTOR),
    ("sync.topic.acls.interval.seconds", "2.4.0", None, CONNECTOR),
    ("emit.heartbeats.enabled", "2.4.0", None, CONNECTOR),
    ("emit.heartbeats.interval.seconds", "2.4.0", None, CONNECTOR),
    ("heartbeats.replication.enabled", "4.0.0", None, CONNECTOR),
    ("emit.checkpoints.enabled", "2.4.0", None, CONNECTOR),
    ("emit.checkpoints.interval.seconds", "2.4.0", None, CONNECTOR),
    ("sync.group.offsets.enabled", "2.7.0", None, CONNECTOR),
    ("sync.group.offsets.interval.seconds", "2.7.0", None, CONNECTOR),
    ("add.source.alias.to.metrics", "3.5.0", "4.0.0", CONNECTOR),
    ("task.assigned.partitions", "2.4.0", None, INTERNAL),
    ("task.assigned.groups", "2.4.0", None, INTERNAL),
    ("task.index", "3.5.0", None, INTERNAL),
)

MM2_KEYS = dict((row[0], KeyInfo(*row)) for row in _MM2_KEY_ROWS)


def _parse_rows(text, scope):
    table = {}
    for line in text.strip().splitlines():
        parts = line.split()
        first = parts[1] + ".0"
        removed = parts[2] + ".0" if len(parts) > 2 else None
        table[parts[0]] = KeyInfo(parts[0], first, removed, scope)
    return table


# Connect and client keys MM2 passes through (read from Kafka's sources, see kafka_keys.py).
COMMON_CLIENT_KEYS = _parse_rows(kafka_keys.COMMON_CLIENT, "client")
PRODUCER_KEYS = dict(COMMON_CLIENT_KEYS, **_parse_rows(kafka_keys.PRODUCER, "producer"))
CONSUMER_KEYS = dict(COMMON_CLIENT_KEYS, **_parse_rows(kafka_keys.CONSUMER, "consumer"))
ADMIN_KEYS = dict(COMMON_CLIENT_KEYS, **_parse_rows(kafka_keys.ADMIN, "admin"))
WORKER_KEYS = _parse_rows(kafka_keys.WORKER, "worker")
CONNECT_CONNECTOR_KEYS = _parse_rows(kafka_keys.CONNECTOR, "connect-connector")
CLIENT_KINDS = {"producer": PRODUCER_KEYS, "consumer": CONSUMER_KEYS, "admin": ADMIN_KEYS}

# Keys of ConnectorConfig (tasks.max, errors.*, transforms ...) reach MM2 connectors from the top
# level; SourceConnectorConfig keys (exactly.once.support, transaction.boundary ...) only per flow.
SOURCE_ONLY_CONNECTOR_KEYS = ("exactly.once.support", "transaction.boundary",
                              "transaction.boundary.interval.ms", "offsets.storage.topic",
                              "topic.creation.groups")
# Set by MM2 for each connector; writing them would break the flow.
MM2_MANAGED_CONNECTOR_KEYS = ("name", "connector.class", "source.cluster.alias", "target.cluster.alias",
                              "key.converter", "value.converter", "header.converter")
# Worker keys MM2 fills in per herder from the source alias; overriding them makes herders share topics.
MM2_MANAGED_WORKER_KEYS = ("group.id", "offset.storage.topic", "status.storage.topic", "config.storage.topic",
                           "key.converter", "value.converter", "header.converter",
                           "connector.client.config.override.policy")
# Top-level key prefixes MM2 copies into every worker config (MirrorMakerConfig.workerConfig).
WORKER_TOP_LEVEL_PREFIXES = ("offset.storage", "config.storage", "status.storage", "key.converter",
                             "value.converter", "header.converter", "task", "worker")

_SECRET_SUFFIXES = ("password", "secret", "sasl.jaas.config", "ssl.keystore.key", "basic.auth.user.info")


def is_secret_key(key):
    """True when a key's value is a credential (passwords, JAAS configs, PEM private keys).

    The one rule for the renderer, the validator and mm2-ambari's masking: a value is a secret
    because of its key, never because of its content.
    """
    lowered = (key or "").lower()
    return lowered.endswith(_SECRET_SUFFIXES)


# Kafka's ConfigTransformer pattern: ${provider:[path:]key}.
_REFERENCE = re.compile(r"\$\{[A-Za-z0-9_.-]+:[^}]*\}")


def is_provider_reference(value):
    """True when the value is nothing but config provider references (${file:/path:key}), which
    name where a secret is without holding it. A value with any literal text around them, or a
    '${' that does not close, holds the secret itself."""
    value = (value or "").strip()
    return bool(value) and _REFERENCE.search(value) is not None and _REFERENCE.sub("", value).strip() == ""


# The newest line whose keys the table knows; a newer major version is refused, a newer 4.x warned.
NEWEST_KNOWN = KafkaVersion.parse("4.0.0")


def support_problem(version):
    """(level, message) when this mpack does not know the Kafka version's MM2, else None."""
    version = _as_version(version)
    if version < MIN_VERSION:
        return ("ERROR", "Kafka %s has no MirrorMaker 2 (it arrived in %s); install a Kafka %s or newer "
                         "distribution (kafka_install_source / kafka_tarball_url)"
                % (version, MIN_VERSION.line, MIN_VERSION.line))
    if version.major > NEWEST_KNOWN.major:
        return ("ERROR", "Kafka %s is newer than any line this mpack knows (%s to %s), so its MM2 keys cannot be "
                         "checked; use a Kafka %s release or a newer mpack" % (
                             version, MIN_VERSION.line, NEWEST_KNOWN.line, NEWEST_KNOWN.line))
    if version.key[:2] > NEWEST_KNOWN.key[:2]:
        return ("WARN", "Kafka %s is newer than the key table (%s); keys are checked as for %s"
                % (version, NEWEST_KNOWN, NEWEST_KNOWN))
    return None


def _version_table(table, name, version):
    info = table.get(name)
    return info is not None and info.defined_in(version)


def key_defined(version, key):
    """True when the plain (unprefixed) MM2 / Connect / client key exists in this Kafka version."""
    version = _as_version(version)
    if key in MM2_KEYS:
        return MM2_KEYS[key].defined_in(version)
    for table in (CONNECT_CONNECTOR_KEYS, WORKER_KEYS, PRODUCER_KEYS, CONSUMER_KEYS, ADMIN_KEYS):
        if key in table:
            return table[key].defined_in(version)
    return False


def mm2_key(key):
    return MM2_KEYS.get(key)


def client_key_defined(version, kind, key):
    """kind is producer/consumer/admin; key is the client config name."""
    if kind not in CLIENT_KINDS:
        return False
    if key in ("sasl.mechanism",):
        return True
    return _version_table(CLIENT_KINDS[kind], key, version)


def client_key_known(kind, key):
    return key in CLIENT_KINDS.get(kind, {})


def cluster_key_defined(version, key):
    """A per-cluster key <alias>.<key>: connection keys, or Connect worker keys of herders targeting it."""
    info = MM2_KEYS.get(key)
    if info is not None and info.scope == CLIENT:
        return info.defined_in(version)
    if key.startswith("ssl.") or key.startswith("sasl."):
        return _version_table(COMMON_CLIENT_KEYS, key, version)
    if key in ("config.providers",) or key.startswith("config.providers."):
        return True
    return _version_table(WORKER_KEYS, key, version)


def connector_key_defined(version, key, per_flow):
    """A connector key, at the top level (per_flow False) or as <src>-><tgt>.<key> (per_flow True)."""
    info = MM2_KEYS.get(key)
    if info is not None:
        if info.scope in (CONNECTOR, CLIENT):
            return info.defined_in(version)
        return False
    if key in SOURCE_ONLY_CONNECTOR_KEYS:
        return per_flow and _version_table(CONNECT_CONNECTOR_KEYS, key, version) and \
            supports(version, EXACTLY_ONCE)
    return _version_table(CONNECT_CONNECTOR_KEYS, key, version)


def keys_defined(version, scope=None):
    """Sorted MM2 key names defined in the version (optionally of one scope)."""
    return sorted(k for k, info in MM2_KEYS.items()
                  if info.defined_in(version) and (scope is None or info.scope == scope))


# Keys Kafka renamed, in the spirit of its ConfigUtils.translateDeprecatedConfigs (MirrorSourceConfig,
# MirrorCheckpointConfig): (new name, old name, the feature that brings the new name, the feature that
# keeps the old one). The one table the renderer, keycheck and the parsers translate keys by.
RENAMED_KEYS = (
    ("topics.exclude", "topics.blacklist", EXCLUDE_KEYS, BLACKLIST_KEYS),
    ("groups.exclude", "groups.blacklist", EXCLUDE_KEYS, BLACKLIST_KEYS),
    ("config.properties.exclude", "config.properties.blacklist", EXCLUDE_KEYS, BLACKLIST_KEYS),
)


class Rename(object):
    """One row of RENAMED_KEYS."""

    def __init__(self, new, old, new_feature, old_feature):
        self.new, self.old, self.new_feature, self.old_feature = new, old, new_feature, old_feature

    @property
    def new_line(self):
        """The release line that brought the new name ('2.7')."""
        return feature_first(self.new_feature).line

    def name_in(self, version):
        """The name this version reads: the new one once it exists, else the old one."""
        return self.new if supports(version, self.new_feature) else self.old


_RENAMES = dict((name, Rename(*row)) for row in RENAMED_KEYS for name in row[:2])


def rename_of(key):
    """The Rename row naming ``key`` (by its new or its old name), or None."""
    return _RENAMES.get(key)


def renamed_key(version, key):
    """The name the version reads for ``key`` (either name of a renamed key); other keys unchanged."""
    rename = _RENAMES.get(key)
    return key if rename is None else rename.name_in(version)


def java_major_required(version):
    return 17 if supports(version, JAVA17) else 8


def java_range(version):
    """(minimum, newest known to work or None) Java major for a Kafka version."""
    minimum = java_major_required(version)
    if minimum >= 17:
        return minimum, None
    version = _as_version(version)
    for first, newest in _JAVA_TESTED:
        if version >= first:
            return minimum, newest
    return minimum, _JAVA_TESTED[-1][1]


# ---------------------------------------------------------------------------------------------
# Value types (ConfigDef.parseType and its validators), from kafka_keys.TYPES

def _parse_types(text):
    table = {}
    for line in text.strip().splitlines():
        parts = line.split()
        table[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return table


KEY_TYPES = _parse_types(kafka_keys.TYPES)
_INT_BOUNDS = {"SHORT": (-2 ** 15, 2 ** 15 - 1), "INT": (-2 ** 31, 2 ** 31 - 1), "LONG": (-2 ** 63, 2 ** 63 - 1)}
_JAVA_INT = re.compile(r"^[-+]?\d+$")
_JAVA_DOUBLE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[dDfF]?$")
_JAVA_CLASS = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\$[\w$]+)*$")
_PROVIDER_REF = re.compile(r"\$\{[^}]*\}")


def value_problem(version, name, value):
    """(level, message) when ``value`` is not what Kafka's ConfigDef accepts for key ``name``, else None.

    ``name`` is the plain config name (no alias, flow or client prefix). Values holding a config
    provider reference (${file:...}) are resolved by Kafka at run time and are not checked.
    """
    found = KEY_TYPES.get(name)
    if found is None or _PROVIDER_REF.search(value or ""):
        return None
    kind, check = found
    raw = (value or "").strip()
    if kind in ("STRING", "LIST", "PASSWORD"):
        if not check or check[0] not in "=~" or not raw or kind != "STRING":
            return None
        choices = check[1:].split("|")
        matched = raw in choices if check[0] == "=" else raw.upper() in [c.upper() for c in choices]
        if matched:
            return None
        level = "ERROR" if _as_version(version) <= kafka_keys.TYPES_VERSION else "WARN"
        if check[0] == "~":
            return level, "'%s' is not a value %s accepts: use one of %s (any letter case)" % (
                raw, name, ", ".join(c.lower() for c in choices))
        return level, "'%s' is not a value %s accepts: use one of %s" % (raw, name, ", ".join(choices))
    if kind == "BOOLEAN":
        if raw.lower() in ("true", "false"):
            return None
        return "ERROR", "'%s' is not a boolean: %s takes true or false" % (raw, name)
    if kind in _INT_BOUNDS:
        if not _JAVA_INT.match(raw):
            return "ERROR", "'%s' is not a whole number: %s is a Kafka %s" % (raw, name, kind.lower())
        number = int(raw)
        low, high = _INT_BOUNDS[kind]
        if not low <= number <= high:
            return "ERROR", "%d does not fit in a Java %s for %s (%d..%d)" % (number, kind.lower(), name, low, high)
        return _range_problem(name, number, check)
    if kind == "DOUBLE":
        if not _JAVA_DOUBLE.match(raw):
            return "ERROR", "'%s' is not a number: %s is a Kafka double" % (raw, name)
        return _range_problem(name, float(raw.rstrip("dDfF")), check)
    if kind == "CLASS":
        if not _JAVA_CLASS.match(raw):
            return "ERROR", "'%s' is not a Java class name: %s takes a fully qualified class, e.g. " \
                            "org.example.MyClass" % (raw, name)
    return None


def _range_problem(name, number, check):
    if ".." not in check:
        return None
    low, high = check.split("..", 1)
    if low and number < float(low) or high and number > float(high):
        bounds = ("%s to %s" % (low, high)) if low and high else ("at least %s" % low if low else "at most %s" % high)
        return "ERROR", "%s is out of range for %s: use %s" % (_number_text(number), name, bounds)
    return None


def _number_text(number):
    return str(int(number)) if float(number) == int(number) else str(number)
