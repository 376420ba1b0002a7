"""Render the files MirrorMaker 2 reads, right by construction for the chosen Kafka version.

``render_mm2`` turns Ambari configurations into ``connect-mirror-maker.properties`` (and, when the
FileConfigProvider option is on, ``mm2-secrets.properties``).  Every key written is checked
against the key table of the version (mm2_core.kafka.versions); a key the version does not define is
never written.  Values go through mm2_core.formats.javaprops, so java.util.Properties.load reads back
exactly what was meant.

File modes: a file holding a secret (password, JAAS config, PEM key) is 0600; a file without
one is 0640 (owner mm2, group hadoop, readable by the alert scripts).

What version-aware rendering does (see docs/design.md and the README's configuration section):
- include/exclude: ``*.blacklist`` before 2.7, ``*.exclude`` from 2.7 (4.x has no blacklist keys);
- per-cluster client overrides before 2.8 are also written per flow (``A->B.consumer.*``,
  ``A->B.source.admin.*``...), because 2.4-2.7 ignored ``A.consumer.*`` for replication clients;
- the Connect worker settings MM2 ignores at the top level (offset.flush.interval.ms) are written
  per cluster, where MM2 passes them to the workers of herders targeting that cluster;
- 3.5+: internal REST with this host's listener (several driver hosts work), exactly-once opt-in;
- 3.5.0-3.8.0 (KAFKA-17192): config.providers is also written per cluster so workers see it.
"""
import os
from collections import OrderedDict

from mm2_core.config import names
from mm2_core.config.config_values import parse_bool, parse_int, text
from mm2_core.config.problems import ERROR, ConfigError, problem as Problem, without_shadowed_warnings
from mm2_core.formats import javaprops
from mm2_core.kafka import versions
from mm2_core.model import keycheck, parse
from mm2_core.model.topology import BOOLEAN_SETTINGS, CLIENT_SECTIONS, INT_SETTINGS, POLICY_CLASSES

PROPERTIES_FILE = "connect-mirror-maker.properties"
SECRETS_FILE = "mm2-secrets.properties"
SECRET_MODE = 0o600
PLAIN_MODE = 0o640
FILE_PROVIDER_CLASS = "org.apache.kafka.common.config.provider.FileConfigProvider"
KRB5_MODULE = "com.sun.security.auth.module.Krb5LoginModule"
LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}

# Simple/advanced settings written once at the top level, in this order (kafka-mm2-replication names).
_TOP_SETTINGS = ("topics", "topics.exclude", "groups", "groups.exclude", "sync.group.offsets.enabled",
                 "sync.group.offsets.interval.seconds", "emit.heartbeats.interval.seconds",
                 "emit.checkpoints.interval.seconds", "refresh.topics.interval.seconds",
                 "refresh.groups.interval.seconds", "sync.topic.configs.enabled", "sync.topic.acls.enabled",
                 "offset-syncs.topic.location", "replication.factor", "tasks.max")
_INTERNAL_RF_KEYS = ("heartbeats.topic.replication.factor", "checkpoints.topic.replication.factor",
                     "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
                     "config.storage.replication.factor", "status.storage.replication.factor")
# Custom keys that may replace a rendered value (documented): the two-step exactly-once upgrade.
_OVERRIDABLE_SUFFIXES = (".exactly.once.source.support",)


class RenderedFile(object):
    def __init__(self, name, text, mode, secret):
        self.name = name
        self.text = text
        self.mode = mode
        self.secret = secret

    def __repr__(self):
        return "RenderedFile(%r, mode=%s, secret=%r)" % (self.name, oct(self.mode), self.secret)


class Rendering(object):
    """Result of render_mm2: the files, the topology and what the start command needs."""

    def __init__(self, files, topology, target_clusters, internal_rest, rest_listener, version,
                 properties, warnings):
        self.files = files
        self.topology = topology
        self.target_clusters = target_clusters
        self.internal_rest = internal_rest
        self.rest_listener = rest_listener
        self.version = version
        self.properties = properties      # [(key, value)] as written to the main file
        self.warnings = warnings

    def file(self, name):
        for rendered in self.files:
            if rendered.name == name:
                return rendered
        return None

    @property
    def clusters_args(self):
        """['--clusters', A, B] for connect-mirror-maker.sh."""
        return ["--clusters"] + list(self.target_clusters) if self.target_clusters else []


class _Entry(object):
    __slots__ = ("key", "value", "origin", "secret")

    def __init__(self, key, value, origin, secret):
        self.key, self.value, self.origin, self.secret = key, value, origin, secret


class _Builder(object):
    """Ordered key/value entries with where each came from (for messages)."""

    def __init__(self):
        self.entries = OrderedDict()
        self.comments = {}

    def comment(self, text_):
        self.comments.setdefault(len(self.entries), []).append(text_)

    def put(self, key, value, origin, secret=None):
        value = text(value)
        if secret is None:
            secret = versions.is_secret_key(key) and bool(value) and not versions.is_provider_reference(value)
        self.entries[key] = _Entry(key, value, origin, secret)

    def has(self, key):
        return key in self.entries


def render_mm2(configurations, kafka_version, hostname, conf_dir, local_kafka=None):
    """Rendering for this host; raises ConfigError (every problem) when the input is invalid."""
    return render_topology(parse.build_topology(configurations, kafka_version, local_kafka), hostname, conf_dir)


def render_topology(topology, hostname, conf_dir):
    """Rendering of a parsed and validated Topology (its only input); raises ConfigError."""
    builder, problems = _render_entries(topology, hostname)
    errors = [p for p in problems if p.level == ERROR]
    if errors:
        raise ConfigError(without_shadowed_warnings(list(topology.problems) + problems))
    return _finish(topology, builder, hostname, conf_dir, list(topology.problems) + problems)


def check_rendering(topology, hostname):
    """Problems rendering would report (used by validate)."""
    _, problems = _render_entries(topology, hostname)
    return problems


def validate(configurations, kafka_version, local_kafka=None):
    """Every problem (ERROR and WARN) the configurations have for this Kafka version.

    Parses and validates the model, then runs the same checks as rendering (with a placeholder
    host), so the advisor, the REST tool and the agent reject exactly the same input.
    """
    topo, collector = parse.parse(configurations, kafka_version, local_kafka)
    if collector.has_errors or topo is None:
        return _unique(collector.problems)
    topo.problems = collector.problems
    problems = list(collector.problems)
    problems.extend(check_rendering(topo, "mm2-host.invalid"))
    return _unique(without_shadowed_warnings(problems))


def _unique(problems):
    seen, out = set(), []
    for found in problems:
        if found.as_tuple() not in seen:
            seen.add(found.as_tuple())
            out.append(found)
    return out


# ---------------------------------------------------------------------------------------------

def _render_entries(topo, hostname):
    version = topo.version
    out = _Builder()
    problems = []
    R = names.REPLICATION
    out.put("clusters", ", ".join(topo.aliases), (names.CLUSTERS, "topology.mode"))
    for cluster in topo.clusters.values():
        _cluster_entries(out, topo, cluster, hostname)
    for flow in topo.flows:
        _flow_entries(out, topo, flow)
    out.comment("replication settings of every flow (a flow's own values are above)")
    out.put("replication.policy.class", POLICY_CLASSES[topo.policy],
            topo.setting_origins.get("replication.policy", (R, "replication.policy")))
    out.put("replication.policy.separator", topo.separator,
            topo.setting_origins.get("replication.policy.separator", (R, "replication.policy.separator")))
    if topo.separator != "." and versions.supports(version, versions.INTERNAL_TOPIC_SEPARATOR):
        # Pin KIP-949's default so internal topic names cannot change under an upgrade.
        out.put("replication.policy.internal.topic.separator.enabled", "true",
                topo.setting_origins.get("replication.policy.separator"))
    for name in _TOP_SETTINGS:
        value = topo.settings.get(name)
        key = _setting_key(version, name)
        if key is None:
            continue
        if name == "sync.topic.acls.enabled" and topo.ranger:
            value = "false"
        out.put(key, _normalise(name, value), topo.setting_origins.get(name, (R, name)))
    internal_rf = topo.settings.get("internal.topics.replication.factor")
    for key in _INTERNAL_RF_KEYS:
        out.put(key, internal_rf, topo.setting_origins.get("internal.topics.replication.factor"))
    internal_rest = versions.supports(version, versions.INTERNAL_REST)
    if internal_rest:
        out.comment("internal REST server of this host (KIP-710): lets several MM2 hosts share the work")
        port = topo.internal_rest_port
        origin = (names.DRIVER, "internal.rest.port")
        out.put("dedicated.mode.enable.internal.rest", "true", origin)
        out.put("listeners", "http://%s:%s" % (hostname, port), origin)
        out.put("rest.advertised.host.name", hostname, origin)
        out.put("rest.advertised.port", port, origin)
    if topo.secrets_provider:
        origin = topo.setting_origins.get("secrets.config.provider.enabled")
        out.comment("secrets are read from %s through Kafka's FileConfigProvider" % SECRETS_FILE)
        out.put("config.providers", _providers_list(topo), origin)
        out.put("config.providers.file.class", FILE_PROVIDER_CLASS, origin)
    _custom_entries(out, topo, problems)
    _final_key_check(out, topo, problems)
    return out, problems


def _setting_key(version, name):
    """Key a replication setting has in this version, or None when the version has no such key."""
    if name in ("sync.group.offsets.enabled", "sync.group.offsets.interval.seconds"):
        return name if versions.supports(version, versions.OFFSET_SYNC) else None
    if name == "offset-syncs.topic.location":
        return name if versions.supports(version, versions.OFFSET_SYNCS_LOCATION) else None
    return versions.renamed_key(version, name)


def _normalise(name, value):
    if name in BOOLEAN_SETTINGS:
        return "true" if parse_bool(value) else "false"
    if name in INT_SETTINGS:
        number = parse_int(value)
        return str(number) if number is not None else text(value)
    return text(value)


def _providers_list(topo):
    custom = topo.custom.get("config.providers", "")
    names_ = [n.strip() for n in custom.split(",") if n.strip()]
    if "file" not in names_:
        names_.insert(0, "file")
    return ",".join(names_)


def _cluster_entries(out, topo, cluster, hostname):
    version = topo.version
    alias = cluster.alias
    conn = cluster.connection
    protocol = conn.get("security.protocol") or "PLAINTEXT"
    out.comment("cluster %s%s" % (alias, " (this Ambari cluster's Kafka)" if cluster.local else ""))
    out.put(alias + ".bootstrap.servers", conn.get("bootstrap.servers", ""), cluster.where("bootstrap.servers"))
    out.put(alias + ".security.protocol", protocol, cluster.where("security.protocol"))
    if protocol.startswith("SASL_"):
        mechanism = conn.get("sasl.mechanism") or "GSSAPI"
        out.put(alias + ".sasl.mechanism", mechanism, cluster.where("sasl.mechanism"))
        if mechanism == "GSSAPI":
            out.put(alias + ".sasl.kerberos.service.name", conn.get("sasl.kerberos.service.name") or "kafka",
                    cluster.where("sasl.kerberos.service.name"))
        explicit = conn.get("sasl.jaas.config")
        jaas = explicit or _jaas(topo, conn, mechanism, hostname)
        # A Kerberos JAAS line names a keytab and a principal, no password.
        out.put(alias + ".sasl.jaas.config", jaas, cluster.where("sasl.jaas.config"),
                secret=bool(explicit or mechanism != "GSSAPI") and not versions.is_provider_reference(jaas))
    if protocol in ("SSL", "SASL_SSL"):
        for store in ("truststore", "keystore"):
            location = conn.get("ssl.%s.location" % store)
            if not location:
                continue
            out.put("%s.ssl.%s.location" % (alias, store), location, cluster.where("ssl.%s.location" % store))
            out.put("%s.ssl.%s.type" % (alias, store), conn.get("ssl.%s.type" % store) or "JKS",
                    cluster.where("ssl.%s.type" % store))
            password = conn.get("ssl.%s.password" % store)
            if password:
                out.put("%s.ssl.%s.password" % (alias, store), password, cluster.where("ssl.%s.password" % store))
            if store == "keystore" and conn.get("ssl.key.password"):
                out.put(alias + ".ssl.key.password", conn["ssl.key.password"], cluster.where("ssl.key.password"))
        if "ssl.endpoint.identification.algorithm" in conn:
            out.put(alias + ".ssl.endpoint.identification.algorithm", conn["ssl.endpoint.identification.algorithm"],
                    cluster.where("ssl.endpoint.identification.algorithm"))
    for kind in CLIENT_SECTIONS:
        for key, value in cluster.client_overrides(kind).items():
            out.put("%s.%s.%s" % (alias, kind, key), value, cluster.where("%s.%s" % (kind, key)))
    # Worker setting MM2 ignores at the top level: each herder targeting this cluster reads it here.
    flush = topo.settings.get("offset.flush.interval.ms")
    out.put(alias + ".offset.flush.interval.ms", flush,
            topo.setting_origins.get("offset.flush.interval.ms", (names.REPLICATION, "offset.flush.interval.ms")))
    if topo.exactly_once and versions.supports(version, versions.EXACTLY_ONCE):
        origin = topo.setting_origins.get("exactly.once.enabled")
        if alias in topo.targets():
            out.put(alias + ".exactly.once.source.support", "enabled", origin)
        if alias in topo.sources():
            out.put(alias + ".consumer.isolation.level", "read_committed", origin)
    if topo.secrets_provider and versions.supports(version, versions.CONFIG_PROVIDERS_WORKER_BUG):
        # KAFKA-17192: 3.5.0-3.8.0 drop the top-level config.providers from worker configs, so
        # ${file:...} in connector configs would stay unresolved; the cluster-level copy reaches them.
        out.put(alias + ".config.providers", _providers_list(topo),
                topo.setting_origins.get("secrets.config.provider.enabled"))
    for key, value in cluster.extra.items():
        out.put("%s.%s" % (alias, key), value, cluster.where("config.%s" % key))


def _jaas(topo, conn, mechanism, hostname):
    if mechanism == "GSSAPI":
        principal = conn.get("sasl.kerberos.principal") or topo.kerberos_principal
        keytab = conn.get("sasl.kerberos.keytab") or topo.kerberos_keytab
        principal = principal.replace("_HOST", (hostname or "").lower())
        return '%s required useKeyTab=true storeKey=true keyTab="%s" principal="%s";' % (
            KRB5_MODULE, _jaas_quote(keytab), _jaas_quote(principal))
    return '%s required username="%s" password="%s";' % (
        LOGIN_MODULES[mechanism], _jaas_quote(conn.get("sasl.username", "")), _jaas_quote(conn.get("sasl.password", "")))


def _jaas_quote(value):
    # Kafka parses JAAS options with StreamTokenizer: backslash escapes work inside quotes.
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _flow_entries(out, topo, flow):
    version = topo.version
    prefix = flow.name + "."
    out.comment("flow %s" % flow.name)
    out.put(prefix + "enabled", "true" if flow.enabled else "false", flow.origin)
    if not flow.enabled:
        return
    for name, value in flow.settings.items():
        key = _setting_key(version, name)
        if key is None:
            continue
        if name == "sync.topic.acls.enabled" and topo.ranger:
            value = "false"
        normalised = _normalise(name, value)
        if normalised != _normalise(name, topo.settings.get(name)):
            out.put(prefix + key, normalised, (flow.origin[0], "%s.%s" % (flow.origin[1], name)))
    for key, value in flow.overrides.items():
        out.put(prefix + key, value, (flow.origin[0], "%s.config.%s" % (flow.origin[1], key)))
    if not versions.supports(version, versions.CLUSTER_CLIENT_OVERRIDES):
        _legacy_client_overrides(out, topo, flow)


def _cluster_client_items(topo, alias, kind):
    """(setting, value, origin) of a cluster's <alias>.<kind>.* overrides: YAML and custom properties."""
    items = []
    cluster = topo.clusters[alias]
    for key, value in cluster.client_overrides(kind).items():
        items.append((key, value, cluster.where("%s.%s" % (kind, key))))
    prefix = "%s.%s." % (alias, kind)
    for key, value in topo.custom.items():
        if key.startswith(prefix):
            items.append((key[len(prefix):], value, (names.CUSTOM, key)))
    return items


def _legacy_client_overrides(out, topo, flow):
    """Before 2.8 A.consumer.* / A.admin.* did not reach the replication clients: write them per flow
    (the flow-level consumer./producer./source.admin./target.admin. prefixes work on every version)."""
    if flow.source not in topo.clusters or flow.target not in topo.clusters:
        return
    plan = ((flow.source, "consumer", "consumer."), (flow.source, "producer", "producer."),
            (flow.source, "admin", "source.admin."), (flow.target, "admin", "target.admin."))
    first = True
    for alias, kind, flow_prefix in plan:
        for key, value, origin in _cluster_client_items(topo, alias, kind):
            full = "%s.%s%s" % (flow.name, flow_prefix, key)
            if out.has(full) or full in topo.custom:
                continue
            if first:
                out.comment("cluster client overrides repeated for this flow (Kafka < 2.8 ignores them per "
                            "cluster)")
                first = False
            out.put(full, value, origin)


def _custom_entries(out, topo, problems):
    if topo.custom:
        out.comment("custom properties (kafka-mm2-custom)")
    for key, value in topo.custom.items():
        origin = (names.CUSTOM, topo.custom_names.get(key, key))
        if key == "config.providers" and topo.secrets_provider:
            continue  # merged into the rendered list
        if out.has(key):
            existing = out.entries[key]
            if key.endswith(_OVERRIDABLE_SUFFIXES):
                if value not in ("preparing", "enabled", "disabled"):
                    problems.append(Problem(origin[0], origin[1], "'%s': use preparing (first step of turning "
                                                               "exactly-once on for a running cluster) or enabled"
                                            % value))
                out.put(key, value, origin)
                continue
            config_type, prop = existing.origin or (names.CUSTOM, key)
            if origin[1] != key:
                # A renamed key (topics.blacklist) meeting the rendered new one: MM2 would read only ours.
                message = ("is the old name of %s, which %s/%s already sets for Kafka %s (MM2 reads only the new "
                           "name, so this value would be ignored); put your value into %s/%s and remove this "
                           "custom property" % (key, config_type, prop, topo.version, config_type, prop))
            else:
                message = "also set from %s/%s; change it there and remove this custom property" % (config_type, prop)
            problems.append(Problem(origin[0], origin[1], message))
            continue
        out.put(key, value, origin)


def _final_key_check(out, topo, problems):
    """Every key must be one this Kafka version reads (the key table); never write anything else."""
    for entry in out.entries.values():
        message = keycheck.versions_check_key(topo.version, entry.key, topo.aliases)
        if message:
            config_type, prop = entry.origin or ("(rendered)", entry.key)
            problems.append(Problem(config_type, prop, message))
        reason = javaprops.check_value(entry.value)
        if reason:
            config_type, prop = entry.origin or ("(rendered)", entry.key)
            problems.append(Problem(config_type, prop, reason))


def _finish(topo, out, hostname, conf_dir, problems):
    version = topo.version
    secrets_path = os.path.join(conf_dir, SECRETS_FILE)
    main_items, secret_items = [], []
    main_has_secret = False
    properties = []
    for index, entry in enumerate(out.entries.values()):
        for comment in out.comments.get(index, []):
            main_items.append((None, ""))
            main_items.append((None, comment))
        value = entry.value
        if entry.secret and topo.secrets_provider:
            secret_items.append((entry.key, value))
            value = "${file:%s:%s}" % (secrets_path, entry.key)
        elif entry.secret:
            main_has_secret = True
        main_items.append((entry.key, value))
        properties.append((entry.key, value))
    header = ("MirrorMaker 2 configuration rendered by Ambari for Kafka %s on %s.\n"
              "Do not edit: Ambari rewrites it. Change kafka-mm2-* configurations instead." % (version, hostname))
    files = [RenderedFile(PROPERTIES_FILE, javaprops.dumps(main_items, header),
                          SECRET_MODE if main_has_secret else PLAIN_MODE, main_has_secret)]
    if topo.secrets_provider:
        files.append(RenderedFile(SECRETS_FILE, javaprops.dumps(secret_items, "MirrorMaker 2 secrets (Ambari)."),
                                  SECRET_MODE, True))
    internal_rest = versions.supports(version, versions.INTERNAL_REST)
    return Rendering(files, topo, list(topo.driver_targets), internal_rest,
                     "http://%s:%s" % (hostname, topo.internal_rest_port) if internal_rest else None, version,
                     properties, [p for p in problems if p.level != ERROR])
