"""Each property declares the Kafka key it sets, where that key lives (global, cluster, flow) and the
feature a Kafka version needs to read it; the renderer and the model take their lists from there.

The declarations are held against the key table (the renderer's own final check, keycheck), and the
rendered file against the declarations, for every supported Kafka line."""
import pytest

from mm2_core.config import schema
from mm2_core.formats import javaprops
from mm2_core.kafka import versions
from mm2_core.model import keycheck, topology
from mm2_core.rendering import render

VERSIONS = [v for _, v in versions.SUPPORTED_LINES] + ["2.6.3", "3.0.0", "3.5.2", "3.9.0"]
ALIASES = ["east", "west"]
DECLARED = [(t.name, p) for t in schema.CONFIG_TYPES for p in t.properties if p.kafka_key is not None]
# A value of each flow-scoped setting that differs from its default (and that MM2 accepts).
OTHER_VALUE = {"topics": "orders.*", "topics.exclude": "tmp.*", "groups": "app.*", "groups.exclude": "test.*",
               "offset-syncs.topic.location": "target"}


def _where(prop, key):
    """The full keys a property's key is written as, by its scope."""
    if prop.scope == schema.CLUSTER:
        return ["east." + key]
    if prop.scope == schema.FLOW:
        return [key, "east->west." + key]
    return [key]


def _reads(version, prop):
    return [keycheck.versions_check_key(version, full, ALIASES)
            for key in prop.kafka_keys for full in _where(prop, versions.renamed_key(version, key))]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("config_type,prop", DECLARED, ids=["%s/%s" % (t, p.name) for t, p in DECLARED])
def test_declared_keys_are_read_exactly_where_the_gate_says(config_type, prop, version):
    messages = _reads(version, prop)
    if prop.read_by(version):
        assert messages == [None] * len(messages)
    else:   # the gate is needed: without it the version would not read (one of) its keys
        assert any(messages), "%s/%s: Kafka %s reads %s without its gate %s" % (
            config_type, prop.name, version, prop.kafka_keys, prop.gate)


def test_every_replication_setting_says_what_mm2_makes_of_it():
    mpack_own = sorted(p.name for p in schema.REPLICATION.properties if p.kafka_key is None)
    assert mpack_own == ["direction"] + sorted(p.name for p in schema.REPLICATION.properties
                                               if p.name.startswith("verify."))
    assert topology.FLOW_SETTINGS == tuple(p.name for p in schema.REPLICATION.properties
                                           if p.scope == schema.FLOW)


def _configs(flow_settings):
    yaml = ["clusters:", "  east:", "    bootstrap.servers: e1:9092", "  west:", "    bootstrap.servers: w1:9092",
            "flows:", "  - source: east", "    target: west"]
    yaml += ["    %s: \"%s\"" % item for item in sorted(flow_settings.items())]
    yaml += ["  - source: west", "    target: east"]
    return {"kafka-mm2-clusters": {"topology.mode": "advanced"},
            "kafka-mm2-topology": {"content": "\n".join(yaml) + "\n"}}


def _other(prop):
    if prop.name in OTHER_VALUE:
        return OTHER_VALUE[prop.name]
    if prop.value_type == "boolean":
        return "false" if prop.default == "true" else "true"
    return str(int(prop.default) + 1)


@pytest.mark.parametrize("version", VERSIONS)
def test_rendering_writes_each_flow_setting_under_its_declared_key(version):
    """Top level: every flow-scoped key the version reads, none it does not; per flow: the key of each
    setting the flow changes; per cluster: the cluster-scoped keys; and nothing of the mpack's own."""
    flow_props = [p for p in schema.REPLICATION.properties if p.scope == schema.FLOW]
    changed = dict((p.name, _other(p)) for p in flow_props if p.read_by(version))
    rendering = render.render_mm2(_configs(changed), version, "h.example.com", "/etc/kafka-mm2/conf")
    written = javaprops.load_dict(rendering.file(render.PROPERTIES_FILE).text)
    for prop in flow_props:
        key = versions.renamed_key(version, prop.kafka_key)
        assert (key in written) == prop.read_by(version), (prop.name, version)
        if prop.read_by(version):
            assert written["east->west." + key] == changed[prop.name]
            assert "west->east." + key not in written
    for key in schema.REPLICATION["internal.topics.replication.factor"].kafka_keys:
        assert written[key] == "3"
    for alias in ALIASES:
        assert written[alias + ".offset.flush.interval.ms"] == "10000"
    assert not [k for k in written if k.split(".")[0] in ("direction", "verify")]
