"""The report: counts and statuses, the JSON report, the summary table and the plot."""
import json
import time

from mm2_verify_job.spec import (
    BadInput, EXIT_FAILED, EXIT_OK, REPORT_VERSION, offsets_json, format_duration, format_ms)


COUNT_FIELDS = ("source_records", "target_records", "matched", "missing", "pending", "duplicates",
                "extra", "order_violations", "keys_out_of_order")


def completeness(counts):
    """Share of source records found on the target (1.0 for an empty source)."""
    if not counts["source_records"]:
        return 1.0
    return round(float(counts["matched"]) / counts["source_records"], 6)


def failures(counts, fail_on):
    """The checks in fail_on that these counts violate."""
    field = {"missing": "missing", "order": "order_violations", "pending": "pending",
             "duplicates": "duplicates", "extra": "extra", "skipped": "offsets_skipped"}
    return [name for name in fail_on if counts.get(field[name])]


def status_of(counts, fail_on):
    failed = failures(counts, fail_on)
    if failed:
        return "FAILED(" + ",".join(failed) + ")"
    if counts["pending"]:
        return "PENDING"
    return "OK"


def sum_counts(entries):
    totals = dict((k, sum(e[k] for e in entries)) for k in COUNT_FIELDS)
    totals["target_outside_range"] = sum(e["target_outside_range"] for e in entries)
    totals["partitions"] = len(entries)
    totals["completeness"] = completeness(totals)
    return totals


def flow_report(spec, partitions, tail_end_ms, seconds, offsets=None):
    totals = sum_counts(partitions)
    totals["offsets_reread"] = offsets["reread"] if offsets else 0
    totals["offsets_skipped"] = offsets["skipped"] if offsets else 0
    totals["status"] = status_of(totals, spec["fail_on"])
    return {
        "flow": spec["flow"],
        "source_alias": spec["source_alias"],
        "target_alias": spec["target_alias"],
        "policy": spec["policy"],
        "separator": spec["separator"],
        "range": {
            "mode": spec["mode"],
            "since": format_ms(spec["since_ms"]),
            "until": format_ms(spec["until_ms"]),
            "starting_offsets": spec["starting_offsets"] and offsets_json(spec["starting_offsets"]),
            "ending_offsets": spec["ending_offsets"] and offsets_json(spec["ending_offsets"]),
        },
        "settings": {
            "topics": spec["topics"],
            "topics_exclude": spec["topics_exclude"],
            "match_on": spec["match_on"],
            "pending_window_ms": spec["pending_window_ms"],
            "pending_records": spec["pending_records"],
            "pending_since": format_ms(tail_end_ms - spec["pending_window_ms"]) if tail_end_ms else None,
            "fail_on": spec["fail_on"],
        },
        "inputs": dict((side, _describe_input(spec[side])) for side in ("source", "target")),
        "totals": totals,
        "partitions": partitions,
        "offsets": offsets,
        "seconds": round(seconds, 3),
    }


def _describe_input(spec):
    """Where data came from, without secrets (only the bootstrap list and the protocol)."""
    if spec["kind"] == "kafka":
        options = spec["options"]
        return {"kind": "kafka", "bootstrap.servers": options.get("bootstrap.servers"),
                "security.protocol": options.get("security.protocol", "PLAINTEXT")}
    return {"kind": spec["kind"], "path": spec["path"]}


def build_report(flows):
    entries = [p for f in flows for p in f["partitions"]]
    totals = sum_counts(entries)
    for key in ("offsets_reread", "offsets_skipped"):
        totals[key] = sum(f["totals"].get(key, 0) for f in flows)
    failed = [f["flow"] for f in flows if f["totals"]["status"].startswith("FAILED")]
    exit_code = EXIT_FAILED if failed else EXIT_OK
    return {
        "report_version": REPORT_VERSION,
        "generated_at": format_ms(int(time.time() * 1000)),
        "status": "FAILED" if failed else "OK",
        "exit_code": exit_code,
        "failed_flows": failed,
        "totals": totals,
        "flows": flows,
    }


# ---------------------------------------------------------------- presentation

TABLE_COLUMNS = (("topic", "topic"), ("target_topic", "target topic"), ("partition", "part"),
                 ("source_records", "source"), ("target_records", "target"), ("matched", "matched"),
                 ("missing", "missing"), ("pending", "pending"), ("duplicates", "dup"),
                 ("extra", "extra"), ("order_violations", "order"), ("completeness", "complete"),
                 ("status", "status"))


def _cell(key, value):
    if key == "completeness":
        return "%.2f%%" % (100.0 * value)
    return "" if value is None else str(value)


def format_offsets(offsets):
    """Failover offsets per consumer group and partition, under the flow's table."""
    if not offsets:
        return []
    if offsets["error"]:
        return ["Failover offsets not checked: %s" % offsets["error"]]
    if not offsets["groups"]:
        return ["Failover offsets: no consumer group has committed offsets or checkpoints on these topics."]
    lines = ["Failover offsets (MM2 checkpoints on the target, else its offset syncs, vs committed offsets on "
             "the source):"]
    header = ("group", "topic", "part", "committed", "upstream", "target offset", "re-read", "skipped", "from",
              "status")
    cells = [list(header)]
    for g in offsets["groups"]:
        synced = g["translation_source"] == "offset-sync"
        cells.append([g["group"], g["topic"], str(g["partition"]), _cell("", g["committed"]),
                      _cell("", g["sync_upstream"] if synced else g["checkpoint_upstream"]), _cell("", g["downstream"]),
                      _cell("", g["reread"]), _cell("", g["skipped"]), g["translation_source"] or "-", g["status"]])
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for n, row in enumerate(cells):
        lines.append("  " + "  ".join(c.rjust(widths[i]) if 2 <= i <= 7 else c.ljust(widths[i])
                                      for i, c in enumerate(row)).rstrip())
    if offsets["from_offset_syncs"]:
        lines.append("  Translated from the offset syncs (no MM2 checkpoint; Kafka 3.4.1-3.6.x writes none for a group "
                     "behind the syncs its checkpoint task read): %s" % ", ".join(offsets["from_offset_syncs"]))
    if offsets["untranslated"]:
        lines.append("  No checkpoint and no offset sync at or before the committed offset (would restart at "
                     "auto.offset.reset): %s" % ", ".join(offsets["untranslated"]))
    if offsets["offset_syncs_error"]:
        lines.append("  Offset syncs not read: %s" % offsets["offset_syncs_error"])
    return lines


def format_table(report, max_rows=None):
    """The readable summary: one table per flow, then the verdict."""
    lines = []
    for flow in report["flows"]:
        settings, rng = flow["settings"], flow["range"]
        if rng["mode"] == "time":
            where = "%s .. %s" % (rng["since"] or "beginning", rng["until"])
        elif rng["mode"] == "offsets":
            where = "offsets %s .. %s" % (json.dumps(rng["starting_offsets"], sort_keys=True),
                                          json.dumps(rng["ending_offsets"], sort_keys=True))
        else:
            where = "everything read"
        lines.append("Flow %s (policy %s, separator '%s'), range: %s; pending window %s%s" % (
            flow["flow"], flow["policy"], flow["separator"], where, format_duration(settings["pending_window_ms"]),
            " / last %d offsets" % settings["pending_records"] if settings["pending_records"] else ""))
        rows = flow["partitions"]
        shown = rows if max_rows is None or len(rows) <= max_rows else sorted(
            rows, key=lambda e: (e["status"] == "OK", e["completeness"]))[:max_rows]
        total_row = dict(flow["totals"], topic="TOTAL", target_topic="", partition="")
        cells = [[h for _, h in TABLE_COLUMNS]] + [[_cell(k, e.get(k)) for k, _ in TABLE_COLUMNS]
                                                   for e in shown + [total_row]]
        widths = [max(len(r[i]) for r in cells) for i in range(len(TABLE_COLUMNS))]
        numeric = set(range(2, len(TABLE_COLUMNS) - 1))
        for n, row in enumerate(cells):
            lines.append("  ".join(c.rjust(widths[i]) if i in numeric else c.ljust(widths[i])
                                   for i, c in enumerate(row)).rstrip())
            if n == 0 or n == len(cells) - 2:
                lines.append("  ".join("-" * w for w in widths))
        if len(shown) < len(rows):
            lines.append("(%d of %d partitions shown, problems first; the JSON report has all)" % (len(shown), len(rows)))
        lines.extend(format_offsets(flow.get("offsets")))
        if flow["totals"]["target_outside_range"]:
            lines.append("%d target records lie outside the compared range (not counted)."
                         % flow["totals"]["target_outside_range"])
        lines.append("")
    if report.get("spark"):
        lines.append("Spark %s on %s (%s)" % (report["spark"]["version"], report["spark"]["master"],
                                              report["spark"]["application_id"]))
    totals = report["totals"]
    if report["status"] == "OK":
        verdict = "OK: %d of %d source records verified on the target" % (totals["matched"], totals["source_records"])
        if totals["pending"]:
            verdict += ", %d still in flight (pending)" % totals["pending"]
    else:
        verdict = "FAILED (%s): %d missing, %d out of order, %d pending, %d duplicates, %d extra" % (
            ", ".join(report["failed_flows"]), totals["missing"], totals["order_violations"], totals["pending"],
            totals["duplicates"], totals["extra"])
        if totals.get("offsets_skipped"):
            verdict += ", %d records a failed-over consumer would skip" % totals["offsets_skipped"]
    lines.append(verdict + " (exit %d)" % report["exit_code"])
    return "\n".join(lines)


def _bars(report):
    """[(label, matched, pending, missing) as fractions of the source records] per partition."""
    bars = []
    for flow in report["flows"]:
        for e in flow["partitions"]:
            n = float(e["source_records"]) or 1.0
            label = "%s %s[%d]" % (flow["flow"], e["topic"], e["partition"])
            bars.append((label, e["matched"] / n, e["pending"] / n, e["missing"] / n, e))
    return sorted(bars, key=lambda b: (b[1], b[0]))


def write_plot(report, path, max_bars=60):
    """Completeness per partition: PNG (matplotlib) or self-contained HTML by the extension."""
    bars = _bars(report)
    hidden = max(0, len(bars) - max_bars)
    bars = bars[:max_bars]  # the least complete ones
    title = "Replication completeness per partition (%s)" % report["status"]
    if hidden:
        title += ", %d least complete of %d" % (len(bars), len(bars) + hidden)
    if path.lower().endswith((".html", ".htm")):
        with open(path, "w") as handle:
            handle.write(_html_plot(title, bars))
        return path
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise BadInput("--plot %s: matplotlib is not installed here; install it or use a .html plot" % path)
    labels = [b[0] for b in bars]
    positions = list(range(len(bars)))
    figure, (left, right) = pyplot.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]},
                                            figsize=(12, 1.6 + 0.3 * max(1, len(bars))))
    done = [100 * b[1] for b in bars]
    pend = [100 * b[2] for b in bars]
    miss = [100 * b[3] for b in bars]
    left.barh(positions, done, color="#2e7d32", label="matched")
    left.barh(positions, pend, left=done, color="#f9a825", label="pending")
    left.barh(positions, miss, left=[a + b for a, b in zip(done, pend)], color="#c62828", label="missing")
    # Losses are usually tiny: zoom the axis so a 99.9% bar does not look like 100%.
    lowest = min(done) if done else 100.0
    floor = 0.0 if lowest < 50 else max(0.0, 100 - 2 * (100 - lowest)) if lowest < 100 else 99.0
    left.set_xlim(floor, 100)
    left.set_xlabel("%% of source records (axis from %g%%)" % floor)
    left.set_yticks(positions)
    left.set_yticklabels(labels, fontsize=8)
    left.invert_yaxis()  # least complete on top
    left.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    kinds = (("missing", "#c62828"), ("pending", "#f9a825"), ("duplicates", "#1565c0"),
             ("order_violations", "#6a1b9a"))
    height = 0.8 / len(kinds)
    for n, (kind, color) in enumerate(kinds):
        values = [b[4][kind] for b in bars]
        offsets = [y - 0.4 + height * (n + 0.5) for y in positions]
        right.barh(offsets, values, height=height, color=color, label=kind.replace("_", " "))
        for y, v in zip(offsets, values):
            if v:
                right.text(v, y, " %d" % v, va="center", fontsize=7)
    right.set_xlabel("records")
    right.xaxis.get_major_locator().set_params(integer=True)
    right.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=8, frameon=False)
    figure.suptitle(title, fontsize=10, y=1.0)
    figure.tight_layout()
    figure.savefig(path, dpi=100, bbox_inches="tight")
    pyplot.close(figure)
    return path


def _escape(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def _html_plot(title, bars):
    rows = []
    for label, done, pend, miss, e in bars:
        rows.append(
            '<tr><td>%s</td><td><div class="bar"><span class="m" style="width:%.3f%%"></span>'
            '<span class="p" style="width:%.3f%%"></span><span class="x" style="width:%.3f%%"></span></div></td>'
            '<td>%.2f%%</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>' % (
                _escape(label), 100 * done, 100 * pend, 100 * miss, 100 * done, e["missing"], e["pending"],
                e["duplicates"], e["order_violations"], _escape(e["status"])))
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title><style>"
            "body{font-family:sans-serif;font-size:13px}td{padding:2px 6px}"
            ".bar{width:400px;height:12px;background:#eee;display:flex}.bar span{height:12px}"
            ".m{background:#2e7d32}.p{background:#f9a825}.x{background:#c62828}</style></head><body>"
            "<h3>%s</h3><p>green matched, amber pending, red missing</p><table><tr><th>partition</th>"
            "<th>completeness</th><th></th><th>missing</th><th>pending</th><th>dup</th><th>order</th>"
            "<th>status</th></tr>%s</table></body></html>\n") % (_escape(title), _escape(title), "".join(rows))
