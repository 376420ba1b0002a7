"""EXPORT_TRANSLATED_OFFSETS: translated consumer-group offsets per flow, as CSV files for
kafka-consumer-groups.sh --reset-offsets --from-file on the target.

The facts are read with the installation's Kafka tools as the MM2 user (mm2_kafka_cli; MM2's checkpoints here, the
groups' committed offsets and the offset syncs with mm2_cutover's readers); where each group starts and what it
re-reads is the pure core's (mm2_core.dr.translation).
"""
import os
import re
import time

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

import mm2_agent
from mm2_core.dr import translation
from mm2_core.formats.text import text, to_text
from mm2_core.host import kafka_tools
from mm2_core.kafkatools import commands as kafka_commands, records as kafka_records
from mm2_core.model import resolved


def checkpoint_interval_seconds(rendering, flow):
    """emit.checkpoints.interval.seconds of the flow: a 2.x read of the checkpoints topic ends on a shorter quiet
    (MM2 re-emits every checkpoint each interval before 3.4.1)."""
    return max(resolved.flow_int(rendering.topology, flow, "emit.checkpoints.interval.seconds"), 1)


def _safe_name(text):
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)[:120] or "_"


def _new_dir(path):
    """path, or path-2, path-3... when an export of the same second is already there."""
    candidate, n = path, 1
    while True:
        try:
            os.makedirs(candidate, 0o750)
            return candidate
        except OSError:
            if not os.path.isdir(candidate):
                raise
            n += 1
            candidate = "%s-%d" % (path, n)


def _write(path, content, uid, gid):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "wb") as fh:
        fh.write(text(content).encode("utf-8"))
    os.chown(path, uid, gid)


def translation_inputs(cli, rendering, flow, wanted):
    """(committed offsets {group: {(t, p): C}} or None, offset syncs, notes) for the partitions MM2's checkpoints
    lack (mm2_core.dr.translation); None when the source's groups cannot be read (checkpoints alone)."""
    import mm2_cutover
    committed, problem = mm2_cutover.committed_offsets(
        cli, rendering, flow, wanted, lambda tp: resolved.replicated_topic(rendering.topology, flow, tp[0]))
    if problem:
        return None, {}, ["only MM2's checkpoints are exported, unchecked: the committed offsets on %s could not be "
                          "read, so partitions the checkpoints lack cannot be found or translated (%s)"
                          % (flow.source, problem)]
    syncs, problem = mm2_cutover.read_offset_syncs(cli, rendering, flow)
    return committed, syncs, [problem] if problem else []


def export_translated_offsets(script, params, groups_filter=None):
    """Translated consumer-group offsets per flow, as CSV files for
    kafka-consumer-groups.sh --reset-offsets --from-file on the target."""
    import mm2_kafka_cli
    from resource_management.libraries.functions.default import default
    rendering = mm2_agent.render(params)
    topo = rendering.topology
    wanted = groups_filter
    if wanted is None:
        value = default("/commandParams/groups", "") or ""
        wanted = [g.strip() for g in text(to_text(value)).split(",") if g.strip()]
    mm2_agent.kinit(params)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join(params.mm2_log_dir, "translated-offsets")
    exported, summary_lines = [], []
    with mm2_kafka_cli.KafkaCli(params, rendering) as cli:
        if not os.path.isdir(base):
            os.makedirs(base, 0o750)
            os.chown(base, cli.uid, cli.gid)
        for flow in topo.enabled_flows:
            topic = kafka_tools.checkpoints_topic(flow.source, topo.separator, cli.version,
                                                  kafka_tools.internal_separator_enabled(rendering.properties))
            result = cli.read_compacted(flow.target, topic, "checkpoint", checkpoint_interval_seconds(rendering, flow))
            if not result.ok:
                raise Fail("Reading %s on %s failed: %s" % (topic, flow.target, result.problem()))
            checkpoints = kafka_records.latest_checkpoints(kafka_records.parse_checkpoints(result.out))
            committed, syncs, read_notes = translation_inputs(cli, rendering, flow, wanted)
            exports = translation.export_groups(committed, checkpoints, lambda t, f=flow: topo.mirrored_topic(f, t),
                                                syncs, wanted)
            entry = {"flow": flow.name, "source": flow.source, "target": flow.target, "topic": topic,
                     "groups": {}, "notes": read_notes}
            summary_lines.extend("%s: %s" % (flow.name, n) for n in read_notes)
            if not exports:
                summary_lines.append("%s: no checkpoints in %s on %s%s (groups must match kafka-mm2-replication/"
                                     "groups and have committed offsets on %s)" % (
                                         flow.name, topic, flow.target,
                                         " for " + ", ".join(wanted) if wanted else "", flow.source))
                exported.append(entry)
                continue
            out_dir = _new_dir(os.path.join(base, "%s-to-%s-%s" % (_safe_name(flow.source),
                                                                   _safe_name(flow.target), stamp)))
            os.chown(out_dir, cli.uid, cli.gid)
            all_path = os.path.join(out_dir, "all-groups.csv")
            _write(all_path, kafka_commands.reset_offsets_csv([cp for _rows, applied in exports.values() for cp in applied],
                                                     with_group=True), cli.uid, cli.gid)
            entry["all_groups_csv"] = all_path
            summary_lines.append("%s: %d group(s) from %s on %s%s -> %s" % (
                flow.name, len(exports), topic, flow.target, "" if committed is None else
                " and the offset syncs", out_dir))
            for group in sorted(exports):
                rows, applied = exports[group]
                path = os.path.join(out_dir, "group-%s.csv" % _safe_name(group))
                if applied:
                    _write(path, kafka_commands.reset_offsets_csv(applied, with_group=False), cli.uid, cli.gid)
                entry["groups"][group] = dict(translation.export_entry(rows, applied), csv=path if applied else None)
                summary_lines.append("  %s: %d partition(s) -> %s%s" % (
                    group, len(applied), path if applied else "(nothing to apply)", translation.export_summary(rows)))
                if rows:
                    summary_lines.append("    " + translation.describe(rows))
            hint = kafka_commands.groups_reset_hint(
                params.kafka_home, cli.bootstrap(flow.target), "<client config of %s>" % flow.target,
                os.path.join(out_dir, "group-<group>.csv"), ["<group>"])
            summary_lines.append("  apply on %s while the group is stopped (dry run first, then --execute): %s"
                                 % (flow.target, " ".join(hint)))
            exported.append(entry)
        summary_lines.extend(translation.translation_notes(".".join(str(v) for v in cli.version)))
    Logger.info("Translated consumer-group offsets (MM2's checkpoints; where they lack a committed partition, the "
                "offset syncs):\n" + "\n".join(summary_lines))
    script.put_structured_out({"translated_offsets": exported})
    return exported
