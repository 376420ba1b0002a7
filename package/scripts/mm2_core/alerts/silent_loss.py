"""The silent-loss alert: records the source deleted (retention) before MirrorMaker 2 copied them.

Stdlib only, Python 2.7 and 3. MM2's replication consumer fetches from the offset after the last one it copied
(its committed source offset + 1). When retention has already deleted that offset, the broker answers
OFFSET_OUT_OF_RANGE and the consumer jumps to the partition's log-start offset (MM2 resets to the earliest
offset): the records in between are never copied, and nothing else reports it. Kafka's consumer logs both numbers
in MM2's log at INFO:

  [Consumer clientId=A->B|MirrorSourceConnector-0|replication-consumer, groupId=null] Fetch position
      FetchPosition{offset=100, ...} is out of range for partition orders-0, resetting offset
  [Consumer clientId=A->B|MirrorSourceConnector-0|replication-consumer, groupId=null] Resetting offset for
      partition orders-0 to position FetchPosition{offset=150, ...}.

(FetchCollector and SubscriptionState, Kafka 3.x; the flow is read from the replication consumer's client id, which
names it from Kafka 3.5, KAFKA-14838), so the alert compares MM2's source position with the log-start offset the broker reset it to, exactly when it
happened, on the driver host that lost them (no JVM, no Kafka connection). The cut-over gate (CUTOVER_CHECK)
makes the same comparison from the committed offsets and kafka-get-offsets --time -2 (mm2_core.dr.cutover.silent_loss).

The log is read incrementally (the position is kept in the alert's state file), at most MAX_READ bytes a run;
a rotated log (mirrormaker.log.1) is finished first. Losses stay in the state for the alert's window.
"""
import os
import re
import time

from mm2_core.alerts.evaluation import Result

MAX_READ = 8 * 1024 * 1024
MAX_EVENTS = 200

_CLIENT = r"\[Consumer clientId=(?:[^|\],]*\|)?(?P<flow>[^|\],]+->[^|\],]+)\|[^\],]*replication-consumer[^\]]*\]"
_OUT_OF_RANGE = re.compile(_CLIENT + r" Fetch position FetchPosition\{offset=(?P<offset>-?\d+).*? is out of range for "
                                     r"partition (?P<tp>\S+), resetting offset")
_RESET = re.compile(_CLIENT + r" Resetting offset for partition (?P<tp>\S+) to position FetchPosition\{offset="
                              r"(?P<offset>-?\d+)")


def _split_tp(tp):
    topic, _, partition = tp.rpartition("-")
    return topic, int(partition)


def parse_losses(text, pending=None):
    """Loss events in log text: [{'flow', 'topic', 'partition', 'from', 'to', 'lost'}]. pending carries an
    out-of-range line whose reset line is in the next chunk ({(flow, tp): offset}); it is updated in place."""
    pending = {} if pending is None else pending
    events = []
    for line in text.splitlines():
        m = _OUT_OF_RANGE.search(line)
        if m:
            pending[(m.group("flow"), m.group("tp"))] = int(m.group("offset"))
            continue
        m = _RESET.search(line)
        if m:
            key = (m.group("flow"), m.group("tp"))
            if key in pending:
                start = pending.pop(key)
                to = int(m.group("offset"))
                if to > start:   # a reset forwards: the records start..to-1 were deleted before MM2 read them
                    topic, partition = _split_tp(m.group("tp"))
                    events.append({"flow": key[0], "topic": topic, "partition": partition, "from": start, "to": to,
                                   "lost": to - start})
    return events


def _read_from(path, offset, budget):
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read(budget)
    # only whole lines: the rest is read next time
    cut = data.rfind(b"\n") + 1
    return data[:cut].decode("utf-8", "replace"), offset + cut


def scan(log_path, state, now):
    """Read what the log gained since the state's position; returns the new state (events within it carry 'at')."""
    state = dict(state or {})
    events = list(state.get("events") or [])
    pending = dict((tuple(k.split("\t", 1)), v) for k, v in (state.get("pending") or {}).items())
    try:
        st = os.stat(log_path)
    except OSError:
        state.update({"events": events, "error": "no log at %s" % log_path})
        return state
    inode, offset = state.get("inode"), int(state.get("offset") or 0)
    budget = MAX_READ
    if inode is not None and (inode != st.st_ino or st.st_size < offset):
        rotated = log_path + ".1"
        try:
            if os.stat(rotated).st_ino == inode:
                text, _ = _read_from(rotated, offset, budget)
                budget -= len(text)
                for e in parse_losses(text, pending):
                    e["at"] = now
                    events.append(e)
        except OSError:
            pass
        offset = 0
    text, offset = _read_from(log_path, offset, max(budget, 0))
    for e in parse_losses(text, pending):
        e["at"] = now
        events.append(e)
    state.update({"inode": st.st_ino, "offset": offset, "events": events[-MAX_EVENTS:],
                  "pending": dict(("%s\t%s" % k, v) for k, v in pending.items())})
    state.pop("error", None)
    return state


def evaluate(state, now, window_hours, warning, critical, host):
    """(state, lines) for the alert: the records lost within the window, per flow and partition."""
    window = max(0.0, float(window_hours)) * 3600
    recent = [e for e in state.get("events") or [] if now - float(e.get("at", 0)) <= window]
    if state.get("error") and not recent:
        return "UNKNOWN", ["Cannot read MirrorMaker 2's log on %s: %s (kafka-mm2-env/mm2_log_dir)" % (
            host, state["error"])]
    if not recent:
        return "OK", ["No records lost to retention on %s in the last %g h: MM2's replication consumers never fell "
                      "behind a source partition's log-start offset" % (host, float(window_hours))]
    total = sum(e["lost"] for e in recent)
    lines = ["%d record(s) were deleted on the source by retention before MirrorMaker 2 copied them (last %g h, "
             "%s); they are missing on the target:" % (total, float(window_hours), host)]
    for e in recent[-20:]:
        lines.append("  %s %s-%d: offsets %d..%d lost (%d), %s" % (
            e["flow"], e["topic"], e["partition"], e["from"], e["to"] - 1, e["lost"],
            time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(e["at"])))))
    lines.append("Raise retention.ms/retention.bytes on the source, or add tasks (tasks.max) so MM2 keeps up; the "
                 "cut-over gate (CUTOVER_CHECK) lists partitions at risk")
    state_name = "CRITICAL" if total >= critical else ("WARNING" if total >= warning else "OK")
    return state_name, lines


def run(run):
    """The alert's run (alert_runner.AlertRun): scan MM2's log on this host from where the last run stopped, keep
    the losses in the state file, and report those within the loss window."""
    state = scan(run.mm2_log_path(), run.load_state(), run.now)
    problem = run.save_data(state)
    state_name, lines = evaluate(state, run.now, run.param("loss.window.hours"), run.thresholds.warning,
                                 run.thresholds.critical, run.host)
    if problem:
        lines.append("Note: " + problem)
    return Result(state_name, lines)
