"""Where a failed-over consumer group starts on the target, per partition, and what it re-reads: MM2's checkpoint,
else a translation from the offset syncs still in the offset-syncs topic, else none. Pure stdlib, Python 2.7 and 3;
the facts are read by the agent (mm2_export: EXPORT_TRANSLATED_OFFSETS; mm2_cutover) with Kafka's tools and parsed
by the Kafka boundary (mm2_core.kafkatools.records: parse_checkpoints, parse_offset_syncs).

Why a second route: on Kafka 3.4.1-3.6.x MM2's checkpoint task translates only with the offset syncs it read since
it started (its OffsetSyncStore drops its history while reading the topic to the end; KAFKA-15905, fixed in 3.7.1),
so a group whose committed offset lies behind the latest sync of that moment never gets a checkpoint (real 3.4.1
and 3.6.2: checkpoints for 1 of 3 committed partitions). The older syncs are still in the offset-syncs topic (it is
compacted on the partition, but the log cleaner never touches the active segment): translated here with Kafka's
own rule.

The rule (OffsetSyncStore.translateDownstream, the same in 3.4.1-3.6.x and 3.7+; they differ only in which syncs
the store still holds): of the partition's syncs (u -> d: the source record u was copied to target offset d), take
the newest with u <= C (C: the group's committed offset, the next record it reads); the group starts at d when
u == C, else at d + 1. The source records after u are copied after d, but how many of u+1..C-1 were copied (not
filtered, not transaction markers) is unknown, so any later target offset could skip one. Starting there the group
re-reads at most C - u - 1 records (source offsets u+1..C-1, more only where MM2 copied a record twice after a
restart) and skips none. No sync with u <= C: the partition cannot be translated (never guessed).

Not used: the timestamp route (the target's first offset at or after the source record's timestamp) is not
strictly conservative: a target topic with message.timestamp.type=LogAppendTime stamps the copies with the target
broker's clock, so the first record at or after the source timestamp can lie after the copy of the group's record
(a skip) whenever that clock runs behind the source's; records without timestamps (-1) cannot be found at all; and
it costs one tool run per partition on each cluster. See docs/operate.md#translated-offsets-after-failover.
"""

from mm2_core.kafka import versions
from mm2_core.kafkatools.records import Checkpoint

CHECKPOINT, OFFSET_SYNC, AT_END, NONE = "checkpoint", "offset-sync", "target-end", "none"
EXACT, REREADS, SKIPS, UNTRANSLATED = "EXACT", "REREADS", "SKIPS", "UNTRANSLATED"


def upstream_at(downstream, syncs):
    """The source offset of the record at target offset `downstream`, from the newest offset sync at or below it
    (records after a sync are counted one to one: with gaps on the source the real offset is higher, so what
    this says a group re-reads is an upper bound, and what it skips a lower one). None without a sync."""
    best = None
    for up, down in syncs or ():
        if down <= downstream and (best is None or down >= best[1]):
            best = (up, down)
    return None if best is None else best[0] + (downstream - best[1])


def sync_translation(committed, syncs, target_end=None):
    """(target offset, records re-read at most, (u, d)) for a group committed at `committed`, from the newest sync
    (u, d) with u <= committed (syncs in the order read) that does not point past `target_end` (the target's end
    offset, when known), or None. Any sync (u', d') older than the newest is as safe: every record after u' was
    copied after d'; only the re-read grows."""
    for up, down in reversed(list(syncs or ())):
        if up < 0 or down < 0 or up > committed:
            continue
        offset = down if up == committed else down + 1
        if target_end is not None and offset > target_end:
            continue   # written after the end offsets were read, or a copy no longer there: an older sync is safe
        return offset, (0 if up == committed else committed - up - 1), (up, down)
    return None


def _row(topic, partition, target_topic, committed, upstream, downstream, status, records, source):
    return {"topic": topic, "partition": partition, "target_topic": target_topic, "committed": committed,
            "upstream": upstream, "downstream": downstream, "status": status, "records": records, "source": source}


def partition_row(topic, partition, target_topic, committed, checkpoint, syncs, target_end=None, source_end=None):
    """One committed partition: where the group starts on the target and what that does.

    The checkpoint (MM2's answer) first: its target offset D holds the copy of source offset S (from the syncs;
    without one the checkpoint's upstream offset stands in): EXACT (S == C), REREADS (C - S records), SKIPS
    (S - C records never seen, e.g. the group was reset backwards on the source after MM2 checkpointed it).
    No checkpoint, or one that skips: the offset syncs (EXACT or REREADS, records = at most that many re-read).
    Neither, but the group had read every record of the partition (C >= source_end, an end offset of the source
    read AFTER target_end, the target's): the target's end (source 'target-end'): every record after C was written
    on the source after target_end was read, so its copy lies after it (an empty partition, a caught-up group).
    Else UNTRANSLATED (the group would start at its auto.offset.reset on the target)."""
    row = None
    if checkpoint is not None:
        s = upstream_at(checkpoint.downstream, syncs)
        s = checkpoint.upstream if s is None else s
        status = EXACT if s == committed else (REREADS if s < committed else SKIPS)
        row = _row(topic, partition, target_topic, committed, checkpoint.upstream, checkpoint.downstream, status,
                   abs(committed - s), CHECKPOINT)
        if status != SKIPS:
            return row
    found = sync_translation(committed, syncs, target_end)
    if found is not None:
        offset, reread, (up, _down) = found
        return _row(topic, partition, target_topic, committed, up, offset, EXACT if reread == 0 else REREADS,
                    reread, OFFSET_SYNC)
    if row is None and source_end is not None and target_end is not None and committed >= source_end:
        return _row(topic, partition, target_topic, committed, None, target_end, EXACT, 0, AT_END)
    return row or _row(topic, partition, target_topic, committed, None, None, UNTRANSLATED, None, NONE)


def group_rows(committed, checkpoints, mirrored, syncs=None, target_ends=None, source_ends=None):
    """partition_row of each committed partition of one group, sorted.

    committed: {(source topic, partition): C}; checkpoints: Checkpoint objects of this group (target topic names);
    mirrored: function(source topic) -> target topic; syncs: records.parse_offset_syncs() ({(source topic, p):
    [(u, d), ...]}); target_ends: {(target topic, p): end offset} when known; source_ends: {(source topic, p): end
    offset}, only when read after target_ends (see partition_row)."""
    by_target = dict(((cp.topic, cp.partition), cp) for cp in checkpoints)
    rows = []
    for (topic, partition) in sorted(committed):
        tt = mirrored(topic)
        rows.append(partition_row(topic, partition, tt, committed[(topic, partition)], by_target.get((tt, partition)),
                                  (syncs or {}).get((topic, partition)), (target_ends or {}).get((tt, partition)),
                                  (source_ends or {}).get((topic, partition))))
    return rows


def names(rows, *statuses):
    """'topic-p' of the rows with one of these statuses."""
    return ["%s-%d" % (r["topic"], r["partition"]) for r in rows if r["status"] in statuses]


def applicable(group, rows, checkpoints):
    """The translated offsets a failover applies for one group, as Checkpoint objects (target topic names; the
    metadata says where each came from): each row that skips nothing, and MM2's checkpoints of partitions the group
    has no committed offset for (not judged: kept as MM2 wrote them)."""
    out = dict(((r["target_topic"], r["partition"]), Checkpoint(group, r["target_topic"], r["partition"], r["upstream"],
                                                                 r["downstream"], r["source"]))
               for r in rows if r["status"] in (EXACT, REREADS))
    judged = set((r["target_topic"], r["partition"]) for r in rows)
    for cp in checkpoints:
        if cp.group == group and (cp.topic, cp.partition) not in judged:
            out[(cp.topic, cp.partition)] = cp
    return [out[k] for k in sorted(out)]


def source_counts(rows):
    """{source: partitions} of rows: how many came from MM2's checkpoints, the offset syncs, neither."""
    counts = {}
    for r in rows:
        counts[r["source"]] = counts.get(r["source"], 0) + 1
    return counts


def describe(rows):
    """One line of a group's rows: per partition the target offset, where it came from and the re-read bound."""
    parts = []
    for r in rows:
        name = "%s-%d" % (r["topic"], r["partition"])
        if r["status"] == UNTRANSLATED:
            parts.append("%s: committed %d, cannot be translated" % (name, r["committed"]))
        elif r["status"] == SKIPS:
            parts.append("%s: committed %d -> %d (%s) SKIPS %d record(s)" % (
                name, r["committed"], r["downstream"], r["source"], r["records"]))
        else:
            parts.append("%s: committed %d -> %d (%s, re-reads <= %d)" % (
                name, r["committed"], r["downstream"], r["source"], r["records"]))
    return "; ".join(parts)


def export_groups(committed, checkpoints, mirrored, syncs=None, wanted=()):
    """{group: (rows, applicable)} of EXPORT_TRANSLATED_OFFSETS for one flow: every group with a checkpoint or
    committed offsets (only the wanted ones when given). committed None: the source's committed offsets could not
    be read (a source that is down): MM2's checkpoints alone, as written, no rows judged."""
    groups = set(cp.group for cp in checkpoints) | set(committed or {})
    if wanted:
        groups &= set(wanted)
    out = {}
    for group in sorted(groups):
        mine = [cp for cp in checkpoints if cp.group == group]
        rows = group_rows((committed or {}).get(group, {}), mine, mirrored, syncs)
        out[group] = (rows, applicable(group, rows, mine))
    return out


def export_entry(rows, applied):
    """The structured output of one exported group: the offsets applied ({"target topic-p": offset}), per committed
    partition where the answer came from and the records a consumer may re-read, and the partitions left out."""
    return {"partitions": len(applied),
            "offsets": dict(("%s-%d" % (cp.topic, cp.partition), cp.downstream) for cp in applied),
            "translation": dict(("%s-%d" % (r["target_topic"], r["partition"]),
                                 {"source": r["source"], "status": r["status"], "committed": r["committed"],
                                  "offset": r["downstream"] if r["status"] in (EXACT, REREADS) else None,
                                  "reread_at_most": r["records"] if r["status"] in (EXACT, REREADS) else None,
                                  "skipped": r["records"] if r["status"] == SKIPS else 0})
                                for r in rows),
            "sources": source_counts(rows),
            "reread_at_most": sum(r["records"] for r in rows if r["status"] in (EXACT, REREADS)),
            "untranslated": names(rows, UNTRANSLATED), "skips": names(rows, SKIPS)}


def export_summary(rows):
    """What EXPORT_TRANSLATED_OFFSETS says of one group's rows: where the answers came from, the re-read bound,
    the partitions that cannot be translated or would skip."""
    if not rows:
        return ""
    counts = source_counts(rows)
    said = ["%d from %s" % (counts[k], {CHECKPOINT: "MM2's checkpoints",
                                        OFFSET_SYNC: "offset syncs"}[k])
            for k in (CHECKPOINT, OFFSET_SYNC) if counts.get(k)]
    bad = names(rows, UNTRANSLATED)
    skips = names(rows, SKIPS)
    return " (%s; a consumer re-reads at most %d record(s)%s%s)" % (
        ", ".join(said) or "none translated",
        sum(r["records"] for r in rows if r["status"] in (EXACT, REREADS)),
        "; CANNOT BE TRANSLATED: " + ", ".join(bad) if bad else "",
        "; left out, it would skip records: " + ", ".join(skips) if skips else "")


def translation_notes(version):
    """What EXPORT_TRANSLATED_OFFSETS tells the operator about what this MM2 version translates (versions.py)."""
    notes = []
    if not versions.supports(version, versions.OFFSET_SYNC_HISTORY):
        notes.append("Kafka %s: groups behind the latest offset sync get no checkpoint: this MM2 translates a group "
                     "only at or past its partition's latest offset sync (one every offset.lag.max records), so a "
                     "group that stopped mid-partition is missing here until it catches up (Kafka %s+ translates "
                     "lagging groups)" % (version, versions.feature_first(versions.OFFSET_SYNC_HISTORY_ACROSS_RESTARTS)))
    elif not versions.supports(version, versions.OFFSET_SYNC_HISTORY_ACROSS_RESTARTS):
        notes.append("Kafka %s: groups behind the last restart of the drivers get no checkpoint: this MM2 translates "
                     "a lagging group only from the offset syncs it read since its checkpoint task started, so a "
                     "group that stopped before the last restart is missing here until it catches up (fixed in Kafka "
                     "%s, KAFKA-15905)" % (version, versions.feature_first(versions.OFFSET_SYNC_HISTORY_ACROSS_RESTARTS)))
    if not versions.supports(version, versions.OFFSET_SYNC_HISTORY_ACROSS_RESTARTS):
        notes.append("Kafka %s: a committed partition without a checkpoint is translated here from the offset syncs "
                     "still in MM2's offset-syncs topic, as MM2 3.7.1+ does (the newest sync at or before the group's "
                     "offset: never past a record that was not copied; 'offset-sync' above); one without such a sync "
                     "is named as cannot be translated" % version)
    if versions.supports(version, versions.OFFSET_SYNC_HISTORY) and \
            not versions.supports(version, versions.OFFSET_SYNCS_AT_COMMIT):
        notes.append("Kafka %s: translated offsets stop at the partition's latest offset sync: a group that failed over "
                     "with them re-reads up to offset.lag.max records per partition (exact from Kafka %s)"
                     % (version, versions.feature_first(versions.OFFSET_SYNCS_AT_COMMIT)))
    return notes
