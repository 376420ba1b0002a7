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
checkpoint and offset-sync flags, and which herder pairs exist (a pair that is no flow still gets a
herder when it emits heartbeats, KAFKA-10710). The renderer, the advisor's placement checks, the agent
and the alerts read these answers; none of them ranks the places again.
"""
from mm2_core.config.config_values import parse_bool
from mm2_core.kafka import replication_policy, versions

EMIT_HEARTBEATS = "emit.heartbeats.enabled"
HEARTBEATS_REPLICATION = "heartbeats.replication.enabled"
EMIT_CHECKPOINTS = "emit.checkpoints.enabled"
SYNC_GROUP_OFFSETS = "sync.group.offsets.enabled"
EMIT_OFFSET_SYNCS = "emit.offset-syncs.enabled"
POLICY_CLASS = "replication.policy.class"
SEPARATOR = "replication.policy.separator"

# MM2's defaults of the flags (MirrorConnectorConfig and its subclasses), and the feature gate of the
# versions that read each one (older versions ignore the key, so its default holds).
FLAG_DEFAULTS = {EMIT_HEARTBEATS: (True, None), HEARTBEATS_REPLICATION: (True, versions.HEARTBEATS_REPLICATION),
                 EMIT_CHECKPOINTS: (True, None), SYNC_GROUP_OFFSETS: (False, versions.OFFSET_SYNC),
                 EMIT_OFFSET_SYNCS: (True, versions.EMIT_OFFSET_SYNCS)}


def _given(value):
    return value is not None and value != ""


def pair_value(topo, source, target, key, flow=None):
    """The value MM2 uses for ``key`` of the pair source->target (None: MM2's default), by the one
    precedence of this module."""
    name = "%s->%s" % (source, target)
    candidates = [topo.custom.get("%s.%s" % (name, key))]
    if flow is not None:
        candidates += [flow.overrides.get(key), flow.settings.get(key)]
    candidates += [topo.custom.get(key), topo.settings.get(key)]
    for value in candidates:
        if _given(value):
            return value
    return None


def pair_flag(topo, source, target, key, flow=None):
    """A boolean flag of the pair as this Kafka version reads it."""
    default, gate = FLAG_DEFAULTS[key]
    if gate is not None and not versions.supports(topo.version, gate):
        return default
    value = parse_bool(pair_value(topo, source, target, key, flow))
    return default if value is None else value


class FlowSettings(object):
    """One enabled flow's effective settings."""

    def __init__(self, topo, flow):
        self.flow = flow
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

    @property
    def identity(self):
        return self.policy == replication_policy.IDENTITY

    def __repr__(self):
        return "FlowSettings(%r)" % self.name


class Resolved(object):
    """The answers of resolve(): ``flows`` (FlowSettings of the enabled flows, in order),
    ``driver_targets`` (the aliases this host passes as --clusters, [] for all), ``emits_heartbeats``."""

    def __init__(self, topo):
        self.topology = topo
        self.version = topo.version
        self.flows = [FlowSettings(topo, flow) for flow in topo.enabled_flows]
        self.by_name = dict((f.name, f) for f in self.flows)
        self.driver_targets = list(topo.driver_targets)

    def flow(self, name):
        return self.by_name.get(name)

    def emits_heartbeats(self, source, target):
        """Does the herder source->target run a heartbeat connector (a pair that is no flow included)?"""
        settings = self.by_name.get("%s->%s" % (source, target))
        if settings is not None:
            return settings.emit_heartbeats
        return pair_flag(self.topology, source, target, EMIT_HEARTBEATS)


def resolve(topo):
    """Resolved answers for a parsed and validated Topology (see the module text)."""
    return Resolved(topo)
