"""Where a flow's source positions live, and the safe way to change them, per run mode and Kafka version (pure;
stdlib only, Python 2.7 and 3).

A flow A->T resumes each source partition after the offset its MirrorSourceConnector stored last. Where that is:

- dedicated mode: the herder's Connect offsets topic `mm2-offsets.A.internal` on T, key
  `["MirrorSourceConnector", {source partition}]` (mm2_core.kafka.connect_offsets);
- connect mode: the host's Connect worker's offsets topic `<connect.group.id>-offsets.internal` on T, key
  `["A->T.MirrorSourceConnector", {source partition}]` (connect_mode names the connector after its flow).

How a position is changed (FLOW_SEED: a failback's reverse flow, or an operator moving a running flow):

- no MirrorMaker 2 process on the host (either mode): write the records into that offsets topic; the worker
  reads the whole topic when it starts, nothing races with it;
- connect mode, worker running, Kafka 3.6+ (KIP-875): Connect's offsets API. The flow's source connector is
  stopped (only that connector: the flow's checkpoints and heartbeats and every other flow keep running), its
  offsets PATCHed and read back over GET, and the connector put back in the state it had. Connect validates the
  offsets (MirrorUtils.validateSourceOffset) and rewrites its own in-memory view: no record of ours can be
  overwritten by a task that still runs, which a write into the topic of a running worker could not promise;
- connect mode, worker running, Kafka before 3.6, or a flow with no connector on the running worker: refused,
  naming the version (versions.unsupported) and what to do instead (stop MirrorMaker 2 on the host first);
- dedicated mode with the flow running on the host: refused (its herder would overwrite the positions).
"""
from mm2_core.connect import connect_mode, flow_control
from mm2_core.kafka import connect_configs, connect_offsets, versions

TOPIC, API = "offsets topic", "offsets API"


class SeedRefused(Exception):
    """A position change that would not be safe here: names the flow, the reason and what to do instead."""


def location(run_mode, flow_name, group_id):
    """(offsets topic on the flow's target, connector name in its keys) of the flow's source positions."""
    if run_mode == connect_mode.CONNECT:
        return (connect_mode.internal_topics(group_id or connect_mode.GROUP_ID)[1],
                connect_mode.connector_name(flow_name, connect_mode.SOURCE))
    return connect_offsets.offsets_topic(flow_name.split("->", 1)[0]), connect_offsets.CONNECTOR


def retire_location(run_mode, flow_name, group_id):
    """(config topic on the flow's target, [its copying connectors' names there]) where FLOW_SEED retire= writes a
    flow disabled and without tasks (mm2_core.kafka.connect_configs): dedicated mode, the flow's herder's
    mm2-configs.<A>.internal; connect mode, the worker's <connect.group.id>-configs.internal, the flow's names."""
    if run_mode == connect_mode.CONNECT:
        return (connect_mode.internal_topics(group_id or connect_mode.GROUP_ID)[0],
                [connect_mode.connector_name(flow_name, kind) for kind in connect_configs.RETIRED_CONNECTORS])
    return connect_configs.configs_topic(flow_name.split("->", 1)[0]), list(connect_configs.RETIRED_CONNECTORS)


def seed_method(run_mode, flow_name, version, mm2_running, flow_runs_here, connector_exists):
    """TOPIC or API: how FLOW_SEED changes the flow's positions on this host; SeedRefused when neither is safe.
    mm2_running: MirrorMaker 2 (the dedicated process or the Connect worker) runs on this host; flow_runs_here:
    dedicated mode serves the flow here; connector_exists: the running worker has the flow's source connector."""
    if run_mode != connect_mode.CONNECT:
        if mm2_running and flow_runs_here:
            raise SeedRefused("FLOW_SEED %s: the flow runs on this host and would overwrite its positions: make it "
                              "not enabled (or stop MirrorMaker 2) first" % flow_name)
        return TOPIC
    if not mm2_running:
        return TOPIC
    problem = versions.unsupported(version, versions.CONNECT_OFFSETS, "changing the positions of a flow while "
                                   "the Kafka Connect worker runs")
    if problem:
        raise SeedRefused("FLOW_SEED %s: %s. Stop MirrorMaker 2 on this host first: FLOW_SEED then writes the "
                          "positions into the worker's offsets topic (<connect.group.id>-offsets.internal) before it "
                          "starts again" % (flow_name, problem))
    if not connector_exists:
        raise SeedRefused("FLOW_SEED %s: the Kafka Connect worker on this host runs but has no connector of flow %s "
                          "(not enabled, or not served by this host): Connect's offsets API changes only an "
                          "existing connector. Stop MirrorMaker 2 on this host first (FLOW_SEED then writes the "
                          "positions before the flow starts), or enable the flow and seed it then" % (
                              flow_name, flow_name))
    return API


def positions_plan(source, wanted, stored, connector=connect_offsets.CONNECTOR):
    """[(key, value, (topic, partition), next)] to write so the flow's source connector resumes at `wanted`
    ({(topic, p): next}); partitions already there (stored {(topic, p): last copied}) are left out. next 0 needs
    no record, unless MM2 stored a position (then -1: from the beginning)."""
    writes = []
    for (topic, partition), nxt in sorted(wanted.items()):
        last = nxt - 1
        if stored.get((topic, partition)) == last or (last < 0 and (topic, partition) not in stored):
            continue
        key = connect_offsets.source_partition_key(source, topic, partition, connector)
        writes.append((key, connect_offsets.offset_value(last), (topic, partition), nxt))
    return writes


def api_changes(wanted, stored):
    """{(topic, partition): next offset or None} to PATCH so the flow resumes at `wanted` ({(topic, p): next}):
    partitions already there (stored: {(topic, p): next}, from GET .../offsets) are left out; next 0 becomes None
    (Connect accepts no negative offset: the stored position is removed and the partition starts from its
    beginning, as MM2's consumer resets to the earliest offset), and needs nothing when none is stored."""
    changes = {}
    for tp, nxt in sorted(wanted.items()):
        if stored.get(tp) == nxt or (nxt == 0 and tp not in stored):
            continue
        changes[tp] = None if nxt == 0 else nxt
    return changes


def api_body(source_alias, changes):
    """The PATCH .../offsets body of api_changes' result."""
    return flow_control.offsets_body(source_alias, changes)


def mismatches(wanted, after):
    """['topic-p', ...] whose position read back (after: {(topic, p): next}) is not the wanted one."""
    return ["%s-%d" % tp for tp, nxt in sorted(wanted.items())
            if after.get(tp, 0) != nxt]


def restore_action(state_before):
    """The connector action that puts the source connector back where it was after the change: RUNNING (or
    FAILED/UNASSIGNED: let it run again) -> resume; PAUSED -> pause (Connect starts its tasks paused);
    STOPPED -> none."""
    if state_before == flow_control.STOPPED:
        return None
    if state_before == flow_control.PAUSED:
        return flow_control.PAUSE
    return flow_control.RESUME
