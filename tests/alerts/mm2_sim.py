"""The MBeans one MM2 process registers, per Kafka version, for tests and the benchmark.

Names follow the Kafka sources: MirrorSourceMetrics/MirrorMetrics (tags target, topic, partition;
source first from 4.0, or 3.5-3.9 with add.source.alias.to.metrics), MirrorCheckpointMetrics
(source, target, group, topic, partition), ConnectMetricsRegistry (connector-metrics,
connector-task-metrics, source-task-metrics, connect-worker-metrics), AppInfoParser
(kafka.connect:type=app-info,id=<source->target> per herder), the consumer's fetch manager
metrics (client-id, topic, partition). Connect MBeans with the same name from several herders
collapse to one, as JmxReporter's re-registration does.
"""
from exporter_sim import MBean

NAN = float("nan")


def topic_tag(topic):
    """What Kafka's consumer metrics write as the topic tag: '.' replaced by '_' (FetchManagerMetrics,
    every version). Written here independently of mm2_core so the test can catch a wrong join."""
    return topic.replace(".", "_")


def version_tuple(version):
    return tuple(int(x) for x in version.split("-")[0].split(".")[:3])


class Partition(object):
    """One replicated partition: topic is the SOURCE topic name."""

    def __init__(self, topic, partition, count=1000.0, latency_avg=25.0, latency_last=None, lag=0.0,
                 active=True, polled=None):
        """active: records were written to the target (acknowledged) in the stat window; polled: records
        were polled from the source in it (default: as active; polled without active is a stuck target)."""
        self.topic = topic
        self.partition = partition
        self.count = count
        self.active = active
        self.polled = active if polled is None else polled
        self.latency_avg = latency_avg if active else NAN
        self.latency_last = latency_avg if latency_last is None else latency_last
        self.lag = lag


class Checkpoint(object):
    def __init__(self, group, topic, partition, last=35.0, avg=35.0, maximum=40.0):
        self.group = group
        self.topic = topic
        self.partition = partition
        self.last = last
        self.avg = avg
        self.max = maximum


class Flow(object):
    def __init__(self, source, target, partitions=(), heartbeat=True, heartbeat_count=120.0,
                 heartbeat_active=True, tasks=1, checkpoints=(), identity=False, separator=".", last_poll=None):
        """last_poll: {task: seconds since its replication consumer last polled} (default 0: polling)."""
        self.last_poll = dict(last_poll or {})
        self.source = source
        self.target = target
        self.partitions = list(partitions)
        if heartbeat:
            self.partitions.append(Partition("heartbeats", 0, count=heartbeat_count, latency_avg=8.0,
                                             active=heartbeat_active))
        self.tasks = tasks
        self.checkpoints = list(checkpoints)
        self.identity = identity
        self.separator = separator

    @property
    def name(self):
        return "%s->%s" % (self.source, self.target)

    def remote(self, topic):
        if self.identity and topic != "heartbeats":
            return topic
        return self.source + self.separator + topic


def partitions(topic, n, **kw):
    return [Partition(topic, p, **kw) for p in range(n)]


class MM2Process(object):
    """herders: [(source, target)] running in the JVM; flows: the ones replicating here."""

    def __init__(self, version="3.7.1", herders=(), flows=(), add_source_alias=False,
                 connector_status=None, task_status=None, start_ms=1700000000000, herder_start=None,
                 connect_worker=None):
        self.version = version
        # connect mode: a Kafka Connect distributed worker's app-info is named by its REST address ("127.0.0.1:8093")
        self.connect_worker = connect_worker
        self.vt = version_tuple(version)
        self.flows = list(flows)
        self.herders = list(herders) or [(f.source, f.target) for f in self.flows]
        self.source_tag = self.vt >= (4, 0, 0) or (self.vt >= (3, 5, 0) and add_source_alias)
        self.role_ids = self.vt >= (3, 5, 0)
        self.connector_status = connector_status or {}
        self.task_status = task_status or {}
        self.start_ms = start_ms
        self.herder_start = herder_start or {}

    def _source_beans(self, flow):
        beans = []
        for p in flow.partitions:
            props = [("type", "MirrorSourceConnector")]
            if self.source_tag:
                props.append(("source", flow.source))
            props += [("target", flow.target), ("topic", flow.remote(p.topic)), ("partition", str(p.partition))]
            window = (lambda v: v) if p.active else (lambda v: NAN)
            # record age is recorded when MirrorSourceTask polls a record, latency when the target acks it
            age = 20.0 if p.latency_avg != p.latency_avg else max(p.latency_avg - 3.0, 0.0)
            polled = (lambda v: v) if p.polled else (lambda v: NAN)
            attrs = [
                ("record-count", float(p.count)), ("record-rate", 12.5 if p.active else 0.0),
                ("byte-count", float(p.count) * 512), ("byte-rate", 6400.0 if p.active else 0.0),
                ("record-age-ms", p.latency_last - 3.0), ("record-age-ms-max", polled(age + 13.0)),
                ("record-age-ms-min", polled(max(age - 2.0, 0.0))),
                ("record-age-ms-avg", polled(age)),
                ("replication-latency-ms", p.latency_last), ("replication-latency-ms-max", window(p.latency_avg + 15.0)),
                ("replication-latency-ms-min", window(max(p.latency_avg - 8.0, 0.0))),
                ("replication-latency-ms-avg", p.latency_avg),
            ]
            beans.append(MBean("kafka.connect.mirror", props, attrs))
        return beans

    def _client_id(self, flow, task, n):
        if self.role_ids:
            return "%s|MirrorSourceConnector-%d|replication-consumer" % (flow.name, task)
        return "consumer-%d" % n

    def _consumer_beans(self, flow, seq):
        beans = []
        for i, p in enumerate(flow.partitions):
            task = i % flow.tasks
            cid = self._client_id(flow, task, seq + task)
            props = [("type", "consumer-fetch-manager-metrics"), ("client-id", cid), ("topic", topic_tag(p.topic)),
                     ("partition", str(p.partition))]
            attrs = [("records-lag", float(p.lag)), ("records-lag-max", float(p.lag)),
                     ("records-lag-avg", float(p.lag)), ("records-lead", float(p.count)),
                     ("records-lead-min", float(p.count)), ("records-lead-avg", float(p.count)),
                     ("preferred-read-replica", -1)]
            beans.append(MBean("kafka.consumer", props, attrs))
        for task in range(flow.tasks):
            cid = self._client_id(flow, task, seq + task)
            beans.append(MBean("kafka.consumer", [("type", "consumer-fetch-manager-metrics"), ("client-id", cid)],
                               [("records-lag-max", 0.0), ("bytes-consumed-rate", 1024.0), ("fetch-latency-avg", 3.2)]))
            # KafkaConsumerMetrics: whole seconds since poll() was last entered (-1 before the first)
            beans.append(MBean("kafka.consumer", [("type", "consumer-metrics"), ("client-id", cid)],
                               [("last-poll-seconds-ago", float(flow.last_poll.get(task, 0.0))),
                                ("time-between-poll-avg", 1000.0), ("poll-idle-ratio-avg", 0.99)]))
        return beans

    def _internal_consumers(self, flow):
        # consumers that are not replication consumers: offset-syncs reader, Connect's own topics
        if self.role_ids:
            syncs = "%s|MirrorCheckpointConnector-0|offset-syncs-consumer" % flow.name
        else:
            syncs = "consumer-null-99"
        beans = [MBean("kafka.consumer", [("type", "consumer-fetch-manager-metrics"), ("client-id", syncs),
                                          ("topic", topic_tag("mm2-offset-syncs.%s.internal" % flow.target)),
                                          ("partition", "0")],
                       [("records-lag", 7.0), ("records-lag-max", 7.0)])]
        # Connect's own consumers (KafkaBasedLog) sit in one long poll(): their last poll is old, and
        # not a replication stall
        beans.append(MBean("kafka.consumer", [("type", "consumer-metrics"), ("client-id", "%s-offsets" % flow.name)],
                           [("last-poll-seconds-ago", 600.0)]))
        beans.append(MBean("kafka.consumer", [("type", "consumer-metrics"), ("client-id", syncs)],
                           [("last-poll-seconds-ago", 900.0)]))
        for p in range(3):
            beans.append(MBean("kafka.consumer", [("type", "consumer-fetch-manager-metrics"),
                                                  ("client-id", "%s-offsets" % flow.name),
                                                  ("topic", topic_tag("mm2-offsets.%s.internal" % flow.source)),
                                                  ("partition", str(p))],
                               [("records-lag", 0.0), ("records-lag-max", 0.0)]))
        return beans

    def _checkpoint_beans(self, flow):
        beans = []
        for c in flow.checkpoints:
            props = [("type", "MirrorCheckpointConnector"), ("source", flow.source), ("target", flow.target),
                     ("group", c.group), ("topic", flow.remote(c.topic)), ("partition", str(c.partition))]
            attrs = [("checkpoint-latency-ms", c.last), ("checkpoint-latency-ms-max", c.max),
                     ("checkpoint-latency-ms-min", c.avg), ("checkpoint-latency-ms-avg", c.avg)]
            beans.append(MBean("kafka.connect.mirror", props, attrs))
        return beans

    def _connect_beans(self):
        beans = []
        for (source, target) in self.herders:
            start = self.herder_start.get("%s->%s" % (source, target), self.start_ms)
            beans.append(MBean("kafka.connect", [("type", "app-info"), ("id", "%s->%s" % (source, target))],
                               [("Version", self.version), ("CommitId", "5e3c2b738d253ff5"), ("StartTimeMs", int(start))]))
        if self.connect_worker:
            beans.append(MBean("kafka.connect", [("type", "app-info"), ("id", self.connect_worker)],
                               [("Version", self.version), ("CommitId", "5e3c2b738d253ff5"),
                                ("StartTimeMs", int(self.start_ms))]))
        beans.append(MBean("kafka.connect", [("type", "app-info")],
                           [("version", self.version), ("commit-id", "5e3c2b738d253ff5"), ("start-time-ms", float(self.start_ms))]))
        names = ["MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector"]
        for name in names:
            status = self.connector_status.get(name, "running")
            if status is None:
                continue
            beans.append(MBean("kafka.connect", [("type", "connector-metrics"), ("connector", name)],
                               [("connector-class", "org.apache.kafka.connect.mirror." + name),
                                ("connector-type", "source"), ("connector-version", self.version), ("status", status)]))
        tasks = dict(self.task_status)
        for flow in self.flows:
            for t in range(flow.tasks):
                tasks.setdefault(("MirrorSourceConnector", t), "running")
        tasks.setdefault(("MirrorHeartbeatConnector", 0), "running")
        if any(f.checkpoints for f in self.flows):
            tasks.setdefault(("MirrorCheckpointConnector", 0), "running")
        for (name, t), status in sorted(tasks.items()):
            if status is None:
                continue
            beans.append(MBean("kafka.connect", [("type", "connector-task-metrics"), ("connector", name), ("task", str(t))],
                               [("status", status), ("running-ratio", 1.0 if status == "running" else 0.0),
                                ("pause-ratio", 0.0), ("offset-commit-avg-time-ms", 4.0),
                                ("offset-commit-success-percentage", 1.0), ("batch-size-avg", 120.0)]))
            beans.append(MBean("kafka.connect", [("type", "source-task-metrics"), ("connector", name), ("task", str(t))],
                               [("source-record-poll-rate", 50.0), ("source-record-write-rate", 50.0),
                                ("source-record-active-count", 3.0), ("poll-batch-avg-time-ms", 1.5)]))
        beans.append(MBean("kafka.connect", [("type", "connect-worker-metrics")],
                           [("connector-count", 3.0), ("task-count", float(len(tasks))),
                            ("connector-startup-attempts-total", 3.0), ("task-startup-failure-total", 0.0)]))
        for name in names:
            failed = sum(1 for (n, _), s in tasks.items() if n == name and s == "failed")
            beans.append(MBean("kafka.connect", [("type", "connect-worker-metrics"), ("connector", name)],
                               [("connector-total-task-count", 1.0), ("connector-running-task-count", 1.0 - failed),
                                ("connector-failed-task-count", float(failed))]))
        # MBeans the rules must not touch (excluded by includeObjectNames or matched by no rule)
        beans.append(MBean("kafka.connect", [("type", "connect-worker-rebalance-metrics")],
                           [("rebalancing", False), ("epoch", 4.0)]))
        beans.append(MBean("kafka.producer", [("type", "producer-metrics"), ("client-id", "connector-producer-MirrorSourceConnector-0")],
                           [("record-error-rate", 0.0), ("request-latency-avg", 2.0)]))
        return beans

    def mbeans(self):
        beans = self._connect_beans()
        seq = 1
        for flow in self.flows:
            beans += self._source_beans(flow)
            beans += self._consumer_beans(flow, seq)
            beans += self._internal_consumers(flow)
            beans += self._checkpoint_beans(flow)
            seq += flow.tasks
        unique = {}
        order = []
        for b in beans:   # JmxReporter.reregister: the last registration of a name wins
            key = b.object_name
            if key not in unique:
                order.append(key)
            unique[key] = b
        return [unique[k] for k in order]
