"""A flow's source positions where this host's run mode keeps them (Ambari adapter over
mm2_core.dr.flow_positions): read from the offsets topic of the mode (dedicated: mm2-offsets.<A>.internal,
key MirrorSourceConnector; connect: <connect.group.id>-offsets.internal, key A->T.MirrorSourceConnector), and
changed through Connect's offsets API (Kafka 3.6+) while the Connect worker runs.

Used by FLOW_SEED (mm2_flow_seed), CUTOVER_CHECK and FAILOVER_GROUPS (mm2_cutover).
"""
import time

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

from mm2_core.connect import connect_mode, connect_rest, flow_control
from mm2_core.dr import flow_positions
from mm2_core.formats.text import text
from mm2_core.kafkatools import records as kafka_records

READ_QUIET_MS = 10000
WAIT_SECONDS = 60


def location(params, flow_name):
    """(offsets topic on the flow's target, connector name in its keys)."""
    return flow_positions.location(params.mm2_run_mode, flow_name, getattr(params, "connect_group_id", None))


def read_stored(cli, params, flow_name, source, target):
    """({(topic, partition): last copied offset}, tool result, offsets topic) from the mode's offsets topic."""
    topic, connector = location(params, flow_name)
    res = cli.consume(target, topic, mode="keyed", timeout_ms=READ_QUIET_MS)
    return kafka_records.source_offsets(res.out, source, connector), res, topic


def worker_connectors(params):
    """The running worker's connector listing (connect mode); Fail naming the worker when it does not answer."""
    import mm2_connect
    client = mm2_connect.rest(params)
    try:
        return client, client.connectors()
    except connect_rest.ConnectError as e:
        raise Fail(u"Cannot reach this driver's Kafka Connect worker: %s" % text(e))


def _state(client, name):
    return ((client.status(name) or {}).get("connector") or {}).get("state")


def _wait_state(client, name, wanted):
    deadline = time.time() + WAIT_SECONDS
    state = _state(client, name)
    while state != wanted:
        if time.time() >= deadline:
            raise Fail(u"%s did not reach %s within %ss (now %s)" % (name, wanted, WAIT_SECONDS, state))
        time.sleep(1)
        state = _state(client, name)
    return state


def seed_through_api(client, flow_name, source, wanted):
    """Make the flow's running source connector resume at `wanted` ({(topic, p): next}) through Connect's offsets
    API: stop that connector only, PATCH what differs, read it back, put the connector back in its state.
    Returns (number of partitions changed, state of the connector afterwards)."""
    name = connect_mode.connector_name(flow_name, connect_mode.SOURCE)
    try:
        before = _state(client, name)
        stored = flow_control.source_offsets(client.offsets(name), source)
        changes = flow_positions.api_changes(wanted, stored)
        if not changes:
            Logger.info(u"FLOW_SEED %s: %s already resumes at the wanted positions: nothing to change"
                        % (flow_name, name))
            return 0, before
        if before != flow_control.STOPPED:
            client.stop(name)
            _wait_state(client, name, flow_control.STOPPED)
            Logger.info(u"FLOW_SEED %s: %s stopped (was %s); the flow's other connectors and the other flows keep "
                        u"running" % (flow_name, name, before))
        client.alter_offsets(name, flow_positions.api_body(source, changes))
        after = flow_control.source_offsets(client.offsets(name), source)
        wrong = flow_positions.mismatches(wanted, after)
        if wrong:
            raise Fail(u"FLOW_SEED %s: Connect accepted the new offsets of %s but %s do not read back; the connector "
                       u"is left STOPPED: run FLOW_SEED again" % (flow_name, name, ", ".join(wrong)))
        action = flow_positions.restore_action(before)
        if action:
            getattr(client, action)(name)
            _wait_state(client, name, flow_control.TARGET_OF[action])
        return len(changes), flow_control.TARGET_OF[action] if action else flow_control.STOPPED
    except connect_rest.ConnectError as e:
        raise Fail(u"FLOW_SEED %s: Connect's offsets API on this driver: %s" % (flow_name, text(e)))
