"""Is a full MM2 key one this Kafka version reads, and is its value safe for replication?

``versions_check_key`` answers from the key table (mm2_core.kafka.versions) for top-level, per-cluster
(<alias>.*) and per-flow (<src>-><tgt>.*) keys; ``safety_findings`` flags client overrides that
would weaken delivery guarantees. Used by the validator and, for every rendered key, by render.
"""
from mm2_core.config.config_values import parse_bool, parse_int, suggest, text
from mm2_core.config.problems import ERROR, WARN
from mm2_core.kafka import versions
from mm2_core.model.topology import ALIAS_RE, CLIENT_SECTIONS, split_key


def versions_check_key(version, key, aliases):
    """None when the full key is one MM2 (this version) reads, else the message saying what is wrong."""
    version = versions.KafkaVersion.parse(version)
    scope, owner, rest = split_key(key, aliases)
    if scope == "flow":
        source, target = owner
        unknown = [a for a in (source, target) if a not in aliases]
        if unknown:
            return "'%s' names the flow %s->%s but '%s' is not a cluster alias (known: %s)" % (
                key, source, target, unknown[0], ", ".join(aliases))
        if not rest:
            return "'%s' has no setting after the flow name; write %s->%s.<key>" % (key, source, target)
        return _flow_key_message(version, rest, key)
    if scope == "cluster":
        return _cluster_key_message(version, rest, key, owner)
    return _top_key_message(version, key, aliases)


def _not_in_version(version, info, key):
    if version < info.first:
        return "'%s' needs Kafka %s or newer; this MM2 is %s. Remove it or use a newer Kafka%s" % (
            key, info.first.line if info.first.patch == 0 else str(info.first), version,
            _older_name_hint(info.key))
    return "'%s' was removed in Kafka %s; this MM2 is %s.%s" % (
        key, info.removed.line, version, _replacement_hint(info.key))


def _replacement_hint(name):
    rename = versions.rename_of(name)
    if rename is not None and rename.old == name:
        return " Use %s instead" % rename.new
    return " Remove it"


def _older_name_hint(name):
    rename = versions.rename_of(name)
    if rename is not None and rename.new == name:
        return " (before Kafka %s it is called %s)" % (rename.new_line, rename.old)
    return ""


def _client_key_message(version, kind, name, key):
    table = versions.CLIENT_KINDS[kind]
    info = table.get(name)
    if info is None:
        return "'%s': '%s' is not a Kafka %s setting%s" % (key, name, kind, suggest(name, table.keys()))
    if not info.defined_in(version):
        return _not_in_version(version, info, key)
    return None


def _flow_key_message(version, rest, key):
    info = versions.MM2_KEYS.get(rest)
    if info is not None:
        if info.scope == versions.INTERNAL:
            return "'%s' is set by MM2 itself; remove it" % key
        if info.scope in (versions.MM2, versions.REST):
            return "'%s' is a top-level MM2 setting, not a per-flow one; write %s without the flow prefix" % (
                key, rest)
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if rest in versions.MM2_MANAGED_CONNECTOR_KEYS:
        return "'%s' is set by MM2 for each connector; remove it" % key
    for prefix in ("source.cluster.", "target.cluster."):
        if rest.startswith(prefix):
            return "'%s': MM2 builds %s* from the cluster's own settings; set them on the cluster" % (key, prefix)
    for kind in versions.CLIENT_KINDS:
        for prefix in (kind + ".override.", kind + "."):
            if rest.startswith(prefix):
                return _client_key_message(version, kind, rest[len(prefix):], key)
        for side in ("source.", "target."):
            if rest.startswith(side + kind + "."):
                if kind != "admin" and not versions.supports(version, versions.CLUSTER_CLIENT_OVERRIDES):
                    return "'%s': %s%s.* overrides need Kafka %s or newer; this MM2 is %s. Use %s.* on the flow" % (
                        key, side, kind, versions.feature_first(versions.CLUSTER_CLIENT_OVERRIDES).line,
                        version, kind)
                return _client_key_message(version, kind, rest[len(side + kind + "."):], key)
    if rest in versions.CONNECT_CONNECTOR_KEYS:
        if versions.connector_key_defined(version, rest, per_flow=True):
            return None
        info = versions.CONNECT_CONNECTOR_KEYS[rest]
        if rest in versions.SOURCE_ONLY_CONNECTOR_KEYS and version >= info.first:
            return "'%s' needs MM2 %s or newer (exactly-once in dedicated mode)" % (
                key, versions.feature_first(versions.EXACTLY_ONCE).line)
        return _not_in_version(version, info, key)
    if rest.split(".", 1)[0] in ("transforms", "predicates", "errors"):
        return None
    candidates = list(versions.MM2_KEYS) + list(versions.CONNECT_CONNECTOR_KEYS)
    return "'%s': '%s' is not a MirrorMaker 2 connector setting in Kafka %s%s" % (
        key, rest, version, suggest(rest, candidates))


def _cluster_key_message(version, rest, key, alias):
    info = versions.MM2_KEYS.get(rest)
    if info is not None and info.scope == versions.CLIENT:
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    for kind in versions.CLIENT_KINDS:
        if rest.startswith(kind + "."):
            name = rest[len(kind) + 1:]
            if name.startswith("override."):
                return "'%s': use %s.%s without 'override.' for a cluster, or <src>-><tgt>.%s.override.* for " \
                       "one flow" % (key, kind, name[len("override."):], kind)
            return _client_key_message(version, kind, name, key)
    if rest.startswith("ssl.") or rest.startswith("sasl."):
        table = versions.COMMON_CLIENT_KEYS
        if rest in table:
            return None if table[rest].defined_in(version) else _not_in_version(version, table[rest], key)
        return "'%s': '%s' is not a Kafka client security setting%s" % (key, rest, suggest(rest, table.keys()))
    if rest == "config.providers" or rest.startswith("config.providers."):
        return None
    if rest in versions.MM2_MANAGED_WORKER_KEYS:
        return "'%s': MM2 sets %s for each herder from the source alias; overriding it makes flows share " \
               "internal topics. Remove it" % (key, rest)
    if rest in versions.WORKER_KEYS:
        info = versions.WORKER_KEYS[rest]
        if rest == "exactly.once.source.support" and not versions.supports(version, versions.EXACTLY_ONCE):
            return "'%s' needs MM2 %s or newer" % (key, versions.feature_first(versions.EXACTLY_ONCE).line)
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if rest in versions.COMMON_CLIENT_KEYS:
        return None
    if versions.mm2_key(rest) is not None:
        return "'%s': %s is a connector setting, not a cluster one; write it at the top level or per flow " \
               "as <src>-><tgt>.%s" % (key, rest, rest)
    candidates = list(versions.WORKER_KEYS) + [k for k, i in versions.MM2_KEYS.items() if i.scope == versions.CLIENT]
    return "'%s': '%s' is not a setting MM2 reads for cluster '%s' in Kafka %s%s" % (
        key, rest, alias, version, suggest(rest, candidates))


def _top_key_message(version, key, aliases):
    info = versions.MM2_KEYS.get(key)
    if info is not None:
        if info.scope == versions.INTERNAL:
            return "'%s' is set by MM2 itself; remove it" % key
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if key.startswith("config.providers.") or key.startswith("replication.policy."):
        return None
    if key in versions.CONNECT_CONNECTOR_KEYS:
        if key in versions.SOURCE_ONLY_CONNECTOR_KEYS:
            return "'%s' only works per flow: write <src>-><tgt>.%s" % (key, key)
        if key in versions.MM2_MANAGED_CONNECTOR_KEYS:
            return "'%s' is set by MM2 for each connector; remove it" % key
        info = versions.CONNECT_CONNECTOR_KEYS[key]
        return None if info.defined_in(version) else _not_in_version(version, info, key)
    if key.split(".", 1)[0] in ("transforms", "predicates", "errors"):
        return None
    for prefix in versions.WORKER_TOP_LEVEL_PREFIXES:
        if key.startswith(prefix):
            if key in versions.MM2_MANAGED_WORKER_KEYS:
                return "'%s': MM2 sets it for each herder from the source alias; remove it" % key
            info = versions.WORKER_KEYS.get(key)
            if info is not None:
                return None if info.defined_in(version) else _not_in_version(version, info, key)
    if key.startswith("ssl.") or key.startswith("sasl."):
        table = versions.COMMON_CLIENT_KEYS
        if key in table:
            return None if table[key].defined_in(version) else _not_in_version(version, table[key], key)
    if key in versions.WORKER_KEYS:
        return "'%s' is a Connect worker setting that MM2 ignores at the top level; set it per target cluster " \
               "as <alias>.%s" % (key, key)
    for kind in versions.CLIENT_KINDS:
        if key.startswith(kind + "."):
            return "'%s' has no effect at the top level; write <alias>.%s for a cluster or " \
                   "<src>-><tgt>.%s.override.%s for one flow" % (key, key, kind, key[len(kind) + 1:])
    head = key.split(".", 1)[0]
    if "." in key and head not in aliases and ALIAS_RE.match(head) and \
            head not in ("sync", "emit", "refresh", "offset", "replication", "topics", "groups", "config",
                         "heartbeats", "checkpoints", "offset-syncs", "admin", "consumer", "metric", "use"):
        return "'%s': '%s' is not a cluster alias (known: %s) nor an MM2 setting%s" % (
            key, head, ", ".join(aliases), suggest(key, list(versions.MM2_KEYS)))
    candidates = list(versions.MM2_KEYS) + list(versions.CONNECT_CONNECTOR_KEYS)
    return "'%s' is not a MirrorMaker 2 setting in Kafka %s%s" % (key, version, suggest(key, candidates))


# --- data-safety rules ---------------------------------------------------------------------------

def _client_context(key, aliases):
    """(client kind, setting) when the key configures a Kafka client, else (None, None)."""
    scope, owner, rest = split_key(key, aliases)
    if scope == "top":
        return None, None
    for kind in CLIENT_SECTIONS:
        for prefix in (kind + ".override.", kind + ".", "source." + kind + ".", "target." + kind + "."):
            if rest.startswith(prefix):
                return kind, rest[len(prefix):]
    return None, None


def safety_findings(topo, key, value, siblings=None):
    """[(level, message)] for settings that would weaken delivery guarantees or silently do nothing."""
    findings = []
    kind, name = _client_context(key, topo.aliases)
    scope, owner, rest = split_key(key, topo.aliases)
    low = text(value).strip().lower()
    if kind == "producer":
        if name == "acks" and low not in ("all", "-1"):
            findings.append((ERROR, "acks=%s can lose records when a broker fails; MM2 (Connect) produces with "
                                    "acks=all. Remove the override" % value))
        elif name == "retries" and parse_int(value) is not None and parse_int(value) < 1:
            findings.append((ERROR, "retries=%s drops records on the first transient error; remove the override "
                                    "(Connect retries indefinitely)" % value))
        elif name == "max.in.flight.requests.per.connection":
            number = parse_int(value)
            idempotent = _sibling(topo, key, "enable.idempotence")
            if number is None or number < 1:
                findings.append((ERROR, "'%s' is not a positive number" % value))
            elif number > 1 and parse_bool(idempotent) is not True:
                findings.append((ERROR, "max.in.flight.requests.per.connection=%d without "
                                        "enable.idempotence=true can reorder records on retries; set "
                                        "enable.idempotence=true next to it or remove it" % number))
            elif number > 5:
                findings.append((ERROR, "max.in.flight.requests.per.connection=%d is more than idempotence "
                                        "allows (5)" % number))
        elif name in ("delivery.timeout.ms", "max.block.ms"):
            findings.append((WARN, "%s=%s: Connect sets it to the maximum so a send waits out a target outage; a "
                                   "finite value fails the replication task instead" % (name, value)))
        elif name == "transactional.id":
            findings.append((ERROR, "transactional.id is managed by Connect (exactly-once); remove it"))
    elif kind == "consumer":
        if name == "enable.auto.commit":
            findings.append((ERROR, "MM2 always sets enable.auto.commit=false (its positions live in the offsets "
                                    "topic); remove the override"))
        elif name == "auto.offset.reset":
            if low == "none":
                findings.append((ERROR, "auto.offset.reset=none makes replication tasks fail on new partitions; "
                                        "remove it"))
            elif low == "latest":
                findings.append((WARN, "auto.offset.reset=latest skips records written before MM2 first reads a "
                                       "partition (new topics lose their start)"))
        elif name == "isolation.level" and low == "read_uncommitted" and topo.exactly_once:
            findings.append((ERROR, "exactly-once replication needs isolation.level=read_committed on the "
                                    "source consumers; remove this override"))
        elif name == "group.id" and scope == "flow":
            findings.append((WARN, "the MM2 replication consumer uses assign(); group.id has no effect"))
    rest_name = rest if scope != "top" else key
    if scope in ("flow", "top"):
        if rest_name == "errors.tolerance" and low == "all":
            findings.append((ERROR, "errors.tolerance=all makes MM2 skip records it cannot replicate; remove it"))
        elif rest_name == "emit.heartbeats.enabled" and parse_bool(value) is False:
            findings.append((WARN, "without heartbeats the heartbeat-gap alert cannot tell whether the flow is "
                                   "alive"))
        elif rest_name == "enabled" and scope == "top":
            findings.append((ERROR, "a top-level enabled=... has no effect; flows are enabled one by one"))
    return findings


def _sibling(topo, key, name):
    """The value set for ``name`` next to ``key`` (same prefix), in custom properties or YAML overrides."""
    prefix = key[:key.rfind(".max.in.flight.requests.per.connection")] if \
        key.endswith(".max.in.flight.requests.per.connection") else key.rsplit(".", 1)[0]
    wanted = prefix + "." + name
    if wanted in topo.custom:
        return topo.custom[wanted]
    scope, owner, rest = split_key(wanted, topo.aliases)
    if scope == "cluster" and owner in topo.clusters:
        for kind in CLIENT_SECTIONS:
            if rest.startswith(kind + "."):
                return topo.clusters[owner].client_overrides(kind).get(rest[len(kind) + 1:])
        return topo.clusters[owner].extra.get(rest)
    if scope == "flow":
        flow = topo.flow(owner[0], owner[1])
        if flow is not None:
            return flow.overrides.get(rest)
    return None


def config_name(key, aliases):
    """The plain Kafka config name a full key sets (no alias, flow or client prefix)."""
    scope, owner, rest = split_key(key, aliases)
    if scope != "flow" and scope != "cluster":
        return key
    for kind in CLIENT_SECTIONS:
        for prefix in (kind + ".override.", kind + ".", "source." + kind + ".", "target." + kind + "."):
            if rest.startswith(prefix):
                return rest[len(prefix):]
    return rest


def value_findings(version, key, value, aliases):
    """[(level, message)] when the value is not of the key's Kafka type (kafka_keys.TYPES)."""
    found = versions.value_problem(version, config_name(key, aliases), value)
    return [found] if found else []


def translated_key(version, key, aliases):
    """(key as this Kafka version names it, message) for a renamed key (versions.RENAMED_KEYS); (key, None)
    otherwise.

    MM2 2.7-3.9 reads both names of the filter lists but the new one wins, and the renderer always writes
    the version's name, so an old name left as written would be shadowed: it is translated instead.
    """
    scope, owner, rest = split_key(key, aliases)
    name = rest if scope == "flow" else key if scope == "top" else None
    rename = versions.rename_of(name) if name is not None else None
    if rename is None:
        return key, None
    wanted = rename.name_in(version)
    if wanted == name:
        return key, None
    new_key = key[:len(key) - len(name)] + wanted
    return new_key, ("'%s' is the %s name of %s in Kafka %s; it is written as %s"
                     % (key, "pre-%s" % rename.new_line if name == rename.old else "%s+" % rename.new_line,
                        wanted, version, new_key))
