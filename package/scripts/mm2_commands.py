"""Service check and the custom command REPLICATION_STATUS (EXPORT_TRANSLATED_OFFSETS is mm2_export's).

They talk to the Kafka clusters only through the installation's command-line tools
(mm2_kafka_cli), as the MM2 user, with the same security settings MM2 uses. The record formats
are parsed by the Kafka boundary (mm2_core.kafkatools).
"""
import os
import time
import uuid

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

import mm2_agent
from mm2_core.config import names
from mm2_core.host import kafka_tools
from mm2_core.kafkatools import records as kafka_records
from mm2_core.model import resolved

CHECK_TOPIC = names.SERVICE_CHECK_TOPIC
CHECK_TOPIC_CONFIGS = {"retention.ms": str(24 * 3600 * 1000)}
POLL_SECONDS = 5
STATUS_REREAD_MS = 20000   # the second read of a status topic that came back without the source connector


# ---------------------------------------------------------------- start: the check topic

def ensure_check_topics(params, rendering, timeout=30):
    """At START, create the service check topic on every source that lacks it, so MM2's first
    topic scan finds it (new topics are otherwise noticed only every refresh.topics.interval).
    Best effort: a source MM2 may not write to only costs a warning."""
    import mm2_kafka_cli
    topo = rendering.topology
    sources = [s for s in topo.sources() if any(resolved.topic_filter(topo, f).matches(CHECK_TOPIC)
                                                for f in topo.enabled_flows if f.source == s)]
    marker_dir = params.mm2_conf_dir
    todo = [s for s in sources if not os.path.exists(os.path.join(marker_dir, ".check-topic-%s" % s))]
    if not todo:
        return
    mm2_agent.kinit(params)
    with mm2_kafka_cli.KafkaCli(params, rendering, timeout=timeout) as cli:
        for alias in todo:
            result = cli.create_topic(alias, CHECK_TOPIC, CHECK_TOPIC_CONFIGS)
            if result.ok:
                Logger.info("Service check topic %s is on %s" % (CHECK_TOPIC, alias))
                marker = os.path.join(marker_dir, ".check-topic-%s" % alias)
                with open(marker, "w") as fh:
                    fh.write("%d\n" % int(time.time()))
                # the conf dir is the MM2 user's: nothing in it stays owned by the agent's root
                os.chown(marker, cli.uid, cli.gid)
            else:
                Logger.warning("Could not create the service check topic %s on %s (the service check will "
                               "try again): %s" % (CHECK_TOPIC, alias, result.problem()))


# ---------------------------------------------------------------- service check

class CheckFailed(Exception):
    def __init__(self, step, message):
        Exception.__init__(self, "%s: %s" % (step, message))
        self.step = step


def _wait_for(deadline, attempt):
    """Call attempt() until it returns something truthy or the deadline passes (1 s, 2 s, ...
    up to POLL_SECONDS between attempts: each attempt starts a JVM)."""
    pause = 1
    while True:
        result = attempt()
        if result or time.time() >= deadline:
            return result
        time.sleep(min(pause, max(0, deadline - time.time())))
        pause = min(POLL_SECONDS, pause + 1)


def check_flow(cli, rendering, flow, deadline, hostname):
    """Marker record through one flow; returns a one-line summary or raises CheckFailed."""
    topo = rendering.topology
    source, target = flow.source, flow.target
    flt = resolved.topic_filter(topo, flow)
    covered = flt.matches(CHECK_TOPIC)
    if covered is False:
        return check_heartbeats(cli, rendering, flow,
                                "the check topic %s is not replicated by %s (%s): add it to "
                                "kafka-mm2-replication/topics to test with a record" % (
                                    CHECK_TOPIC, flow.name, flt.describe()), deadline)
    mirrored = topo.mirrored_topic(flow, CHECK_TOPIC)

    step = "1/5 create %s on %s" % (CHECK_TOPIC, source)
    result, topics = cli.list_topics(source)
    if topics is None:
        raise CheckFailed(step, "cannot list the topics of %s (%s): %s" % (source, cli.bootstrap(source),
                                                                          result.problem()))
    created_now = CHECK_TOPIC not in topics
    if created_now:
        result = cli.create_topic(source, CHECK_TOPIC, CHECK_TOPIC_CONFIGS)
        if not result.ok:
            raise CheckFailed(step, result.problem())

    marker = "ambari-mm2-service-check %s from %s at %s" % (uuid.uuid4().hex, hostname,
                                                         time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    step = "2/5 produce a marker to %s on %s" % (CHECK_TOPIC, source)
    result = cli.produce(source, CHECK_TOPIC, marker)
    if not result.ok:
        raise CheckFailed(step, result.problem())

    step = "3/5 read the marker back from %s on %s" % (CHECK_TOPIC, source)
    read = {}

    def marker_read():
        # again until the deadline: a read whose first fetch comes after its --timeout-ms (a loaded host, a slow
        # SASL_SSL handshake) ends having read nothing, which is not yet a missing marker
        read["last"] = cli.consume(source, CHECK_TOPIC)
        return marker in read["last"].out

    if not _wait_for(deadline, marker_read):
        # the console producer exits 0 even when its sends fail: its errors tell why
        raise CheckFailed(step, "the marker is not in %s on %s: %s" % (CHECK_TOPIC, source, read["last"].problem()))
    started = time.time()

    step = "4/5 find the mirrored topic %s on %s" % (mirrored, target)
    state = {}

    def mirrored_exists():
        res, found = cli.list_topics(target)
        state["last"] = res
        return found is not None and mirrored in found

    if not _wait_for(deadline, mirrored_exists):
        refresh = resolved.flow_value(topo, flow, "refresh.topics.interval.seconds")
        hint = ("MM2 notices new source topics every refresh.topics.interval.seconds=%ss; %s was created "
                "only now, so run the check again after that (or restart MM2)" % (refresh, CHECK_TOPIC)) \
            if created_now else ("is MM2 running for %s (REPLICATION_STATUS shows its connectors)?" % flow.name)
        last = state.get("last")
        problem = "" if last is None or last.ok else " (listing failed: %s)" % last.problem()
        raise CheckFailed(step, "%s did not appear on %s in time%s; %s" % (mirrored, target, problem, hint))

    step = "5/5 find the marker in %s on %s" % (mirrored, target)
    if not _wait_for(deadline, lambda: marker in cli.consume(target, mirrored).out):
        raise CheckFailed(step, "the marker did not reach %s on %s in time; MM2 may be lagging or its "
                                "source connector failing (see REPLICATION_STATUS and the MM2 log)"
                          % (mirrored, target))
    return "%s: marker produced to %s on %s arrived in %s on %s after %.0fs" % (
        flow.name, CHECK_TOPIC, source, mirrored, target, time.time() - started)


def caught_up(result, records):
    """A read from the beginning cut by its window (no end offsets before Kafka 3.0) is still complete when it
    reached a record written after it began: it had read up to the topic's end by then. Heartbeats are
    written every few seconds, so on a live flow this holds and the window's note is no problem."""
    started = getattr(result, "read_started", None)
    return bool(started and records and max(r.timestamp for r in records) / 1000.0 >= started)


def check_heartbeats(cli, rendering, flow, why, deadline=None):
    """Proof of a flow without writing: fresh <source>.heartbeats records on the target. Until the deadline the
    read is repeated (right after START the new MM2 has not emitted yet: what the target holds then is the
    previous run's last heartbeat, or nothing); the last read's finding is the failure."""
    topo = rendering.topology
    topic = kafka_tools.heartbeats_topic(flow.source, topo.separator)
    step = "heartbeats %s on %s (%s)" % (topic, flow.target, why)
    limit = 3 * resolved.flow_int(topo, flow, "emit.heartbeats.interval.seconds") + 60
    found = {}

    def fresh():
        # bounded by end offsets: several herders keep writing heartbeats, the topic is never quiet
        result = cli.read_recent(flow.target, topic, mode="heartbeat")
        # records of A's heartbeats topic (emitted into A by herders X->A) mirrored to the target
        beats = [b for b in kafka_records.parse_heartbeats(result.out) if b.target == flow.source]
        found.update(result=result, beats=beats)
        if not beats:
            return False
        found["age"] = time.time() - max(b.timestamp for b in beats) / 1000.0
        return found["age"] <= limit

    _wait_for(deadline if deadline is not None else time.time(), fresh)
    result, beats = found["result"], found["beats"]
    if not beats:
        if result.note:
            raise CheckFailed(step, "could not read the heartbeats of %s on %s: %s" % (
                flow.source, flow.target, result.note))
        raise CheckFailed(step, "no heartbeats of %s arrived on %s; they are emitted into %s by the %s->%s herder: "
                                "some driver host must serve %s (kafka-mm2-driver/target.clusters)" % (
                                    flow.source, flow.target, flow.source, flow.target, flow.source, flow.source))
    if found["age"] > limit:
        raise CheckFailed(step, "the last heartbeat of %s on %s is %.0fs old (more than %ds)" % (
            flow.source, flow.target, found["age"], limit))
    return "%s: %s; instead, the last heartbeat of %s on %s is %.0fs old" % (flow.name, why, flow.source,
                                                                            flow.target, found["age"])


def service_check(params, budget):
    import mm2_kafka_cli
    rendering = mm2_agent.render(params)
    flows = rendering.topology.enabled_flows
    if not flows:
        raise Fail("No enabled replication flow to check (kafka-mm2-replication / kafka-mm2-topology)")
    mm2_agent.kinit(params)
    deadline = time.time() + budget
    summaries, failures = [], []
    with mm2_kafka_cli.KafkaCli(params, rendering, timeout=max(30, min(120, budget // 3))) as cli:
        for index, flow in enumerate(flows):
            # each flow gets its share of what is left
            flow_deadline = time.time() + (deadline - time.time()) / (len(flows) - index)
            try:
                summaries.append(check_flow(cli, rendering, flow, flow_deadline, params.hostname))
                Logger.info("OK " + summaries[-1])
            except CheckFailed as e:
                failures.append("%s failed at step %s" % (flow.name, e))
                Logger.error(failures[-1])
    if failures:
        raise Fail("MirrorMaker 2 service check failed:\n" + "\n".join(failures))
    Logger.info("MirrorMaker 2 service check passed:\n" + "\n".join(summaries))
    return summaries


# ---------------------------------------------------------------- REPLICATION_STATUS

def _age(ms):
    seconds = max(0, time.time() - ms / 1000.0)
    if seconds < 120:
        return "%.0fs ago" % seconds
    if seconds < 7200:
        return "%.0f min ago" % (seconds / 60)
    return "%.1f h ago" % (seconds / 3600)


def flow_status(cli, rendering, flow, connect_listing=None):
    """connect_listing: GET /connectors?expand=status of this driver's Connect worker (connect mode), which then
    gives the connector states and the flow's state instead of the dedicated herders' status topic."""
    import mm2_kafka_cli
    topo = rendering.topology
    source, target = flow.source, flow.target
    report = {"flow": flow.name, "source": source, "target": target, "problems": []}
    flt = resolved.topic_filter(topo, flow)
    res_s, source_topics = cli.list_topics(source)
    res_t, target_topics = cli.list_topics(target)
    if source_topics is None:
        report["problems"].append("cannot list topics of %s: %s" % (source, res_s.problem()))
    if target_topics is None:
        report["problems"].append("cannot list topics of %s: %s" % (target, res_t.problem()))
    if source_topics is not None:
        matched = [t for t in source_topics if flt.matches(t)]
        report["matched_topics"] = matched
        report["filter"] = flt.describe() + (" (Java-only syntax: matching not shown)" if flt.unsure else "")
        if target_topics is not None:
            report["not_yet_mirrored"] = [t for t in matched if topo.mirrored_topic(flow, t) not in target_topics]
    if target_topics is None:
        return report

    status = kafka_tools.status_topic(source)
    if connect_listing is not None:
        from mm2_core.connect import connect_mode, flow_control
        report["state"] = flow_control.flow_state(connect_listing, flow.name)
        report["connectors"] = {}
        for name, entry in connect_listing.items():
            parsed = connect_mode.split_connector_name(name)
            if not parsed or parsed[0] != flow.name:
                continue
            st = (entry or {}).get("status") or {}
            tasks = st.get("tasks") or []
            traces = [(st.get("connector") or {}).get("trace")] + [t.get("trace") for t in tasks]
            trace = [t for t in traces if t]
            report["connectors"][parsed[1]] = {"state": (st.get("connector") or {}).get("state"),
                                               "tasks": [t.get("state") for t in tasks],
                                               "trace": trace[0].splitlines()[:1] if trace else []}
    elif status in target_topics:
        res = cli.consume(target, status, mode="keyed", timeout_ms=5000)
        states = kafka_records.connector_states(kafka_records.parse_status(res.out))
        from mm2_core.connect.connect_mode import SOURCE
        if SOURCE not in states:
            # every herder of a flow writes its source connector's status: a read without it ended before its
            # first fetches on a loaded host (4.3.1 at load 22, 2026-11-27): once more with a longer quiet bound
            res = cli.consume(target, status, mode="keyed", timeout_ms=STATUS_REREAD_MS)
            states = kafka_records.connector_states(kafka_records.parse_status(res.out))
        report["connectors"] = dict((name, {"state": st, "tasks": tasks, "trace": (trace or "").splitlines()[:1]})
                                    for name, (st, tasks, trace) in states.items())
        if not res.ok:
            report["problems"].append("reading %s on %s did not finish (%s): connector states may be incomplete"
                                      % (status, target, res.problem(2)))
    else:
        report["problems"].append("%s is not on %s yet: no MM2 herder %s has run" % (status, target, flow.name))

    hb_topic = kafka_tools.heartbeats_topic(source, topo.separator)
    if hb_topic in target_topics:
        # bounded by end offsets: with several heartbeat writers (aggregation, active-active) the
        # topic is never quiet, and an unbounded read would be killed with nothing to show
        res = cli.read_recent(target, hb_topic, mode="heartbeat")
        beats = [b for b in kafka_records.parse_heartbeats(res.out) if b.target == source]
        if beats:
            last = max(b.timestamp for b in beats)
            report["last_heartbeat_ms"] = last
            report["last_heartbeat"] = _age(last)
        if res.note and not caught_up(res, beats):
            report["problems"].append("heartbeats of %s on %s: %s" % (source, target, res.note))
        elif not beats:
            report["problems"].append("no heartbeats of %s in the last %d records of %s on %s" % (
                source, mm2_kafka_cli.RECENT_RECORDS, hb_topic, target))
    else:
        report["problems"].append("no %s on %s: heartbeats of %s come from the %s->%s herder, which runs only "
                                  "on a driver host serving %s" % (hb_topic, target, source, target, source, source))
    cp_topic = kafka_tools.checkpoints_topic(source, topo.separator, cli.version,
                                             kafka_tools.internal_separator_enabled(rendering.properties))
    report["checkpoints_topic"] = cp_topic if cp_topic in target_topics else None
    return report


def format_status(report):
    lines = ["Flow %s%s" % (report["flow"], " (%s)" % report["state"] if report.get("state") else "")]
    if "matched_topics" in report:
        matched = report["matched_topics"]
        lines.append("  topics matched on %s: %d%s  [%s]" % (
            report["source"], len(matched), (": " + ", ".join(matched[:20]) + (" ..." if len(matched) > 20 else ""))
            if matched else "", report.get("filter", "")))
    if report.get("not_yet_mirrored"):
        lines.append("  not (yet) on %s: %s" % (report["target"], ", ".join(report["not_yet_mirrored"][:20])))
    for name in sorted(report.get("connectors", {})):
        c = report["connectors"][name]
        lines.append("  %-28s %-11s tasks: %s%s" % (name, c["state"], ", ".join(s or "?" for s in c["tasks"]) or "-",
                                                     ("  " + c["trace"][0]) if c["trace"] else ""))
    if "last_heartbeat" in report:
        lines.append("  last heartbeat of %s seen on %s: %s" % (report["source"], report["target"],
                                                                report["last_heartbeat"]))
    for p in report["problems"]:
        lines.append("  ! " + p)
    return "\n".join(lines)


def replication_status(script, params):
    import mm2_kafka_cli
    rendering = mm2_agent.render(params)
    mm2_agent.kinit(params)
    reports = []
    import mm2_connect
    connect_lines, listing = mm2_connect.status_lines(params)
    with mm2_kafka_cli.KafkaCli(params, rendering) as cli:
        for flow in rendering.topology.enabled_flows:
            if listing is not None and flow.name not in (listing.get("flows") or {}):
                continue   # connect mode: the flows of this host's worker only
            reports.append(flow_status(cli, rendering, flow, listing.get("listing") if listing else None))
    text = "\n\n".join(format_status(r) for r in reports) or "No enabled replication flows."
    if connect_lines:
        text = "\n".join(connect_lines) + "\n\n" + text
    Logger.info("MirrorMaker 2 replication status (Kafka %s):\n%s" % (params.kafka_version, text))
    script.put_structured_out({"replication_status": reports})
    unreachable = [p for r in reports for p in r["problems"] if p.startswith("cannot list")]
    if reports and len(unreachable) == 2 * len(reports):
        raise Fail("No cluster could be reached: " + "; ".join(unreachable))
    return reports
