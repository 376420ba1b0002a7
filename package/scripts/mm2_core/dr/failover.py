"""What a failover or failback does to consumer groups and flows: pure rules (stdlib, Python 2.7 and 3).

FAILOVER_GROUPS and DRILL (mm2_cutover) gather the facts with Kafka's tools; the gate's judgement of each group is
mm2_core.dr.cutover's (group_entry), where it starts on the target mm2_core.dr.translation's. This module says
which group is not moved and why (live members, a skip, a partition that cannot be translated), writes the
offsets a reset applies (capped where a failback must not start past records never replicated), and which end
offsets of a flow's target a failback under the identity policy starts its reverse flow at.
"""
from mm2_core.dr import translation
from mm2_core.dr.cutover import group_entry, listed
from mm2_core.host import kafka_tools
from mm2_core.kafka import replication_policy
from mm2_core.kafkatools import commands as kafka_commands
from mm2_core.model import resolved

ACTIVE_STATES = ("Stable", "PreparingRebalance", "CompletingRebalance", "AwaitingSync", "Assigning",
                 "Reconciling")


def refusal(group, flow, target, state, members):
    """Why translated offsets are not applied to a group (or None): it has live members on the target."""
    if members or state in ACTIVE_STATES:
        return ("group %s has %d active member(s) on %s (state %s): stop its consumers on %s, then run the "
                "failover again (offsets of %s are applied only to groups without members)" % (
                    group, members, target, state, target, flow))
    return None


def offsets_csv_rows(checkpoints, group):
    """topic,partition,offset lines of a group's translated offsets (what --reset-offsets --from-file reads): MM2's
    checkpoints, or what translation.applicable() makes of them."""
    return kafka_commands.reset_offsets_csv([cp for cp in checkpoints if cp.group == group], with_group=False)


def failover_refusal(flow, target, entry):
    """Why FAILOVER_GROUPS does not move a group (or None): a partition it would skip records of, or one that
    cannot be translated (left to auto.offset.reset on the target: a skip with 'latest'). Names the partitions."""
    problems = []
    if entry["skips"]:
        problems.append("would skip %d record(s) on %s" % (entry["skipped"], listed(entry["skips"])))
    if entry["untranslated"]:
        problems.append("cannot translate %s (no checkpoint of MM2 and no offset sync at or before the group's "
                        "offset)" % listed(entry["untranslated"]))
    if not problems:
        return None
    return ("group %s of %s is not moved to %s: it %s; nothing was changed for it (wait for MM2 to checkpoint it, "
            "or move it by hand with kafka-consumer-groups --reset-offsets)" % (
                entry["group"], flow, target, " and ".join(problems)))


def judge_groups(groups, committed, checkpoints, mirrored, syncs=None):
    """{group: the gate's group_entry + "apply" (translation.applicable: the offsets a failover applies)} of each
    group, from its committed offsets on the source ({group: {(topic, p): C}}), MM2's checkpoints and the offset
    syncs (translation.group_rows); mirrored: function(source topic) -> target topic."""
    judged = {}
    for group in groups:
        mine = [cp for cp in checkpoints if cp.group == group]
        rows = translation.group_rows(committed.get(group, {}), mine, mirrored, syncs)
        judged[group] = group_entry(group, rows)
        judged[group]["apply"] = translation.applicable(group, rows, mine)
    return judged


def group_plan(group, flow, target, state, members, entry, checkpoints, not_after):
    """What FAILOVER_GROUPS does with one group: (reset rows, [capped], None), or (None, [], why) when the group is
    not moved (live members on the target, a skip, a partition that cannot be translated). entry: judge_groups'
    answer for the group, or None when the source could not be read (MM2's checkpoints of the group, `checkpoints`,
    are applied as they are); not_after: parse_partition_offsets' caps. Rows may be empty: nothing to apply."""
    why = refusal(group, flow, target, state, members) or (entry and failover_refusal(flow, target, entry))
    if why:
        return None, [], why
    rows, capped = cap_rows(offsets_csv_rows(entry["apply"] if entry else checkpoints, group), not_after)
    return rows, capped, None


def parse_partition_offsets(value):
    """{(topic, partition): offset} of 'topic-p=N,...' (a command parameter); ValueError names the bad item."""
    out = {}
    for item in [i.strip() for i in (value or "").split(",") if i.strip()]:
        name, sep, number = item.rpartition("=")
        topic, dash, partition = name.rpartition("-")
        if not sep or not dash or not topic or not partition.isdigit() or not number.strip().isdigit():
            raise ValueError("'%s': give topic-partition=offset, e.g. orders-0=120" % item)
        out[(topic, int(partition))] = int(number)
    return out


def cap_rows(rows, not_after):
    """offsets_csv_rows with each partition's offset at most not_after[(topic, p)]; returns (rows, [capped]).

    A failback under the identity policy moves a group back to the source at the reverse flow's translation,
    which lies after the records the reverse flow copied; records the source wrote before its outage that were
    never replicated sit before those: the group must not start past the first of them."""
    out, capped = [], []
    for topic, partition, offset in kafka_commands.reset_offsets_rows(rows):
        limit = not_after.get((topic, partition))
        if limit is not None and offset > limit:
            capped.append("%s-%d: %d -> %d" % (topic, partition, offset, limit))
            offset = limit
        out.append("%s,%d,%d\n" % (topic, partition, offset))
    return "".join(out), capped


def flow_target_ends(offsets, topology, flow):
    """{"topic-p": end offset} of the flow's topics among `offsets` ({(topic, partition): end offset} of the flow's
    target): the copies of the flow's source topics (every matched topic under the identity policy), no internal
    topic, no heartbeats. A failback under the identity policy starts the reverse flow there: what follows was
    written on the target."""
    flt = resolved.topic_filter(topology, flow)
    ends = {}
    for (topic, partition), offset in offsets.items():
        if kafka_tools.is_internal_topic(topic) or topic.endswith("heartbeats"):
            continue
        upstream = replication_policy.upstream_topic(flow.source, topic, topology.policy, topology.separator)
        if (topology.policy == replication_policy.IDENTITY or upstream != topic) and flt.matches(upstream):
            ends["%s-%d" % (topic, partition)] = offset
    return ends
