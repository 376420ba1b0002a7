"""MirrorMaker 2's source positions, written the way Kafka Connect reads them (pure: no I/O).

The rules of the offsets topic (key bytes, partition, value) are mm2_core.kafka.connect_offsets'; what Kafka's
tools print and the offsets topic's records are read by the Kafka boundary, mm2_core.kafkatools.
"""
from mm2_core.kafka.connect_offsets import (  # noqa: F401 (this module's API, used by mm1.commands and the tests)
    CONNECTOR, OFFSETS_TOPIC, OFFSETS_TOPIC_CONFIGS, OFFSETS_TOPIC_PARTITIONS, hashmap_order, murmur2, offset_value,
    offsets_topic, partition_for, source_partition_key)


class Position(object):
    """One source partition: MM1's committed offset, the source's log start/end, MM2's stored offset."""

    def __init__(self, topic, partition, committed, log_start=None, log_end=None, stored=None):
        self.topic, self.partition, self.committed = topic, partition, committed
        self.log_start, self.log_end, self.stored = log_start, log_end, stored


class SeedPlan(object):
    """What seeding writes and what it means.

    writes: [(key, value, partition)] still to write; already: source partitions already seeded exactly so;
    conflicts: ["topic-p: MM2 has N, MM1 committed c"] (MM2 ran or another seed differs);
    to_copy: records MM2 will copy after the start (log end - committed); naive: records a start without
    seeding would copy again (committed - log start); lost_to_retention: records MM1 never copied that the
    source deleted meanwhile.
    """

    def __init__(self):
        self.writes, self.already, self.conflicts, self.positions = [], [], [], []
        self.to_copy = self.naive = self.lost_to_retention = 0
        self.unknown_extent = False


def plan_seed(source_alias, committed, log_start, log_end, stored, offsets_partitions,
              connector=CONNECTOR):
    """committed {(topic, p): next offset MM1 reads}; log_start/log_end {(topic, p): offset} on the source;
    stored {(cluster, topic, p): offset} of `connector` in the offsets topic (what MM2 has)."""
    plan = SeedPlan()
    ours = dict(((t, p), off) for (cluster, t, p), off in stored.items() if cluster == source_alias)
    for (topic, partition) in sorted(committed):
        c = committed[(topic, partition)]
        start, end = log_start.get((topic, partition)), log_end.get((topic, partition))
        pos = Position(topic, partition, c, start, end, ours.get((topic, partition)))
        plan.positions.append(pos)
        if start is None or end is None:
            plan.unknown_extent = True
        else:
            plan.to_copy += max(end - max(c, start), 0)
            plan.naive += max(min(c, end) - start, 0)
            plan.lost_to_retention += max(start - c, 0)
        if c <= 0:
            if pos.stored is not None:
                plan.conflicts.append("%s-%d: MM2 has position %d, MirrorMaker 1 copied nothing"
                                      % (topic, partition, pos.stored))
            continue
        want = c - 1
        if pos.stored == want:
            plan.already.append((topic, partition))
            continue
        if pos.stored is not None:
            plan.conflicts.append("%s-%d: MM2 already has position %d (resumes at %d), MirrorMaker 1 committed %d"
                                  % (topic, partition, pos.stored, pos.stored + 1, c))
        key = source_partition_key(source_alias, topic, partition, connector)
        plan.writes.append((key, offset_value(want), partition_for(key, offsets_partitions)))
    for (topic, partition), off in sorted(ours.items()):
        if (topic, partition) not in committed:
            plan.conflicts.append("%s-%d: MM2 already has position %d for a partition MirrorMaker 1 never "
                                  "committed (MM2 has run for this flow)" % (topic, partition, off))
    return plan


def read_complete(last_read, log_start, log_end):
    """True when a read saw the last record of every non-empty partition ({partition: offset} maps)."""
    return all(last_read.get(p, -1) >= end - 1 for p, end in log_end.items() if end > log_start.get(p, 0))
