"""FLOW_SEED: where a flow's source connector starts, written before the flow runs (a failback under the identity
policy: the loop prevention of `mm2-ambari failback`).

Under the identity policy a topic keeps its name, so after a failover of A->B the topic on B holds A's records
(copied) followed by what B's producers wrote. The reverse flow B->A must copy only the latter, else A's own
records come back to A: this command writes, for each partition, the position MM2 resumes from into the Connect
offsets topic of the flow's herder (mm2-offsets.<source>.internal on the target; rules in
mm2_core.kafka.connect_offsets), then reads them back. The flow must not be running (MM2 would overwrite them).
In connect mode the positions live in the Connect worker's offsets topic under the flow's connector name; while
the worker runs they are changed through Connect's offsets API (Kafka 3.6+), the flow's source connector stopped
for the change and put back in its state, the other flows untouched (mm2_core.dr.flow_positions says which
way is safe, and refuses the rest).

Command parameters (commandParams/<name>):
  flow     SOURCE->TARGET between two clusters of the topology (it need not be enabled yet)
  offsets  topic-partition=next,... : the first source offset to copy per partition
  at       end : instead of offsets, the source's end offsets of the flow's topics now (nothing of today's
           source is copied again: restoring A->B after a failback)
  retire   SOURCE->TARGET (optional): a flow the next start will not enable. Its herder would start the tasks it
           last ran before MM2 applies the flow's disabled configuration, and under the identity policy that
           window is a replication loop with the seeded flow; its copying connectors are written disabled and
           without tasks into its Connect config topic (rules in mm2_core.kafka.connect_configs), then read back.
           Connect mode has the same window (the worker starts the tasks in its config topic before START deletes
           a disabled flow's connectors over REST): the same records go into the worker's
           <connect.group.id>-configs.internal on the retired flow's target, under the flow's connector names.
"""
from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

import mm2_agent
import mm2_flow_positions
from mm2_agent import Refused, command_param
from mm2_core.connect import connect_mode
from mm2_core.dr import failover, flow_positions
from mm2_core.host import kafka_tools
from mm2_core.kafka import connect_configs, connect_offsets
from mm2_core.kafkatools import commands as kafka_commands, output as kafka_output, records as kafka_records
from mm2_core.model import resolved

RESULT = "flow_seed"
READ_QUIET_MS = 10000


def parse_offsets(value, flow):
    """{(topic, partition): next offset} of 'topic-p=N,...'; Fail naming the item and the form."""
    try:
        return failover.parse_partition_offsets(value)
    except ValueError as e:
        raise Fail("FLOW_SEED %s: offsets item %s" % (flow, e))


def _flow(topo, wanted):
    source, sep, target = (wanted or "").replace(" ", "").partition("->")
    if not sep or source not in topo.clusters or target not in topo.clusters or source == target:
        raise Refused("FLOW_SEED needs flow=SOURCE->TARGET between two clusters of the topology (%s); got %r" % (
            ", ".join(sorted(topo.clusters)), wanted))
    return source, target


def flow_seed(script, params):
    import mm2_cutover
    import mm2_kafka_cli
    import mm2_service
    rendering = mm2_agent.render(params)
    topo = rendering.topology
    flow = command_param("flow")
    source, target = _flow(topo, flow)
    name = "%s->%s" % (source, target)
    running = mm2_service.running(params)
    client, connector_exists = None, False
    if params.mm2_run_mode == connect_mode.CONNECT and running:
        client, listing = mm2_flow_positions.worker_connectors(params)
        connector_exists = connect_mode.connector_name(name, connect_mode.SOURCE) in listing
        here = _connect_target(params, rendering)
        if not connector_exists and here is not None and here != target:   # `mm2-ambari flow seed`: every host
            Logger.info("FLOW_SEED %s: this driver host's Kafka Connect worker serves %s, not %s: nothing to do "
                        "here" % (name, here, target))
            script.put_structured_out({RESULT: {"flow": name, "served": False, "target_here": here}})
            return None
    try:
        method = flow_positions.seed_method(params.mm2_run_mode, name, rendering.version, running,
                                            name in [f.name for f in topo.enabled_flows], connector_exists)
    except flow_positions.SeedRefused as e:
        raise Fail(str(e))
    at, given = command_param("at"), command_param("offsets")
    if (at == "end") == bool(given) or (at and at != "end"):
        raise Refused("FLOW_SEED %s: give either offsets=topic-partition=offset,... or at=end" % name)
    retire = command_param("retire")
    if retire:   # refused before anything is written
        retire = _retire_flow(topo, retire, name, running)
    mm2_agent.kinit(params)
    topic, connector = mm2_flow_positions.location(params, name)
    created, written, state = False, 0, None
    with mm2_kafka_cli.KafkaCli(params, rendering, timeout=60) as cli:
        if at == "end":
            res = cli.run(kafka_commands.get_offsets_command(cli.home, cli.bootstrap(source), cli.config(source), -1))
            if not res.ok:
                raise Fail("FLOW_SEED %s: end offsets of %s: %s" % (name, source, res.problem(3)))
            flt = resolved.topic_filter(topo, _as_flow(topo, source, target))
            wanted = dict((tp, o) for tp, o in kafka_output.parse_offsets(res.out).items()
                          if flt.matches(tp[0]) and not kafka_tools.is_internal_topic(tp[0])
                          and not tp[0].endswith("heartbeats"))
        else:
            wanted = parse_offsets(given, name)
        if method == flow_positions.API:
            target_ends = mm2_cutover.flow_target_ends(cli, topo, _as_flow(topo, source, target))
            written, state = mm2_flow_positions.seed_through_api(client, name, source, wanted)
        else:
            target_ends, created, written = _seed_topic(cli, rendering, topo, name, source, target, wanted, topic,
                                                       connector)
        retired = _retire(cli, params, retire, name) if retire else None
    positions = dict(("%s-%d" % tp, nxt) for tp, nxt in sorted(wanted.items()))
    Logger.info("FLOW_SEED %s: %s starts at %s (%d written %s%s)" % (
        name, name, ", ".join("%s=%d" % kv for kv in sorted(positions.items())) or "nothing", written,
        "through Connect's offsets API, source connector %s" % state if method == flow_positions.API
        else "to %s on %s" % (topic, target), ", created" if created else ""))
    script.put_structured_out({RESULT: {"flow": name, "positions": positions, "written": written,
                                        "offsets_topic": topic, "created": created, "target_ends": target_ends,
                                        "method": method, "source_connector_state": state,
                                        "served": True, "retired": retired}})
    return positions


def _seed_topic(cli, rendering, topo, name, source, target, wanted, topic, connector):
    """The positions written into the offsets topic while no MirrorMaker 2 of this host runs: (target_ends,
    created, number of positions written)."""
    ends = cli.run(kafka_commands.end_offsets_command(cli.home, cli.version, cli.bootstrap(target),
                                                      cli.config(target), topic) or [])
    partitions = kafka_output.topic_offsets(ends.out, topic) if ends.ok else {}
    created = False
    if not partitions:
        rf = dict(rendering.properties).get("offset.storage.replication.factor")
        res = cli.run(kafka_commands.topics_create(cli.home, cli.bootstrap(target), cli.config(target), topic,
                                                   partitions=connect_offsets.OFFSETS_TOPIC_PARTITIONS,
                                                   replication_factor=int(rf) if rf and rf != "-1" else None,
                                                   configs=connect_offsets.OFFSETS_TOPIC_CONFIGS))
        if not res.ok:
            raise Fail("FLOW_SEED %s: creating %s on %s: %s" % (name, topic, target, res.problem(3)))
        created = True
        stored = {}
    else:
        stored = _stored(cli, target, topic, source, connector)
    import mm2_cutover
    # the flow's topics on its target now, before it copies anything (what the target had of its own)
    target_ends = mm2_cutover.flow_target_ends(cli, topo, _as_flow(topo, source, target))
    writes = flow_positions.positions_plan(source, wanted, stored, connector)
    if writes:
        argv = kafka_commands.console_producer(cli.home, cli.version, cli.bootstrap(target), cli.config(target),
                                               topic, keyed=True)
        res = cli.run(argv, stdin="\n".join("%s\t%s" % (k, v) for k, v, _, _ in writes))
        if not res.ok:
            raise Fail("FLOW_SEED %s: writing %d position(s) to %s on %s: %s" % (
                name, len(writes), topic, target, res.problem(3)))
        after = _stored(cli, target, topic, source, connector)
        wrong = ["%s-%d" % tp for _, _, tp, nxt in writes if after.get(tp) != nxt - 1]
        if wrong:
            raise Fail("FLOW_SEED %s: wrote %d position(s) to %s but %s do not read back: run FLOW_SEED again"
                       % (name, len(writes), topic, ", ".join(wrong)))
    return target_ends, created, len(writes)


def _connect_target(params, rendering):
    """The target this host's Connect worker serves, or None when the configuration names none."""
    import mm2_connect
    from mm2_core.config.problems import ConfigError
    try:
        return mm2_connect.plan(params, rendering).target
    except ConfigError:
        return None


def _as_flow(topo, source, target):
    """The topology's flow source->target, or one with the global settings (simple mode: the flow the
    direction will enable)."""
    from mm2_core.model.topology import Flow
    for f in topo.flows:
        if f.source == source and f.target == target:
            return f
    return Flow(source, target, None, enabled=False)


def _stored(cli, target, topic, source, connector):
    res = cli.consume(target, topic, mode="keyed", timeout_ms=READ_QUIET_MS)
    return kafka_records.source_offsets(res.out, source, connector)


def _retire_flow(topo, wanted, name, running):
    """(source, target) of the flow to retire; Fail naming it when it is the seeded one or MM2 runs."""
    source, target = _flow(topo, wanted)
    retire = "%s->%s" % (source, target)
    if retire == name:
        raise Fail("FLOW_SEED %s: retire=%s names the flow being seeded; retire the flow the next start disables"
                   % (name, retire))
    if running:
        raise Fail("FLOW_SEED %s: retire=%s while MirrorMaker 2 runs on this host: its herder would write its own "
                   "task configurations over it; stop MirrorMaker 2 first" % (name, retire))
    return source, target


def _retire(cli, params, flow, name):
    """Write the flow (source, target) disabled and without tasks into the config topic its herder reads at the next
    start (dedicated mode: mm2-configs.<source>.internal; connect mode: the worker's <connect.group.id>-configs.internal,
    under the flow's connector names), nothing when the topic or its copying connectors are not there (the flow never
    ran); read back. Returns what was done."""
    source, target = flow
    retire = "%s->%s" % (source, target)
    topic, connectors = flow_positions.retire_location(params.mm2_run_mode, retire,
                                                       getattr(params, "connect_group_id", None))
    listed = cli.run(kafka_commands.topics_list(cli.home, cli.bootstrap(target), cli.config(target)))
    if not listed.ok:
        raise Fail("FLOW_SEED %s: retiring %s: listing the topics of %s: %s" % (name, retire, target,
                                                                               listed.problem(3)))
    if topic not in kafka_output.parse_topic_list(listed.out):
        return {"flow": retire, "config_topic": topic, "connectors": [], "written": 0}
    configs, counts = _configs(cli, target, topic)
    writes = connect_configs.retire_plan(configs, counts, connectors)
    if writes:
        argv = kafka_commands.console_producer(cli.home, cli.version, cli.bootstrap(target), cli.config(target),
                                               topic, keyed=True)
        res = cli.run(argv, stdin="\n".join("%s\t%s" % kv for kv in writes))
        if not res.ok:
            # never the values in a message: a connector configuration can hold credentials
            raise Fail("FLOW_SEED %s: retiring %s: writing %d record(s) to %s on %s: %s" % (
                name, retire, len(writes), topic, target, res.problem(3)))
        left = connect_configs.retired(*(_configs(cli, target, topic) + (connectors,)))
        if left:
            raise Fail("FLOW_SEED %s: retiring %s: %s still enabled or with tasks in %s on %s after the write: run "
                       "FLOW_SEED again" % (name, retire, ", ".join(left), topic, target))
    done = sorted(set(k.split("-", 1)[1] for k, _ in writes))
    Logger.info("FLOW_SEED %s: %s retired in %s on %s (%s)" % (
        name, retire, topic, target, ", ".join(done) + " disabled without tasks" if done else "nothing to do"))
    return {"flow": retire, "config_topic": topic, "connectors": done, "written": len(writes)}


def _configs(cli, target, topic):
    res = cli.consume(target, topic, mode="keyed", timeout_ms=READ_QUIET_MS)
    return kafka_records.connector_configs(res.out)
