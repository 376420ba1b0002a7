"""The replication model: clusters, flows and settings, parsed and typed once.

``Topology`` is what the parsers (parse_simple, parse_advanced, parse_common) build from Ambari
configurations, what the validator checks and the only input of rendering (rendering/render.py) and of
the advisor's placement checks. Names of the model's fields and the alias rule live here.
"""
import re
from collections import OrderedDict

from mm2_core.config import names, schema
from mm2_core.config.config_values import parse_bool
from mm2_core.config.problems import ERROR
from mm2_core.kafka import replication_policy, versions

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

# Connection fields of one cluster (simple mode: "<role>.<field>"; YAML: "clusters.<alias>.<field>"): the
# cluster-scoped properties of kafka-mm2-clusters, and in the YAML also a whole JAAS line.
CONNECTION_FIELDS = tuple(p.name[len("source."):] for p in schema.CLUSTERS.properties
                          if p.name.startswith("source.") and p.scope == schema.CLUSTER) + ("sasl.jaas.config",)
CLIENT_SECTIONS = ("producer", "consumer", "admin")
CLUSTER_YAML_FIELDS = CONNECTION_FIELDS + CLIENT_SECTIONS + ("config",)

# Replication settings that may differ per flow (the FLOW-scoped properties of kafka-mm2-replication, rendered
# at the top level in this order, and as <src>-><tgt>.<key> where a flow differs).
FLOW_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties if p.scope == schema.FLOW)
FLOW_YAML_FIELDS = ("source", "target", "enabled", "config") + FLOW_SETTINGS
GLOBAL_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties)
BOOLEAN_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties if p.value_type == "boolean")
INT_SETTINGS = tuple(p.name for p in schema.REPLICATION.properties if p.value_type == "int")
# Settings whose Kafka key is a LIST (the YAML takes them as a list too).
LIST_SETTINGS = tuple(name for name in FLOW_SETTINGS
                      if versions.KEY_TYPES.get(schema.REPLICATION[name].kafka_key, ("",))[0] == "LIST")
TOP_LEVEL_YAML = ("clusters", "flows", "settings", "deployment")

HEARTBEAT_WARN_SECONDS = 60
CHECKPOINT_WARN_SECONDS = 600


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
        self.custom = OrderedDict()      # kafka-mm2-custom, passed through (keys as this version names them)
        self.custom_names = {}           # custom key -> the property name the user wrote
        self.deployment = None
        self.ranger = False
        self.problems = []
        # Host-level inputs rendering needs, read once by the parser (kafka-mm2-driver, kafka-mm2-env):
        self.driver_targets = []         # aliases passed as --clusters ([]: every herder)
        self.driver_targets_text = ""    # kafka-mm2-driver/target.clusters as written
        self.internal_rest_port = ""     # kafka-mm2-driver/internal.rest.port
        self.kerberos_principal = ""     # kafka-mm2-env/mm2_principal_name (clusters may override)
        self.kerberos_keytab = ""        # kafka-mm2-env/mm2_keytab

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

    def mirrored_topic(self, flow, topic):
        """Name of source topic ``topic`` on the target of ``flow`` under the replication policy."""
        source = flow.source if isinstance(flow, Flow) else flow[0]
        return replication_policy.remote_topic(source, topic, self.policy, self.separator)

    def __repr__(self):
        return "Topology(%s, clusters=%r, flows=%r)" % (self.mode, self.aliases, [f.name for f in self.flows])



def alias_problem(alias):
    """None when ``alias`` is a usable cluster alias, else the message saying why not."""
    if not ALIAS_RE.match(alias):
        return ("'%s' is not a valid cluster alias: use letters, digits, '_' and '-' only (no '.', "
                "'->', ':' or whitespace), e.g. %s" % (alias, re.sub(r"[^A-Za-z0-9_-]+", "_", alias)
                                                      .strip("_") or "primary"))
    if "->" in alias:
        return "'%s' contains '->', which MM2 uses between flow aliases" % alias
    if alias.lower() in RESERVED_ALIASES:
        return ("'%s' cannot be a cluster alias: MM2 reads keys starting with '%s.' as its own "
                "settings; choose another name, e.g. %s-cluster" % (alias, alias, alias))
    return None


def split_key(key, aliases):
    """('flow', (source, target), rest) | ('cluster', alias, rest) | ('top', None, key)."""
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
