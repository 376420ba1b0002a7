# py3-only: hypothesis (the property test's generator) has no release for Python 2.7
"""Render, alerts and advisor agree on each flow's effective settings, for random topologies.

The rendered connect-mirror-maker.properties is read the way MirrorMaker 2 reads it
(MirrorMakerConfig: '<src>-><tgt>.<key>', else the top-level '<key>', else MM2's default). What MM2 would
do is then held against the resolved model the renderer wrote it from (every replication setting of every
flow), against the alerts' flows (alert_config.expected_flows: heartbeats, checkpoints, offset sync,
policy and separator), against the advisor's placement answers (which herder pairs exist, which flows
have no heartbeats for a random layout of driver hosts) and against the --clusters every side passes."""
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from mm2_core.alerts import alert_config  # noqa: E402
from mm2_core.config.local_kafka import describe_local_kafka  # noqa: E402
from mm2_core.config.problems import ConfigError  # noqa: E402
from mm2_core.formats import javaprops  # noqa: E402
from mm2_core.kafka import replication_policy, versions  # noqa: E402
from mm2_core.model import parse, placement, resolved  # noqa: E402
from mm2_core.rendering import render  # noqa: E402

ALIASES = ("east", "west", "south", "north")
FLAGS = {"emit.heartbeats.enabled": "true", "emit.checkpoints.enabled": "true",
         "sync.group.offsets.enabled": "false", "heartbeats.replication.enabled": "true"}
BOOL = st.sampled_from(["true", "false", "True"])
# Replication settings a flow (YAML), the global configuration, a flow's YAML config: block or a custom
# <src>-><tgt>.K may set, with values MM2 accepts.
SETTING_VALUES = {"sync.group.offsets.enabled": BOOL, "sync.topic.acls.enabled": BOOL,
                  "sync.topic.configs.enabled": BOOL, "topics": st.sampled_from(["orders.*", "a, b", ".*"]),
                  "topics.exclude": st.sampled_from(["tmp.*", ""]), "tasks.max": st.sampled_from(["2", "4", "08"]),
                  "emit.checkpoints.interval.seconds": st.sampled_from(["30", "60"])}
PAIR_KEYS = ("emit.heartbeats.enabled", "emit.checkpoints.enabled", "tasks.max", "topics")


def _some(draw, pool):
    return dict((key, draw(SETTING_VALUES[key])) for key in draw(st.lists(st.sampled_from(pool), unique=True,
                                                                         max_size=3)))


@st.composite
def topologies(draw):
    aliases = list(ALIASES[:draw(st.integers(2, 4))])
    pairs = [(s, t) for s in aliases for t in aliases if s != t]
    flows = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
    disabled = set(draw(st.lists(st.sampled_from(flows), unique=True, max_size=len(flows) - 1)))
    yaml = ["clusters:"]
    for alias in aliases:
        yaml += ["  %s:" % alias, '    bootstrap.servers: "%s:9092"' % alias]
    yaml.append("flows:")
    for source, target in flows:
        yaml += ["  - source: %s" % source, "    target: %s" % target]
        if (source, target) in disabled:
            yaml.append("    enabled: false")
        for key, value in sorted(_some(draw, sorted(SETTING_VALUES)).items()):
            yaml.append('    %s: "%s"' % (key, value))
        config = _some(draw, ["tasks.max", "topics.exclude"])
        if draw(st.booleans()):
            config["emit.checkpoints.enabled"] = draw(BOOL)
        if config:
            yaml.append("    config:")
            yaml += ['      %s: "%s"' % item for item in sorted(config.items())]
    custom = {}
    for key in draw(st.lists(st.sampled_from(sorted(FLAGS)), unique=True)):
        custom[key] = draw(BOOL)
    for source, target in draw(st.lists(st.sampled_from(pairs), unique=True, max_size=4)):
        key = draw(st.sampled_from(PAIR_KEYS))
        custom["%s->%s.%s" % (source, target, key)] = draw(SETTING_VALUES.get(key, BOOL))
    replication = _some(draw, sorted(SETTING_VALUES))
    replication["replication.policy.separator"] = draw(st.sampled_from([".", "_"]))
    if len(flows) == 1 and draw(st.booleans()):
        replication["replication.policy"] = "identity"
    targets = draw(st.lists(st.sampled_from(aliases), unique=True))
    hosts = draw(st.lists(st.lists(st.sampled_from(aliases), unique=True), min_size=1, max_size=3))
    version = draw(st.sampled_from([v for _, v in versions.SUPPORTED_LINES] + ["3.5.2", "3.9.0"]))
    configurations = {"kafka-mm2-clusters": {"topology.mode": "advanced"},
                      "kafka-mm2-topology": {"content": "\n".join(yaml) + "\n"},
                      "kafka-mm2-replication": replication, "kafka-mm2-custom": custom,
                      "kafka-mm2-driver": {"target.clusters": " ".join(targets)}}
    enabled = [f for f in flows if f not in disabled]
    return configurations, version, aliases, enabled, hosts, draw(st.booleans())


def mm2_reads(props, source, target, key, default=None):
    """The text MirrorMaker 2 takes for the pair's key: <src>-><tgt>.<key>, the top level, its default."""
    return props.get("%s->%s.%s" % (source, target, key), props.get(key, default))


def mm2_flag(props, source, target, key, version):
    if key == "heartbeats.replication.enabled" and not versions.supports(version, versions.HEARTBEATS_REPLICATION):
        return True
    if key == "sync.group.offsets.enabled" and not versions.supports(version, versions.OFFSET_SYNC):
        return False
    return mm2_reads(props, source, target, key, FLAGS[key]).strip().lower() == "true"


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(topologies())
def test_render_alerts_and_advisor_agree(case):
    configurations, version, aliases, flows, hosts, ranger = case
    local = describe_local_kafka(["b1"], {"listeners": "PLAINTEXT://b1:6667"}, {}, ranger_kafka_enabled=ranger)
    try:
        rendering = render.render_mm2(configurations, version, "mm2.example.com", "/etc/kafka-mm2/conf", local)
    except ConfigError:
        hypothesis.assume(False)   # e.g. a key this version does not read: the validator refuses it, fine
    props = javaprops.load_dict(rendering.file(render.PROPERTIES_FILE).text)
    answers = resolved.resolve(parse.build_topology(configurations, version, local))

    # the model the renderer wrote from says what MM2 reads, for every setting of every flow
    assert [f.name for f in answers.flows] == ["%s->%s" % f for f in flows]
    for flow in answers.flows:
        assert flow.values, flow.name
        for key, value in flow.values.items():
            assert mm2_reads(props, flow.source, flow.target, key) == value, (flow.name, key)
        if ranger:
            assert mm2_reads(props, flow.source, flow.target, "sync.topic.acls.enabled") == \
                flow.values["sync.topic.acls.enabled"]

    # the alerts' flows
    alert_flows, problem = alert_config.expected_flows(configurations, version)
    assert problem is None
    by_name = dict((f.name, f) for f in alert_flows)
    assert sorted(by_name) == sorted("%s->%s" % f for f in flows)
    for source, target in flows:
        flow = by_name["%s->%s" % (source, target)]
        assert flow.heartbeats == (mm2_flag(props, source, target, "emit.heartbeats.enabled", version)
                                   and mm2_flag(props, source, target, "heartbeats.replication.enabled", version))
        assert flow.emit_checkpoints == mm2_flag(props, source, target, "emit.checkpoints.enabled", version)
        assert flow.sync_group_offsets == mm2_flag(props, source, target, "sync.group.offsets.enabled", version)
        policy = mm2_reads(props, source, target, "replication.policy.class")
        separator = mm2_reads(props, source, target, "replication.policy.separator")
        assert flow.remote_topic("orders") == replication_policy.remote_topic(
            source, "orders", "identity" if policy.endswith("IdentityReplicationPolicy") else "prefixed", separator)

    # the advisor's placement checks: the herders MM2 creates (a pair that is no flow when it emits
    # heartbeats), and for a random layout of driver hosts the flows whose heartbeats nobody emits
    emits = dict(((s, t), mm2_flag(props, s, t, "emit.heartbeats.enabled", version))
                 for s in aliases for t in aliases if s != t)
    pairs = placement.herder_pairs(aliases, flows, versions.KafkaVersion.parse(version).key, answers.emits_heartbeats)
    for (source, target), emitted in emits.items():
        assert answers.emits_heartbeats(source, target) == emitted
        if versions.supports(version, versions.HERDERS_FOR_ENABLED_PAIRS):
            assert ((source, target) in pairs) == ((source, target) in flows or emitted)
    layout = dict(("host%d" % i, targets) for i, targets in enumerate(hosts))
    served = set(a for targets in hosts for a in (targets or aliases))
    findings = placement.check_placement(aliases, flows, layout, versions.KafkaVersion.parse(version).key,
                                         emits_heartbeats=answers.emits_heartbeats)
    silent = sorted(f.message.split()[1] for f in findings if "has no heartbeats" in f.message)
    assert silent == sorted("%s->%s" % (s, t) for s, t in flows if emits[(t, s)] and s not in served)

    # --clusters: the renderer, the alerts and the agent's start read one answer
    assert rendering.target_clusters == answers.driver_targets == alert_config.host_targets(configurations)
