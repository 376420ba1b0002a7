"""CUTOVER_CHECK, FAILOVER_GROUPS and DRILL: the agent side of the cut-over readiness gate, of failover and of its
rehearsal, and the reads of a flow's facts they share with EXPORT_TRANSLATED_OFFSETS (mm2_export) and FLOW_SEED.

The facts are read with the installation's Kafka tools as the MM2 user (mm2_kafka_cli: one 0600 client
config per cluster, secrets never on a command line); the decisions are the pure core's disaster-recovery room
(mm2_core.dr: cutover, translation, failover).

Command parameters (commandParams/<name>, `mm2-ambari run ... --param NAME=VALUE`):
  flow    A->B (default: every enabled flow; FAILOVER_GROUPS needs one)
  groups  g1,g2 (CUTOVER_CHECK: these must have a checkpoint; FAILOVER_GROUPS: the groups to move)
  not_after  topic-p=N,... (FAILOVER_GROUPS): no group starts past N there (a failback under the identity policy:
          the source's records that were never replicated)
  <threshold>=<value> for each name of mm2_core.dr.cutover.THRESHOLDS (CUTOVER_CHECK)
"""
import os
import time

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

import mm2_agent
from mm2_agent import Refused, command_param
from mm2_core.config import names
from mm2_core.formats.text import text
from mm2_core.dr import cutover, failover, translation
from mm2_core.host import kafka_tools, process
from mm2_core.kafka import versions
from mm2_core.kafkatools import commands as kafka_commands, output as kafka_output, records as kafka_records
from mm2_core.model import groups as group_rules, resolved

RESULT_CHECK = "cutover_check"
RESULT_GROUPS = "failover_groups"
# A read "from the beginning" ends after this much quiet; it includes joining a group (seconds on a loaded host)
READ_QUIET_MS = 10000
RPO_PROBE_TIMEOUTS_MS = (4000, 20000)   # the first read of the oldest unreplicated record, then once more
PROBE_SECONDS = 45
ASSIGNED_QUIET_MS = 15000   # includes the first fetch: seconds on a busy host
HEARTBEATS_READ = 20          # the last records of each partition of <source>.heartbeats on the target
SYNC_READ_INTERVAL = 10     # before Kafka 3.0 (no end offsets): the offset-syncs read ends on a quiet of 8.5 s
GROUPS_DESCRIBE_SECONDS = 60   # committed offsets on the source: a source that is down fails it after this
TOOLS_AT_ONCE = 4           # a gate's independent reads side by side (each a tool JVM: about 150-250 MB while it runs)


def _groups_param(command, rendering, params, flow=None):
    """The groups= parameter, refused before any Kafka tool runs (mm2_core.model.groups: the list, each id, and
    with one flow, its groups filter), with the words the CLI uses."""
    groups, problems = group_rules.parse(command_param("groups"))
    if flow is not None and not problems:
        problems = group_rules.filter_problems(groups, rendering.topology, flow, _live_entries(params, rendering),
                                               group_rules.COMMAND_ACTIONS[command])
    if problems:
        raise Refused("%s groups=%s: %s; nothing was done" % (command, command_param("groups"), "; ".join(problems)))
    return groups


def _live_entries(params, rendering):
    return group_rules.live_entries(getattr(params, "mm2_run_mode", "dedicated"),
                                    getattr(params, "live_flow_settings", ""), rendering.topology)


def selected_flows(topo, wanted):
    flows = topo.enabled_flows
    if not wanted:
        return flows
    chosen = [f for f in flows if f.name == wanted.replace(" ", "")]
    if not chosen:
        raise Refused("Unknown flow %s: the enabled flows are %s (pass flow=SOURCE->TARGET)" % (
            wanted, ", ".join(f.name for f in flows) or "none"))
    return chosen


def _group_filter(cli, rendering, flow):
    return group_rules.flow_filter(rendering.topology, flow, _live_entries(cli.params, rendering))[0]


def _read(cli, argv, what, errors):
    result = cli.run(argv)
    if not result.ok:
        errors.append("%s: %s" % (what, result.problem(3)))
        return None
    return result.out


def gather_flow(cli, rendering, flow, wanted_groups=()):
    """The facts of one flow for mm2_core.dr.cutover.evaluate_flow, read with Kafka's tools."""
    topo = rendering.topology
    source, target = flow.source, flow.target
    home, version = cli.home, cli.version
    errors = []
    facts = {"errors": errors}
    if not versions.supports(version, versions.GET_OFFSETS_TOOL):
        errors.append("the gate needs kafka-get-offsets.sh (Kafka %s+); this installation is Kafka %s"
                      % (versions.feature_first(versions.GET_OFFSETS_TOOL), ".".join(str(v) for v in version)))
        return facts
    flt = resolved.topic_filter(topo, flow)
    # A cluster that is down makes every tool wait for its own timeouts: the first read of each cluster (its end
    # offsets) is bounded by PROBE_SECONDS and tells whether it is reachable.
    ends = {}
    # the target first: a source end read after it tells that the copies of later records lie after the target's
    # end (a caught-up group's translation, mm2_core.dr.translation.partition_row)
    for alias in (target, source):
        probe = cli.run(kafka_commands.get_offsets_command(home, cli.bootstrap(alias), cli.config(alias), -1),
                        timeout=PROBE_SECONDS)
        if probe.ok:
            ends[alias] = kafka_output.parse_offsets(probe.out)
            facts["%s_ends_ms" % ("target" if alias == target else "source")] = int(time.time() * 1000)
        else:
            errors.append("%s (%s) is unreachable: %s" % (alias, cli.bootstrap(alias), probe.problem(2)))
    facts["source_reachable"], facts["target_reachable"] = source in ends, target in ends
    facts["target_ends"] = ends.get(target, {})
    partitions = {}
    for (topic, _p) in ends.get(target, {}):
        partitions[topic] = partitions.get(topic, 0) + 1
    facts["target_partitions"] = partitions
    if target not in ends:
        return facts
    if source not in ends:
        return _target_facts(cli, rendering, flow, facts)

    def matched(offsets):
        return dict((tp, o) for tp, o in offsets.items() if flt.matches(tp[0]) and not kafka_tools.is_internal_topic(tp[0])
                    and not tp[0].endswith(".heartbeats") and tp[0] != "heartbeats")

    facts["source_ends"] = matched(ends[source])
    import mm2_flow_positions

    # Once the ends are known the other facts do not depend on each other: read side by side (each a tool JVM).
    def starts():
        problems = []
        out = _read(cli, kafka_commands.get_offsets_command(home, cli.bootstrap(source), cli.config(source), -2),
                    "log-start offsets of %s" % source, problems)
        return (matched(kafka_output.parse_offsets(out)) if out is not None else {}), problems

    def stored():
        # the source connector's committed offsets (on the target, in the offsets topic of the run mode)
        replicated, res, offsets_topic = mm2_flow_positions.read_stored(cli, cli.params, flow.name, source, target)
        problems = [] if res.ok or replicated else ["reading %s on %s: %s" % (offsets_topic, target, res.problem(3))]
        return replicated, problems

    def configs(alias):
        def read():
            # (never None here: the gate needs Kafka 3.0+, topic configs are described from 2.5)
            problems = []
            out = _read(cli, kafka_commands.topic_configs_command(home, version, cli.bootstrap(alias),
                                                                  cli.config(alias)),
                        "topic configs of %s" % alias, problems)
            return (kafka_output.parse_topic_configs(out) if out is not None else {}), problems
        return read

    def target_side():
        # heartbeat and checkpoint reads write their own keys of facts
        _target_facts(cli, rendering, flow, facts)
        return None, []

    def syncs():
        # MM2's offset syncs: which source offset the translated target offsets stand for, and the translation of
        # the partitions MM2's checkpoints lack (mm2_core.dr.translation)
        found, problem = read_offset_syncs(cli, rendering, flow)
        if problem:
            Logger.warning(problem)
        return found, []

    def committed():
        found, problem = committed_offsets(cli, rendering, flow, wanted_groups, lambda tp: tp in facts["source_ends"])
        return (found or {}), [problem] if problem else []

    read = process.side_by_side([starts, stored, configs(source), configs(target), target_side, syncs, committed],
                                limit=TOOLS_AT_ONCE)
    for key, (value, problems) in zip(("source_starts", "replicated", "source_configs", "target_configs", None,
                                       "offset_syncs", "committed"), read):
        if key:
            facts[key] = value
        errors.extend(problems)

    rows = cutover.unreplicated(facts["source_ends"], facts["source_starts"], facts["replicated"])
    stamps = {}
    for topic, partition, offset in cutover.rpo_probes(rows):
        # the console consumer's timeout also runs while it starts and fetches for the first time: on a loaded
        # host a 4 s read can end before its first record (a silent-loss gate read nothing at load ~40 and said
        # UNKNOWN), so a read that got nothing is made once more with a longer timeout
        for timeout_ms in RPO_PROBE_TIMEOUTS_MS:
            argv = kafka_commands.console_consumer(home, version, cli.bootstrap(source), cli.config(source), topic,
                                                  mode="timestamps", timeout_ms=timeout_ms, max_messages=1,
                                                  partition=partition, offset=offset)
            r = cli.run(argv, timeout=cli.timeout + timeout_ms // 1000)
            found = kafka_records.parse_record_timestamps(r.out)
            if found:
                stamps[(topic, partition)] = found[0]
                break
    facts["oldest_unreplicated_ms"] = stamps
    return facts


def read_offset_syncs(cli, rendering, flow):
    """({(source topic, partition): [(upstream, downstream), ...]} of the flow's offset-syncs topic, problem or
    None). Read up to the topic's end offsets (Kafka 3.0+): the read ends when it has them, not after a quiet."""
    topo = rendering.topology
    if not versions.supports(cli.version, versions.MM2_FORMATTERS):
        return {}, "offset syncs not read: Kafka %s has no OffsetSyncFormatter (%s+)" % (
            ".".join(str(v) for v in cli.version), versions.feature_first(versions.MM2_FORMATTERS))
    isep = kafka_tools.internal_separator(topo.separator, cli.version,
                                          kafka_tools.internal_separator_enabled(rendering.properties))
    location = text(resolved.flow_setting(topo, flow, "offset-syncs.topic.location")).strip()
    alias = flow.target if location == "target" else flow.source
    topic = cutover.offset_syncs_topic(flow.target, isep)
    res = cli.read_compacted(alias, topic, "offset-sync", SYNC_READ_INTERVAL)
    syncs = kafka_records.parse_offset_syncs(res.out)
    if not res.ok and not syncs:
        return {}, "offset syncs of %s not read from %s on %s: %s" % (flow.name, topic, alias, res.problem(3))
    return syncs, None


def committed_offsets(cli, rendering, flow, wanted_groups, keep):
    """({group: {(topic, partition): committed offset}} on the flow's source, problem or None): the wanted groups,
    else every group the flow's groups filter matches; only partitions for which keep((topic, partition))."""
    source = flow.source
    res = cli.run(kafka_commands.groups_describe_command(cli.home, cli.bootstrap(source), cli.config(source)),
                  timeout=GROUPS_DESCRIBE_SECONDS)
    found = kafka_output.group_offsets(res.out or "")
    if not res.ok and not found:
        return None, "consumer groups of %s: %s" % (source, res.problem(3))
    gflt = _group_filter(cli, rendering, flow)
    committed = {}
    for group, offsets in found.items():
        if group in wanted_groups or (not wanted_groups and gflt.matches(group)):
            mine = dict((tp, c) for tp, c in offsets.items() if keep(tp))
            if mine:
                committed[group] = mine
    return committed, None


def _target_facts(cli, rendering, flow, facts):
    """What the target alone tells: heartbeat and checkpoint age, the translated offsets."""
    topo = rendering.topology
    source, target, home, version = flow.source, flow.target, cli.home, cli.version
    hb_topic = kafka_tools.heartbeats_topic(source, topo.separator)
    ends = dict((p, o) for (t, p), o in (facts.get("target_ends") or {}).items() if t == hb_topic)
    out = []
    for partition, start, count in kafka_tools.tail_reads(ends, HEARTBEATS_READ):
        # assigned at the end of each partition: the read ends after `count` records (heartbeats never stop),
        # and a generous quiet only matters when the first fetch is slow (a busy host)
        argv = kafka_commands.console_consumer(home, version, cli.bootstrap(target), cli.config(target), hb_topic,
                                               mode="heartbeat", timeout_ms=READ_QUIET_MS, max_messages=count,
                                               partition=partition, offset=start)
        out.append(cli.run(argv, timeout=cli.timeout + READ_QUIET_MS // 1000).out)
    beats = [b.timestamp for b in kafka_records.parse_heartbeats("\n".join(out)) if b.target == source]
    facts["heartbeat_ms"] = max(beats) if beats else None
    # the read ends at the end offsets taken first: the newest heartbeat is as of then
    facts["heartbeat_read_ms"] = facts.get("target_ends_ms") or int(time.time() * 1000)

    cp_topic = kafka_tools.checkpoints_topic(source, topo.separator, version,
                                             kafka_tools.internal_separator_enabled(rendering.properties))
    facts["checkpoints"], stamps = read_checkpoints(cli, target, cp_topic,
                                                    (facts.get("target_ends") or {}).get((cp_topic, 0)))
    facts["checkpoint_read_ms"] = int(time.time() * 1000)
    facts["checkpoint_ms"] = max(stamps) if stamps else None
    return facts


def _single_partition_read(cli, alias, topic, mode):
    """Partition 0 of one of MM2's single-partition topics (checkpoints, offset syncs) from its earliest offset:
    assigned, so no consumer group is joined and a short quiet ends the read."""
    return kafka_commands.console_consumer(cli.home, cli.version, cli.bootstrap(alias), cli.config(alias), topic,
                                           mode=mode, timeout_ms=ASSIGNED_QUIET_MS, partition=0, offset="earliest")


def read_checkpoints(cli, alias, topic, end=None):
    """(latest checkpoints, record timestamps) of a checkpoints topic in one read: raw records with their
    timestamps (kafka_tools decodes MM2's binary records itself). end: the topic's end offset when known: the read
    stops after that many records (none were compacted away) instead of waiting for the quiet; 0 reads nothing."""
    if end == 0:
        return [], []
    argv = _single_partition_read(cli, alias, topic, "raw")
    res = cli.run(argv + (["--max-messages", str(int(end))] if end else []),
                  timeout=cli.timeout + ASSIGNED_QUIET_MS // 1000)
    return (kafka_records.latest_checkpoints(kafka_records.parse_checkpoints(res.out)),
            kafka_records.parse_record_timestamps(res.out))


def group_states(cli, alias, groups):
    """{group: (state, members)} of groups on a cluster (kafkatools.output.parse_group_state); Fail when the
    describe fails without an answer. Kafka 4.x answers a describe with a missing group for that group only: the
    groups it left unanswered are described again, one each."""
    def describe(which):
        return cli.run(kafka_commands.groups_describe_command(cli.home, cli.bootstrap(alias), cli.config(alias), which,
                                                             state=True))
    res = describe(groups)
    states = kafka_output.parse_group_state(res.out)
    if not res.ok and not states:
        raise Fail("Cannot describe groups %s on %s: %s" % (", ".join(groups), alias, res.problem(3)))
    for group in [g for g in groups if g not in states] if len(groups) > 1 else []:
        states.update(kafka_output.parse_group_state(describe([group]).out))
    return states


def _thresholds():
    given = {}
    for name, _default, _meaning in cutover.THRESHOLDS:
        value = command_param(name)
        if value:
            given[name] = value
    try:
        return cutover.thresholds(given)
    except cutover.ThresholdError as e:
        raise Fail("CUTOVER_CHECK: %s" % e)


def cutover_check(script, params):
    import mm2_kafka_cli
    limits = _thresholds()
    rendering = mm2_agent.render(params)
    flows = selected_flows(rendering.topology, command_param("flow"))
    groups = _groups_param(names.CMD_CUTOVER_CHECK, rendering, params, flows[0] if command_param("flow") else None)
    mm2_agent.kinit(params)
    reports = []
    with mm2_kafka_cli.KafkaCli(params, rendering, timeout=60) as cli:
        for flow in flows:
            facts = gather_flow(cli, rendering, flow, groups)
            report = cutover.evaluate_flow(flow.name, flow.source, flow.target, facts, limits,
                                           int(time.time() * 1000),
                                           lambda t, f=flow: rendering.topology.mirrored_topic(f, t), groups)
            reports.append(report)
            Logger.info(cutover.format_report(report))
    script.put_structured_out({RESULT_CHECK: reports})
    not_ready = [r for r in reports if r["verdict"] != cutover.READY]
    if not_ready:
        raise Fail("Cut-over NOT ready: %s" % "; ".join("%s is %s" % (r["flow"], r["verdict"]) for r in not_ready))
    Logger.info("Cut-over ready: %s" % ", ".join(r["flow"] for r in reports))
    return reports


# ---------------------------------------------------------------- FAILOVER_GROUPS

def failover_groups(script, params):
    """Apply MM2's translated offsets to the named groups on the flow's target; only groups without active
    members there. Groups done are reported per name, so a rerun can be limited to the rest."""
    import mm2_kafka_cli
    rendering = mm2_agent.render(params)
    wanted = command_param("flow")
    if not wanted:
        raise Refused("FAILOVER_GROUPS needs flow=SOURCE->TARGET (the enabled flows are %s)" % ", ".join(
            f.name for f in rendering.topology.enabled_flows))
    (flow,) = selected_flows(rendering.topology, wanted)
    groups = _groups_param(names.CMD_FAILOVER_GROUPS, rendering, params, flow)
    if not groups:
        raise Refused("FAILOVER_GROUPS needs groups=g1,g2: the consumer groups to move to %s" % flow.target)
    try:
        not_after = failover.parse_partition_offsets(command_param("not_after"))
    except ValueError as e:
        raise Fail("FAILOVER_GROUPS %s: not_after item %s" % (flow.name, e))
    mm2_agent.kinit(params)
    topo = rendering.topology
    applied, refused = {}, {}
    with mm2_kafka_cli.KafkaCli(params, rendering, timeout=60) as cli:
        target = flow.target
        cp_topic = kafka_tools.checkpoints_topic(flow.source, topo.separator, cli.version,
                                                 kafka_tools.internal_separator_enabled(rendering.properties))
        checkpoints, _stamps = read_checkpoints(cli, target, cp_topic)
        judged = judge_groups(cli, rendering, flow, groups, checkpoints)
        states = group_states(cli, target, groups)
        by_group = cutover.checkpoints_by_group(checkpoints)
        for group in groups:
            state, members = states.get(group, ("Dead", 0))
            rows, capped, why = failover.group_plan(group, flow.name, target, state, members, judged.get(group),
                                                    by_group.get(group, []), not_after)
            if why:
                refused[group] = why
                continue
            if capped:
                Logger.info("Group %s: translated offsets capped where %s has records never replicated: %s" % (
                    group, target, ", ".join(capped)))
            if not rows:
                refused[group] = ("group %s has no checkpoint in %s on %s: MM2 translates only groups that match "
                                  "kafka-mm2-replication/groups and committed on %s" % (
                                      group, cp_topic, target, flow.source))
                continue
            error = _apply_offsets(cli, target, group, rows)
            if error:
                refused[group] = "resetting group %s on %s failed: %s" % (group, target, error)
                continue
            applied[group] = dict(("%s-%d" % (t, p), off) for t, p, off in kafka_commands.reset_offsets_rows(rows))
            Logger.info("Group %s on %s now starts at MM2's translated offsets: %s" % (
                group, target, ", ".join("%s=%d" % kv for kv in sorted(applied[group].items()))))
        ends = flow_target_ends(cli, topo, flow)
        import mm2_flow_positions
        stored = mm2_flow_positions.read_stored(cli, params, flow.name, flow.source, target)[0]
        source_next = dict(("%s-%d" % tp, last + 1) for tp, last in stored.items())
    script.put_structured_out({RESULT_GROUPS: {"flow": flow.name, "target": flow.target, "applied": applied,
                                               "refused": refused, "target_ends": ends, "source_next": source_next}})
    if refused:
        raise Fail("FAILOVER_GROUPS %s: %d group(s) refused:\n%s" % (flow.name, len(refused),
                                                                    "\n".join(refused[g] for g in sorted(refused))))
    return applied


def judge_groups(cli, rendering, flow, groups, checkpoints):
    """{group: cutover.group_entry + "apply" (mm2_core.dr.failover.judge_groups)} from the groups' committed offsets
    on the source and the offset syncs; {} when the source cannot be read (a source that is down: MM2's checkpoints are
    applied as they are, and the log says that nothing could be checked)."""
    committed, problem = committed_offsets(cli, rendering, flow, groups,
                                           lambda tp: resolved.replicated_topic(rendering.topology, flow, tp[0]))
    if problem:
        Logger.warning("%s: MM2's checkpoints are applied as they are, unchecked: %s" % (flow.name, problem))
        return {}
    syncs, problem = read_offset_syncs(cli, rendering, flow)
    if problem:
        Logger.warning(problem)
    judged = failover.judge_groups(groups, committed, checkpoints,
                                   lambda t: rendering.topology.mirrored_topic(flow, t), syncs)
    for group in groups:
        if judged[group]["partitions"]:
            Logger.info("Group %s: %s" % (group, translation.describe(judged[group]["partitions"])))
    return judged


def flow_target_ends(cli, topo, flow):
    """{"topic-p": end offset} of the flow's topics on its target, now (a failback under the identity policy starts
    the reverse flow there: what follows was written on the target; mm2_core.dr.failover.flow_target_ends); {} when
    they cannot be read."""
    res = cli.run(kafka_commands.get_offsets_command(cli.home, cli.bootstrap(flow.target), cli.config(flow.target), -1),
                  timeout=PROBE_SECONDS)
    if not res.ok:
        Logger.warning("End offsets of %s not read: %s" % (flow.target, res.problem(2)))
        return {}
    return failover.flow_target_ends(kafka_output.parse_offsets(res.out), topo, flow)


# ---------------------------------------------------------------- DRILL

RESULT_DRILL = "drill"
DEFAULT_DRILL_RECORDS = 100


RESET_ATTEMPTS = 3
RESET_RETRY_SECONDS = 5
def _apply_offsets(cli, target, group, rows):
    """kafka-consumer-groups --reset-offsets --from-file (0600 file in the private directory); None or the error."""
    path = os.path.join(cli.dir, "offsets-%s.csv" % kafka_tools_safe(group))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(rows.encode("utf-8"))
    os.chown(path, cli.uid, cli.gid)
    command = kafka_commands.groups_reset_command(cli.home, cli.bootstrap(target), cli.config(target), group, path,
                                                  execute=True)
    for attempt in range(1, RESET_ATTEMPTS + 1):
        r = cli.run(command)
        if kafka_output.reset_applied(r.out, r.code):
            return None
        # a reset to the offsets of the file is the same reset when repeated; only a broker that did not answer
        # in time (a loaded or restarting target) is worth another try, anything else is the operator's to fix
        if attempt == RESET_ATTEMPTS or not kafka_output.timed_out(r.out + r.err):
            return r.problem(3)
        Logger.info("Group %s on %s: the reset timed out (attempt %d of %d); trying again in %ds" % (
            group, target, attempt, RESET_ATTEMPTS, RESET_RETRY_SECONDS))
        time.sleep(RESET_RETRY_SECONDS)


def kafka_tools_safe(name):
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)[:100]


def drill(script, params):
    """Shadow groups on the flow's target at the groups' translated offsets; time to the first record (RTO),
    N records read, what the translation re-reads or skips; the shadow groups are deleted afterwards. The
    production groups and their consumers are not touched."""
    import mm2_kafka_cli
    rendering = mm2_agent.render(params)
    wanted = command_param("flow")
    if not wanted:
        raise Refused("DRILL needs flow=SOURCE->TARGET (the enabled flows are %s)" % ", ".join(
            f.name for f in rendering.topology.enabled_flows))
    (flow,) = selected_flows(rendering.topology, wanted)
    groups = _groups_param(names.CMD_DRILL, rendering, params, flow)
    if not groups:
        raise Refused("DRILL needs groups=g1,g2: the consumer groups whose failover is rehearsed")
    try:
        records = int(command_param("records", str(DEFAULT_DRILL_RECORDS)) or DEFAULT_DRILL_RECORDS)
    except ValueError:
        raise Refused("DRILL: records=%s is not a whole number of records to read per group" % command_param("records"))
    suffix = command_param("suffix") or ".drill-%d" % int(time.time())
    mm2_agent.kinit(params)
    topo = rendering.topology
    results, problems = {}, []
    with mm2_kafka_cli.KafkaCli(params, rendering, timeout=60) as cli:
        facts = gather_flow(cli, rendering, flow, groups)
        report = cutover.evaluate_flow(flow.name, flow.source, flow.target, facts, cutover.thresholds(),
                                       int(time.time() * 1000), lambda t: topo.mirrored_topic(flow, t), groups)
        outlook = dict((g["group"], g) for g in report["groups"])
        target = flow.target
        by_group = cutover.checkpoints_by_group(facts.get("checkpoints"))
        for group in groups:
            shadow = group + suffix
            rows = failover.offsets_csv_rows(translation.applicable(
                group, outlook.get(group, {}).get("partitions") or [], by_group.get(group, [])), group)
            if not rows:
                problems.append("group %s has no checkpoint on %s: nothing to rehearse (it must match "
                                "kafka-mm2-replication/groups and commit on %s)" % (group, target, flow.source))
                continue
            error = _apply_offsets(cli, target, shadow, rows)
            if error:
                problems.append("copying %s to the shadow group %s on %s failed: %s" % (group, shadow, target, error))
                continue
            topics = sorted(set(t for t, _p, _off in kafka_commands.reset_offsets_rows(rows)))
            # the shadow group's committed offsets are where the read starts
            def shadow_read(count):
                return cli.run(kafka_commands.console_consumer(
                    cli.home, cli.version, cli.bootstrap(target), cli.config(target), topics, mode="keyed",
                    timeout_ms=READ_QUIET_MS, max_messages=count, group=shadow),
                    timeout=cli.timeout + READ_QUIET_MS // 1000)
            started = time.time()
            first = shadow_read(1)
            rto = time.time() - started
            got_first = first.ok and kafka_records.count_records(first.out) >= 1
            rest = shadow_read(max(records - 1, 1)) if records > 1 and got_first else None
            read = (1 if got_first else 0) + (kafka_records.count_records(rest.out) if rest is not None else 0)
            g = outlook.get(group, {})
            if not got_first:
                problems.append("the shadow group %s read nothing on %s from %s's translated offsets within %ds: "
                                "the group is caught up and nothing newer was replicated (write records on %s and "
                                "drill again), or %s is unreachable" % (shadow, target, group,
                                                                       READ_QUIET_MS // 1000, flow.source, target))
            results[group] = {"shadow": shadow, "rto_seconds": round(rto, 2) if got_first else None,
                              "records_read": read, "reread": g.get("reread"), "skipped": g.get("skipped"),
                              "no_checkpoint": g.get("no_checkpoint", [])}
            deleted = _delete_shadow(cli, target, shadow)
            results[group]["shadow_deleted"] = deleted is None
            if deleted is not None:
                problems.append("the shadow group %s could not be deleted from %s within %ds: %s; delete it with "
                                "kafka-consumer-groups --delete --group %s once it has no member"
                                % (shadow, target, SHADOW_DELETE_SECONDS, deleted, shadow))
            Logger.info("Drill %s: shadow %s on %s read %d record(s), first after %.1f s; a failover now re-reads %s "
                        "and skips %s record(s)" % (group, shadow, target, read, rto, g.get("reread"), g.get("skipped")))
    script.put_structured_out({RESULT_DRILL: {"flow": flow.name, "target": flow.target, "records": records,
                                              "groups": results, "problems": problems,
                                              "unreplicated_records": report.get("unreplicated_records"),
                                              "rpo_seconds": report.get("rpo_seconds")}})
    if problems:
        raise Fail("DRILL %s:\n%s" % (flow.name, "\n".join(problems)))
    return results


SHADOW_DELETE_SECONDS = 90   # a reader that did not leave the group (killed at its bound) stays a member until
                             # its session times out (45 s on Kafka 3.x): deleting the group fails until then


def _delete_shadow(cli, target, shadow):
    """Delete the drill's shadow group from the target, asking again while it still has a member or its
    coordinator is busy; None once it is gone, else the tool's last answer. Its result is checked: a drill that
    says the shadow group was deleted while it still holds offsets on the target misleads the operator."""
    deadline = time.time() + SHADOW_DELETE_SECONDS
    while True:
        result = cli.run(kafka_commands.groups_delete_command(cli.home, cli.bootstrap(target), cli.config(target),
                                                              shadow))
        said = result.out + u"\n" + result.err
        if kafka_output.group_deleted(said, result.code):
            return None
        if time.time() >= deadline:
            return result.problem(3)
        Logger.info("The shadow group %s is not deleted yet (%s): asking again in 5 s" % (shadow, result.problem(1)))
        time.sleep(5)

