"""The cut-over readiness gate and the silent-loss rule: pure evaluation (stdlib, Python 2.7 and 3).

The agent gathers the facts with Kafka's own tools (mm2_cutover.py; their command lines and the parsers of what
they print are the Kafka boundary's, mm2_core.kafkatools); this module decides. Nothing here touches a socket or
a file. What a failover then does to each group is mm2_core.dr.failover's.

Where "the last replicated offset" comes from
---------------------------------------------
MM2's source connector commits, per source partition, the upstream offset of the last record it
wrote to the target (Connect's offsets topic ``mm2-offsets.<source>.internal`` on the target, key
``["MirrorSourceConnector",{"cluster":A,"partition":p,"topic":t}]``, value ``{"offset":N}``). A
restarted task resumes at N + 1. These offsets are flushed every ``offset.flush.interval.ms``, so
they may lag what is already on the target by that much, never lead it: records counted as "not yet
replicated" may already be there (pessimistic, never optimistic). Offset syncs were not used: they
are emitted only every ``offset.lag.max`` records (and not at all with ``emit.offset-syncs.enabled=false``).

The same committed offsets against each partition's log-start offset give the retention gap: when
the source deleted records MM2 had not copied yet (its next offset N + 1 is below log start), the
copy silently skips them (the replication consumer resets to the earliest offset).
"""
from mm2_core.dr import translation


# Operator-settable thresholds of the gate: name -> (default, meaning). One source of truth for the
# agent command's parameters, the CLI's flags and the docs.
THRESHOLDS = (
    ("max.unreplicated.records", 0, "records per flow on the source not yet replicated"),
    ("max.rpo.seconds", 0, "age of the oldest record not yet replicated"),
    ("max.heartbeat.age.seconds", 120, "age of the newest heartbeat of the source seen on the target"),
    # -1 by default: MM2 writes a checkpoint only when a group's offsets moved, so idle groups age it
    ("max.checkpoint.age.seconds", -1, "age of the newest checkpoint written by the flow (-1: no limit)"),
    ("max.reread.records", -1, "records a failed-over group may re-read, per group (-1: no limit)"),
    ("max.skipped.records", 0, "records a failed-over group would skip, per group"),
    ("blocking.drift", "partitions", "topic properties whose drift between source and target blocks "
                                     "(comma-separated; 'partitions' is the partition count)"),
)
DEFAULT_THRESHOLDS = dict((name, default) for name, default, _ in THRESHOLDS)
DRIFT_CONFIGS = ("retention.ms", "retention.bytes", "cleanup.policy", "min.insync.replicas", "max.message.bytes")

READY, NOT_READY, UNKNOWN = "READY", "NOT_READY", "UNKNOWN"
MAX_RPO_PROBES = 20   # partitions whose oldest unreplicated record's timestamp is read (worst first)


class ThresholdError(ValueError):
    pass


def thresholds(given=None):
    """Defaults overlaid with `given` ({name: text or number}); unknown names and bad numbers are refused
    by name."""
    result = dict(DEFAULT_THRESHOLDS)
    for name, value in sorted((given or {}).items()):
        if name not in result:
            raise ThresholdError("unknown cut-over threshold %s (known: %s)" % (
                name, ", ".join(n for n, _, _ in THRESHOLDS)))
        if name == "blocking.drift":
            keys = [k.strip() for k in str(value).split(",") if k.strip()]
            bad = [k for k in keys if k != "partitions" and k not in DRIFT_CONFIGS]
            if bad:
                raise ThresholdError("blocking.drift: %s is not compared (compared: partitions, %s)" % (
                    ", ".join(bad), ", ".join(DRIFT_CONFIGS)))
            result[name] = ",".join(keys)
            continue
        try:
            number = int(str(value).strip())
        except ValueError:
            raise ThresholdError("cut-over threshold %s='%s' is not a whole number" % (name, value))
        if number < -1:
            raise ThresholdError("cut-over threshold %s=%d: use a number >= 0 (-1: no limit)" % (name, number))
        result[name] = number
    return result


def _exceeds(value, limit):
    return limit is not None and limit >= 0 and value is not None and value > limit


# ---------------------------------------------------------------- topic names

def offset_syncs_topic(target, internal_sep):
    """MM2's offset-syncs topic of flows into `target` (on the source unless offset-syncs.topic.location=target)."""
    return "mm2-offset-syncs%s%s%sinternal" % (internal_sep, target, internal_sep)


# ---------------------------------------------------------------- evaluation

def unreplicated(source_ends, source_starts, replicated):
    """Per partition of the matched source topics: [(topic, partition, end, next to copy, behind, lost)].

    next to copy = last replicated + 1 (a partition MM2 never committed starts at its log start: MM2's
    consumer begins at the earliest offset); lost = records the source deleted before MM2 copied them."""
    rows = []
    for tp in sorted(source_ends):
        end = source_ends[tp]
        start = source_starts.get(tp, 0)
        if tp in replicated:
            nxt = replicated[tp] + 1
            lost = max(0, start - nxt)
        else:
            nxt, lost = start, 0
        rows.append((tp[0], tp[1], end, nxt, max(0, end - max(nxt, start)), lost))
    return rows


def silent_loss(source_starts, replicated):
    """[(topic, partition, next to copy, log start, lost records)] for partitions whose next record to copy
    was deleted on the source (retention) before MM2 copied it."""
    lost = []
    for tp in sorted(replicated):
        if tp in source_starts and source_starts[tp] > replicated[tp] + 1:
            nxt = replicated[tp] + 1
            lost.append((tp[0], tp[1], nxt, source_starts[tp], source_starts[tp] - nxt))
    return lost


def topic_drift(source_topic, target_topic, source_partitions, target_partitions, source_configs, target_configs):
    """[(property, source value, target value)] that differ; 'partitions' is the partition count. A target
    topic that does not exist yet is drift of every compared property."""
    drift = []
    if source_partitions != target_partitions:
        drift.append(("partitions", source_partitions, target_partitions))
    for name in DRIFT_CONFIGS:
        s, t = (source_configs or {}).get(name), (target_configs or {}).get(name)
        if s is not None and s != t:
            drift.append((name, s, t))
    return drift


def verdict(flow_report, limits):
    """READY / NOT_READY / UNKNOWN and the reasons, each naming the flow and what to do."""
    flow = flow_report["flow"]
    reasons = []
    if flow_report.get("errors"):
        return UNKNOWN, ["%s: %s" % (flow, e) for e in flow_report["errors"]]
    total = flow_report.get("unreplicated_records", 0)
    if _exceeds(total, limits["max.unreplicated.records"]):
        reasons.append("%s: %d record(s) on %s not yet replicated (max.unreplicated.records=%d): stop the "
                       "producers on %s and wait, or raise the threshold" % (
                           flow, total, flow_report["source"], limits["max.unreplicated.records"], flow_report["source"]))
    rpo = flow_report.get("rpo_seconds")
    if _exceeds(rpo, limits["max.rpo.seconds"]):
        reasons.append("%s: RPO %.0f s (the oldest unreplicated record's age) above max.rpo.seconds=%d" % (
            flow, rpo, limits["max.rpo.seconds"]))
    for kind, key in (("heartbeat", "max.heartbeat.age.seconds"), ("checkpoint", "max.checkpoint.age.seconds")):
        age = flow_report.get("%s_age_seconds" % kind)
        if age is None:
            if limits[key] >= 0:
                reasons.append("%s: no %s of the flow found on %s (%s): is MM2 running for %s?" % (
                    flow, kind, flow_report["target"], key, flow))
        elif _exceeds(age, limits[key]):
            reasons.append("%s: the last %s is %.0f s old (%s=%d): is MM2 running for %s?" % (
                flow, kind, age, key, limits[key], flow))
    for p in flow_report.get("retention_gap", []):
        reasons.append("%s: %s-%d lost %d record(s): the source deleted offsets %d..%d before MM2 copied them "
                       "(raise retention on %s or add tasks)" % (flow, p["topic"], p["partition"], p["lost"],
                                                                  p["next"], p["log_start"] - 1, flow_report["source"]))
    blocking = set(k for k in limits["blocking.drift"].split(",") if k)
    for d in flow_report.get("drift", []):
        if d["property"] in blocking:
            reasons.append("%s: %s differs between %s on %s (%s) and %s on %s (%s) (blocking.drift)" % (
                flow, d["property"], d["topic"], flow_report["source"], d["source"], d["target_topic"],
                flow_report["target"], d["target"]))
    for g in flow_report.get("groups", []):
        if _exceeds(g["skipped"], limits["max.skipped.records"]):
            reasons.append("%s: group %s would skip %d record(s) on %s (max.skipped.records=%d)" % (
                flow, g["group"], g["skipped"], listed(g.get("skips") or []), limits["max.skipped.records"]))
        if _exceeds(g["reread"], limits["max.reread.records"]):
            reasons.append("%s: group %s would re-read at least %d record(s) (max.reread.records=%d)" % (
                flow, g["group"], g["reread"], limits["max.reread.records"]))
        if g.get("required") and g.get("no_commit"):
            reasons.append("%s: group %s has no checkpoint for (no committed offsets on %s): MM2 has not translated "
                           "it yet (it must match kafka-mm2-replication/groups and commit on %s)" % (
                               flow, g["group"], flow_report["source"], flow_report["source"]))
        if g.get("untranslated"):
            reasons.append("%s: group %s is NOT READY for failover: %d partition(s) cannot be translated (no "
                           "checkpoint of MM2 and no offset sync at or before the group's offset): %s; a failover "
                           "would leave them to the group's auto.offset.reset on %s (a skip or a full re-read)" % (
                               flow, g["group"], len(g["untranslated"]), listed(g["untranslated"]),
                               flow_report["target"]))
    return (NOT_READY if reasons else READY), reasons


def evaluate_flow(flow, source, target, facts, limits, now_ms, mirrored, wanted_groups=()):
    """The gate's report of one flow from gathered facts (see mm2_cutover.gather_flow):

    facts: source_ends, source_starts, replicated ({(t, p): offset}), target_partitions ({target topic: n}),
    source_configs/target_configs ({topic: {name: value}}), oldest_unreplicated_ms ({(t, p): ts}),
    heartbeat_ms, checkpoint_ms (newest seen or None), committed ({group: {(t, p): C}}), checkpoints
    (Checkpoint list), errors (list: a fact that could not be read makes the verdict UNKNOWN)."""
    rows = unreplicated(facts.get("source_ends", {}), facts.get("source_starts", {}), facts.get("replicated", {}))
    report = {"flow": flow, "source": source, "target": target, "errors": list(facts.get("errors") or []),
              "source_reachable": facts.get("source_reachable", True),
              "target_reachable": facts.get("target_reachable", True),
              "partitions": [], "retention_gap": [], "drift": [], "groups": []}
    total, oldest = 0, None
    stamps = facts.get("oldest_unreplicated_ms") or {}
    for topic, partition, end, nxt, behind, lost in rows:
        ts = stamps.get((topic, partition))
        age = None if ts is None or not behind else max(0.0, (now_ms - ts) / 1000.0)
        report["partitions"].append({"topic": topic, "partition": partition, "end": end, "next": nxt,
                                     "unreplicated": behind, "rpo_seconds": age})
        total += behind
        if age is not None:
            oldest = age if oldest is None else max(oldest, age)
        if lost:
            report["retention_gap"].append({"topic": topic, "partition": partition, "next": nxt,
                                            "log_start": facts["source_starts"][(topic, partition)], "lost": lost})
    report["unreplicated_records"] = total
    unmeasured = [p for p in report["partitions"] if p["unreplicated"] and p["rpo_seconds"] is None]
    report["rpo_seconds"] = 0.0 if total == 0 else oldest
    if unmeasured and oldest is None:
        report["rpo_seconds"] = None
        report["errors"].append("the age of the oldest unreplicated record could not be read (%d partition(s))"
                                % len(unmeasured))
    report["rpo_unmeasured_partitions"] = len(unmeasured)
    if not report["source_reachable"]:
        report["rpo_seconds"] = None
    for kind in ("heartbeat", "checkpoint"):
        # the age when the topic was read: gathering the other facts may take minutes on a busy host
        ms, read_ms = facts.get("%s_ms" % kind), facts.get("%s_read_ms" % kind) or now_ms
        report["%s_age_seconds" % kind] = None if ms is None else max(0.0, (read_ms - ms) / 1000.0)

    source_partitions = {}
    for (topic, partition) in facts.get("source_ends", {}):
        source_partitions[topic] = source_partitions.get(topic, 0) + 1
    target_partitions = facts.get("target_partitions", {})
    for topic in sorted(source_partitions):
        tt = mirrored(topic)
        for name, s, t in topic_drift(topic, tt, source_partitions[topic], target_partitions.get(tt, 0),
                                      (facts.get("source_configs") or {}).get(topic),
                                      (facts.get("target_configs") or {}).get(tt)):
            report["drift"].append({"topic": topic, "target_topic": tt, "property": name, "source": s, "target": t})

    by_group = checkpoints_by_group(facts.get("checkpoints"))
    committed = facts.get("committed") or {}
    # a caught-up group's partition translates to the target's end only when the source's ends were read after it
    ordered = facts.get("target_ends_ms") is not None and facts.get("source_ends_ms") is not None and \
        facts["target_ends_ms"] <= facts["source_ends_ms"]
    source_ends_after = facts.get("source_ends") if ordered else None
    groups = sorted(set(committed) | set(wanted_groups))
    for group in groups:
        mine = by_group.get(group, [])
        rows = translation.group_rows(committed.get(group, {}), mine, mirrored, facts.get("offset_syncs"),
                                      facts.get("target_ends"), source_ends_after)
        entry = group_entry(group, rows)
        entry["required"] = group in wanted_groups
        if group in wanted_groups and not committed.get(group) and not mine:
            entry["no_commit"] = True
            entry["no_checkpoint"] = ["(no committed offsets on %s)" % source]
        report["groups"].append(entry)
    report["verdict"], report["reasons"] = verdict(report, limits)
    report["thresholds"] = dict(limits)
    return report


def checkpoints_by_group(checkpoints):
    """{group: [its checkpoints, in order]} in one pass: looking each group up in the whole list costs groups x
    checkpoints (1,000 groups of 50 partitions: 8.6 CPU s)."""
    by_group = {}
    for cp in checkpoints or ():
        by_group.setdefault(cp.group, []).append(cp)
    return by_group


def rpo_probes(rows, limit=MAX_RPO_PROBES):
    """(topic, partition, offset) of the oldest unreplicated record of the partitions furthest behind."""
    behind = sorted((r for r in rows if r[4] > 0), key=lambda r: (-r[4], r[0], r[1]))
    # past a retention gap the oldest record still there is at the log start (next + lost)
    return [(r[0], r[1], r[3] + r[5]) for r in behind[:limit]]


def format_report(report):
    lines = ["Flow %s: %s" % (report["flow"], report["verdict"])]
    rpo = report.get("rpo_seconds")
    lines.append("  not yet replicated: %d record(s); RPO %s; last heartbeat %s; last checkpoint %s" % (
        report.get("unreplicated_records", 0), "unknown" if rpo is None else "%.0f s" % rpo,
        _age_text(report.get("heartbeat_age_seconds")), _age_text(report.get("checkpoint_age_seconds"))))
    for p in report.get("partitions", []):
        if p["unreplicated"]:
            lines.append("    %s-%d: %d behind (next to copy %d, end %d)%s" % (
                p["topic"], p["partition"], p["unreplicated"], p["next"], p["end"],
                "" if p["rpo_seconds"] is None else ", oldest %.0f s old" % p["rpo_seconds"]))
    for d in report.get("drift", []):
        lines.append("  drift %s -> %s: %s %s vs %s" % (d["topic"], d["target_topic"], d["property"], d["source"],
                                                         d["target"]))
    for g in report.get("retention_gap", []):
        lines.append("  retention gap %s-%d: %d record(s) deleted before MM2 copied them" % (
            g["topic"], g["partition"], g["lost"]))
    for g in report.get("groups", []):
        lines.append("  group %s: skip %d, re-read >= %d%s%s" % (
            g["group"], g["skipped"], g["reread"],
            "; from offset syncs (no checkpoint): " + listed(g["from_offset_syncs"]) if g.get("from_offset_syncs")
            else "", "; cannot be translated: " + listed(g["untranslated"]) if g.get("untranslated") else ""))
    for r in report.get("reasons", []):
        lines.append("  ! " + r)
    return "\n".join(lines)


def _age_text(seconds):
    return "none seen" if seconds is None else "%.0f s ago" % seconds


def group_entry(group, rows):
    """A group's part of the gate's report (and FAILOVER_GROUPS' judgement) from translation.group_rows: records
    skipped and re-read at most, the partitions per source of the answer and those that cannot be translated."""
    return {"group": group,
            "skipped": sum(r["records"] for r in rows if r["status"] == translation.SKIPS),
            "reread": sum(r["records"] for r in rows if r["status"] == translation.REREADS),
            "skips": translation.names(rows, translation.SKIPS),
            "no_checkpoint": ["%s-%d" % (r["topic"], r["partition"]) for r in rows
                              if r["source"] != translation.CHECKPOINT],
            "from_offset_syncs": ["%s-%d" % (r["topic"], r["partition"]) for r in rows
                                  if r["source"] == translation.OFFSET_SYNC],
            "untranslated": translation.names(rows, translation.UNTRANSLATED),
            "sources": translation.source_counts(rows),
            "partitions": rows}


def listed(items, most=10):
    items = list(items)
    return ", ".join(items[:most]) + (" and %d more" % (len(items) - most) if len(items) > most else "")
