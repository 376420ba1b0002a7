"""MirrorMaker 1 -> MirrorMaker 2: the pure mapping (no I/O) behind `mm2-ambari import-mm1`.

Input: MirrorMaker 1's command line (the options of kafka.tools.MirrorMaker, Kafka 0.10 .. 3.9) and the
contents of its --consumer.config / --producer.config files (as java.util.Properties reads them).
Output: an `Import`: the advanced topology + deployment section of the equivalent MM2 flow, the secrets
that must live in a file on the MM2 hosts (never in the deployment file), and one `Row` per MM1 option and
property saying what it became or why it cannot carry over.

Facts taken from MirrorMaker 1 itself (core/src/main/scala/kafka/tools/MirrorMaker.scala, 3.x):
- --include wins over --whitelist; the regex goes through TopicFilter: trimmed, every ',' becomes '|',
  every space is removed, leading/trailing quotes are stripped; the consumer matches whole topic names
  and skips Kafka's internal topics (exclude.internal.topics=true).
- MM1 defaults the producer to acks=all, max.in.flight.requests.per.connection=1, delivery.timeout.ms and
  max.block.ms to the maximum, and the consumer to enable.auto.commit=false: the same no-loss settings
  Connect gives MM2's producers, which the validator refuses to weaken.
- It commits the group's offsets (the next offset to read) every --offset.commit.interval.ms after a
  producer flush, and on a clean shutdown.
"""
import difflib
import re
from collections import OrderedDict

from mm2_core.kafka import versions
from mm2_core.model import topology as model
from mm2_core.formats.javaregex import java_regex_error

# --- MirrorMaker 1's command line ------------------------------------------------------------------
# name -> (takes a value, default shown in the table)
MM1_OPTIONS = OrderedDict([
    ("consumer.config", (True, None)),
    ("producer.config", (True, None)),
    ("include", (True, None)),
    ("whitelist", (True, None)),
    ("num.streams", (True, "1")),
    ("offset.commit.interval.ms", (True, "60000")),
    ("abort.on.send.failure", (True, "true")),
    ("message.handler", (True, None)),
    ("message.handler.args", (True, None)),
    ("consumer.rebalance.listener", (True, None)),
    ("rebalance.listener.args", (True, None)),
    ("new.consumer", (False, None)),
    ("help", (False, None)),
    ("version", (False, None)),
])
# What precedes the options in a unit file or a guide: the launcher and the class name.
_LAUNCHERS = ("kafka-mirror-maker.sh", "kafka-mirror-maker", "kafka-run-class.sh", "kafka-run-class",
              "kafka.tools.MirrorMaker")

DEFAULT_SOURCE_ALIAS = "source"
DEFAULT_TARGET_ALIAS = "target"
# Where the import's secrets file is expected on every MM2 host (a ${file:...} reference points there).
DEFAULT_SECRETS_PATH = "/etc/kafka-mm2/secrets/mm1-import.properties"
FILE_PROVIDER = "org.apache.kafka.common.config.provider.FileConfigProvider"

CARRIED, KEPT, NOT_NEEDED, CHANGED, DROPPED, REFUSED = (
    "carried", "kept", "not needed", "changed", "dropped", "REFUSED")


class Mm1InputError(ValueError):
    """Bad MirrorMaker 1 input: .problems lists every problem, each naming the option/file/property."""

    def __init__(self, problems):
        ValueError.__init__(self, "; ".join(problems))
        self.problems = list(problems)


class Row(object):
    """One line of the mapping table: MM1 `option` (=`value`) -> `became` (`status`), `why`."""

    def __init__(self, option, value, status, became, why=""):
        self.option, self.value, self.status, self.became, self.why = option, value, status, became, why

    def as_tuple(self):
        return (self.option, self.value, self.status, self.became, self.why)


def did_you_mean(word, choices):
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return " (did you mean %s?)" % close[0] if close else ""


def parse_command_line(argv):
    """MM1's options {name: value or True} from its command line (as joptsimple reads it: `--opt value`
    or `--opt=value`, no abbreviations). The launcher and class name in front are skipped."""
    args = list(argv)
    while args and (args[0].rsplit("/", 1)[-1] in _LAUNCHERS):
        args.pop(0)
    options, problems, index = OrderedDict(), [], 0
    while index < len(args):
        token = args[index]
        index += 1
        if not token.startswith("--"):
            problems.append("MirrorMaker 1 command line: unexpected argument %r (every option starts with --)"
                            % token)
            continue
        name, eq, inline = token[2:].partition("=")
        if name not in MM1_OPTIONS:
            problems.append("MirrorMaker 1 command line: --%s is not an option of MirrorMaker 1%s"
                            % (name, did_you_mean("--" + name, ["--" + o for o in MM1_OPTIONS])))
            if not eq and index < len(args) and not args[index].startswith("--"):
                index += 1
            continue
        takes_value = MM1_OPTIONS[name][0]
        if not takes_value:
            if eq:
                problems.append("MirrorMaker 1 command line: --%s takes no value" % name)
            options[name] = True
            continue
        if eq:
            value = inline
        elif index < len(args):
            value = args[index]
            index += 1
        else:
            problems.append("MirrorMaker 1 command line: --%s needs a value" % name)
            continue
        if name in options:
            problems.append("MirrorMaker 1 command line: --%s is given twice" % name)
        options[name] = value
    for required in ("consumer.config", "producer.config"):
        if required not in options:
            problems.append("MirrorMaker 1 command line: --%s is missing (MirrorMaker 1 cannot run without it)"
                            % required)
    if "include" not in options and "whitelist" not in options:
        problems.append("MirrorMaker 1 command line: --include (or --whitelist) is missing: which topics did "
                        "MirrorMaker 1 mirror?")
    if problems:
        raise Mm1InputError(problems)
    return options


def mm1_topic_regex(raw):
    """The regex MM1 really subscribed with (TopicFilter): trimmed, ',' -> '|', spaces removed, quotes
    stripped at both ends."""
    regex = raw.strip().replace(",", "|").replace(" ", "")
    regex = re.sub(r"^[\"']+", "", regex)
    return re.sub(r"[\"']+$", "", regex)


# --- client properties -----------------------------------------------------------------------------
SECURITY_KEYS = ("security.protocol", "sasl.mechanism", "sasl.kerberos.service.name", "sasl.jaas.config",
                 "ssl.truststore.location", "ssl.truststore.type", "ssl.truststore.password",
                 "ssl.keystore.location", "ssl.keystore.type", "ssl.keystore.password", "ssl.key.password",
                 "ssl.endpoint.identification.algorithm")
_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
# HDP's Kafka spelled SASL_PLAINTEXT this way (and its brokers still accept it).
_PROTOCOL_ALIASES = {"PLAINTEXTSASL": "SASL_PLAINTEXT"}
_MECHANISMS = ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_JAAS = re.compile(r"^\s*([A-Za-z0-9_.$]+)\s+(required|requisite|sufficient|optional)\s*(.*?);?\s*$", re.S)
_JAAS_OPTION = re.compile(r"([A-Za-z0-9_.-]+)\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^\s;]+)")

# Consumer settings MM2 manages itself (it assigns partitions, keeps positions in its offsets topic).
CONSUMER_NOT_NEEDED = OrderedDict([
    ("group.id", "MM2 reads with assign(), without a group; `mm2-ambari seed-from-mm1` reads this group's "
                 "committed offsets so MM2 starts where MirrorMaker 1 stopped"),
    ("client.id", "MM2 names its clients per flow and task"),
    ("enable.auto.commit", "MM2 never commits to a group: its positions live in its offsets topic "
                           "(the validator refuses this override)"),
    ("auto.commit.enable", "old-consumer name of enable.auto.commit: MM2 never commits to a group"),
    ("auto.commit.interval.ms", "no group commits in MM2; --offset.commit.interval.ms maps to "
                                "offset.flush.interval.ms"),
    ("key.deserializer", "MirrorMaker 1 forced ByteArrayDeserializer; MM2 copies bytes too"),
    ("value.deserializer", "MirrorMaker 1 forced ByteArrayDeserializer; MM2 copies bytes too"),
    ("partition.assignment.strategy", "MM2 spreads partitions over tasks itself (tasks.max)"),
    ("session.timeout.ms", "group membership setting; MM2's replication consumers have no group"),
    ("heartbeat.interval.ms", "group membership setting; MM2's replication consumers have no group"),
    ("max.poll.interval.ms", "group membership setting; MM2's replication consumers have no group"),
    ("group.instance.id", "group membership setting; MM2's replication consumers have no group"),
    ("exclude.internal.topics", "MM2's topics.exclude (.*[-.]internal, .*\\.replica, __.*) keeps internal "
                                "topics out"),
    ("auto.offset.reset", "MM2 reads a partition it has no position for from its beginning "
                          "(MirrorMaker 1 with `latest` started new topics at their end)"),
])
# Producer settings that are MM2's no-loss defaults already (Connect's producer for source tasks).
PRODUCER_NO_LOSS = OrderedDict([
    ("acks", ("all", "-1")),
    ("retries", None),
    ("max.in.flight.requests.per.connection", ("1",)),
    ("enable.idempotence", None),
    ("delivery.timeout.ms", None),
    ("max.block.ms", None),
])
PRODUCER_NOT_NEEDED = OrderedDict([
    ("client.id", "MM2 names its clients per flow and task"),
    ("key.serializer", "MirrorMaker 1 forced ByteArraySerializer; MM2 copies bytes too"),
    ("value.serializer", "MirrorMaker 1 forced ByteArraySerializer; MM2 copies bytes too"),
    ("producer.type", "MirrorMaker 1's sync/async switch; MM2 sends asynchronously and flushes before "
                      "it stores a position (no loss either way)"),
    ("partitioner.class", "MM2 writes each record to the partition it has on the source (MirrorMaker 1 "
                          "re-partitioned by key with the producer's partitioner)"),
    ("transactional.id", "managed by Connect (exactly-once)"),
])
# Kafka 0.8-era names found in old MirrorMaker 1 files: the new name, or None when MM2 needs something else.
OLD_NAMES = {
    "metadata.broker.list": "bootstrap.servers",
    "request.required.acks": "acks",
    "zookeeper.connect": None,
    "serializer.class": None,
    "consumer.timeout.ms": None,
}


class _Cluster(object):
    def __init__(self, alias):
        self.alias = alias
        self.fields = OrderedDict()
        self.client = OrderedDict()


class Import(object):
    """The result: .topology (clusters/flows/settings), .deployment, .secrets {key: value}, .rows,
    .warnings, .group (MM1's consumer group), .flow ("src->tgt")."""

    def __init__(self):
        self.topology = OrderedDict()
        self.deployment = OrderedDict()
        self.secrets = OrderedDict()
        self.rows = []
        self.warnings = []
        self.group = None
        self.source = self.target = None
        self.topics_regex = None
        self.source_bootstrap = self.target_bootstrap = None

    @property
    def flow(self):
        return "%s->%s" % (self.source, self.target)


def plan_import(options, consumer_props, producer_props, kafka_version, source_alias=DEFAULT_SOURCE_ALIAS,
                target_alias=DEFAULT_TARGET_ALIAS, secrets_path=DEFAULT_SECRETS_PATH, instances=1,
                drop_message_handler=False, replication_factor=None, jaas_file=None):
    """Map parsed MM1 options and its two property dicts to an Import; Mm1InputError lists every problem.

    jaas_file: (path, text) of the JAAS file MirrorMaker 1 got through KAFKA_OPTS
    (-Djava.security.auth.login.config): its KafkaClient entry serves a SASL cluster whose file has no
    sasl.jaas.config."""
    problems = []
    imp = Import()
    imp.source, imp.target = source_alias, target_alias
    for role, alias in (("--source-alias", source_alias), ("--target-alias", target_alias)):
        problem = model.alias_problem(alias)
        if problem:
            problems.append("%s %s: %s" % (role, alias, problem))
    if source_alias == target_alias:
        problems.append("--source-alias and --target-alias are both %r: MirrorMaker 2 needs two cluster names"
                        % source_alias)
    version = None
    try:
        version = versions.KafkaVersion.parse(str(kafka_version))
    except (TypeError, ValueError):
        problems.append("--kafka-version %r is not a Kafka version (e.g. 3.7.1)" % (kafka_version,))
    if version is not None and not versions.supports(version, versions.IDENTITY_POLICY):
        problems.append("--kafka-version %s: keeping MirrorMaker 1's topic names needs the identity replication "
                        "policy, which MirrorMaker 2 has from Kafka %s; run MM2 from Kafka %s or newer"
                        % (version, versions.feature_first(versions.IDENTITY_POLICY),
                           versions.feature_first(versions.IDENTITY_POLICY)))
    if not isinstance(instances, int) or instances < 1:
        problems.append("--instances must be the number of MirrorMaker 1 processes (1 or more)")
        instances = 1
    rows = imp.rows
    source, target = _Cluster(source_alias), _Cluster(target_alias)
    settings = OrderedDict([("replication.policy", "identity")])
    flow = OrderedDict([("source", source_alias), ("target", target_alias)])

    # -- the command line, every option in MirrorMaker 1's order
    for name, (takes_value, default) in MM1_OPTIONS.items():
        given = name in options
        value = options.get(name)
        shown = ("(default %s)" % default if default is not None else "(not given)") if not given else \
            (value if takes_value else "(set)")
        opt = "--" + name
        if name == "consumer.config":
            rows.append(Row(opt, shown, CARRIED, "clusters.%s (bootstrap.servers, security, consumer settings)"
                            % source_alias, "one line per property below"))
        elif name == "producer.config":
            rows.append(Row(opt, shown, CARRIED, "clusters.%s (bootstrap.servers, security, producer settings)"
                            % target_alias, "one line per property below"))
        elif name in ("include", "whitelist"):
            if not given:
                rows.append(Row(opt, shown, NOT_NEEDED, "-", "not given"))
                continue
            if name == "whitelist" and "include" in options:
                rows.append(Row(opt, shown, DROPPED, "-", "MirrorMaker 1 ignores --whitelist when --include is given"))
                continue
            regex = mm1_topic_regex(value)
            error = java_regex_error(regex) if regex else "empty"
            if error:
                problems.append("%s %r: MirrorMaker 1 compiles it as %r, which is not a valid Java regex (%s); "
                                "MirrorMaker 1 could not have run with it" % (opt, value, regex, error))
                continue
            imp.topics_regex = regex
            flow["topics"] = [regex]
            why = "the same Java regex, matched against whole topic names"
            if regex != value:
                why += "; written as MirrorMaker 1 compiled it (',' means '|', spaces and outer quotes dropped)"
            why += ("; topics matching MM2's topics.exclude (.*[-.]internal, .*\\.replica, __.*) are not copied: "
                    "MM2's own internal topics must not be")
            rows.append(Row(opt, shown, CARRIED, "flows[0].topics: %s" % regex, why))
        elif name == "num.streams":
            streams = _positive_int(value if given else default, opt, problems)
            if streams is None:
                continue
            tasks = streams * instances
            settings["tasks.max"] = tasks
            why = "one MM2 task per MirrorMaker 1 consumer thread"
            if instances > 1:
                why += " (%d streams x %d MirrorMaker 1 processes)" % (streams, instances)
            rows.append(Row(opt, shown, CARRIED, "settings.tasks.max: %d" % tasks, why))
        elif name == "offset.commit.interval.ms":
            if not given:
                rows.append(Row(opt, shown, CHANGED, "settings.offset.flush.interval.ms: MM2's default (10000)",
                                "MM2 stores its positions every 10 s: at most 10 s of records are copied again "
                                "after a crash, instead of 60 s"))
                continue
            interval = _positive_int(value, opt, problems)
            if interval is not None:
                settings["offset.flush.interval.ms"] = interval
                rows.append(Row(opt, shown, CARRIED, "settings.offset.flush.interval.ms: %d" % interval,
                                "how often MM2 flushes the producer and stores its source positions (the window "
                                "of records copied again after a crash, as in MirrorMaker 1)"))
        elif name == "abort.on.send.failure":
            text = (value if given else default).strip().lower()
            if text not in ("true", "false"):
                problems.append("%s %r: must be true or false" % (opt, value))
            elif text == "true":
                rows.append(Row(opt, shown, KEPT, "errors.tolerance=none (Connect's default)",
                                "a record that cannot be sent fails the task (the tasks alert fires); nothing "
                                "is skipped"))
            else:
                rows.append(Row(opt, shown, CHANGED, "errors.tolerance=none (Connect's default)",
                                "MirrorMaker 1 skipped records it could not send; MM2 never does: the task fails "
                                "and the tasks alert fires (stricter, no loss)"))
        elif name == "message.handler":
            if not given:
                rows.append(Row(opt, shown, NOT_NEEDED, "-", "the default handler copies records unchanged, as MM2"))
            elif drop_message_handler:
                rows.append(Row(opt, shown, DROPPED, "-", "not carried over (--drop-message-handler): MM2 copies "
                                "records unchanged. Re-implement it as a Connect transformation (SMT) in "
                                "flows[0].config.transforms if it changed or filtered records"))
                imp.warnings.append("--message.handler %s is not carried over: MM2 copies every record unchanged"
                                    % value)
            else:
                problems.append("--message.handler %s: a custom MirrorMaker 1 message handler cannot run in "
                                "MirrorMaker 2 (it is a MirrorMakerMessageHandler class; MM2 runs Connect "
                                "transformations). Re-implement what it does as an SMT (flows[0].config."
                                "transforms) and pass --drop-message-handler to import without it" % value)
        elif name == "message.handler.args":
            status = DROPPED if given else NOT_NEEDED
            rows.append(Row(opt, shown, status, "-", "arguments of the message handler (see --message.handler)"))
        elif name == "consumer.rebalance.listener":
            if given:
                problems.append("--consumer.rebalance.listener %s: MM2's replication consumers have no consumer "
                                "group, so a rebalance listener never runs; remove it from the MirrorMaker 1 "
                                "command line you import once you know what it did" % value)
            else:
                rows.append(Row(opt, shown, NOT_NEEDED, "-", "MM2's replication consumers have no group"))
        elif name == "rebalance.listener.args":
            rows.append(Row(opt, shown, DROPPED if given else NOT_NEEDED, "-",
                            "arguments of the rebalance listener (see --consumer.rebalance.listener)"))
        elif name == "new.consumer":
            rows.append(Row(opt, shown, NOT_NEEDED, "-", "deprecated flag of MirrorMaker 1 (it always used the "
                                                         "new consumer)"))
        elif name in ("help", "version"):
            rows.append(Row(opt, shown, NOT_NEEDED, "-", "prints and exits"))

    # -- the consumer file -> source cluster, the producer file -> target cluster
    imp.group = consumer_props.get("group.id")
    if not imp.group:
        problems.append("%s: group.id is missing: MirrorMaker 1 cannot consume without a group, and seeding "
                        "MM2's positions needs it" % options.get("consumer.config", "--consumer.config"))
    client_entry = _kafka_client_entry(jaas_file, problems) if jaas_file else None
    _map_client(options.get("consumer.config", "--consumer.config"), consumer_props, "consumer", source,
                secrets_path, imp, problems, client_entry)
    _map_client(options.get("producer.config", "--producer.config"), producer_props, "producer", target,
                secrets_path, imp, problems, client_entry)
    imp.source_bootstrap = source.fields.get("bootstrap.servers")
    imp.target_bootstrap = target.fields.get("bootstrap.servers")
    if replication_factor is not None:
        settings["replication.factor"] = replication_factor
        settings["internal.topics.replication.factor"] = replication_factor
    if problems:
        raise Mm1InputError(problems)

    clusters = OrderedDict()
    for cluster in (source, target):
        body = OrderedDict(cluster.fields)
        if cluster.client:
            body["producer" if cluster is target else "consumer"] = OrderedDict(cluster.client)
        clusters[cluster.alias] = body
    imp.topology["clusters"] = clusters
    imp.topology["flows"] = [flow]
    imp.topology["settings"] = settings
    imp.deployment["kafka_version"] = str(kafka_version)
    if imp.secrets:
        imp.deployment["configurations"] = OrderedDict([("kafka-mm2-custom", OrderedDict([
            ("config.providers", "file"), ("config.providers.file.class", FILE_PROVIDER)]))])
    return imp


def _positive_int(value, opt, problems):
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if number < 1 or number > 2 ** 31 - 1:
        problems.append("%s %r: must be a positive whole number" % (opt, value))
        return None
    return number


def _secret_ref(imp, secrets_path, alias, key, value):
    ref_key = "%s.%s" % (alias, key)
    imp.secrets[ref_key] = value
    return "${file:%s:%s}" % (secrets_path, ref_key)


def _kafka_client_entry(jaas_file, problems):
    """The login module line of the KafkaClient entry of a JAAS file, or None (problem reported)."""
    path, text = jaas_file
    match = re.search(r"\bKafkaClient\s*\{(.*?)\}\s*;", text, re.S)
    if not match or not _JAAS.match(match.group(1).strip()):
        problems.append("--jaas-file %s: no `KafkaClient { <LoginModule> required ...; };` entry in it" % path)
        return None
    return match.group(1).strip()


def _map_client(path, props, kind, cluster, secrets_path, imp, problems, client_entry=None):
    """One MM1 client file -> connection fields and client overrides of one MM2 cluster."""
    rows, alias = imp.rows, cluster.alias
    known = versions.CONSUMER_KEYS if kind == "consumer" else versions.PRODUCER_KEYS
    not_needed = CONSUMER_NOT_NEEDED if kind == "consumer" else PRODUCER_NOT_NEEDED
    props = OrderedDict((k, props[k]) for k in props)
    for old, new in OLD_NAMES.items():
        if old not in props:
            continue
        if new is None or new in props:
            problems.append("%s: %s is a setting of Kafka's old (ZooKeeper-based) clients, which MM2 cannot use%s"
                            % (path, old, "; give bootstrap.servers instead" if old == "zookeeper.connect"
                               else "; remove it"))
            props.pop(old)
            continue
        props[new] = props.pop(old)
        rows.append(Row("%s: %s" % (_short(path), old), _shown(old, props[new]), CHANGED,
                        "read as %s (its current name)" % new, "old Kafka client name"))
    if not props.get("bootstrap.servers"):
        problems.append("%s: bootstrap.servers is missing: MM2 needs the %s cluster's brokers"
                        % (path, "source" if kind == "consumer" else "target"))
    jaas_fields = {}
    for key, value in props.items():
        opt = "%s: %s" % (_short(path), key)
        shown = _shown(key, value)
        if key == "bootstrap.servers":
            cluster.fields[key] = value.strip()
            rows.append(Row(opt, shown, CARRIED, "clusters.%s.bootstrap.servers" % alias))
        elif key == "security.protocol":
            protocol = _PROTOCOL_ALIASES.get(value.strip().upper(), value.strip().upper())
            if protocol not in _PROTOCOLS:
                problems.append("%s: security.protocol=%s is not one of %s" % (path, value, ", ".join(_PROTOCOLS)))
                continue
            cluster.fields[key] = protocol
            rows.append(Row(opt, shown, CARRIED if protocol == value.strip() else CHANGED,
                            "clusters.%s.security.protocol: %s" % (alias, protocol),
                            "" if protocol == value.strip() else "HDP's name for SASL_PLAINTEXT"))
        elif key == "sasl.mechanism":
            mechanism = value.strip().upper()
            if mechanism not in _MECHANISMS:
                problems.append("%s: sasl.mechanism=%s: the MM2 service supports %s per cluster; put other "
                                "mechanisms in kafka-mm2-custom after the import" % (path, value, ", ".join(_MECHANISMS)))
                continue
            cluster.fields[key] = mechanism
            rows.append(Row(opt, shown, CARRIED, "clusters.%s.sasl.mechanism" % alias))
        elif key == "sasl.jaas.config":
            jaas_fields = _map_jaas(path, value, cluster, secrets_path, imp, problems, opt)
        elif key in SECURITY_KEYS:
            if versions.is_secret_key(key):
                cluster.fields[key] = _secret_ref(imp, secrets_path, alias, key, value)
                rows.append(Row(opt, shown, CARRIED, "clusters.%s.%s: ${file:...:%s.%s}" % (alias, key, alias, key),
                                "the password goes to the secrets file, never into the deployment file"))
            else:
                cluster.fields[key] = value.strip()
                rows.append(Row(opt, shown, CARRIED, "clusters.%s.%s" % (alias, key),
                                "the same path must exist on every MM2 host" if key.endswith("location") else ""))
        elif key in not_needed:
            rows.append(Row(opt, shown, NOT_NEEDED, "-", not_needed[key]))
        elif kind == "producer" and key in PRODUCER_NO_LOSS:
            _map_no_loss(opt, shown, key, value, rows)
        elif key.startswith("sasl.") or key.startswith("ssl."):
            if not versions.client_key_known(kind, key):
                problems.append("%s: %s is not a Kafka %s setting%s" % (path, key, kind,
                                                                      did_you_mean(key, known)))
                continue
            _client_override(opt, shown, kind, key, value, cluster, secrets_path, imp)
        elif not versions.client_key_known(kind, key):
            problems.append("%s: %s is not a Kafka %s setting%s" % (
                path, key, kind, did_you_mean(key, list(known) + list(not_needed) + list(SECURITY_KEYS))))
        else:
            _client_override(opt, shown, kind, key, value, cluster, secrets_path, imp)
    mechanism = cluster.fields.get("sasl.mechanism")
    protocol = cluster.fields.get("security.protocol", "PLAINTEXT")
    if protocol.startswith("SASL") and "sasl.jaas.config" not in props and client_entry:
        jaas_fields = _map_jaas("--jaas-file", client_entry, cluster, secrets_path, imp, problems,
                                "--jaas-file: KafkaClient (%s)" % alias)
    if protocol.startswith("SASL") and not mechanism:
        cluster.fields["sasl.mechanism"] = "GSSAPI"   # Kafka's default mechanism
        rows.append(Row("%s: sasl.mechanism" % _short(path), "(not given)", KEPT,
                        "clusters.%s.sasl.mechanism: GSSAPI" % alias, "Kafka's default mechanism"))
    if mechanism == "GSSAPI" or (protocol.startswith("SASL") and not mechanism):
        if "sasl.kerberos.principal" not in jaas_fields:
            problems.append("%s: Kerberos (GSSAPI) without a keytab and principal in the file: MirrorMaker 1 got "
                            "them from the JAAS file in KAFKA_OPTS (-Djava.security.auth.login.config=...); pass "
                            "that file as --jaas-file" % path)


def _map_jaas(path, value, cluster, secrets_path, imp, problems, opt):
    alias, rows = cluster.alias, imp.rows
    match = _JAAS.match(value)
    fields = {}
    if not match:
        problems.append("%s: sasl.jaas.config is not a JAAS line (`<LoginModule> required key=\"value\" ...;`)"
                        % path)
        return fields
    module = match.group(1)
    found = dict((k, v[1:-1].replace('\\"', '"').replace("\\\\", "\\") if v.startswith('"') else v)
                 for k, v in _JAAS_OPTION.findall(match.group(3)))
    short = module.rsplit(".", 1)[-1]
    if short in ("PlainLoginModule", "ScramLoginModule") and "username" in found and "password" in found:
        cluster.fields["sasl.username"] = found["username"]
        cluster.fields["sasl.password"] = _secret_ref(imp, secrets_path, alias, "sasl.password", found["password"])
        fields = {"sasl.username": True}
        rows.append(Row(opt, "(%s, user %s)" % (short, found["username"]), CARRIED,
                        "clusters.%s.sasl.username + sasl.password: ${file:...:%s.sasl.password}" % (alias, alias),
                        "the MM2 service writes the JAAS line itself; the password goes to the secrets file"))
    elif short == "Krb5LoginModule" and found.get("keyTab") and found.get("principal"):
        cluster.fields["sasl.kerberos.keytab"] = found["keyTab"]
        cluster.fields["sasl.kerberos.principal"] = found["principal"]
        if found.get("serviceName") and "sasl.kerberos.service.name" not in cluster.fields:
            cluster.fields["sasl.kerberos.service.name"] = found["serviceName"]
        fields = {"sasl.kerberos.principal": True}
        rows.append(Row(opt, "(%s, %s)" % (short, found["principal"]), CARRIED,
                        "clusters.%s.sasl.kerberos.principal + sasl.kerberos.keytab" % alias,
                        "the keytab must exist on every MM2 host, readable by the mm2 user"))
    else:
        cluster.fields["sasl.jaas.config"] = _secret_ref(imp, secrets_path, alias, "sasl.jaas.config", value)
        rows.append(Row(opt, "(%s)" % short, CARRIED, "clusters.%s.sasl.jaas.config: ${file:...}" % alias,
                        "used as given, kept in the secrets file"))
    return fields


def _map_no_loss(opt, shown, key, value, rows):
    strong = PRODUCER_NO_LOSS[key]
    low = value.strip().lower()
    weaker = ((strong is not None and low not in strong) or
              (key == "retries" and low.lstrip("-").isdigit() and int(low) < 1) or
              (key == "enable.idempotence" and low == "false"))
    if key in ("delivery.timeout.ms", "max.block.ms"):
        weaker = low not in (str(2 ** 31 - 1), str(2 ** 63 - 1))
    if weaker:
        rows.append(Row(opt, shown, CHANGED, "MM2's default (Connect: acks=all, max.in.flight=1, unbounded "
                                             "retries and timeouts)",
                        "weaker than MM2's no-loss default: not carried over (the validator refuses it)"))
    else:
        rows.append(Row(opt, shown, KEPT, "MM2's default (Connect: acks=all, max.in.flight=1, unbounded "
                                          "retries and timeouts)",
                        "a no-loss setting MM2 already has; not written"))


def _client_override(opt, shown, kind, key, value, cluster, secrets_path, imp):
    section = "producer" if kind == "producer" else "consumer"
    if versions.is_secret_key(key):
        cluster.client[key] = _secret_ref(imp, secrets_path, cluster.alias, "%s.%s" % (section, key), value)
    else:
        cluster.client[key] = value.strip()
    imp.rows.append(Row(opt, shown, CARRIED, "clusters.%s.%s.%s" % (cluster.alias, section, key),
                        "a setting of MM2's replication %s on the %s" % (
                            kind, "target" if kind == "producer" else "source")))


def _shown(key, value):
    return "********" if versions.is_secret_key(key) else value


def _short(path):
    return str(path).rsplit("/", 1)[-1]
