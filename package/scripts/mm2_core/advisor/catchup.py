"""Catch-up after an outage: the settings the advisor recommends so a flow drains a backlog at the raw pipe's speed.

Measured (benchmarks/README.md, "DR catch-up"; benchmarks/dr_catchup_bench.py): after a target outage, MM2 with
two tasks for four partitions and the target producer's client defaults (batch.size 16384, linger.ms 0) drained
the backlog at 0.46 of the raw pipe measured in the same run on the same hosts; with tasks.max=4 (one task per
partition) and the target producer batching 256 KiB with linger.ms=10 it drained at 0.92. The advisor recommends
these producer settings per target cluster (in kafka-mm2-custom, only where the operator has not set them) and
warns, with that reason, where the operator's values are below them or tasks.max is below the schema default.

Pure rules (stdlib, Python 2.7 and 3): the service advisor passes the target aliases and the current values.
"""
from mm2_core.config import names, schema

BATCH_SIZE = 262144      # bytes: what the raw writer of the benchmark batched
LINGER_MS = 10
PRODUCER_SETTINGS = (("batch.size", BATCH_SIZE), ("linger.ms", LINGER_MS))
WHERE = "measured in the mpack's benchmarks, section DR catch-up"
REASON = ("after an outage MM2 drains the backlog at 0.46 of the raw pipe with the producer's client defaults "
          "(batch.size=16384, linger.ms=0) and two tasks for four partitions, at 0.92 with batch.size=%d, "
          "linger.ms=%d and one task per partition (%s)" % (BATCH_SIZE, LINGER_MS, WHERE))


def min_tasks():
    """tasks.max below this is warned about: the schema default, one task per partition of a 4-partition flow."""
    return int(schema.REPLICATION["tasks.max"].default)


def producer_key(target, setting):
    return "%s.producer.%s" % (target, setting)


def _number(value):
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def recommend(targets, custom):
    """{kafka-mm2-custom key: value} for the target clusters' producers: only keys the operator has not set
    (a value of theirs, even a lower one, stays theirs: problems() warns about it)."""
    custom = custom or {}
    out = {}
    for target in sorted(set(targets)):
        for setting, value in PRODUCER_SETTINGS:
            key = producer_key(target, setting)
            if key not in custom:
                out[key] = str(value)
    return out


def problems(targets, custom, tasks_max):
    """[(config type, property, "WARN", message)]: the operator's values that slow down a catch-up, with why."""
    custom = custom or {}
    found = []
    for target in sorted(set(targets)):
        for setting, value in PRODUCER_SETTINGS:
            key = producer_key(target, setting)
            given = _number(custom.get(key))
            if key in custom and given is not None and given < value:
                found.append((names.CUSTOM, key, "WARN",
                              "%s=%s is below %d: flows into %s catch up slower after an outage; %s" % (
                                  key, custom.get(key), value, target, REASON)))
    tasks = _number(tasks_max)
    if tasks is not None and tasks < min_tasks():
        found.append((names.REPLICATION, "tasks.max", "WARN",
                      "tasks.max=%d: a flow with more partitions than tasks catches up slower after an outage; set "
                      "it to at least the partition count of the flow (%d or more); %s" % (tasks, min_tasks(),
                                                                                         REASON)))
    return found
