"""Kafka command-line tools as MM2's service check and custom commands use them.

Pure stdlib, Python 2.7 and 3: argument lists per Kafka version, and parsers for what the
tools print, including MM2's binary heartbeat and checkpoint records (Kafka protocol Struct
encoding: STRING = int16 length + UTF-8, integers big-endian).
"""
import json
import re
import shlex
import struct

from mm2_core.kafka import versions
from mm2_core.formats import text as _t   # the module: alert reloads drop mm2_core modules (Python 2 clears
                                 # a dropped module's globals under functions imported from it)


HEARTBEAT_FORMATTER = "org.apache.kafka.connect.mirror.formatters.HeartbeatFormatter"
CHECKPOINT_FORMATTER = "org.apache.kafka.connect.mirror.formatters.CheckpointFormatter"
BYTES_DESERIALIZER = "org.apache.kafka.common.serialization.BytesDeserializer"

SEP = "\t"
CONNECTORS = ("MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector")


def tool(kafka_home, name):
    return "%s/bin/%s" % (kafka_home.rstrip("/"), name)


# ---------------------------------------------------------------- command lines

def topics_list(kafka_home, bootstrap, config_path):
    return [tool(kafka_home, "kafka-topics.sh"), "--bootstrap-server", bootstrap,
            "--command-config", config_path, "--list"]


def topics_create(kafka_home, bootstrap, config_path, topic, partitions=1, replication_factor=None,
                  configs=None, if_not_exists=True):
    """Create a topic if missing; replication_factor None lets the brokers choose (KIP-464).
    if_not_exists False where the version refuses --if-not-exists with --bootstrap-server
    (versions.TOPICS_IF_NOT_EXISTS_WITH_BOOTSTRAP): the caller then accepts "already exists"."""
    args = [tool(kafka_home, "kafka-topics.sh"), "--bootstrap-server", bootstrap,
            "--command-config", config_path, "--create"] + (["--if-not-exists"] if if_not_exists else []) + [
            "--topic", topic, "--partitions", str(partitions)]
    if replication_factor is not None:
        args += ["--replication-factor", str(replication_factor)]
    for key in sorted(configs or {}):
        args += ["--config", "%s=%s" % (key, configs[key])]
    return args


def console_options(version_tuple, kind):
    """Option names of the console producer (kind 'producer') / consumer ('consumer') of a version:
    {'config', 'client_property', 'format_property'}; 4.2 renamed them (versions.CONSOLE_COMMAND_OPTIONS)."""
    if versions.supports(".".join(str(v) for v in tuple(version_tuple)[:3]), versions.CONSOLE_COMMAND_OPTIONS):
        return {"config": "--command-config", "client_property": "--command-property",
                "format_property": "--reader-property" if kind == "producer" else "--formatter-property"}
    return {"config": "--%s.config" % kind, "client_property": "--%s-property" % kind, "format_property": "--property"}


def console_producer(kafka_home, version_tuple, bootstrap, config_path, topic):
    bootstrap_server = versions.supports(version_tuple, versions.PRODUCER_BOOTSTRAP_SERVER)
    flag = "--bootstrap-server" if bootstrap_server else "--broker-list"
    return [tool(kafka_home, "kafka-console-producer.sh"), flag, bootstrap,
            console_options(version_tuple, "producer")["config"], config_path, "--topic", topic,
            "--request-required-acks", "all", "--sync"]


def console_consumer(kafka_home, version_tuple, bootstrap, config_path, topic, mode="text",
                     timeout_ms=10000, max_messages=None, partition=None, offset=None):
    """Read topic from the beginning (or partition from offset) until it is idle for timeout_ms
    or max_messages were read. A topic written to continuously (heartbeats) is never idle: bound
    such reads with max_messages (see tail_reads).

    mode: 'text' (values), 'keyed' (key<TAB>value: status topics), 'heartbeat' and
    'checkpoint' (MM2 records: through MM2's formatters from 2.7, else as escaped bytes).
    """
    start = ["--from-beginning"] if partition is None else ["--partition", str(int(partition)),
                                                            "--offset", str(int(offset or 0))]
    opt = console_options(version_tuple, "consumer")
    prop = opt["format_property"]
    args = [tool(kafka_home, "kafka-console-consumer.sh"), "--bootstrap-server", bootstrap,
            opt["config"], config_path, "--topic", topic] + start + [
            "--timeout-ms", str(int(timeout_ms)),
            # reading must never create the topic (auto.create.topics.enable on the broker)
            opt["client_property"], "allow.auto.create.topics=false"]
    if max_messages:
        args += ["--max-messages", str(int(max_messages))]
    if mode in ("heartbeat", "checkpoint"):
        if versions.supports(version_tuple, versions.MM2_FORMATTERS):
            args += ["--formatter", HEARTBEAT_FORMATTER if mode == "heartbeat" else CHECKPOINT_FORMATTER]
        else:
            args += [prop, "print.timestamp=true", prop, "print.key=true",
                     prop, "key.deserializer=" + BYTES_DESERIALIZER,
                     prop, "value.deserializer=" + BYTES_DESERIALIZER]
    elif mode == "keyed":
        args += [prop, "print.key=true"]
    return args


def end_offsets_command(kafka_home, version_tuple, bootstrap, config_path, topic):
    """kafka-get-offsets.sh (latest offsets of topic's partitions), or None before Kafka 3.0."""
    if not versions.supports(version_tuple, versions.GET_OFFSETS_TOOL):
        return None
    return [tool(kafka_home, "kafka-get-offsets.sh"), "--bootstrap-server", bootstrap,
            "--command-config", config_path, "--topic", topic]


_OFFSET_LINE = re.compile(r"^(\S+):(\d+):(-?\d+)$")


def parse_end_offsets(output, topic):
    """{partition: end offset} from kafka-get-offsets output lines `topic:partition:offset`."""
    offsets = {}
    for line in output.splitlines():
        m = _OFFSET_LINE.match(line.strip())
        if m and m.group(1) == topic and int(m.group(3)) >= 0:
            offsets[int(m.group(2))] = int(m.group(3))
    return offsets


def tail_reads(end_offsets, records):
    """[(partition, from offset, count)]: the last `records` records of every non-empty partition.
    Reading count records from there ends even while writers keep appending (a compacted topic
    with gaps ends as soon as new records fill them, or when it goes idle)."""
    reads = []
    for partition in sorted(end_offsets):
        end = end_offsets[partition]
        if end > 0:
            start = max(0, end - records)
            reads.append((partition, start, end - start))
    return reads


def consumer_groups_reset_hint(kafka_home, bootstrap, config_path, csv_path, groups):
    """The command an operator runs to apply exported offsets (dry run first)."""
    args = [tool(kafka_home, "kafka-consumer-groups.sh"), "--bootstrap-server", bootstrap,
            "--command-config", config_path]
    for g in groups:
        args += ["--group", g]
    return args + ["--reset-offsets", "--from-file", csv_path, "--dry-run"]


# ---------------------------------------------------------------- output parsing

_TOPIC = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


def parse_topic_list(output):
    """Topic names from `kafka-topics --list` (log lines and warnings are skipped)."""
    return sorted(set(line.strip() for line in output.splitlines() if _TOPIC.match(line.strip())))


def unescape_bytes(text):
    """Inverse of org.apache.kafka.common.utils.Bytes.toString (\\xNN for non-printables)."""
    out = bytearray()
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 3 < n and text[i + 1] == "x":
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            out.extend(ch.encode("utf-8"))
            i += 1
    return bytes(out)


class _Reader(object):
    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ValueError("record too short")
        value = struct.unpack(fmt, self.data[self.pos:self.pos + size])[0]
        self.pos += size
        return value

    def string(self):
        length = self.take(">h")
        if length < 0 or self.pos + length > len(self.data):
            raise ValueError("bad string length %d" % length)
        value = self.data[self.pos:self.pos + length].decode("utf-8")
        self.pos += length
        return value if str is not bytes else value.encode("utf-8")


class Heartbeat(object):
    def __init__(self, source, target, timestamp):
        self.source = source
        self.target = target
        self.timestamp = timestamp

    def __repr__(self):
        return "Heartbeat(%s->%s @%d)" % (self.source, self.target, self.timestamp)


class Checkpoint(object):
    def __init__(self, group, topic, partition, upstream, downstream, metadata=""):
        self.group = group
        self.topic = topic
        self.partition = partition
        self.upstream = upstream
        self.downstream = downstream
        self.metadata = metadata

    def __repr__(self):
        return "Checkpoint(%s %s-%d %d->%d)" % (self.group, self.topic, self.partition,
                                               self.upstream, self.downstream)


def decode_heartbeat(key, value):
    k = _Reader(key)
    v = _Reader(value)
    source, target = k.string(), k.string()
    v.take(">h")  # version
    return Heartbeat(source, target, v.take(">q"))


def decode_checkpoint(key, value):
    k = _Reader(key)
    v = _Reader(value)
    group, topic, partition = k.string(), k.string(), k.take(">i")
    v.take(">h")  # version
    upstream, downstream = v.take(">q"), v.take(">q")
    return Checkpoint(group, topic, partition, upstream, downstream, v.string())


_HB_LINE = re.compile(r"^Heartbeat\{sourceClusterAlias=(.*), targetClusterAlias=(.*), timestamp=(-?\d+)\}$")
_CP_LINE = re.compile(r"^Checkpoint\{consumerGroupId=(.*), topicPartition=(.*)-(\d+), "
                      r"upstreamOffset=(-?\d+), downstreamOffset=(-?\d+), meta(?:ta)?data=(.*)\}$")
# (Checkpoint.toString spells it "metatadata=" up to at least 3.5, e.g. real 2.8.2 and 3.4.1; "metadata=" in 3.9)


def _records(output, decode, line_re, build):
    """Records from console-consumer output, either formatter lines or escaped-bytes lines."""
    found = []
    for line in output.splitlines():
        line = line.rstrip("\r")
        m = line_re.match(line)
        if m:
            found.append(build(m))
            continue
        parts = line.split(SEP)
        if len(parts) == 3 and parts[0].startswith(("CreateTime:", "LogAppendTime:")):
            try:
                found.append(decode(unescape_bytes(parts[1]), unescape_bytes(parts[2])))
            except (ValueError, struct.error, UnicodeDecodeError):
                continue
    return found


def parse_heartbeats(output):
    return _records(output, decode_heartbeat, _HB_LINE,
                    lambda m: Heartbeat(m.group(1), m.group(2), int(m.group(3))))


def parse_checkpoints(output):
    return _records(output, decode_checkpoint, _CP_LINE,
                    lambda m: Checkpoint(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)),
                                         int(m.group(5)), m.group(6)))


def latest_checkpoints(checkpoints):
    """Last checkpoint per (group, topic, partition): the topic is compacted on that key."""
    latest = {}
    for cp in checkpoints:
        latest[(cp.group, cp.topic, cp.partition)] = cp
    return [latest[k] for k in sorted(latest)]


def parse_status(output):
    """Connect status records (key<TAB>json) -> {key: dict}; tombstones remove the key."""
    states = {}
    for line in output.splitlines():
        if SEP not in line:
            continue
        key, value = line.split(SEP, 1)
        if not key.startswith("status-"):
            continue
        value = value.strip()
        if value == "null":
            states.pop(key, None)
            continue
        try:
            states[key] = json.loads(value)
        except ValueError:
            continue
    return states


def connector_states(status_records):
    """{connector: (state, [task states], trace or None)} from parsed status records."""
    result = {}
    for key, value in status_records.items():
        if key.startswith("status-connector-"):
            name = key[len("status-connector-"):]
            entry = result.setdefault(name, [None, {}, None])
            entry[0] = value.get("state")
            entry[2] = value.get("trace")
    for key, value in status_records.items():
        if key.startswith("status-task-"):
            name, _, task = key[len("status-task-"):].rpartition("-")
            entry = result.setdefault(name, [None, {}, None])
            entry[1][task] = value.get("state")
            if value.get("trace") and not entry[2]:
                entry[2] = value.get("trace")
    return dict((k, (v[0], [v[1][t] for t in sorted(v[1], key=lambda x: int(x) if x.isdigit() else x)],
                     v[2])) for k, v in result.items())


def _csv_field(value):
    value = _t.text(value)   # group names are any text
    if any(c in value for c in ',"\r\n'):
        return '"%s"' % value.replace('"', '""')
    return value


def offsets_csv(checkpoints, with_group):
    """CSV for kafka-consumer-groups --reset-offsets --from-file.

    Without the group column ("topic,partition,offset") for one --group; with it
    ("group,topic,partition,offset") for several --group or --all-groups.
    """
    lines = []
    for cp in sorted(checkpoints, key=lambda c: (c.group, c.topic, c.partition)):
        fields = ([cp.group] if with_group else []) + [cp.topic, cp.partition, cp.downstream]
        lines.append(",".join(_csv_field(f) for f in fields))
    return "\n".join(lines) + ("\n" if lines else "")


# ---------------------------------------------------------------- what the tools need to know

_FILE_REF = re.compile(r"\$\{file:([^}:]+):([^}]+)\}")
_CLIENT_SECURITY = ("security.protocol", "sasl.", "ssl.")


def tool_system_properties(jvm_opts):
    """The -D system properties of kafka-mm2-env/mm2_jvm_opts, for the Kafka tools the service
    check and custom commands run: they must log in the way MM2 does (e.g.
    -Djava.security.krb5.conf for a realm outside /etc/krb5.conf); heap and GC options stay MM2's."""
    try:
        tokens = shlex.split(jvm_opts or "")
    except ValueError:
        return []
    return [t for t in tokens if t.startswith("-D")]


def client_properties(properties, alias, secrets=None):
    """[(key, value)] of a client config for cluster alias, from the rendered MM2 properties
    ([(key, value)] of connect-mirror-maker.properties): its security settings, with
    ${file:...:key} references resolved from secrets ({key: value} of the secrets file)."""
    secrets = secrets or {}
    prefix = alias + "."
    out = []
    for key, value in properties:
        if key is None or not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        if name == "security.protocol" or name.startswith(_CLIENT_SECURITY[1:]):
            value = _FILE_REF.sub(lambda m: secrets.get(m.group(2), m.group(0)), value or "")
            out.append((name, value))
    return out


def split_patterns(value):
    """A topics/groups LIST setting as MM2 reads it (comma-separated, trimmed)."""
    if isinstance(value, (list, tuple)):
        return [v.strip() for v in value if v and v.strip()]
    return [v for v in re.split(r"\s*,\s*", (value or "").strip()) if v]


def is_internal_topic(topic):
    """Topics DefaultReplicationPolicy never replicates (ReplicationPolicy.isInternalTopic)."""
    return topic.startswith("__") or topic.startswith(".") or topic.endswith(".internal") \
        or topic.endswith("-internal")


class TopicFilter(object):
    """MM2's DefaultTopicFilter: included by one pattern, excluded by none (whole-name matches).

    Patterns are Java regexes; Python's re agrees on the usual ones. A pattern re cannot compile
    makes the filter 'unsure' (None) rather than wrong.
    """

    def __init__(self, include, exclude):
        self.include = split_patterns(include)
        self.exclude = split_patterns(exclude)
        self.unsure = False
        self._inc = self._compile(self.include)
        self._exc = self._compile(self.exclude)

    def _compile(self, patterns):
        if not patterns:
            return None
        try:
            return re.compile("(?:%s)\\Z" % "|".join("(?:%s)" % p for p in patterns))
        except re.error:
            self.unsure = True
            return None

    def matches(self, topic):
        """True/False, or None when a pattern is Java-only syntax."""
        if self.unsure:
            return None
        if is_internal_topic(topic):
            return False
        if self._inc is None or not self._inc.match(topic):
            return False
        return not (self._exc is not None and self._exc.match(topic))

    def describe(self):
        return "topics=%s, topics.exclude=%s" % (", ".join(self.include) or "(none)",
                                                 ", ".join(self.exclude) or "(none)")


def internal_separator(separator, version_tuple, internal_separator_enabled=True):
    """Separator inside MM2's internal topic names: the policy separator from 3.1 (KIP-690)
    unless replication.policy.internal.topic.separator.enabled=false (KIP-949), else '.'."""
    if internal_separator_enabled and versions.supports(version_tuple, versions.INTERNAL_TOPICS_USE_SEPARATOR):
        return separator or "."
    return "."


def checkpoints_topic(source, separator, version_tuple, internal_separator_enabled=True):
    sep = internal_separator(separator, version_tuple, internal_separator_enabled)
    return "%s%scheckpoints%sinternal" % (source, sep, sep)


def heartbeats_topic(source, separator):
    """The source's heartbeats as mirrored on the target (prefixed under every policy)."""
    return "%s%sheartbeats" % (source, separator or ".")


def status_topic(source):
    """Connect status topic of the herder source->target, on the target (MM2 worker default)."""
    return "mm2-status.%s.internal" % source
