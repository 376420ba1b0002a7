"""A flow named on the command line (--flow 'A->B'), checked against the service's configured flows before
any request is sent: a name the service does not have is refused (exit 2) with the list of the flows it has, so
no command ever runs on another flow or on none.

The flows are read from Ambari's desired configurations (GET only) and parsed the way the agent parses them
(mm2_core.model.parse): simple mode (kafka-mm2-clusters, kafka-mm2-replication/direction) and the advanced
topology alike.
"""
from mm2_core.config import names
from mm2_core.kafka import versions
from mm2_ambari.common.errors import BadInput


class Service(object):
    """The service's configurations in Ambari ({type: {name: value}}) and the topology parsed from them."""

    def __init__(self, configurations):
        from mm2_core.model import parse
        self.configurations = configurations
        override = ((configurations.get(names.ENV) or {}).get("kafka_version_override") or "").strip()
        self.topology = None
        for version in ([override] if override else []) + [str(versions.NEWEST_KNOWN)]:
            self.topology, _ = parse.parse(configurations, version, None)   # the flows do not depend on the version
            if self.topology is not None:
                break
        self.flows = dict((flow.name, flow.enabled) for flow in (self.topology.flows if self.topology else []))

    def flow(self, name):
        """The model Flow `name` ("A->B"): the configured one, else one the service does not have yet (e.g. the
        reverse flow a failback adds), with the settings MM2 would give it."""
        from mm2_core.model.topology import Flow
        for flow in (self.topology.flows if self.topology else []):
            if flow.name == name:
                return flow
        source, target = name.split("->", 1)
        return Flow(source, target, (names.REPLICATION, "direction"))


def configured_flows(configurations):
    """{flow name: enabled} of a service's configurations {type: {name: value}}."""
    return Service(configurations).flows


def read_service(ctx):
    """The Service in Ambari, or None when the service is not installed."""
    from mm2_ambari.transport import ambari_state
    if ambari_state.read_service(ctx) is None:
        return None
    desired = ambari_state.read_cluster(ctx)["desired"]
    current = ambari_state.read_current_configs(ctx, desired)
    return Service(dict((t, c.properties) for t, c in current.items()))


def quoted(flows):
    return ", ".join("'%s'" % name for name in sorted(flows)) or "none"


def check(ctx, flow, option="--flow", also=()):
    """Refuse `flow` ("A->B", already normalized) unless the service has it (or one of `also`: names a resumed
    plan may have left configured instead). Returns the Service read, or None when the service is not installed
    (nothing is checked: the command itself says so)."""
    service = read_service(ctx)
    if service is None:
        return None
    flows = service.flows
    if flow in flows or any(name in flows for name in also):
        return service
    raise BadInput("%s '%s': service %s of cluster %s has no such flow; its flows: %s. Give one of them, quoted "
                   "(kafka-mm2-clusters / kafka-mm2-topology list them); nothing was sent"
                   % (option, flow, names.SERVICE, ctx.cluster, quoted(flows)))


def check_groups(service, flow, groups, moved, option="--groups"):
    """Refuse the consumer groups the flow `flow` ("A->B") cannot translate (mm2_core.model.groups: its groups
    filter as configured, live values included); `moved` says what the command does with them. Nothing is checked
    without a Service (not installed) or a parsed topology (the command's own checks say why)."""
    if service is None or service.topology is None or not groups:
        return
    from mm2_core.model import groups as group_rules
    topology = service.topology
    conf = service.configurations
    entries = group_rules.live_entries((conf.get(names.ENV) or {}).get("mm2_run_mode"),
                                       (conf.get(names.LIVE) or {}).get("flow.settings"), topology)
    problems = group_rules.filter_problems(groups, topology, service.flow(flow), entries, moved)
    if problems:
        raise BadInput("%s: %d group(s) the flow cannot translate; nothing was sent" % (option, len(problems)),
                       problems)
