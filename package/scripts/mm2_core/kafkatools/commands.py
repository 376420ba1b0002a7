"""Command lines of Kafka's own tools (bin/*.sh), per Kafka version: the one place the product builds them.

Pure stdlib, Python 2.7 and 3. What the tools print is read by mm2_core.kafkatools.output (tool output) and
mm2_core.kafkatools.records (records of internal topics read with the console consumer).
"""
from mm2_core.formats import text as _t   # the module: alert reloads drop mm2_core modules
from mm2_core.kafka import versions

HEARTBEAT_FORMATTER = "org.apache.kafka.connect.mirror.formatters.HeartbeatFormatter"
CHECKPOINT_FORMATTER = "org.apache.kafka.connect.mirror.formatters.CheckpointFormatter"
OFFSET_SYNC_FORMATTER = "org.apache.kafka.connect.mirror.formatters.OffsetSyncFormatter"
BYTES_DESERIALIZER = "org.apache.kafka.common.serialization.BytesDeserializer"

LATEST, EARLIEST = -1, -2   # kafka-get-offsets --time: end offsets, log-start offsets (else a timestamp in ms)


def tool(kafka_home, name):
    """The path of bin/<name> of a Kafka installation."""
    return "%s/bin/%s" % (kafka_home.rstrip("/"), name)


def topics_pattern(topics):
    """The regex that matches exactly these topic names, for a tool that takes a regex (kafka-get-offsets --topic,
    the console consumer's --include): every regex character of a name quoted (a topic's '.')."""
    return "^(%s)$" % "|".join("".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in t) for t in topics)


def _client(kafka_home, name, bootstrap, config_path):
    return [tool(kafka_home, name), "--bootstrap-server", bootstrap, "--command-config", config_path]


# ---------------------------------------------------------------- kafka-topics

def topics_list(kafka_home, bootstrap, config_path):
    return _client(kafka_home, "kafka-topics.sh", bootstrap, config_path) + ["--list"]


def topics_create(kafka_home, bootstrap, config_path, topic, partitions=1, replication_factor=None,
                  configs=None, if_not_exists=True):
    """Create a topic if missing; replication_factor None lets the brokers choose (KIP-464).
    if_not_exists False where the version refuses --if-not-exists with --bootstrap-server
    (versions.TOPICS_IF_NOT_EXISTS_WITH_BOOTSTRAP): the caller then accepts "already exists"."""
    args = _client(kafka_home, "kafka-topics.sh", bootstrap, config_path) + ["--create"] + (
        ["--if-not-exists"] if if_not_exists else []) + ["--topic", topic, "--partitions", str(partitions)]
    if replication_factor is not None:
        args += ["--replication-factor", str(replication_factor)]
    for key in sorted(configs or {}):
        args += ["--config", "%s=%s" % (key, configs[key])]
    return args


# ---------------------------------------------------------------- console producer / consumer

def console_options(version_tuple, kind):
    """Option names of the console producer (kind 'producer') / consumer ('consumer') of a version:
    {'config', 'client_property', 'format_property'}; 4.2 renamed them (versions.CONSOLE_COMMAND_OPTIONS)."""
    if versions.supports(".".join(str(v) for v in tuple(version_tuple)[:3]), versions.CONSOLE_COMMAND_OPTIONS):
        return {"config": "--command-config", "client_property": "--command-property",
                "format_property": "--reader-property" if kind == "producer" else "--formatter-property"}
    return {"config": "--%s.config" % kind, "client_property": "--%s-property" % kind, "format_property": "--property"}


def console_producer(kafka_home, version_tuple, bootstrap, config_path, topic, keyed=False):
    """One record per line of stdin; keyed: each line is key<TAB>value (Connect's offsets and config topics)."""
    bootstrap_server = versions.supports(version_tuple, versions.PRODUCER_BOOTSTRAP_SERVER)
    flag = "--bootstrap-server" if bootstrap_server else "--broker-list"
    opt = console_options(version_tuple, "producer")
    args = [tool(kafka_home, "kafka-console-producer.sh"), flag, bootstrap, opt["config"], config_path,
            "--topic", topic, "--request-required-acks", "all", "--sync"]
    if keyed:
        args += [opt["format_property"], "parse.key=true", opt["format_property"], "key.separator=\t"]
    return args


def console_consumer(kafka_home, version_tuple, bootstrap, config_path, topic, mode="text",
                     timeout_ms=10000, max_messages=None, partition=None, offset=None, group=None):
    """Read topic from the beginning (or partition from offset) until it is idle for timeout_ms
    or max_messages were read. A topic written to continuously (heartbeats) is never idle: bound
    such reads with max_messages (see kafka_tools.tail_reads).

    topic: one name, or a list of names read together (--include topics_pattern). offset: a number, or 'earliest'.
    group: read as a member of that group from its committed offsets (no --from-beginning).
    mode: 'text' (values), 'keyed' (key<TAB>value: status topics), 'positions' (Partition:<n><TAB>Offset:<m><TAB>
    key<TAB>value: records.read_position, records.offsets_records), 'timestamps' (records.parse_record_timestamps),
    'raw' (timestamp, key and value as escaped bytes: records.parse_checkpoints and parse_heartbeats decode them),
    'heartbeat' and 'checkpoint' (MM2 records: through MM2's formatters from 2.7, else 'raw'), 'offset-sync'
    (MM2's OffsetSyncFormatter: records.parse_offset_syncs).
    """
    if group is not None:
        start = ["--group", group]
    elif partition is None:
        start = ["--from-beginning"]
    else:
        start = ["--partition", str(int(partition)),
                 "--offset", offset if offset == "earliest" else str(int(offset or 0))]
    opt = console_options(version_tuple, "consumer")
    prop = opt["format_property"]
    read = ["--include", topics_pattern(topic)] if isinstance(topic, (list, tuple)) else ["--topic", topic]
    args = [tool(kafka_home, "kafka-console-consumer.sh"), "--bootstrap-server", bootstrap,
            opt["config"], config_path] + read + start + [
            "--timeout-ms", str(int(timeout_ms)),
            # reading must never create the topic (auto.create.topics.enable on the broker)
            opt["client_property"], "allow.auto.create.topics=false"]
    if max_messages:
        args += ["--max-messages", str(int(max_messages))]
    if mode in ("heartbeat", "checkpoint") and versions.supports(version_tuple, versions.MM2_FORMATTERS):
        args += ["--formatter", HEARTBEAT_FORMATTER if mode == "heartbeat" else CHECKPOINT_FORMATTER]
    elif mode in ("heartbeat", "checkpoint", "raw"):
        args += [prop, "print.timestamp=true", prop, "print.key=true",
                 prop, "key.deserializer=" + BYTES_DESERIALIZER,
                 prop, "value.deserializer=" + BYTES_DESERIALIZER]
    elif mode == "timestamps":
        args += [prop, "print.timestamp=true", prop, "value.deserializer=" + BYTES_DESERIALIZER]
    elif mode == "offset-sync":
        args += ["--formatter", OFFSET_SYNC_FORMATTER]
    elif mode == "keyed":
        args += [prop, "print.key=true"]
    elif mode == "positions":
        args += [prop, "print.key=true", prop, "print.partition=true", prop, "print.offset=true",
                 prop, "key.separator=\t"]
    return args


# ---------------------------------------------------------------- kafka-get-offsets (Kafka 3.0+)

def end_offsets_command(kafka_home, version_tuple, bootstrap, config_path, topic):
    """kafka-get-offsets.sh (latest offsets of topic's partitions), or None before Kafka 3.0."""
    if not versions.supports(version_tuple, versions.GET_OFFSETS_TOOL):
        return None
    return _client(kafka_home, "kafka-get-offsets.sh", bootstrap, config_path) + ["--topic", topic]


def get_offsets_command(kafka_home, bootstrap, config_path, time_spec, topic=None):
    """kafka-get-offsets.sh (Kafka 3.0+) over every topic, or those `topic` (a regex) matches: time_spec LATEST
    (end offsets), EARLIEST (log-start offsets) or a timestamp in ms (the first offset at or after it)."""
    return _client(kafka_home, "kafka-get-offsets.sh", bootstrap, config_path) + (
        ["--topic", topic] if topic is not None else []) + ["--time", str(time_spec)]


# ---------------------------------------------------------------- kafka-configs

def topic_configs_command(kafka_home, version_tuple, bootstrap, config_path):
    """kafka-configs.sh --describe --all of every topic (effective values, defaults included), or None before Kafka
    2.5: its kafka-configs describes no topics with --bootstrap-server (versions.CONFIGS_DESCRIBE_ALL)."""
    if not versions.supports(version_tuple, versions.CONFIGS_DESCRIBE_ALL):
        return None
    return _client(kafka_home, "kafka-configs.sh", bootstrap, config_path) + [
        "--describe", "--entity-type", "topics", "--all"]


# ---------------------------------------------------------------- kafka-consumer-groups

def groups_describe_command(kafka_home, bootstrap, config_path, groups=None, state=False, offsets=False):
    """--describe of these groups (None: --all-groups): the offsets view, or with state=True the --state view.
    offsets=True names the offsets view explicitly (--offsets)."""
    args = _client(kafka_home, "kafka-consumer-groups.sh", bootstrap, config_path) + ["--describe"]
    if groups:
        for g in groups:
            args += ["--group", g]
    else:
        args.append("--all-groups")
    return args + (["--state"] if state else []) + (["--offsets"] if offsets else [])


def groups_reset_command(kafka_home, bootstrap, config_path, group, csv_path, execute):
    """--reset-offsets --from-file of one group (--execute, else --dry-run)."""
    return _client(kafka_home, "kafka-consumer-groups.sh", bootstrap, config_path) + [
        "--group", group, "--reset-offsets", "--from-file", csv_path, "--execute" if execute else "--dry-run"]


def _csv_field(value):
    value = _t.text(value)   # group names are any text
    if any(c in value for c in ',"\r\n'):
        return '"%s"' % value.replace('"', '""')
    return value


def reset_offsets_csv(checkpoints, with_group):
    """The file --reset-offsets --from-file reads, of checkpoints' translated (downstream) offsets.

    Without the group column ("topic,partition,offset") for one --group; with it
    ("group,topic,partition,offset") for several --group or --all-groups.
    """
    lines = []
    for cp in sorted(checkpoints, key=lambda c: (c.group, c.topic, c.partition)):
        fields = ([cp.group] if with_group else []) + [cp.topic, cp.partition, cp.downstream]
        lines.append(",".join(_csv_field(f) for f in fields))
    return "\n".join(lines) + ("\n" if lines else "")


def reset_offsets_rows(csv_text):
    """[(topic, partition, offset)] of a --reset-offsets --from-file file without the group column."""
    rows = []
    for line in csv_text.splitlines():
        if line.strip():
            topic, partition, offset = line.rsplit(",", 2)
            rows.append((topic, int(partition), int(offset)))
    return rows


def groups_reset_hint(kafka_home, bootstrap, config_path, csv_path, groups):
    """The command an operator runs to apply exported offsets to several groups (dry run first)."""
    args = _client(kafka_home, "kafka-consumer-groups.sh", bootstrap, config_path)
    for g in groups:
        args += ["--group", g]
    return args + ["--reset-offsets", "--from-file", csv_path, "--dry-run"]


def groups_delete_command(kafka_home, bootstrap, config_path, group):
    return _client(kafka_home, "kafka-consumer-groups.sh", bootstrap, config_path) + ["--delete", "--group", group]
