"""Checks on a parsed Topology: settings, flows, clusters, custom keys, driver settings.

Every problem names the config type and property (and the YAML line) and says how to fix it.
The checks read the model only, never raw configurations.
"""
import re
from collections import OrderedDict

from mm2_core.config import schema
from mm2_core.config.config_values import parse_bool, parse_int, suggest
from mm2_core.formats import javaprops, javaregex
from mm2_core.kafka import versions
from mm2_core.model.keycheck import safety_findings, value_findings, versions_check_key
from mm2_core.model.topology import (ANY_REF_RE, BOOLEAN_SETTINGS, CHECKPOINT_WARN_SECONDS, CLIENT_SECTIONS, CLUSTERS_T, CUSTOM_T,
                            DRIVER_T, FILE_REF_RE, HEARTBEAT_WARN_SECONDS, HOST_PORT_RE, INT_SETTINGS,
                            LIST_SETTINGS, POLICY_CLASSES, REPLICATION_T, TOPOLOGY_T)
from mm2_core.config.problems import ERROR


def check(topo, collector):
    """Every check, in the order operators read them: settings, flows, clusters, custom, driver."""
    _check_settings(topo, collector)
    _check_flows(topo, collector)
    _check_internal_topic_names(topo, collector)
    for cluster in topo.candidates:
        _check_cluster(topo, cluster, collector)
    for key, value in topo.custom.items():
        _check_key(topo, collector, (CUSTOM_T, topo.custom_names.get(key, key)), key, value, from_model=False)
    _check_driver(topo, collector)


def _setting_where(topo, name):
    return topo.setting_origins.get(name, (REPLICATION_T, name))


def _check_settings(topo, collector):
    version = topo.version
    for name in BOOLEAN_SETTINGS:
        value = topo.settings.get(name, "")
        if parse_bool(value) is None:
            config_type, prop = _setting_where(topo, name)
            collector.error(config_type, prop, "'%s' is not a boolean: use true or false" % value)
    for name in INT_SETTINGS:
        _check_int_setting(topo, collector, name, topo.settings.get(name, ""), _setting_where(topo, name))
    policy = topo.settings.get("replication.policy")
    config_type, prop = _setting_where(topo, "replication.policy")
    if policy not in POLICY_CLASSES:
        collector.error(config_type, prop, "'%s' is not a replication policy: use prefixed or identity" % policy)
    elif policy == "identity" and not versions.supports(version, versions.IDENTITY_POLICY):
        collector.error(config_type, prop, "the identity policy (IdentityReplicationPolicy) needs Kafka %s or "
                        "newer, this MM2 is %s; use prefixed or a newer Kafka"
                        % (versions.feature_first(versions.IDENTITY_POLICY).line, version))
    separator = topo.settings.get("replication.policy.separator", "")
    config_type, prop = _setting_where(topo, "replication.policy.separator")
    if not separator or re.search(r"[\s,]", separator) or "->" in separator:
        collector.error(config_type, prop, "'%s' is not a usable separator: use a short non-empty string "
                                           "without spaces or commas, e.g. '.'" % separator)
    elif separator != "." and versions.supports(version, versions.INTERNAL_TOPICS_USE_SEPARATOR):
        collector.warn(config_type, prop, "a separator other than '.' also renames MM2's internal topics "
                                          "since Kafka 3.1 (KIP-690); keep it unchanged after the first start")
    for name in ("sync.group.offsets.enabled",):
        if parse_bool(topo.settings.get(name)) and not versions.supports(version, versions.OFFSET_SYNC):
            config_type, prop = _setting_where(topo, name)
            collector.error(config_type, prop, "consumer offset sync needs Kafka %s or newer, this MM2 is %s; "
                            "set it to false or use a newer Kafka"
                            % (versions.feature_first(versions.OFFSET_SYNC).line, version))
    location = topo.settings.get("offset-syncs.topic.location")
    _check_location(topo, collector, location, _setting_where(topo, "offset-syncs.topic.location"))
    if topo.exactly_once and not versions.supports(version, versions.EXACTLY_ONCE):
        config_type, prop = _setting_where(topo, "exactly.once.enabled")
        collector.error(config_type, prop, "exactly-once replication needs Kafka %s or newer, this MM2 is %s; "
                        "set it to false or use a newer Kafka"
                        % (versions.feature_first(versions.EXACTLY_ONCE).line, version))
    for name in LIST_SETTINGS:
        _check_patterns(collector, _setting_where(topo, name), name, topo.settings.get(name, ""))
    _check_intervals(topo, collector, topo.settings, lambda n: _setting_where(topo, n))
    if not versions.supports(version, versions.SIMPLE_GROUP_CHECKPOINTS):
        collector.warn(REPLICATION_T, "groups",
                       "Kafka %s's MirrorMaker 2 checkpoints only consumer groups that use the group protocol "
                       "(subscribe()); groups that commit offsets with assign() (or whose offsets were set with "
                       "kafka-consumer-groups --reset-offsets) get no checkpoints, so EXPORT_TRANSLATED_OFFSETS "
                       "and the offset sync have nothing for them; Kafka %s and newer checkpoint them too"
                       % (version, versions.feature_first(versions.SIMPLE_GROUP_CHECKPOINTS).line))
    if topo.ranger and parse_bool(topo.settings.get("sync.topic.acls.enabled")):
        config_type, prop = _setting_where(topo, "sync.topic.acls.enabled")
        collector.warn(config_type, prop, "Ranger authorizes this cluster's Kafka, so MM2's ACL sync is turned "
                                          "off (sync.topic.acls.enabled=false is rendered); manage access "
                                          "with Ranger policies")


def _check_int_setting(topo, collector, name, value, where):
    config_type, prop = where
    number = parse_int(value)
    owned = schema.REPLICATION[name] if name in schema.REPLICATION else None
    if number is None:
        collector.error(config_type, prop, "'%s' is not a whole number" % value)
        return None
    if owned is not None:
        low = parse_int(owned.minimum) if owned.minimum is not None else None
        high = parse_int(owned.maximum) if owned.maximum is not None else None
        if low is not None and number < low or high is not None and number > high:
            collector.error(config_type, prop, "%d is out of range: use %s to %s%s"
                            % (number, owned.minimum, owned.maximum, " " + owned.unit if owned.unit else ""))
            return None
    if name.endswith("replication.factor") and number == 0:
        collector.error(config_type, prop, "0 is not a replication factor: use 1 or more, or -1 for the "
                                           "brokers' default.replication.factor")
        return None
    return number


def _check_location(topo, collector, location, where):
    config_type, prop = where
    if location not in ("source", "target"):
        collector.error(config_type, prop, "'%s' is not a location: use source or target" % location)
    elif location == "target" and not versions.supports(topo.version, versions.OFFSET_SYNCS_LOCATION):
        collector.error(config_type, prop, "offset-syncs.topic.location=target needs Kafka %s or newer, this "
                        "MM2 is %s; use source" % (versions.feature_first(versions.OFFSET_SYNCS_LOCATION).line,
                                                  topo.version))


def _check_patterns(collector, where, name, value):
    config_type, prop = where
    pieces = javaregex.split_list(value)
    if name in ("topics", "groups") and not pieces:
        collector.error(config_type, prop, "empty: nothing would be %s; use .* for all"
                        % ("replicated" if name == "topics" else "checkpointed"))
        return
    error = javaregex.pattern_list_error(value)
    if error:
        collector.error(config_type, prop, "%s; fix the pattern (MM2 reads comma-separated Java regexes)" % error)


def _check_intervals(topo, collector, settings, where_of):
    heartbeat = parse_int(settings.get("emit.heartbeats.interval.seconds"))
    if heartbeat is not None and heartbeat > HEARTBEAT_WARN_SECONDS:
        config_type, prop = where_of("emit.heartbeats.interval.seconds")
        collector.warn(config_type, prop, "%d s between heartbeats makes the heartbeat-gap alert slow to notice "
                                          "a stalled flow; 1-10 s is usual" % heartbeat)
    checkpoint = parse_int(settings.get("emit.checkpoints.interval.seconds"))
    sync_interval = parse_int(settings.get("sync.group.offsets.interval.seconds"))
    if checkpoint is not None and checkpoint > CHECKPOINT_WARN_SECONDS:
        config_type, prop = where_of("emit.checkpoints.interval.seconds")
        collector.warn(config_type, prop, "%d s between checkpoints means consumers may replay that much after a "
                                          "failover; 60 s is the default" % checkpoint)
    if parse_bool(settings.get("sync.group.offsets.enabled")) and checkpoint is not None and \
            sync_interval is not None and sync_interval < checkpoint:
        config_type, prop = where_of("sync.group.offsets.interval.seconds")
        collector.warn(config_type, prop, "offsets are synced from checkpoints, so syncing every %d s is no "
                                          "fresher than the %d s checkpoint interval"
                       % (sync_interval, checkpoint))


def _check_flows(topo, collector):
    seen = set()
    for flow in topo.flows:
        config_type, prop = flow.origin
        for role, alias in (("source", flow.source), ("target", flow.target)):
            if alias not in topo.clusters:
                collector.error(config_type, prop, "%s '%s' is not a cluster alias defined under clusters:%s"
                                % (role, alias, suggest(alias, topo.aliases) or
                                   " (defined: %s)" % ", ".join(topo.aliases)))
        if flow.source == flow.target:
            collector.error(config_type, prop, "source and target are both '%s'; a flow needs two clusters"
                            % flow.source)
        if (flow.source, flow.target) in seen:
            collector.error(config_type, prop, "the flow %s is listed twice; merge the two entries" % flow.name)
        seen.add((flow.source, flow.target))
        # Per-flow settings: same checks as the global ones.
        for name, value in flow.settings.items():
            where = (config_type, "%s.%s" % (prop, name) if config_type == TOPOLOGY_T else prop)
            if name in BOOLEAN_SETTINGS and parse_bool(value) is None:
                collector.error(where[0], where[1], "'%s' is not a boolean: use true or false" % value)
            elif name in INT_SETTINGS:
                _check_int_setting(topo, collector, name, value, where)
            elif name in LIST_SETTINGS:
                _check_patterns(collector, where, name, value)
            elif name == "offset-syncs.topic.location":
                _check_location(topo, collector, value, where)
            if name == "sync.group.offsets.enabled" and parse_bool(value) and \
                    not versions.supports(topo.version, versions.OFFSET_SYNC):
                collector.error(where[0], where[1], "consumer offset sync needs Kafka %s or newer, this MM2 is "
                                "%s" % (versions.feature_first(versions.OFFSET_SYNC).line, topo.version))
        _check_intervals(topo, collector, flow.settings,
                         lambda n: (config_type, "%s.%s" % (prop, n) if config_type == TOPOLOGY_T else prop))
        for key, value in flow.overrides.items():
            _check_key(topo, collector, (config_type, "%s.config.%s" % (prop, key)),
                       "%s.%s" % (flow.name, key), value, from_model=False)
    if topo.policy == "identity":
        cycle = _find_cycle(topo)
        if cycle:
            config_type, prop = _setting_where(topo, "replication.policy")
            where = (REPLICATION_T, "direction") if topo.mode == "simple" else (config_type, prop)
            collector.error(where[0], where[1], "the identity policy keeps topic names, so the loop %s would "
                            "replicate records back and forth forever; use the prefixed policy for "
                            "active-active or remove a flow of the loop" % " -> ".join(cycle))
        by_target = {}
        for flow in topo.enabled_flows:
            by_target.setdefault(flow.target, []).append(flow.source)
        for target, sources in by_target.items():
            if len(sources) > 1:
                config_type, prop = _setting_where(topo, "replication.policy")
                collector.warn(config_type, prop, "under the identity policy the same topic name from %s lands "
                               "in one topic on %s; make sure the topic sets do not overlap"
                               % (", ".join(sources), target))


def _find_cycle(topo):
    graph = OrderedDict()  # flow order, so the reported loop is stable on every Python
    for flow in topo.enabled_flows:
        graph.setdefault(flow.source, []).append(flow.target)
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if state.get(nxt) is None:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for start in list(graph):
        if state.get(start) is None:
            found = visit(start, [start])
            if found:
                return found
    return None


def _check_cluster(topo, cluster, collector):
    conn = cluster.connection
    where = cluster.where
    bootstrap = conn.get("bootstrap.servers", "")
    if not bootstrap:
        if not cluster.local:
            config_type, name = where("bootstrap.servers")
            if not any(p.config_type == config_type and p.name == name for p in collector.problems):
                collector.error(config_type, name, "empty: enter the brokers of cluster '%s' as "
                                                   "host:port,host:port" % cluster.alias)
    else:
        bad = [item.strip() for item in bootstrap.split(",") if item.strip() and not _host_port_ok(item.strip())]
        if bad or not [i for i in bootstrap.split(",") if i.strip()]:
            config_type, name = where("bootstrap.servers")
            collector.error(config_type, name, "'%s' is not a host:port list (bad: %s); write e.g. "
                            "broker1.example.com:9092,broker2.example.com:9092" % (bootstrap, ", ".join(bad)))
    protocol = conn.get("security.protocol") or "PLAINTEXT"
    if protocol not in schema.PROTOCOLS:
        config_type, name = where("security.protocol")
        collector.error(config_type, name, "'%s' is not a security protocol: use one of %s"
                        % (protocol, ", ".join(schema.PROTOCOLS)))
        return
    if protocol.startswith("SASL_"):
        _check_sasl(topo, cluster, collector)
    if protocol in ("SSL", "SASL_SSL"):
        for store in ("truststore", "keystore"):
            kind = conn.get("ssl.%s.type" % store, "JKS") or "JKS"
            if kind not in ("JKS", "PKCS12", "PEM"):
                config_type, name = where("ssl.%s.type" % store)
                collector.error(config_type, name, "'%s' is not a store type: use JKS, PKCS12 or PEM" % kind)
        if not conn.get("ssl.truststore.location"):
            config_type, name = where("ssl.truststore.location")
            collector.warn(config_type, name, "empty: cluster '%s' uses %s, so the JVM's default CA certificates "
                                              "must trust its brokers; set a truststore otherwise"
                           % (cluster.alias, protocol))
        if conn.get("ssl.keystore.location") and not conn.get("ssl.keystore.password"):
            config_type, name = where("ssl.keystore.password")
            collector.error(config_type, name, "empty, but a keystore is set for cluster '%s'; enter its password "
                                               "(or clear the keystore path)" % cluster.alias)
        algorithm = conn.get("ssl.endpoint.identification.algorithm")
        if algorithm is not None and algorithm not in ("", "https"):
            config_type, name = where("ssl.endpoint.identification.algorithm")
            collector.error(config_type, name, "'%s': use https (verify broker host names) or leave it empty"
                            % algorithm)
    valid_alias = topo.clusters.get(cluster.alias) is cluster
    for kind in CLIENT_SECTIONS if valid_alias else ():
        for key, value in cluster.client_overrides(kind).items():
            origin = cluster.where("%s.%s" % (kind, key))
            _check_key(topo, collector, origin, "%s.%s.%s" % (cluster.alias, kind, key), value, from_model=False)
    for key, value in cluster.extra.items() if valid_alias else ():
        _check_key(topo, collector, cluster.where("config.%s" % key), "%s.%s" % (cluster.alias, key), value,
                   from_model=False)
    for field, value in conn.items():
        reason = javaprops.check_value(value)
        if reason:
            config_type, name = where(field)
            collector.error(config_type, name, reason)
        _check_reference(collector, where(field), value)
    if cluster.broker_count:
        _check_rf_against_brokers(topo, cluster, collector)


def _host_port_ok(item):
    match = HOST_PORT_RE.match(item)
    return bool(match) and 0 < int(match.group(2)) < 65536


def _check_rf_against_brokers(topo, cluster, collector):
    count = cluster.broker_count
    checks = [("internal.topics.replication.factor", "its internal topics")]
    if cluster.alias in topo.targets():
        checks.append(("replication.factor", "mirrored topics"))
    for name, what in checks:
        value = parse_int(topo.settings.get(name))
        if value is not None and value > count:
            config_type, prop = _setting_where(topo, name)
            collector.error(config_type, prop, "%d is more than the %d broker(s) of cluster '%s', so %s cannot be "
                                               "created; use %d (or -1 for the brokers' default)"
                            % (value, count, cluster.alias, what, min(count, 3)))


def _check_sasl(topo, cluster, collector):
    conn = cluster.connection
    where = cluster.where
    if _misspelled(collector, where, "sasl.mechanism"):
        return  # the typo is reported; checks for the default mechanism (GSSAPI) would only mislead
    mechanism = conn.get("sasl.mechanism") or "GSSAPI"
    if mechanism not in schema.SASL_MECHANISMS:
        config_type, name = where("sasl.mechanism")
        collector.error(config_type, name, "'%s' is not a supported SASL mechanism: use one of %s"
                        % (mechanism, ", ".join(schema.SASL_MECHANISMS)))
        return
    if conn.get("sasl.jaas.config"):
        if conn.get("sasl.username") or conn.get("sasl.password"):
            config_type, name = where("sasl.jaas.config")
            collector.error(config_type, name, "set either sasl.jaas.config or sasl.username/sasl.password for "
                                               "cluster '%s', not both" % cluster.alias)
        return
    if mechanism == "GSSAPI":
        principal = conn.get("sasl.kerberos.principal") or topo.kerberos_principal
        keytab = conn.get("sasl.kerberos.keytab") or topo.kerberos_keytab
        if not principal or not keytab:
            config_type, name = where("sasl.kerberos.principal")
            collector.error(config_type, name, "cluster '%s' uses Kerberos (GSSAPI) but no principal/keytab is "
                                               "known: enable Kerberos for the cluster in Ambari (it sets "
                                               "kafka-mm2-env/mm2_principal_name and mm2_keytab) or set "
                                               "sasl.kerberos.principal and sasl.kerberos.keytab for this "
                                               "cluster" % cluster.alias)
        if not conn.get("sasl.kerberos.service.name"):
            config_type, name = where("sasl.kerberos.service.name")
            collector.error(config_type, name, "empty: enter the primary of the brokers' Kerberos principal "
                                               "(usually kafka)")
    else:
        for field in ("sasl.username", "sasl.password"):
            if not conn.get(field):
                config_type, name = where(field)
                collector.error(config_type, name, "empty: cluster '%s' uses SASL %s, which needs a user name and "
                                                   "password" % (cluster.alias, mechanism))


def _misspelled(collector, where, field):
    """True when an error already says a key of this cluster is a typo of ``field``."""
    config_type, name = where(field)
    path = name[len("content: "):] if name.startswith("content: ") else name
    prefix = path[:len(path) - len(field)]
    for found in collector.problems:
        if found.config_type == config_type and found.is_error and \
                ("did you mean %s?" % field in found.message or "did you mean %s?" % path in found.message) and \
                (found.name.startswith(prefix) or found.message.startswith(prefix)):
            return True
    return False


def _check_reference(collector, where, value):
    if "${" not in value:
        return
    for ref in ANY_REF_RE.findall(value):
        if ":" not in ref:
            continue  # Kafka expands only ${provider:[path:]key}: '${x}' is literal text (a password may hold it)
        if not FILE_REF_RE.match(ref) and not re.match(r"^\$\{[A-Za-z0-9_-]+:[^}]*\}$", ref):
            # A secret's text is never echoed, not even the part that looks like a reference.
            shown = "the ${...} in the value" if versions.is_secret_key(where[1]) else "'%s'" % ref
            collector.error(where[0], where[1], "%s is not a config provider reference: write "
                                                "${file:/path/to/file.properties:key}" % shown)


def _check_key(topo, collector, where, key, value, from_model):
    """Check one full MM2 key (as written in the file) and its value; problems go to ``where``."""
    config_type, prop = where
    reason = javaprops.check_value(value)
    if reason:
        collector.error(config_type, prop, reason)
    if "\n" in key or "\r" in key:
        collector.error(config_type, prop, "the key contains a line break; remove it")
        return
    message = versions_check_key(topo.version, key, topo.aliases)
    if message:
        collector.error(config_type, prop, message)
        return
    for level, msg in value_findings(topo.version, key, value, topo.aliases) + safety_findings(topo, key, value):
        if level == ERROR:
            collector.error(config_type, prop, msg)
        else:
            collector.warn(config_type, prop, msg)
    _check_reference(collector, where, value)


def _check_driver(topo, collector):
    for alias in topo.driver_targets:
        if alias not in topo.clusters:
            collector.error(DRIVER_T, "target.clusters", "'%s' is not a cluster alias%s (known: %s)"
                            % (alias, suggest(alias, topo.aliases), ", ".join(topo.aliases)))
        elif alias not in topo.targets() and topo.targets():
            collector.warn(DRIVER_T, "target.clusters", "no enabled flow targets '%s'; this host only emits "
                                                        "heartbeats into it" % alias)
    port = parse_int(topo.internal_rest_port)
    if port is None or not 1024 <= port <= 65535:
        collector.error(DRIVER_T, "internal.rest.port", "'%s' is not a port: use 1024-65535"
                        % topo.internal_rest_port)


MAX_TOPIC_NAME = 249  # Kafka's limit (Topic.MAX_NAME_LENGTH)


def internal_topic_names(topo, flow):
    """The internal topics MM2 derives from the aliases of one flow (names grow with the aliases)."""
    sep = topo.separator
    internal_sep = sep if versions.supports(topo.version, versions.INTERNAL_TOPICS_USE_SEPARATOR) else "."
    return [
        "mm2-offset-syncs%s%s%sinternal" % (internal_sep, flow.target, internal_sep),
        "%s%scheckpoints%sinternal" % (flow.source, internal_sep, internal_sep),
        "mm2-offsets.%s.internal" % flow.source, "mm2-configs.%s.internal" % flow.source,
        "mm2-status.%s.internal" % flow.source,
        "%s%sheartbeats" % (flow.source, sep),
    ]


def _check_internal_topic_names(topo, collector):
    reported = set()
    for flow in topo.flows:
        if flow.source not in topo.clusters or flow.target not in topo.clusters:
            continue
        for name in internal_topic_names(topo, flow):
            if len(name) <= MAX_TOPIC_NAME:
                continue
            alias = max((flow.source, flow.target), key=len)
            if alias in reported:
                break
            reported.add(alias)
            cluster = topo.clusters[alias]
            config_type, prop = cluster.where("alias") if cluster.origin[0] == CLUSTERS_T else (
                cluster.origin[0], cluster.origin[1].rstrip("."))
            collector.error(config_type, prop, "the alias '%s...' (%d characters) makes MM2's internal topic %s... "
                                               "%d characters long, more than Kafka's %d; use a shorter alias "
                                               "(at most %d characters)"
                            % (alias[:20], len(alias), name[:30], len(name), MAX_TOPIC_NAME,
                               len(alias) - (len(name) - MAX_TOPIC_NAME)))
            break
