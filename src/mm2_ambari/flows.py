"""A flow named on the command line (--flow 'A->B'), checked against the service's configured flows before
any request is sent: a name the service does not have is refused (exit 2) with the list of the flows it has, so
no command ever runs on another flow or on none.

The flows are read from Ambari's desired configurations (GET only) and parsed the way the agent parses them
(mm2_core.model.parse): simple mode (kafka-mm2-clusters, kafka-mm2-replication/direction) and the advanced
topology alike.
"""
from mm2_core.config import names
from mm2_core.kafka import versions
from mm2_ambari.errors import BadInput


def configured_flows(configurations):
    """{flow name: enabled} of a service's configurations {type: {name: value}}."""
    from mm2_core.model import parse
    override = ((configurations.get(names.ENV) or {}).get("kafka_version_override") or "").strip()
    topology = None
    for version in ([override] if override else []) + [str(versions.NEWEST_KNOWN)]:
        topology, _ = parse.parse(configurations, version, None)   # the flows do not depend on the version
        if topology is not None:
            break
    return dict((flow.name, flow.enabled) for flow in (topology.flows if topology is not None else []))


def read_flows(ctx):
    """{flow name: enabled} of the service in Ambari, or None when the service is not installed."""
    from mm2_ambari import ambari_state
    if ambari_state.read_service(ctx) is None:
        return None
    desired = ambari_state.read_cluster(ctx)["desired"]
    current = ambari_state.read_current_configs(ctx, desired)
    return configured_flows(dict((t, c.properties) for t, c in current.items()))


def quoted(flows):
    return ", ".join("'%s'" % name for name in sorted(flows)) or "none"


def check(ctx, flow, option="--flow", also=()):
    """Refuse `flow` ("A->B", already normalized) unless the service has it (or one of `also`: names a resumed
    plan may have left configured instead). Nothing is checked when the service is not installed: the command
    itself says so."""
    flows = read_flows(ctx)
    if flows is None:
        return
    if flow in flows or any(name in flows for name in also):
        return
    raise BadInput("%s '%s': service %s of cluster %s has no such flow; its flows: %s. Give one of them, quoted "
                   "(kafka-mm2-clusters / kafka-mm2-topology list them); nothing was sent"
                   % (option, flow, names.SERVICE, ctx.cluster, quoted(flows)))
