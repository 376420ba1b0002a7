"""Topic naming of MM2's two replication policies, defined once.

prefixed = DefaultReplicationPolicy: topic t from cluster A is A<sep>t on the target.
identity = IdentityReplicationPolicy (Kafka 3.0+): names are kept, except topics that look
like heartbeats (name ends with "heartbeats"), which are still prefixed so heartbeats of
several sources cannot collide (Kafka's IdentityReplicationPolicy.looksLikeHeartbeat).
"""

PREFIXED = "prefixed"
IDENTITY = "identity"
POLICIES = (PREFIXED, IDENTITY)
HEARTBEATS_TOPIC = "heartbeats"
POLICY_CLASSES = {
    PREFIXED: "org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
    IDENTITY: "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
}


def _keeps_name(policy, topic):
    return policy == IDENTITY and not topic.endswith(HEARTBEATS_TOPIC)


def remote_topic(source_alias, topic, policy=PREFIXED, separator="."):
    """Name on the target of source topic `topic` replicated from `source_alias`."""
    if _keeps_name(policy, topic):
        return topic
    return "%s%s%s" % (source_alias, separator or ".", topic)


def upstream_topic(source_alias, remote, policy=PREFIXED, separator="."):
    """Source topic name of target topic `remote` (the inverse of remote_topic)."""
    prefix = "%s%s" % (source_alias, separator or ".")
    if remote.startswith(prefix) and not _keeps_name(policy, remote):
        return remote[len(prefix):]
    return remote


def is_cycle(topic, target_alias, policy=PREFIXED, separator="."):
    """True when MM2 does not replicate source topic `topic` to `target_alias` because it came from there
    (MirrorSourceConnector.isCycle under DefaultReplicationPolicy: each prefix before a separator, outermost first,
    is a source cluster; one naming the target is a cycle). The identity policy cannot tell: never a cycle here."""
    if policy != PREFIXED:
        return False
    rest = topic
    while True:
        alias, found, rest = rest.partition(separator or ".")
        if not found:
            return False
        if alias == target_alias:
            return True
