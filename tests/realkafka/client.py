"""The test session's one Kafka client: every read and write of the real-Kafka harness, in this process.

Before, each harness call (produce, consume, count, end offsets, group offsets, create topic ...) started one of
Kafka's command-line tools: a JVM of about one CPU-second, 500 to 1,000 of them per CI run on a 2-core host (issue
32). Now they all go through librdkafka (the `confluent-kafka` package) inside the test process: no process at all,
one admin client and one producer per cluster, cached for the session.

Why librdkafka rather than a Java helper compiled against each distribution's `kafka-clients`:
- it serves every line the matrix runs from one build: it negotiates each request's version with the broker
  (ApiVersions), from 0.10 brokers to the 4.x line that dropped the old protocol versions (KIP-896), ZooKeeper
  and KRaft alike, so one client per session serves every version, with nothing to compile per version;
- it costs no JVM at all (a Java helper is still a JVM per version and session), and it is a maintained client
  used in production, not a double of one: what the harness reads is what the brokers answer.
The product's own code is not touched: the agent scripts still run the installation's Kafka tools, which is what
is tested. The harness only observes and feeds the clusters.

Semantics kept from the tools it replaces (so no test changes meaning):
- produce: acks=all and flushed before returning (durable on return); keyed records go to the partition Java's
  default partitioner picks (murmur2), as the console producer did;
- consume: read_uncommitted, up to max_records, ending after timeout_ms without a new record; without a group the
  partitions are assigned (no group is created on the cluster), with a group it joins, reads and commits what it
  returned, as `kafka-console-consumer --group` does;
- end offsets: the high watermarks (`kafka-get-offsets`); {} for a topic that does not exist;
- group offsets: the committed offsets (`kafka-consumer-groups --describe`); {} for a group that does not exist.
"""
import threading
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

try:   # confluent-kafka >= 2.2
    from confluent_kafka import ConsumerGroupTopicPartitions
except ImportError:   # pragma: no cover
    from confluent_kafka.admin import ConsumerGroupTopicPartitions

_LOCK = threading.Lock()
_ADMINS = {}
_PRODUCERS = {}
# How many calls this process made, by kind (the CI log prints them: what used to be a JVM each).
CALLS = {}


def _count(kind):
    CALLS[kind] = CALLS.get(kind, 0) + 1


def _conf(bootstrap, **extra):
    conf = {"bootstrap.servers": bootstrap, "client.id": "mm2-test-harness",
            # a one-node cluster on 127.0.0.1: fail fast on a wrong address, reconnect fast after a restart
            "socket.connection.setup.timeout.ms": 10000, "reconnect.backoff.max.ms": 1000,
            "log_level": 2}   # not the connection failures of a broker a test stopped: calls raise with the cause
    conf.update(extra)
    return conf


def admin(bootstrap):
    with _LOCK:
        if bootstrap not in _ADMINS:
            # a metadata request about a topic must not create it (the admin handle is a producer in librdkafka,
            # whose default is to ask the broker to)
            _ADMINS[bootstrap] = AdminClient(_conf(bootstrap, **{"allow.auto.create.topics": False}))
        return _ADMINS[bootstrap]


def producer(bootstrap):
    with _LOCK:
        if bootstrap not in _PRODUCERS:
            _PRODUCERS[bootstrap] = Producer(_conf(bootstrap, **{
                # idempotent, as the console producer is from Kafka 3.0: a batch retried after a slow ack on a
                # loaded host (load 40) is written once, not twice (a test counting exact copies saw 300 of 200)
                "acks": "all", "enable.idempotence": True, "linger.ms": 5, "partitioner": "murmur2_random",
                "request.timeout.ms": 60000, "message.timeout.ms": 180000,
                "queue.buffering.max.messages": 1000000}))
        return _PRODUCERS[bootstrap]


def forget(bootstrap):
    """Drop the cached clients of a cluster (its broker stopped for good)."""
    with _LOCK:
        _ADMINS.pop(bootstrap, None)
        p = _PRODUCERS.pop(bootstrap, None)
    if p is not None:
        p.flush(1)


def _partitions(bootstrap, topic, timeout=30):
    """The topic's partition ids, or [] when it does not exist. A topic being created or moving (no leader yet)
    is asked again until it has one, within timeout s."""
    deadline = time.monotonic() + timeout
    while True:
        md = admin(bootstrap).list_topics(topic=topic, timeout=timeout)
        t = md.topics.get(topic)
        if t is None or t.error is not None and t.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
            return []
        if t.error is None and all(p.leader >= 0 for p in t.partitions.values()):
            return sorted(t.partitions)
        if time.monotonic() >= deadline:
            raise RuntimeError("metadata of %s at %s: %s" % (topic, bootstrap, t.error or "a partition without leader"))
        time.sleep(0.5)


def create_topic(bootstrap, topic, partitions=1, config=None, timeout=60):
    """Create the topic (replication factor 1); an existing one is left as it is (--if-not-exists)."""
    _count("create_topic")
    new = NewTopic(topic, num_partitions=partitions, replication_factor=1,
                   config=dict((k, str(v)) for k, v in (config or {}).items()))
    future = admin(bootstrap).create_topics([new], operation_timeout=timeout, request_timeout=timeout)[topic]
    try:
        future.result(timeout=timeout)
    except KafkaException as exc:
        if exc.args and exc.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:
            return
        raise RuntimeError("create topic %s at %s: %s" % (topic, bootstrap, exc.args[0] if exc.args else exc))
    # the metadata of a new topic reaches every request path a moment later
    deadline = time.monotonic() + timeout
    while len(_partitions(bootstrap, topic)) < partitions and time.monotonic() < deadline:
        time.sleep(0.1)


def topics(bootstrap, timeout=30):
    _count("topics")
    return sorted(admin(bootstrap).list_topics(timeout=timeout).topics)


def produce(bootstrap, topic, records, timeout=180):
    """records: iterable of (key, value) strings; every record acknowledged by all replicas on return."""
    _count("produce")
    p = producer(bootstrap)
    errors = []

    def delivered(err, msg):
        if err is not None:
            errors.append(err)
    for key, value in records:
        while True:
            try:
                p.produce(topic, key=key.encode("utf-8"), value=value.encode("utf-8"), on_delivery=delivered)
                break
            except BufferError:   # the local queue is full: let it drain
                p.poll(0.1)
        p.poll(0)
    left = p.flush(timeout)
    if left or errors:
        raise RuntimeError("produce to %s at %s: %d records not acknowledged within %ss%s"
                           % (topic, bootstrap, left + len(errors), timeout,
                              "; first error: %s" % errors[0] if errors else ""))


def _list_offsets(bootstrap, topic, spec, timeout):
    """{partition: offset} by spec; asked again while a partition's leader does not answer (a broker just
    restarted) until timeout s, then RuntimeError."""
    deadline = time.monotonic() + timeout
    while True:
        parts = _partitions(bootstrap, topic, timeout=timeout)
        if not parts:
            return {}
        request = dict((TopicPartition(topic, p), spec) for p in parts)
        futures = admin(bootstrap).list_offsets(request, request_timeout=min(30, timeout))
        try:
            return dict((tp.partition, future.result(timeout=timeout).offset) for tp, future in futures.items())
        except KafkaException as exc:
            if time.monotonic() >= deadline:
                raise RuntimeError("offsets of %s at %s within %ss: %s"
                                   % (topic, bootstrap, timeout, exc.args[0] if exc.args else exc))
            time.sleep(1)


def end_offsets(bootstrap, topic, timeout=60):
    """{partition: high watermark}; {} when the topic does not exist."""
    _count("end_offsets")
    return _list_offsets(bootstrap, topic, OffsetSpec.latest(), timeout)


def log_start_offsets(bootstrap, topic, timeout=60):
    """{partition: log-start offset} (what retention or deleteRecords left); {} when the topic does not exist."""
    _count("log_start_offsets")
    return _list_offsets(bootstrap, topic, OffsetSpec.earliest(), timeout)


def consume(bootstrap, topic, max_records, timeout_ms=15000, group=None, from_beginning=True, partition=None,
            offset=None, catch_up_timeout=60, isolation="read_uncommitted"):
    """Up to max_records (key, value) string pairs: records() without their positions."""
    return [(key, value) for _, _, key, value in records(bootstrap, topic, max_records, timeout_ms, group,
                                                         from_beginning, partition, offset, catch_up_timeout,
                                                         isolation)]


def records(bootstrap, topic, max_records, timeout_ms=15000, group=None, from_beginning=True, partition=None,
            offset=None, catch_up_timeout=60, isolation="read_uncommitted"):
    """Up to max_records (partition, offset, key, value) records, in the order read (each partition in order).

    The read first catches up: it reads until every partition it was given has reached its end once (bounded by
    catch_up_timeout s: a stopped broker), and only then ends after timeout_ms without a new record. So a short
    timeout never ends a read before its first fetch, however loaded the host (the console consumer's timeout
    also ran while it joined and fetched: 0 of 400 records at load ~25 in the r9 rehearsal of 2026-11-27).

    group: join it, read, and commit what was returned (from its committed offsets, else earliest or latest by
    from_beginning). Else the partitions are assigned, no group joined: all of them from the beginning (or the
    end), or `partition` from `offset`. isolation: read_uncommitted (the console consumer's default) or
    read_committed (exactly-once: only committed transactions' records)."""
    _count("consume")
    conf = _conf(bootstrap, **{"group.id": group or "mm2-test-harness-reader", "enable.auto.commit": False,
                               "enable.auto.offset.store": False, "isolation.level": isolation,
                               "auto.offset.reset": "earliest" if from_beginning else "latest",
                               "enable.partition.eof": True, "session.timeout.ms": 10000})
    consumer = Consumer(conf)
    pairs, last, assigned, at_end = [], {}, set(), set()
    started = time.monotonic()
    try:
        if group:
            consumer.subscribe([topic], on_assign=lambda c, parts: assigned.update(tp.partition for tp in parts))
        else:
            parts = [partition] if partition is not None else _partitions(bootstrap, topic)
            if not parts:
                return []
            start = (offset or 0) if partition is not None else (-2 if from_beginning else -1)  # BEGINNING / END
            consumer.assign([TopicPartition(topic, p, start) for p in parts])
            assigned.update(parts)
        idle_from = None   # set once caught up: the idle timeout runs from there and from each later record
        while len(pairs) < max_records:
            now = time.monotonic()
            if idle_from is None and assigned and at_end >= assigned:
                idle_from = now
            deadline = started + catch_up_timeout if idle_from is None else idle_from + timeout_ms / 1000.0
            if now >= deadline:
                break
            msg = consumer.poll(min(0.2, deadline - now))
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    at_end.add(msg.partition())
                elif err.fatal():
                    raise RuntimeError("consume %s at %s: %s" % (topic, bootstrap, err))
                continue
            pairs.append((msg.partition(), msg.offset()) + _pair(msg))
            last[msg.partition()] = msg.offset()
            if idle_from is not None:
                idle_from = time.monotonic()
        if group and last:
            consumer.commit(offsets=[TopicPartition(topic, p, o + 1) for p, o in last.items()], asynchronous=False)
    finally:
        consumer.close()
    return pairs


def _pair(msg):
    key, value = msg.key(), msg.value()
    return (key.decode("utf-8", "replace") if key is not None else "null",
            value.decode("utf-8", "replace") if value is not None else "null")


def group_offsets(bootstrap, group, timeout=60):
    """{(topic, partition): committed offset}; {} when the group does not exist or committed nothing."""
    _count("group_offsets")
    deadline = time.monotonic() + timeout
    while True:
        futures = admin(bootstrap).list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)],
                                                               request_timeout=min(30, timeout))
        try:
            result = futures[group].result(timeout=timeout)
            return dict(((tp.topic, tp.partition), tp.offset) for tp in result.topic_partitions
                        if tp.offset >= 0 and tp.error is None)
        except KafkaException as exc:
            err = exc.args[0] if exc.args else exc
            code = err.code() if hasattr(err, "code") else None
            if code == KafkaError.GROUP_ID_NOT_FOUND:
                return {}
            # the coordinator loading or moving, or the broker just (re)starting: ask again while there is time
            if time.monotonic() >= deadline:
                raise RuntimeError("offsets of group %s at %s within %ss: %s" % (group, bootstrap, timeout, err))
            time.sleep(1)


def group_description(bootstrap, group, timeout=60):
    """(state name, number of members) of a group; ("DEAD", 0) for one that does not exist. Asked again while the
    coordinator does not answer (a broker just restarted loads the offsets topic first) until timeout s, then
    RuntimeError."""
    _count("describe_group")
    deadline = time.monotonic() + timeout
    while True:
        future = admin(bootstrap).describe_consumer_groups([group], request_timeout=min(15, timeout))[group]
        try:
            desc = future.result(timeout=timeout)
            return desc.state.name, len(desc.members)
        except KafkaException as exc:
            err = exc.args[0] if exc.args else exc
            if hasattr(err, "code") and err.code() == KafkaError.GROUP_ID_NOT_FOUND:
                return "DEAD", 0
            if time.monotonic() >= deadline:
                raise RuntimeError("describe group %s at %s within %ss: %s" % (group, bootstrap, timeout, err))
            forget(bootstrap)   # the next try with a fresh admin client
            time.sleep(1)


def commit_group_offsets(bootstrap, group, topic, partition_offsets, timeout=60):
    """Commit {partition: offset} for an inactive group (`kafka-consumer-groups --reset-offsets --execute`). A
    coordinator still loading or moving (a cluster just started) is asked again until timeout s."""
    _count("commit_group_offsets")
    deadline = time.monotonic() + timeout
    while True:
        request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p, o)
                                                       for p, o in sorted(partition_offsets.items())])
        future = admin(bootstrap).alter_consumer_group_offsets([request], request_timeout=min(30, timeout))[group]
        try:
            result = future.result(timeout=timeout)
            failed = [tp for tp in result.topic_partitions if tp.error is not None]
            errors = [tp.error for tp in failed]
        except KafkaException as exc:
            failed, errors = [group], [exc.args[0] if exc.args else exc]
        if not failed:
            return
        retriable = all(getattr(e, "retriable", lambda: False)() or getattr(e, "code", lambda: None)() in (
            KafkaError.COORDINATOR_LOAD_IN_PROGRESS, KafkaError.COORDINATOR_NOT_AVAILABLE, KafkaError.NOT_COORDINATOR)
            for e in errors)
        if not retriable or time.monotonic() >= deadline:
            raise RuntimeError("commit offsets of group %s at %s: %s" % (group, bootstrap, errors))
        time.sleep(0.5)
