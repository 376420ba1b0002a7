"""Consumer groups a day-2 command names for one flow (failover, failback, the cut-over check, the drill), checked
before anything runs, with the same words in the off-cluster CLI (mm2-ambari, exit 2 before any request) and in
the agent's commands (CUTOVER_CHECK, FAILOVER_GROUPS, DRILL refuse before any Kafka tool runs):

- the list itself: no empty item, no group twice;
- each id one the commands can carry: not empty, no comma (it separates the groups), no space, tab, line break or
  other control character (kafka-consumer-groups.sh prints groups in whitespace-separated columns: the state and
  members of such a group cannot be read, and a group with members would look empty), at most 32767 bytes (a
  Kafka protocol STRING);
- each group one the flow's groups filter takes (MM2's DefaultGroupFilter: one `groups` pattern matches it and no
  `groups.exclude` pattern does): MM2 never translates the offsets of another group, so its failover, drill or gate
  could only fail later. The filter is the flow's effective one (mm2_core.model.resolved's precedence), with
  connect mode's live values (kafka-mm2-live/flow.settings) over it.

Pure (stdlib only, Python 2.7 and 3).
"""
from mm2_core.config import names, schema
from mm2_core.connect import live
from mm2_core.formats.text import text
from mm2_core.host.kafka_tools import GroupFilter
from mm2_core.model import resolved

MAX_ID_BYTES = 32767
# The commands that take groups= for one flow, and what each does with them (the words of the refusal).
COMMAND_ACTIONS = {names.CMD_CUTOVER_CHECK: "checked by the gate", names.CMD_FAILOVER_GROUPS: "moved",
                   names.CMD_DRILL: "rehearsed"}
FILTER_SETTINGS = ("groups", "groups.exclude")


def shown(group):
    """A group id as messages show it: quoted, control characters as \\xNN (never a Python repr)."""
    return "'%s'" % "".join(ch if u" " <= ch != u"\x7f" else "\\x%02x" % ord(ch) for ch in group)


def id_problem(group):
    """Why `group` cannot be named to the day-2 commands (None: it can)."""
    group = text(group)
    if not group:
        return "is empty"
    if "," in group:
        return "contains a comma, which separates the groups: give each group id between commas"
    if any(ch.isspace() or ch < u" " or ch == u"\x7f" for ch in group):
        return ("contains a space, tab, line break or control character: kafka-consumer-groups.sh prints groups in "
                "whitespace-separated columns, so the commands could not read its state or members (a group with "
                "members would look empty); leave it out and move that group by hand (kafka-consumer-groups.sh "
                "--reset-offsets)")
    size = len(group.encode("utf-8"))
    if size > MAX_ID_BYTES:
        return "is %d bytes long: a Kafka group id has at most %d" % (size, MAX_ID_BYTES)
    return None


def parse(text_value):
    """([group], [problem]) of a comma-separated list of group ids ("g1,g2"); the spaces around an item are
    trimmed. Each problem names the item and the fix."""
    groups, problems, seen = [], [], {}
    text_value = text(text_value or "")
    if not text_value.strip():
        return groups, problems
    for number, item in enumerate(text_value.split(","), 1):
        group = item.strip()
        if not group:
            problems.append("item %d is empty (two commas in a row, or a comma at an end): remove the extra comma"
                            % number)
            continue
        why = id_problem(group)
        if why:
            problems.append("group %s %s" % (shown(group), why))
            continue
        if group in seen:
            problems.append("group %s is given twice (items %d and %d): give each group once"
                            % (shown(group), seen[group], number))
            continue
        seen[group] = number
        groups.append(group)
    return groups, problems


def _where(origin):
    return "%s/%s" % origin if origin else "MirrorMaker 2's default"


def flow_filter(topology, flow, live_entries=()):
    """(GroupFilter, {setting: (value, where it is set)}) of `flow` (a model Flow; it need not be configured yet,
    e.g. the reverse flow of a failback): live_entries are kafka-mm2-live's parsed [(flow, Kafka key, value)]."""
    settings = {}
    for name in FILTER_SETTINGS:
        key = resolved.setting_key(topology.version, name)
        live_value = [v for f, k, v in live_entries if f == flow.name and k == key] if key else []
        if live_value:
            value, origin = live_value[-1], (names.LIVE, "%s (%s.%s)" % (live.PROPERTY, flow.name, name))
        elif key is not None:
            value, origin = resolved.pair_entry(topology, flow.source, flow.target, key, flow)
        else:
            value, origin = None, None
        if value is None:
            value, origin = schema.REPLICATION[name].default, None
        settings[name] = (value, _where(origin))
    return GroupFilter(settings["groups"][0], settings["groups.exclude"][0]), settings


def live_entries(run_mode, live_text, topology):
    """kafka-mm2-live's [(flow, Kafka key, value)] (kafka-mm2-env/mm2_run_mode, kafka-mm2-live/flow.settings):
    connect mode only (a dedicated driver never reads them); lines the validator refuses are left out."""
    if str(run_mode or "dedicated").strip() != "connect":
        return []
    return live.parse(live_text or "", topology)[0]


def filter_problems(groups, topology, flow, entries=(), moved="moved"):
    """[problem] of the groups the flow's groups filter does not take: which group, which pattern (or none), where
    the filter is set and how to fix it. `moved` says what the command would do with the group."""
    flt, settings = flow_filter(topology, flow, entries)
    problems = []
    for group in groups:
        excluded = flt.excluded_by(group)
        if excluded is None:
            continue
        if excluded[0] == GroupFilter.INCLUDE:
            value, where = settings["groups"]
            why = "matches none of the flow's groups patterns '%s' (%s)" % (value, where)
            setting = "groups"
        else:
            value, where = settings["groups.exclude"]
            why = "is excluded by the pattern '%s' of the flow's groups.exclude '%s' (%s)" % (excluded[1], value,
                                                                                          where)
            setting = "groups.exclude"
        problems.append("group %s of flow %s %s: MirrorMaker 2 never translates its offsets, so it cannot be %s. "
                        "Leave it out, or change %s for %s (connect mode: live, as %s.%s in %s/%s; else in %s or "
                        "the topology, and restart) and wait for its first checkpoint"
                        % (shown(group), flow.name, why, moved, setting, flow.name, flow.name, setting, names.LIVE,
                           live.PROPERTY, names.REPLICATION))
    return problems
