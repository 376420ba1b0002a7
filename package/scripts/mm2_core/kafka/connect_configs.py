"""A dedicated MM2 flow's connectors in Kafka Connect's config topic (pure, stdlib, Python 2.7 and 3).

Why this matters for a failback under the identity policy: each flow A->B of a dedicated MM2 has a herder whose
config topic is `mm2-configs.<A>.internal` on the target B (MirrorMakerConfig.workerConfig). That herder exists
even while the flow is disabled (it emits heartbeats: MirrorMakerConfig.clusterPairs). When MM2 starts, the herder
reads its config topic and starts the tasks it finds there, with their last task configurations, in its first
rebalance; only afterwards does the leader write the connector configurations of mm2.properties (MirrorHerder:
configureConnectors on rebalanceSuccess), and only then does a now-disabled MirrorSourceConnector report no tasks
and have its old ones stopped. So a flow that ran before, then was disabled, copies again for that window, from
its last committed position. With the reverse flow running under the identity policy that is a replication loop:
A->B's leftover task copies back to B what B->A has just written to A, and B->A copies it to A again (seen on real
Kafka: 27 of B's records twice on A, and twice on B, after one failback).

Retiring a flow before the restart that disables it closes that window, with the records Connect itself writes,
for each of its copying connectors that has a configuration there: `connector-<name>` with `enabled=false` (what
MirrorHerder will write from mm2.properties anyway), then `commit-<name>` = {"tasks":0} (what Connect writes for a
connector that has no tasks; KafkaConfigBackingStore then has no task of it to assign). The herder starts the
connector disabled and no task of it; MirrorHerder rewrites the configuration from mm2.properties as usual (enabled
again later, the connector generates new tasks, which resume at the flow's stored positions).

Connect mode has the same window: a flow's connectors live in its Connect worker's config topic
(`<connect.group.id>-configs.internal` on the flow's target) under the flow's names (`A->B.MirrorSourceConnector`),
and a worker that starts reads that topic and starts the tasks it finds there in its first rebalance
(DistributedHerder.startWork after handleRebalanceCompleted), before the driver's START deletes the connectors of a
flow no longer enabled over REST (mm2_connect.apply_connectors). The same two records per copying connector close it
there (`connectors` names them); the START that enables the flow again PUTs its rendered configuration
(enabled=true) over the retired one, and Connect generates new tasks.
"""
import json

CONFIGS_TOPIC = "mm2-configs.%s.internal"
COMMIT_PREFIX = "commit-"
CONNECTOR_PREFIX = "connector-"
# the connectors of a flow that copy (records; group offsets): MirrorHeartbeatConnector keeps running by design
RETIRED_CONNECTORS = ("MirrorSourceConnector", "MirrorCheckpointConnector")


def configs_topic(source_alias):
    return CONFIGS_TOPIC % source_alias


def task_count_key(connector):
    return COMMIT_PREFIX + connector


def no_tasks_value():
    return json.dumps({"tasks": 0}, separators=(",", ":"))


def retired(configs, counts, connectors=RETIRED_CONNECTORS):
    """[connector] of `connectors` (dedicated mode: RETIRED_CONNECTORS) that are configured and neither disabled nor
    without tasks."""
    return [c for c in connectors if c in configs and (
        str(configs[c].get("enabled", "")).strip().lower() != "false" or counts.get(c, 0) != 0)]


def retire_plan(configs, counts, connectors=RETIRED_CONNECTORS):
    """[(key, value)] to write, in this order, so that no connector of `connectors` (dedicated mode:
    RETIRED_CONNECTORS; connect mode: the flow's copying connectors) starts a task at the herder's next start: its
    configuration with enabled=false, then a task count of 0. Nothing for a connector the topic does not configure
    (the flow never ran) or that is retired already."""
    writes = []
    for connector in connectors:
        if connector not in configs:
            continue
        props = dict(configs[connector])
        if str(props.get("enabled", "")).strip().lower() != "false":
            props["enabled"] = "false"
            writes.append((CONNECTOR_PREFIX + connector,
                           json.dumps({"properties": props}, separators=(",", ":"), sort_keys=True)))
        if counts.get(connector, 0) != 0:
            writes.append((task_count_key(connector), no_tasks_value()))
    return writes
