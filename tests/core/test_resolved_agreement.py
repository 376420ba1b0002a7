# py3-only: hypothesis (the property test's generator) has no release for Python 2.7
"""Render, alerts and advisor agree on each flow's effective settings, for random topologies.

The rendered connect-mirror-maker.properties is read the way MirrorMaker 2 reads it
(MirrorMakerConfig: '<src>-><tgt>.<key>', else the top-level '<key>', else MM2's default); the alerts'
flows (alert_config.expected_flows) and the advisor's placement answer (which herder pairs emit
heartbeats) must say the same for every flow and pair."""
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from mm2_core.alerts import alert_config  # noqa: E402
from mm2_core.config.problems import ConfigError  # noqa: E402
from mm2_core.formats import javaprops  # noqa: E402
from mm2_core.kafka import versions  # noqa: E402
from mm2_core.model import parse, placement, resolved  # noqa: E402
from mm2_core.rendering import render  # noqa: E402

ALIASES = ("east", "west", "south", "north")
FLAGS = {"emit.heartbeats.enabled": "true", "emit.checkpoints.enabled": "true",
         "sync.group.offsets.enabled": "false", "heartbeats.replication.enabled": "true"}
BOOL = st.sampled_from(["true", "false"])


@st.composite
def topologies(draw):
    aliases = list(ALIASES[:draw(st.integers(2, 4))])
    pairs = [(s, t) for s in aliases for t in aliases if s != t]
    flows = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
    yaml = ["clusters:"] + ['  %s: {bootstrap.servers: "%s:9092"}' % (a, a) for a in aliases] + ["flows:"]
    for source, target in flows:
        extra = ""
        if draw(st.booleans()):
            extra = ", sync.group.offsets.enabled: %s" % draw(BOOL)
        yaml.append("  - {source: %s, target: %s%s}" % (source, target, extra))
    custom = {}
    for key in draw(st.lists(st.sampled_from(sorted(FLAGS)), unique=True)):
        custom[key] = draw(BOOL)
    for source, target in draw(st.lists(st.sampled_from(pairs), unique=True, max_size=4)):
        key = draw(st.sampled_from(["emit.heartbeats.enabled", "emit.checkpoints.enabled"]))
        custom["%s->%s.%s" % (source, target, key)] = draw(BOOL)
    replication = {"sync.group.offsets.enabled": draw(BOOL)}
    version = draw(st.sampled_from([v for _, v in versions.SUPPORTED_LINES]))
    configurations = {"kafka-mm2-clusters": {"topology.mode": "advanced"},
                      "kafka-mm2-topology": {"content": "\n".join(yaml) + "\n"},
                      "kafka-mm2-replication": replication, "kafka-mm2-custom": custom}
    return configurations, version, aliases, flows


def mm2_reads(props, source, target, key, version):
    """What MirrorMaker 2 makes of the rendered file for the pair (its own precedence, its defaults)."""
    if key == "heartbeats.replication.enabled" and not versions.supports(version, versions.HEARTBEATS_REPLICATION):
        return True
    if key == "sync.group.offsets.enabled" and not versions.supports(version, versions.OFFSET_SYNC):
        return False
    value = props.get("%s->%s.%s" % (source, target, key), props.get(key, FLAGS[key]))
    return value.strip().lower() == "true"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topologies())
def test_render_alerts_and_advisor_agree(case):
    configurations, version, aliases, flows = case
    try:
        rendering = render.render_mm2(configurations, version, "mm2.example.com", "/etc/kafka-mm2/conf")
    except ConfigError:
        hypothesis.assume(False)   # a key this version does not read: the validator refuses it, fine
    props = javaprops.load_dict(rendering.file(render.PROPERTIES_FILE).text)
    alert_flows, problem = alert_config.expected_flows(configurations, version)
    assert problem is None
    by_name = dict((f.name, f) for f in alert_flows)
    assert sorted(by_name) == sorted("%s->%s" % f for f in flows)
    for source, target in flows:
        flow = by_name["%s->%s" % (source, target)]
        heartbeats = (mm2_reads(props, source, target, "emit.heartbeats.enabled", version)
                      and mm2_reads(props, source, target, "heartbeats.replication.enabled", version))
        assert flow.heartbeats == heartbeats
        assert flow.emit_checkpoints == mm2_reads(props, source, target, "emit.checkpoints.enabled", version)
        assert flow.sync_group_offsets == mm2_reads(props, source, target, "sync.group.offsets.enabled", version)
    # the advisor's placement checks: the herders MM2 creates (a pair that is no flow when it emits heartbeats)
    answers = resolved.resolve(parse.build_topology(configurations, version))
    pairs = placement.herder_pairs(aliases, flows, versions.KafkaVersion.parse(version).key,
                                   answers.emits_heartbeats)
    for source in aliases:
        for target in aliases:
            if source == target:
                continue
            emits = mm2_reads(props, source, target, "emit.heartbeats.enabled", version)
            assert answers.emits_heartbeats(source, target) == emits
            if versions.supports(version, versions.HERDERS_FOR_ENABLED_PAIRS):
                assert ((source, target) in pairs) == ((source, target) in flows or emits)
