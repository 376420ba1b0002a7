# -*- coding: utf-8 -*-
"""Consumer groups named to failover, failback, the cut-over check and the drill (issue 33): the list, each id and
the flow's groups filter, with the same words in mm2-ambari and the agent (mm2_core.model.groups)."""
import pytest

from mm2_core.config import names
from mm2_core.host.kafka_tools import GroupFilter, TopicFilter
from mm2_core.model import groups, parse
from mm2_core.model.topology import Flow

CLUSTERS = {"source.alias": "dc1", "target.alias": "dc2", "source.bootstrap.servers": "a:9092",
            "target.bootstrap.servers": "b:9092"}


def topology(replication=None, custom=None):
    topo, _ = parse.parse({names.CLUSTERS: dict(CLUSTERS), names.REPLICATION: dict(replication or {}),
                           names.CUSTOM: dict(custom or {})}, "3.9.0", None)
    return topo


def problems(group_list, topo, flow=None, entries=()):
    flow = flow or topo.flows[0]
    return groups.filter_problems(group_list, topo, flow, entries)


@pytest.mark.parametrize("text,expected", [
    ("orders, billing", (["orders", "billing"], [])),
    ("", ([], [])),
    ("orders,,billing", (["orders", "billing"], ["item 2 is empty (two commas in a row, or a comma at an end): "
                                                 "remove the extra comma"])),
    ("orders,", (["orders"], ["item 2 is empty (two commas in a row, or a comma at an end): remove the extra comma"])),
    ("orders,billing,orders", (["orders", "billing"], ["group 'orders' is given twice (items 1 and 3): give each "
                                                       "group once"])),
])
def test_the_list_names_each_bad_item(text, expected):
    assert groups.parse(text) == expected


@pytest.mark.parametrize("group,words", [
    ("my app", "contains a space, tab, line break or control character: kafka-consumer-groups.sh prints groups in "
               "whitespace-separated columns"),
    ("a\tb", "contains a space"),
    ("a\x01b", "contains a space"),
    ("g" * 32768, "is 32768 bytes long: a Kafka group id has at most 32767"),
])
def test_ids_the_commands_cannot_carry_are_refused(group, words):
    found, said = groups.parse(group)
    assert found == [] and len(said) == 1 and words in said[0], said
    assert "\\x" in said[0] or "\t" not in said[0] and "\x01" not in said[0]   # control characters shown escaped


def test_any_other_text_is_a_group_id():
    assert groups.id_problem(u"équipe.orders-v2_[1]") is None and groups.id_problem("x" * 32767) is None


def test_the_group_filter_has_no_internal_topic_rule():
    # DefaultGroupFilter, unlike DefaultTopicFilter, checkpoints a group whose name looks like an internal topic
    assert GroupFilter(".*", "").matches("app.internal") is True
    assert TopicFilter(".*", "").matches("app.internal") is False
    assert GroupFilter(".*", "connect-.*").excluded_by("connect-x") == (GroupFilter.EXCLUDE, "connect-.*")
    assert GroupFilter("app-.*", "").excluded_by("billing") == (GroupFilter.INCLUDE, None)
    assert GroupFilter("\\p{Alpha}+", "").excluded_by("billing") is None   # Java-only syntax: unsure, not refused


def test_a_group_the_default_exclude_filters_out_is_named_with_its_pattern():
    said = problems(["orders", "connect-app", "console-consumer-1"], topology())
    assert len(said) == 2
    assert said[0].startswith("group 'connect-app' of flow dc1->dc2 is excluded by the pattern 'connect-.*' of the "
                              "flow's groups.exclude 'console-consumer-.*, connect-.*, __.*' "
                              "(kafka-mm2-replication/groups.exclude): MirrorMaker 2 never translates its offsets, "
                              "so it cannot be moved. Leave it out, or change groups.exclude for dc1->dc2")
    assert "kafka-mm2-live/flow.settings" in said[0]


def test_a_group_no_include_pattern_matches_is_named():
    said = problems(["app-1", "billing"], topology({"groups": "app-.*"}))
    assert said == [s for s in said if "billing" in s] and len(said) == 1
    assert "group 'billing' of flow dc1->dc2 matches none of the flow's groups patterns 'app-.*' " \
           "(kafka-mm2-replication/groups)" in said[0]


def test_a_pair_key_in_custom_wins_and_is_named():
    topo = topology({"groups": "app-.*"}, {"dc1->dc2.groups": "billing"})
    said = problems(["app-1", "billing"], topo)
    assert len(said) == 1 and "'app-1'" in said[0] and "'billing' (kafka-mm2-custom/dc1->dc2.groups)" in said[0]


def test_live_values_win_in_connect_mode_only():
    topo = topology({"groups.exclude": "app-test.*"})
    live_text = "dc1->dc2.groups.exclude = tmp-.*\n"
    assert problems(["app-test1"], topo) != []
    assert groups.live_entries("dedicated", live_text, topo) == []
    entries = groups.live_entries("connect", live_text, topo)
    assert problems(["app-test1"], topo, entries=entries) == []
    said = problems(["tmp-1"], topo, entries=entries)
    assert "(kafka-mm2-live/flow.settings (dc1->dc2.groups.exclude))" in said[0]


def test_a_flow_not_configured_yet_gets_the_settings_mm2_would_give_it():
    # the reverse flow of a failback, before the failback adds it: the global filter and its own pair keys
    topo = topology({"groups": "app-.*"}, {"dc2->dc1.groups": "back-.*"})
    reverse = Flow("dc2", "dc1", (names.REPLICATION, "direction"))
    assert problems(["back-1"], topo, reverse) == []
    assert "'app-1'" in problems(["app-1"], topo, reverse)[0]


@pytest.mark.parametrize("pattern", ["\\p{Alpha}+", "(?i)APP-.*", "app-.*+", "[a-z&&[^x]]+", "\\Qapp\\E.*"])
def test_a_pattern_python_may_read_otherwise_than_java_never_refuses(pattern):
    assert GroupFilter(pattern, "").excluded_by("billing") is None
    assert GroupFilter(".*", pattern).excluded_by("billing") is None


def test_word_classes_are_ascii_as_in_java():
    assert GroupFilter("\\w+", "").excluded_by(u"équipe") == (GroupFilter.INCLUDE, None)
    assert GroupFilter("\\w+\\.\\d+", "").excluded_by("app.12") is None
