"""Render the files MirrorMaker 2 reads, right by construction for the chosen Kafka version.

``render_mm2`` turns Ambari configurations into ``connect-mirror-maker.properties`` (and, when the
FileConfigProvider option is on, ``mm2-secrets.properties``).  Every key written is checked
against the key table of the version (mm2_core.kafka.versions); a key the version does not define is
never written.  Values go through mm2_core.formats.javaprops, so java.util.Properties.load reads back
exactly what was meant.

File modes: a file holding a secret (password, JAAS config, PEM key) is 0600; a file without
one is 0640 (owner mm2, group hadoop, readable by the alert scripts).

Every setting of a flow, of a cluster and of the top level comes from the resolved model
(mm2_core.model.resolved: one precedence, the keys as the version names them, the version's gates); this
module adds each cluster's connection and JAAS line, the custom keys and the secrets file, and writes.
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
from mm2_core.config.config_values import text
from mm2_core.config.problems import ERROR, WARN, ConfigError, problem as Problem, without_shadowed_warnings
from mm2_core.connect import live
from mm2_core.formats import javaprops
from mm2_core.kafka import versions
from mm2_core.model import keycheck, parse, resolved
from mm2_core.model.topology import CLIENT_SECTIONS

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
    answers = resolved.resolve(topology)
    builder, problems = _render_entries(answers, hostname)
    errors = [p for p in problems if p.level == ERROR]
    if errors:
        raise ConfigError(without_shadowed_warnings(list(topology.problems) + problems))
    return _finish(answers, builder, hostname, conf_dir, list(topology.problems) + problems)


def connect_files(connect_plan, version, security, conf_dir):
    """The files connect mode adds to a host's rendering: the worker, the connectors' secrets and, with HTTPS, the
    REST listener's Basic auth files (connect_plan: mm2_core.connect.connect_mode.ConnectPlan; security: its
    RestSecurity). The agent writes them at CONFIGURE; `mm2-ambari render` previews them (one source for both)."""
    from mm2_core.connect import connect_mode, rest_security
    header = ("Kafka Connect worker of MirrorMaker 2 (connect mode) rendered by Ambari for Kafka %s, target %s.\n"
              "Do not edit: Ambari rewrites it." % (version, connect_plan.target))
    mode = SECRET_MODE if connect_plan.worker_has_secret else PLAIN_MODE
    files = [RenderedFile(connect_mode.WORKER_FILE, javaprops.dumps(connect_plan.worker, header), mode,
                          connect_plan.worker_has_secret),
             RenderedFile(connect_mode.SECRETS_FILE, javaprops.dumps(connect_plan.secrets,
                                                                    "Secrets of the MM2 connectors (Ambari)."),
                          SECRET_MODE, True)]
    if security.tls:   # Connect's PropertyFileLoginModule reads user=password; both files 0600 (the worker's user)
        credentials = os.path.join(conf_dir, rest_security.CREDENTIALS_FILE)
        files.append(RenderedFile(rest_security.CREDENTIALS_FILE, javaprops.dumps(
            security.credentials_items(), "Connect REST Basic auth (Ambari)."), SECRET_MODE, True))
        files.append(RenderedFile(rest_security.JAAS_FILE, security.jaas_text(credentials), SECRET_MODE, False))
    return files


def check_rendering(topology, hostname):
    """Problems rendering would report (used by validate)."""
    _, problems = _render_entries(resolved.resolve(topology), hostname)
    return problems


def validate(configurations, kafka_version, local_kafka=None):
    """Every problem (ERROR and WARN) the configurations have for this Kafka version.

    Parses and validates the model, then runs the same checks as rendering (with a placeholder
    host), so the advisor, the REST tool and the agent reject exactly the same input. Connect mode's own
    settings too (mm2_core.connect.live.config_problems: kafka-mm2-live/flow.settings, the REST listener's
    protection), which the agent checks at CONFIGURE and APPLY_LIVE_CHANGES.
    """
    topo, collector = parse.parse(configurations, kafka_version, local_kafka)
    if collector.has_errors or topo is None:
        return _unique(collector.problems)
    topo.problems = collector.problems
    problems = list(collector.problems)
    problems.extend(check_rendering(topo, "mm2-host.invalid"))
    problems.extend(live.config_problems(configurations, topo))
    return _unique(without_shadowed_warnings(problems))


def _unique(problems):
    seen, out = set(), []
    for found in problems:
        if found.as_tuple() not in seen:
            seen.add(found.as_tuple())
            out.append(found)
    return out


# ---------------------------------------------------------------------------------------------

def _render_entries(answers, hostname):
    """The entries of the main file, in order: what the resolved model says, and how this host connects."""
    topo = answers.topology
    out = _Builder()
    problems = []
    out.put("clusters", ", ".join(topo.aliases), (names.CLUSTERS, "topology.mode"))
    for cluster in topo.clusters.values():
        _cluster_entries(out, topo, answers, cluster, hostname, problems)
    flows = iter(answers.flows)
    for flow in topo.flows:
        out.comment("flow %s" % flow.name)
        out.put(flow.name + ".enabled", "true" if flow.enabled else "false", flow.origin)
        if flow.enabled:
            _flow_entries(out, flow, next(flows))
    quiet = answers.quiet_pair_entries()
    if quiet:
        out.comment("pairs that are no flow and carry no flow's heartbeats: no herder (KAFKA-10710)")
        _put_all(out, quiet)
    out.comment("replication settings of every flow (a flow's own values are above)")
    _put_all(out, answers.settings)
    if answers.internal_rest:
        out.comment("internal REST server of this host (KIP-710): lets several MM2 hosts share the work")
        port = topo.internal_rest_port
        origin = (names.DRIVER, "internal.rest.port")
        out.put("dedicated.mode.enable.internal.rest", "true", origin)
        out.put("listeners", "http://%s:%s" % (hostname, port), origin)
        out.put("rest.advertised.host.name", hostname, origin)
        out.put("rest.advertised.port", port, origin)
    if answers.secrets_provider:
        origin = topo.setting_origins.get("secrets.config.provider.enabled")
        out.comment("secrets are read from %s through Kafka's FileConfigProvider" % SECRETS_FILE)
        out.put("config.providers", answers.providers(), origin)
        out.put("config.providers.file.class", FILE_PROVIDER_CLASS, origin)
    _custom_entries(out, answers, problems)
    _final_key_check(out, topo, problems)
    return out, problems


def _put_all(out, entries):
    for entry in entries:
        out.put(entry.key, entry.value, entry.origin)


def _cluster_entries(out, topo, answers, cluster, hostname, problems):
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
            _cluster_client_entry(out, answers, problems, "%s.%s.%s" % (alias, kind, key), value,
                                  cluster.where("%s.%s" % (kind, key)))
    _put_all(out, answers.cluster_entries(alias))
    for key, value in cluster.extra.items():
        out.put("%s.%s" % (alias, key), value, cluster.where("config.%s" % key))


def _cluster_client_entry(out, answers, problems, key, value, origin):
    """<alias>.<kind>.<key>: written per cluster where the version reads it there; before Kafka 2.8 consumer and admin
    overrides are read only per flow, where resolve() repeats them (FlowSettings.client_entries), and a warning
    names one that no enabled flow takes."""
    topo = answers.topology
    kind = key.split(".")[1]
    if versions.cluster_client_override_read(topo.version, kind):
        out.put(key, value, origin)
    elif not any(entry.origin == origin for flow in answers.flows for entry in flow.client_entries):
        side = "source" if kind == "consumer" else "source or target"
        first = versions.feature_first(versions.CLUSTER_CLIENT_OVERRIDES).line
        problems.append(Problem(origin[0], origin[1], "has no effect on Kafka %s: MirrorMaker 2 reads %s overrides "
                                "only per flow before %s, and no enabled flow takes '%s' (its cluster is the %s of "
                                "none); remove it or enable such a flow" % (topo.version, kind, first, key, side),
                                level=WARN))


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


def _flow_entries(out, flow, settings):
    """An enabled flow's own entries: where its settings differ from the top level, its YAML
    ``config:`` keys, and (before Kafka 2.8) the cluster client overrides it must repeat."""
    _put_all(out, settings.entries)
    for key, value in flow.overrides.items():
        out.put(flow.name + "." + key, value, (flow.origin[0], "%s.config.%s" % (flow.origin[1], key)))
    if settings.client_entries:
        out.comment("cluster client overrides repeated for this flow (Kafka < 2.8 ignores them per cluster)")
        _put_all(out, settings.client_entries)


def _custom_entries(out, answers, problems):
    topo = answers.topology
    if topo.custom:
        out.comment("custom properties (kafka-mm2-custom)")
    for key, value in topo.custom.items():
        origin = (names.CUSTOM, topo.custom_names.get(key, key))
        if key == "config.providers" and answers.secrets_provider:
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
        alias, _, rest = key.partition(".")
        if alias in topo.clusters and rest.split(".", 1)[0] in CLIENT_SECTIONS and "." in rest:
            _cluster_client_entry(out, answers, problems, key, value, origin)
            continue
        out.put(key, value, origin)


def _final_key_check(out, topo, problems):
    """Every key must be one this Kafka version reads (the key table); never write anything else."""
    # the clusters' mapping stands for the alias list: 'in' without a scan, iterated in the same order (keys grow
    # with the pairs of clusters, so a list scanned per key costs clusters^3; topo.aliases is also a new list per read)
    aliases = topo.clusters
    for entry in out.entries.values():
        message = keycheck.versions_check_key(topo.version, entry.key, aliases)
        if message:
            config_type, prop = entry.origin or ("(rendered)", entry.key)
            problems.append(Problem(config_type, prop, message))
        reason = javaprops.check_value(entry.value)
        if reason:
            config_type, prop = entry.origin or ("(rendered)", entry.key)
            problems.append(Problem(config_type, prop, reason))


def _finish(answers, out, hostname, conf_dir, problems):
    topo, version = answers.topology, answers.version
    secrets_path = os.path.join(conf_dir, SECRETS_FILE)
    main_items, secret_items = [], []
    main_has_secret = False
    properties = []
    for index, entry in enumerate(out.entries.values()):
        for comment in out.comments.get(index, []):
            main_items.append((None, ""))
            main_items.append((None, comment))
        value = entry.value
        if entry.secret and answers.secrets_provider:
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
    if answers.secrets_provider:
        files.append(RenderedFile(SECRETS_FILE, javaprops.dumps(secret_items, "MirrorMaker 2 secrets (Ambari)."),
                                  SECRET_MODE, True))
    internal_rest = answers.internal_rest
    return Rendering(files, topo, answers.driver_targets, internal_rest,
                     "http://%s:%s" % (hostname, topo.internal_rest_port) if internal_rest else None, version,
                     properties, [p for p in problems if p.level != ERROR])
