"""Kafka version parsing, feature gates and the key table (facts read from Kafka's sources)."""
import pytest

from mm2_core.kafka import versions
from mm2_core.kafka.versions import KafkaVersion


@pytest.mark.parametrize("text,key,line", [
    ("3.7.1", (3, 7, 1), "3.7"),
    ("3.9.0-rc3", (3, 9, 0), "3.9"),
    ("4.0.0-SNAPSHOT", (4, 0, 0), "4.x"),
    ("4.1", (4, 1, 0), "4.x"),
    ("2.0.0.3.1.4.0-315", (2, 0, 0), "2.0"),      # HDP build of Kafka 2.0.0
    ("3.1.0.1.0.0.0-1", (3, 1, 0), "3.1"),        # ODP build of Kafka 3.1.0
    (" 2.8.2 ", (2, 8, 2), "2.8"),
])
def test_parse(text, key, line):
    version = KafkaVersion.parse(text)
    assert version.key == key
    assert version.line == line


@pytest.mark.parametrize("bad", ["", None, "latest", "3", "x.y.z", "3.7.1.", "v"])
def test_parse_rejects_with_an_example(bad):
    with pytest.raises(ValueError) as info:
        KafkaVersion.parse(bad)
    assert "e.g. 3.7.1" in str(info.value)


def test_versions_compare_numerically_and_with_strings():
    assert KafkaVersion.parse("3.10.0") > KafkaVersion.parse("3.9.0")
    assert KafkaVersion.parse("2.4.1") >= versions.MIN_VERSION
    assert KafkaVersion.parse("2.3.1") < "2.4.0"
    assert KafkaVersion.parse("3.9.0-rc3") == "3.9.0"
    assert str(KafkaVersion.parse("3.9.0-rc3")) == "3.9.0-rc3"
    assert len(set([KafkaVersion.parse("3.7.1"), KafkaVersion.parse("3.7.1")])) == 1


@pytest.mark.parametrize("feature,below,at", [
    (versions.EXCLUDE_KEYS, "2.6.3", "2.7.0"),
    (versions.OFFSET_SYNC, "2.6.3", "2.7.0"),
    (versions.CLUSTER_CLIENT_OVERRIDES, "2.7.2", "2.8.0"),
    (versions.IDENTITY_POLICY, "2.8.2", "3.0.0"),
    (versions.OFFSET_SYNCS_LOCATION, "2.8.2", "3.0.0"),
    (versions.INTERNAL_REST, "3.4.1", "3.5.0"),
    (versions.MULTI_NODE, "3.4.1", "3.5.0"),
    (versions.EXACTLY_ONCE, "3.4.1", "3.5.0"),
    (versions.LOG4J2, "3.9.0", "4.0.0"),
    (versions.JAVA17, "3.9.0", "4.0.0"),
])
def test_feature_gates(feature, below, at):
    assert not versions.supports(below, feature)
    assert versions.supports(at, feature)
    assert versions.feature_first(feature) == at


def test_blacklist_keys_exist_until_4_0():
    assert versions.supports("2.4.1", versions.BLACKLIST_KEYS)
    assert versions.supports("3.9.0", versions.BLACKLIST_KEYS)
    assert not versions.supports("4.0.0", versions.BLACKLIST_KEYS)


@pytest.mark.parametrize("version,read", [
    ("2.4.1", {"producer"}), ("2.7.2", {"producer"}), ("2.8.0", {"producer", "consumer", "admin"}),
    ("4.0.0", {"producer", "consumer", "admin"})])
def test_per_cluster_client_overrides_by_kind(version, read):
    # producer ones reach the workers' task producers on every version; consumer and admin ones from 2.8
    kinds = ("producer", "consumer", "admin")
    assert set(k for k in kinds if versions.cluster_client_override_read(version, k)) == read


def test_config_providers_worker_bug_range():
    # KAFKA-17192: 3.5.0 .. 3.8.0 drop the exact key config.providers from worker configs; fixed in 3.8.1.
    assert not versions.supports("3.4.1", versions.CONFIG_PROVIDERS_WORKER_BUG)
    assert versions.supports("3.5.0", versions.CONFIG_PROVIDERS_WORKER_BUG)
    assert versions.supports("3.8.0", versions.CONFIG_PROVIDERS_WORKER_BUG)
    assert not versions.supports("3.8.1", versions.CONFIG_PROVIDERS_WORKER_BUG)


@pytest.mark.parametrize("key,version,defined", [
    ("topics.exclude", "2.4.1", False), ("topics.exclude", "2.7.0", True), ("topics.exclude", "4.0.0", True),
    ("topics.blacklist", "2.4.1", True), ("topics.blacklist", "3.9.0", True), ("topics.blacklist", "4.0.0", False),
    ("sync.group.offsets.interval.seconds", "2.7.0", True), ("sync.group.offsets.interval.seconds", "2.6.3", False),
    ("sync.group.offsets.interval.ms", "3.7.1", False),
    ("offset-syncs.topic.location", "2.8.2", False), ("offset-syncs.topic.location", "3.0.0", True),
    ("dedicated.mode.enable.internal.rest", "3.4.1", False), ("dedicated.mode.enable.internal.rest", "3.5.0", True),
    ("replication.policy.internal.topic.separator.enabled", "3.5.1", False),
    ("replication.policy.internal.topic.separator.enabled", "3.5.2", True),
    ("emit.offset-syncs.enabled", "3.8.0", False), ("emit.offset-syncs.enabled", "3.9.0", True),
    ("heartbeats.replication.enabled", "3.9.0", False), ("heartbeats.replication.enabled", "4.0.0", True),
    ("use.incremental.alter.configs", "3.9.0", True), ("use.incremental.alter.configs", "4.0.0", False),
    ("add.source.alias.to.metrics", "3.7.1", True), ("add.source.alias.to.metrics", "4.0.0", False),
    ("tasks.max", "2.4.1", True), ("exactly.once.source.support", "3.3.0", True),
    ("max.in.flight.requests.per.connection", "2.4.1", True), ("Replication.factor", "3.7.1", False),
])
def test_key_defined(key, version, defined):
    assert versions.key_defined(version, key) is defined


def test_renamed_key_follows_the_version():
    assert versions.renamed_key("2.6.3", "topics.exclude") == "topics.blacklist"
    assert versions.renamed_key("2.6.3", "groups.exclude") == "groups.blacklist"
    assert versions.renamed_key("2.7.0", "topics.exclude") == "topics.exclude"
    assert versions.renamed_key("4.0.0", "groups.exclude") == "groups.exclude"
    assert versions.renamed_key("3.9.0", "topics.blacklist") == "topics.exclude"
    assert versions.renamed_key("2.4.1", "config.properties.blacklist") == "config.properties.blacklist"
    assert versions.renamed_key("2.4.1", "topics") == "topics"


@pytest.mark.parametrize("row", versions.RENAMED_KEYS, ids=lambda row: row[0])
def test_rename_table_agrees_with_the_key_table(row):
    """Each name of a renamed key exists exactly in the versions its feature says, and every version in
    between reads one of the two names (the translation never lands on a key the version ignores)."""
    new, old, new_feature, old_feature = row
    assert versions.MM2_KEYS[new].first == versions.feature_first(new_feature)
    assert versions.MM2_KEYS[old].removed == versions.KafkaVersion.parse(versions.FEATURES[old_feature][1])
    for _, version in versions.SUPPORTED_LINES + (("2.6", "2.6.3"), ("2.7", "2.7.0")):
        for name in (new, old):
            assert versions.key_defined(version, versions.renamed_key(version, name))


def test_keycheck_translates_renamed_keys_by_the_table_only():
    """keycheck's translation and its hints read versions.RENAMED_KEYS: every row is translated both
    ways, a key in no row never is."""
    from mm2_core.model import keycheck
    aliases = ["east", "west"]
    for new, old, _, _ in versions.RENAMED_KEYS:
        assert keycheck.translated_key("2.6.3", "east->west." + new, aliases)[0] == "east->west." + old
        assert keycheck.translated_key("3.7.1", old, aliases)[0] == new
        assert "before Kafka 2.7 it is called %s" % old in keycheck.versions_check_key("2.6.3", new, aliases)
        assert "Use %s instead" % new in keycheck.versions_check_key("4.0.0", old, aliases)
    for key in ("topics", "east->west.groups", "sync.group.offsets.enabled"):
        assert keycheck.translated_key("2.4.1", key, aliases) == (key, None)


def test_key_table_agrees_with_the_reference_extraction():
    # Spot checks against mm2-config-matrix.tsv (tags 2.4.1 .. trunk).
    assert sorted(versions.keys_defined("2.4.1", versions.MM2)) == ["clusters", "config.providers"]
    assert "dedicated.mode.enable.internal.rest" in versions.keys_defined("3.5.2")
    assert not [k for k in versions.keys_defined("4.0.0") if k.endswith(".blacklist")]
    for key, info in versions.MM2_KEYS.items():
        assert info.removed is None or info.removed > info.first, key


def test_secret_keys():
    for key in ("a.ssl.truststore.password", "a.ssl.key.password", "a.sasl.jaas.config", "a.ssl.keystore.key",
                "x.sasl.oauthbearer.client.secret"):
        assert versions.is_secret_key(key), key
    for key in ("secrets.config.provider.enabled", "a.ssl.truststore.location", "a.sasl.mechanism"):
        assert not versions.is_secret_key(key), key


def test_supported_lines_are_versions_of_their_line():
    for line, version in versions.SUPPORTED_LINES:
        assert KafkaVersion.parse(version).line == line
    assert dict(versions.SUPPORTED_LINES)["3.7"] == "3.7.1"


def test_no_kafka_version_rule_outside_the_versions_module():
    """Version knowledge lives in mm2_core.kafka.versions (feature gates): no other module of the agent
    side compares against a Kafka version of its own."""
    import os
    import re
    scripts = os.path.join(os.path.dirname(__file__), "..", "..", "package", "scripts")
    advisor = os.path.join(scripts, "..", "..", "common-services")
    rule = re.compile(r"\(\s*[234],\s*\d+,\s*\d+\s*\)|(?<!-)[<>]=?\s*[\"'][234]\.\d+")
    found = []
    for top in (scripts, advisor):
        for folder, _, files in os.walk(top):
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith(".py") or path.endswith(os.path.join("kafka", "versions.py")):
                    continue
                with open(path) as fh:
                    for number, line in enumerate(fh, 1):
                        if rule.search(line):
                            found.append("%s:%d: %s" % (os.path.relpath(path, scripts), number, line.strip()))
    assert found == []


@pytest.mark.parametrize("version,expected", [
    ("2.4.1", (8, 11)), ("2.8.2", (8, 15)), ("3.2.3", (8, 17)), ("3.7.1", (8, 21)), ("4.0.0", (17, None)),
    ((3, 6, 0), (8, 21)), ((3, 5, 2), (8, 17)),
])
def test_java_range_per_kafka_line(version, expected):
    assert versions.java_range(version) == expected


def test_feature_gates_take_version_tuples_too():
    assert versions.supports((3, 5, 0), versions.MULTI_NODE)
    assert not versions.supports((3, 4, 1), versions.MULTI_NODE)
    assert versions.supports((2, 5, 0), versions.PRODUCER_BOOTSTRAP_SERVER)
    assert not versions.supports((4, 0, 0), versions.JAVA8_DEPRECATED)
