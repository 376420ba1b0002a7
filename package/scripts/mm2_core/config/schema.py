"""The property catalog: every config type and property the service owns, defined once.

build.py generates configuration/*.xml from this module; the agent scripts, the service
advisor and the off-cluster tools read names and defaults from it.
"""
from mm2_core.config import names
from mm2_core.kafka import versions

# Where the Kafka key(s) a property sets live in connect-mirror-maker.properties (Property.scope):
GLOBAL = "global"     # the top level, once for every flow (MirrorMakerConfig's own and worker-wide keys)
CLUSTER = "cluster"   # <alias>.<key>, once per cluster
FLOW = "flow"         # the top level for every flow, and <src>-><tgt>.<key> where a flow differs
SCOPES = (GLOBAL, CLUSTER, FLOW)

# How a boolean reaches Ambari: as its toggle widget needs it. ambari-web's toggle_config_widget_view reads
# the two states from value-attributes <entries> (the first is "on"; with <type>boolean</type> alone
# it throws and leaves the rest of Customize Services empty), and every toggle of Ambari's own stacks is
# a two-entry value-list. The schema keeps value_type "boolean" for everything that parses values.
BOOLEAN_ENTRIES = (("true", "Enabled"), ("false", "Disabled"))


class Property(object):
    """One Ambari configuration property.

    value_type is Ambari's value-attributes type: string, int, long, boolean, password,
    content, value-list, directory, user.  property_type is Ambari's <property-type>
    (PASSWORD, USER, KERBEROS_PRINCIPAL, ...).  Passwords always carry both.

    What MirrorMaker 2 makes of the property: ``kafka_key``, the Kafka key it sets (a tuple when one value
    sets several keys; its newest name: versions.RENAMED_KEYS gives older versions' names; None for the
    mpack's own settings), ``scope`` (GLOBAL, CLUSTER or FLOW: where that key is written) and ``gate``
    (the versions.FEATURES feature a Kafka version needs to read it; without it the key is not written).
    """

    def __init__(self, name, default, display_name, description, value_type="string",
                 property_type=None, overridable=True, empty_value_valid=False, entries=None,
                 minimum=None, maximum=None, unit=None, require_input=False,
                 editable_only_at_install=False, read_only=False, content_file=None,
                 show_property_name=True, depends_on=(), visible=True, not_in_theme=None, kafka_key=None,
                 scope=None, gate=None):
        if value_type == "password" or property_type == "PASSWORD":
            value_type, property_type = "password", "PASSWORD"
            empty_value_valid = True
        self.name = name
        self.default = default
        self.display_name = display_name
        self.description = description
        self.value_type = value_type
        self.property_type = property_type
        self.overridable = overridable
        self.empty_value_valid = empty_value_valid
        self.entries = entries  # list of (value, label) for value-list
        self.minimum = minimum
        self.maximum = maximum
        self.unit = unit
        self.require_input = require_input
        self.editable_only_at_install = editable_only_at_install
        self.read_only = read_only
        self.content_file = content_file  # package/templates/<file> holds the default text
        self.show_property_name = show_property_name
        self.depends_on = tuple(depends_on)  # ((config_type, name), ...)
        self.visible = visible
        self.refresh_command = None   # (component, command), set below for the properties a running driver can take live
        # Every property is on a tab of themes/theme.json unless this says why not (build.py checks it).
        self.not_in_theme = not_in_theme
        if (kafka_key is None) != (scope is None) or scope not in SCOPES + (None,) or \
                gate is not None and gate not in versions.FEATURES:
            raise ValueError("%s: kafka_key and scope go together (scope one of %s), gate is a versions feature"
                             % (name, ", ".join(SCOPES)))
        self.kafka_key = kafka_key
        self.scope = scope
        self.gate = gate

    @property
    def ambari_value_type(self):
        """The value-attributes <type> written for Ambari (a boolean is a two-entry value-list)."""
        return "value-list" if self.value_type == "boolean" else self.value_type

    @property
    def ambari_entries(self):
        """The value-attributes <entries> written for Ambari, as (value, label) pairs, or None."""
        return list(BOOLEAN_ENTRIES) if self.value_type == "boolean" else self.entries

    @property
    def kafka_keys(self):
        """The Kafka keys the property sets, as a tuple (empty for the mpack's own settings)."""
        if self.kafka_key is None:
            return ()
        return self.kafka_key if isinstance(self.kafka_key, tuple) else (self.kafka_key,)

    def read_by(self, version):
        """Does this Kafka version read the property's key (its gate)?"""
        return self.gate is None or versions.supports(version, self.gate)

    @property
    def is_secret(self):
        return self.property_type == "PASSWORD"

    def __repr__(self):
        return "Property(%r)" % (self.name,)


class ConfigType(object):
    def __init__(self, name, description, properties, supports_adding_forbidden=True):
        self.name = name
        self.description = description
        self.properties = list(properties)
        self.supports_adding_forbidden = supports_adding_forbidden
        self._by_name = dict((p.name, p) for p in self.properties)
        if len(self._by_name) != len(self.properties):
            raise ValueError("duplicate property in %s" % name)

    def __getitem__(self, name):
        return self._by_name[name]

    def __contains__(self, name):
        return name in self._by_name

    def defaults(self):
        return dict((p.name, p.default) for p in self.properties)


PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
ROLES = ("source", "target")

# Why some properties are not on a theme tab (the web UI still lists them under Advanced <type>).
_TEMPLATE_TEXT = ("a whole file as template text: edited in its own text area under Advanced <type>, as the "
                  "stack services' *-env and log4j templates are")
_KERBEROS_IDENTITY = ("filled in by Ambari's Kerberos wizard from kerberos.json; changed on Admin > Kerberos, "
                      "not by hand")


def _choices(values):
    return [(v, v) for v in values]


# The service advisor re-recommends the local-Kafka target when these broker settings change.
_LOCAL_KAFKA_DEPS = (("kafka-broker", "listeners"), ("kafka-broker", "security.inter.broker.protocol"))
# ... and the target's security when the operator points the target at another local listener.
_TARGET_SECURITY_DEPS = _LOCAL_KAFKA_DEPS + ((names.CLUSTERS, "target.bootstrap.servers"),)


def _cluster_properties(role):
    """Simple-mode description of one cluster; role is 'source' or 'target'."""
    title = role.capitalize()
    target = role == "target"
    return [
        Property(role + ".alias", "",
                 title + " cluster alias",
                 ("Short name of the source cluster used in MM2 keys and in mirrored topic names "
                  "(under the prefixed policy its topic t becomes <source alias>.t on the target). "
                  "Letters, digits, '_' and '-' only." if not target else
                  "Short name of the target cluster used in MM2 keys (<source>-><target>) and, in active-active "
                  "replication, in the names of the topics mirrored back to the source (<target alias>.t). "
                  "Letters, digits, '_' and '-' only. Leave empty to let the advisor derive it from this "
                  "Ambari cluster's name."), empty_value_valid=True, overridable=False),
        Property(role + ".bootstrap.servers", "",
                 title + " bootstrap servers",
                 "Comma-separated host:port list of the %s cluster's brokers.%s" % (
                     role, " Leave empty to use this Ambari cluster's own Kafka brokers "
                     "(the advisor fills it in)." if target else ""),
                 empty_value_valid=target, require_input=not target, overridable=False,
                 depends_on=_LOCAL_KAFKA_DEPS if target else (), kafka_key="bootstrap.servers", scope=CLUSTER),
        Property(role + ".security.protocol", "PLAINTEXT",
                 title + " security protocol",
                 "How MM2 connects to the %s cluster: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL. Any but "
                 "PLAINTEXT shows the SASL or TLS settings below it." % role,
                 value_type="value-list", entries=_choices(PROTOCOLS), overridable=False,
                 depends_on=_TARGET_SECURITY_DEPS if target else (), kafka_key="security.protocol", scope=CLUSTER),
        Property(role + ".sasl.mechanism", "GSSAPI",
                 title + " SASL mechanism",
                 "SASL mechanism for SASL_PLAINTEXT / SASL_SSL: GSSAPI, PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512. "
                 "GSSAPI uses the MirrorMaker 2 Kerberos identity unless a principal and keytab are given below.",
                 value_type="value-list", entries=_choices(SASL_MECHANISMS), overridable=False,
                 depends_on=_TARGET_SECURITY_DEPS if target else (), kafka_key="sasl.mechanism", scope=CLUSTER),
        Property(role + ".sasl.kerberos.service.name", "kafka",
                 title + " Kerberos service name",
                 "Primary of the %s brokers' Kerberos principal (GSSAPI)." % role, overridable=False,
                 depends_on=_TARGET_SECURITY_DEPS if target else (),
                 kafka_key="sasl.kerberos.service.name", scope=CLUSTER),
        Property(role + ".sasl.kerberos.principal", "",
                 title + " Kerberos principal override",
                 "Principal for GSSAPI on this cluster. Empty: the service principal from "
                 "kafka-mm2-env (managed by Ambari's Kerberos wizard).",
                 empty_value_valid=True, overridable=False, kafka_key="sasl.jaas.config", scope=CLUSTER),
        Property(role + ".sasl.kerberos.keytab", "",
                 title + " Kerberos keytab override",
                 "Keytab for the principal above. Empty: the service keytab.",
                 empty_value_valid=True, overridable=False, kafka_key="sasl.jaas.config", scope=CLUSTER),
        Property(role + ".sasl.username", "",
                 title + " SASL username",
                 "User for PLAIN / SCRAM-SHA-256 / SCRAM-SHA-512.",
                 empty_value_valid=True, overridable=False, kafka_key="sasl.jaas.config", scope=CLUSTER),
        Property(role + ".sasl.password", "",
                 title + " SASL password",
                 "Password for PLAIN / SCRAM.", value_type="password", overridable=False,
                 kafka_key="sasl.jaas.config", scope=CLUSTER),
        Property(role + ".ssl.truststore.location", "",
                 title + " truststore path",
                 "Truststore for SSL / SASL_SSL on the MM2 hosts.",
                 empty_value_valid=True, overridable=False, kafka_key="ssl.truststore.location", scope=CLUSTER),
        Property(role + ".ssl.truststore.type", "JKS",
                 title + " truststore type", "JKS, PKCS12 or PEM.",
                 value_type="value-list", entries=_choices(("JKS", "PKCS12", "PEM")), overridable=False,
                 kafka_key="ssl.truststore.type", scope=CLUSTER),
        Property(role + ".ssl.truststore.password", "",
                 title + " truststore password", "Password of the truststore.",
                 value_type="password", overridable=False, kafka_key="ssl.truststore.password", scope=CLUSTER),
        Property(role + ".ssl.keystore.location", "",
                 title + " keystore path",
                 "Keystore for TLS client authentication (leave empty when the brokers do not "
                 "require client certificates).", empty_value_valid=True, overridable=False,
                 kafka_key="ssl.keystore.location", scope=CLUSTER),
        Property(role + ".ssl.keystore.type", "JKS",
                 title + " keystore type", "JKS, PKCS12 or PEM.",
                 value_type="value-list", entries=_choices(("JKS", "PKCS12", "PEM")), overridable=False,
                 kafka_key="ssl.keystore.type", scope=CLUSTER),
        Property(role + ".ssl.keystore.password", "",
                 title + " keystore password", "Password of the keystore.",
                 value_type="password", overridable=False, kafka_key="ssl.keystore.password", scope=CLUSTER),
        Property(role + ".ssl.key.password", "",
                 title + " key password", "Password of the private key in the keystore.",
                 value_type="password", overridable=False, kafka_key="ssl.key.password", scope=CLUSTER),
        Property(role + ".ssl.endpoint.identification.algorithm", "https",
                 title + " TLS hostname verification",
                 "'https' verifies broker host names against their certificates; empty disables it.",
                 empty_value_valid=True, overridable=False,
                 kafka_key="ssl.endpoint.identification.algorithm", scope=CLUSTER),
    ]


ENV = ConfigType(names.ENV, "MirrorMaker 2 process environment", [
    Property("mm2_user", "mm2", "MirrorMaker 2 user",
             "Service user that runs the MM2 process and owns its files.",
             value_type="user", property_type="USER", overridable=False,
             not_in_theme="a service account: Ambari shows USER properties on the Misc tab of the Add Service "
                          "wizard and under Advanced kafka-mm2-env; it is fixed after install"),
    Property("mm2_log_dir", "/var/log/kafka-mm2", "Log directory",
             "Where MM2 writes mirrormaker.log and its stdout.", value_type="directory"),
    Property("mm2_pid_dir", "/var/run/kafka-mm2", "PID directory",
             "Where the pid file is kept (recreated at start: /var/run is wiped on reboot).",
             value_type="directory", editable_only_at_install=True),
    Property("mm2_conf_dir", "/etc/kafka-mm2/conf", "Configuration directory",
             "Where Ambari writes connect-mirror-maker.properties, the log4j file and the env file.",
             value_type="directory"),
    Property("mm2_heap_opts", "-Xms1g -Xmx2g", "Heap options",
             "KAFKA_HEAP_OPTS for the MM2 JVM. 2 GB suits light loads; give busy flows 8 GB."),
    Property("mm2_jvm_opts", "-XX:+UseG1GC -XX:MaxGCPauseMillis=20", "JVM options",
             "Extra JVM options (KAFKA_JVM_PERFORMANCE_OPTS).", empty_value_valid=True),
    Property("kafka_install_source", "auto", "Kafka installation for MM2",
             "auto, stack, path or tarball. auto: the stack's Kafka if it has MirrorMaker 2 (Kafka 2.4+), "
             "else the path below, else the tarball. stack / path / tarball force one of them.",
             value_type="value-list", entries=_choices(("auto", "stack", "path", "tarball"))),
    Property("kafka_home", "/opt/kafka-mm2/current", "Separate Kafka home",
             "A Kafka distribution (2.4 or newer) with bin/connect-mirror-maker.sh, used when the "
             "stack's Kafka has no MM2 (HDP 3.1 ships Kafka 2.0). The tarball is unpacked here."),
    Property("kafka_tarball_url", "", "Kafka tarball URL or path",
             "Where install gets a Kafka distribution when none is at the path above: an http(s) "
             "URL in your local repository, or a file path on the host, e.g. "
             "http://repo.example.com/kafka/kafka_2.13-3.7.1.tgz.", empty_value_valid=True),
    Property("kafka_version_override", "", "Kafka version override",
             "Kafka version to render the configuration for (e.g. 3.7.1). Empty: detected from "
             "the installation's libs/kafka-clients-<version>.jar.", empty_value_valid=True),
    Property("mm2_java_home", "", "Java home",
             "JAVA_HOME for MM2. Empty: Ambari's java_home. Kafka 4.x needs Java 17.",
             empty_value_valid=True),
    Property("mm2_start_timeout_seconds", "120", "Start timeout",
             "How long start waits for the process to be alive (and its REST listener to answer).",
             value_type="int", minimum="5", maximum="1800", unit="seconds"),
    Property("mm2_stop_timeout_seconds", "60", "Stop timeout",
             "How long stop waits after SIGTERM before it sends SIGKILL.",
             value_type="int", minimum="1", maximum="1800", unit="seconds"),
    Property("mm2_run_mode", "dedicated", "Run mode",
             "dedicated: one connect-mirror-maker.sh process per driver (every change restarts every flow). "
             "connect: MM2's connectors on a Kafka Connect worker per driver (one target per host), driven "
             "over its loopback REST API: per-flow pause/resume/stop, live topic and setting changes, "
             "failed tasks restarted automatically.",
             value_type="value-list", entries=[("dedicated", "Dedicated"), ("connect", "Connect")],
             overridable=False),
    Property("mm2_autorestart_enabled", "true", "Restart failed connectors and tasks",
             "Connect mode: a healer process restarts FAILED connectors and tasks with back-off.",
             value_type="boolean", overridable=False),
    Property("mm2_autorestart_max_restarts", "10", "Automatic restarts before giving up",
             "Connect mode: restarts of one connector (with its failed tasks) before the healer gives up on it "
             "and the tasks alert says so.", value_type="int", overridable=False, minimum="1", maximum="1000"),
    Property("mm2_autorestart_backoff_unit_seconds", "60", "Back-off unit of automatic restarts",
             "The n-th restart waits unit x n x (n+1), at most 60 units: with 60 s, Strimzi's 0, 2, 6, 12, 20, "
             "30, 42, 56, 60 minutes.", value_type="int", minimum="1", maximum="3600", unit="seconds",
             overridable=False),
    # connect mode's REST listener (the control plane): loopback, or HTTPS + Basic auth (mm2_core.connect.rest_security)
    Property("mm2_connect_rest_tls_enabled", "false", "REST API over HTTPS with Basic auth",
             "Connect mode: off, the Kafka Connect worker's REST API listens on 127.0.0.1 only (plain HTTP, reached "
             "only from the host). On, it listens on this host's name over HTTPS with the keystore below and "
             "requires the user and password below (Connect's BasicAuthSecurityRestExtension); the agent's "
             "commands, the healer and the alerts use both.", value_type="boolean", overridable=False),
    Property("mm2_connect_rest_keystore_location", "", "REST keystore",
             "Keystore (JKS or PKCS12) with this host's certificate and key, on every driver host; usually the "
             "host's TLS keystore. Its certificate must name the host (Ambari's host name).",
             empty_value_valid=True),
    Property("mm2_connect_rest_keystore_type", "JKS", "REST keystore type", "JKS or PKCS12.",
             value_type="value-list", entries=_choices(("JKS", "PKCS12"))),
    Property("mm2_connect_rest_keystore_password", "", "REST keystore password",
             "Password of the REST keystore and of its key.", value_type="password"),
    Property("mm2_connect_rest_ca_file", "", "REST CA file (PEM)",
             "PEM file with the CA certificates that signed the hosts' certificates: the commands, the healer "
             "and the alerts verify the REST listener with it.", empty_value_valid=True),
    Property("mm2_connect_rest_username", "mm2-control", "REST user",
             "HTTP Basic user of the REST API (kept with its password in a 0600 file beside the worker's "
             "configuration).", overridable=False),
    Property("mm2_connect_rest_password", "", "REST password",
             "HTTP Basic password of the REST user.", value_type="password", overridable=False),
    Property("mm2_local_kafka_wait_seconds", "300", "Wait for this cluster's Kafka",
             "When a flow this driver runs reads from or writes to this Ambari cluster's own Kafka, start "
             "first waits up to this long for one of its brokers to accept connections (after a host "
             "reboot, Service Auto Start may start MirrorMaker 2 before the brokers). 0: do not wait.",
             value_type="int", minimum="0", maximum="1200", unit="seconds"),
    Property("mm2_metrics_enabled", "true", "Expose metrics over HTTP",
             "Run the Prometheus JMX exporter Java agent so alerts can read MM2 metrics.",
             value_type="boolean"),
    Property("mm2_metrics_port", "9405", "Metrics port",
             "HTTP port of the JMX exporter on each driver host.",
             value_type="int", minimum="1024", maximum="65535"),
    Property("mm2_metrics_host", "", "Metrics bind address",
             "Interface the exporter listens on. Empty: every interface. _HOST: each host's own name "
             "(its FQDN's interface, where the alerts of every driver host read it). Or an IPv4 "
             "address or host name, e.g. 127.0.0.1 (then only this host's alerts read it; use a "
             "config group per host for a per-host address).", empty_value_valid=True),
    Property("jmx_exporter_jar", "/usr/share/java/jmx_prometheus_javaagent.jar",
             "JMX exporter agent jar",
             "Path on every driver host, or http(s) URL that Install downloads it from, of the Prometheus "
             "JMX exporter agent jar (jmx_prometheus_javaagent-<version>.jar, 0.20.0 or 1.x). Neither the "
             "stack nor the mpack ships it. Without it MirrorMaker 2 starts without metrics and the "
             "MirrorMaker 2 Process alert warns.", empty_value_valid=True),
    Property("mm2_metrics_ssl_enabled", "false", "Serve metrics over HTTPS",
             "The exporter serves /metrics over TLS with the keystore below; the Ambari alerts then "
             "use HTTPS and verify the certificate against the CA file below.",
             value_type="boolean"),
    Property("mm2_metrics_ssl_keystore_location", "", "Metrics keystore path",
             "Keystore (JKS or PKCS12) with the certificate and key the exporter serves, on every "
             "driver host. Usually the host's TLS keystore.", empty_value_valid=True),
    Property("mm2_metrics_ssl_keystore_type", "JKS", "Metrics keystore type", "JKS or PKCS12.",
             value_type="value-list", entries=_choices(("JKS", "PKCS12"))),
    Property("mm2_metrics_ssl_keystore_password", "", "Metrics keystore password",
             "Password of the metrics keystore.", value_type="password"),
    Property("mm2_metrics_ssl_certificate_alias", "", "Metrics certificate alias",
             "Alias of the key entry in the metrics keystore that the exporter serves (the exporter's "
             "httpServer.ssl.certificate.alias, which it requires). Empty: the alias of the keystore's "
             "only private key.", empty_value_valid=True),
    Property("mm2_metrics_ssl_ca_file", "", "Metrics CA file (PEM)",
             "PEM file with the CA certificates the alerts trust for the exporter's certificate. "
             "Empty: the system CA bundle.", empty_value_valid=True),
    Property("mm2_metrics_ssl_verify", "true", "Verify the metrics certificate",
             "Verify the exporter's certificate and host name. Turn off only to diagnose.",
             value_type="boolean"),
    Property("mm2_metrics_auth_username", "", "Metrics user",
             "HTTP Basic user the exporter requires (empty: no authentication). Use with HTTPS.",
             empty_value_valid=True),
    Property("mm2_metrics_auth_password", "", "Metrics password",
             "HTTP Basic password of the metrics user.", value_type="password"),
    Property("mm2_principal_name", "", "MirrorMaker 2 principal",
             "Kerberos principal of MM2 (set by Ambari's Kerberos wizard).",
             property_type="KERBEROS_PRINCIPAL", empty_value_valid=True, not_in_theme=_KERBEROS_IDENTITY),
    Property("mm2_keytab", "", "MirrorMaker 2 keytab",
             "Keytab of the principal above (set by Ambari's Kerberos wizard).",
             empty_value_valid=True, not_in_theme=_KERBEROS_IDENTITY),
    Property("mpack_version", "", "Mpack release of these settings",
             "The mpack release `mm2-ambari upgrade` last reconciled these settings for (new properties "
             "added, alert definitions updated). Its change flags the drivers Restart Required, so they "
             "pick up the new release's scripts. Empty: never reconciled (installed with this release, "
             "or not upgraded yet).", empty_value_valid=True, overridable=False, read_only=True,
             not_in_theme="bookkeeping that mm2-ambari upgrade writes; nothing to set by hand (shown under "
                          "Advanced kafka-mm2-env)"),
    Property("content", "", "mm2-env.sh template",
             "Environment of the MM2 process (Jinja template).", value_type="content",
             content_file="mm2-env.sh.j2", not_in_theme=_TEMPLATE_TEXT),
])

CLUSTERS = ConfigType(names.CLUSTERS, "Clusters MirrorMaker 2 connects", [
    Property("topology.mode", "simple", "Topology mode",
             "simple: one source and one target described below. advanced: any number of "
             "clusters and flows in the kafka-mm2-topology YAML, their security included (the Security tab "
             "is then empty).",
             value_type="value-list", entries=[("simple", "Simple"), ("advanced", "Advanced (YAML)")],
             overridable=False),
] + _cluster_properties("source") + _cluster_properties("target"))

# One value for the replication factor of every internal topic MM2 and its Connect workers create.
_INTERNAL_TOPICS_RF_KEYS = ("heartbeats.topic.replication.factor", "checkpoints.topic.replication.factor",
                            "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
                            "config.storage.replication.factor", "status.storage.replication.factor")

REPLICATION = ConfigType(names.REPLICATION, "Replication flows (simple mode) and behaviour", [
    Property("direction", "one-way", "Direction",
             "one-way: source -> target. active-active: both directions (needs the prefixed policy).",
             value_type="value-list", entries=[("one-way", "One-way"), ("active-active", "Active-active")],
             overridable=False),
    Property("topics", ".*", "Topics to replicate",
             "Comma-separated Java regexes of source topics to mirror.", overridable=False,
             kafka_key="topics", scope=FLOW),
    Property("topics.exclude", ".*[\\-\\.]internal, .*\\.replica, __.*", "Topics to exclude",
             "Comma-separated Java regexes of topics never mirrored (topics.blacklist before Kafka 2.7).",
             empty_value_valid=True, overridable=False, kafka_key="topics.exclude", scope=FLOW),
    Property("groups", ".*", "Consumer groups to checkpoint",
             "Comma-separated Java regexes of consumer groups whose offsets are translated.",
             overridable=False, kafka_key="groups", scope=FLOW),
    Property("groups.exclude", "console-consumer-.*, connect-.*, __.*", "Groups to exclude",
             "Comma-separated Java regexes of groups never checkpointed.",
             empty_value_valid=True, overridable=False, kafka_key="groups.exclude", scope=FLOW),
    Property("sync.group.offsets.enabled", "false", "Sync consumer offsets",
             "Write translated offsets of idle consumer groups to the target (Kafka 2.7+), so "
             "consumers can fail over without replaying.", value_type="boolean", overridable=False,
             kafka_key="sync.group.offsets.enabled", scope=FLOW, gate=versions.OFFSET_SYNC),
    Property("sync.group.offsets.interval.seconds", "60", "Offset sync interval",
             "How often translated group offsets are written.",
             value_type="int", minimum="1", maximum="86400", unit="seconds", overridable=False,
             kafka_key="sync.group.offsets.interval.seconds", scope=FLOW, gate=versions.OFFSET_SYNC),
    Property("replication.policy", "prefixed", "Replication policy",
             "prefixed: topic t from cluster A becomes A.t (DefaultReplicationPolicy). identity: "
             "names are kept (IdentityReplicationPolicy, Kafka 3.0+, one-way only).",
             value_type="value-list", entries=[("prefixed", "Prefixed"), ("identity", "Identity")],
             overridable=False, kafka_key="replication.policy.class", scope=GLOBAL),
    Property("replication.policy.separator", ".", "Policy separator",
             "Separator between the source alias and the topic name.", overridable=False,
             kafka_key="replication.policy.separator", scope=GLOBAL),
    Property("emit.heartbeats.interval.seconds", "5", "Heartbeat interval",
             "How often heartbeats are emitted (the heartbeat-gap alert relies on them).",
             value_type="int", minimum="1", maximum="3600", unit="seconds", overridable=False,
             kafka_key="emit.heartbeats.interval.seconds", scope=FLOW),
    Property("emit.checkpoints.interval.seconds", "60", "Checkpoint interval",
             "How often consumer-group checkpoints are emitted.",
             value_type="int", minimum="1", maximum="86400", unit="seconds", overridable=False,
             kafka_key="emit.checkpoints.interval.seconds", scope=FLOW),
    Property("refresh.topics.interval.seconds", "600", "Topic refresh interval",
             "How often new source topics matching the patterns are discovered.",
             value_type="int", minimum="10", maximum="86400", unit="seconds", overridable=False,
             kafka_key="refresh.topics.interval.seconds", scope=FLOW),
    Property("refresh.groups.interval.seconds", "600", "Group refresh interval",
             "How often new consumer groups are discovered.",
             value_type="int", minimum="10", maximum="86400", unit="seconds", overridable=False,
             kafka_key="refresh.groups.interval.seconds", scope=FLOW),
    Property("sync.topic.configs.enabled", "true", "Sync topic configs",
             "Copy topic configuration changes to mirrored topics.", value_type="boolean",
             overridable=False, kafka_key="sync.topic.configs.enabled", scope=FLOW),
    Property("sync.topic.acls.enabled", "false", "Sync topic ACLs",
             "Copy topic ACLs to the target. Turn on only when both clusters run an authorizer that serves "
             "Kafka's ACL API (authorizer.class.name: AclAuthorizer or StandardAuthorizer): without one MM2 "
             "logs an ERROR (SecurityDisabledException) at every ACL sync. Turned off when Ranger authorizes "
             "Kafka.",
             value_type="boolean", overridable=False,
             depends_on=(("ranger-kafka-plugin-properties", "ranger-kafka-plugin-enabled"),),
             kafka_key="sync.topic.acls.enabled", scope=FLOW),
    Property("offset-syncs.topic.location", "source", "Offset-syncs topic location",
             "source (default) or target (MM2 needs only read access to the source; Kafka 3.0+).",
             value_type="value-list", entries=[("source", "Source"), ("target", "Target")], overridable=False,
             kafka_key="offset-syncs.topic.location", scope=FLOW, gate=versions.OFFSET_SYNCS_LOCATION),
    Property("replication.factor", "3", "Mirrored topic replication factor",
             "Replication factor of topics MM2 creates on the target (-1: broker default, Kafka 2.4+ brokers).",
             value_type="int", minimum="-1", maximum="10", overridable=False,
             kafka_key="replication.factor", scope=FLOW),
    Property("internal.topics.replication.factor", "3", "Internal topics replication factor",
             "Replication factor of heartbeats, checkpoints, offset-syncs and MM2's Connect "
             "offsets/configs/status topics.",
             value_type="int", minimum="-1", maximum="10", overridable=False,
             kafka_key=_INTERNAL_TOPICS_RF_KEYS, scope=GLOBAL),
    Property("tasks.max", "4", "Tasks per connector",
             "Parallelism of each flow: at most the number of replicated partitions.",
             value_type="int", minimum="1", maximum="1000", overridable=False, kafka_key="tasks.max", scope=FLOW),
    Property("offset.flush.interval.ms", "10000", "Offset flush interval",
             "How often MM2 commits its source positions; bounds the replay after a restart.",
             value_type="int", minimum="1000", maximum="600000", unit="milliseconds", overridable=False,
             kafka_key="offset.flush.interval.ms", scope=CLUSTER),
    Property("exactly.once.enabled", "false", "Exactly-once",
             "Transactional replication (Kafka 3.5+, needs internal REST and read_committed consumers).",
             value_type="boolean", overridable=False,
             kafka_key=("exactly.once.source.support", "consumer.isolation.level"), scope=CLUSTER,
             gate=versions.EXACTLY_ONCE),
    Property("secrets.config.provider.enabled", "false", "Keep secrets in a separate file",
             "Write passwords to a 0600 secrets file referenced through Kafka's FileConfigProvider "
             "instead of the main properties file.", value_type="boolean", overridable=False,
             kafka_key=("config.providers", "config.providers.file.class"), scope=GLOBAL),
    # The Verify Replication command (custom commands take no parameters from the UI).
    Property("verify.flows", "", "Verify: flows",
             "Flows the Verify Replication command checks, comma-separated SOURCE->TARGET "
             "(e.g. primary->backup). Empty: every flow.",
             empty_value_valid=True, overridable=False),
    Property("verify.topics", "", "Verify: topics",
             "Comma-separated Java regexes of source topics to verify. Empty: the topics each flow "
             "replicates. Compacted topics can show false losses; leave them out.",
             empty_value_valid=True, overridable=False),
    Property("verify.lookback.minutes", "60", "Verify: time range",
             "Verify Replication compares the records produced in the last N minutes.",
             value_type="int", minimum="1", maximum="43200", unit="minutes", overridable=False),
    Property("verify.pending.window.seconds", "60", "Verify: in-flight window",
             "Source records this close to the end of the range that are not on the target yet "
             "are reported as pending, not missing. Keep it above the replication latency.",
             value_type="int", minimum="0", maximum="86400", unit="seconds", overridable=False),
    Property("verify.spark.mode", "auto", "Verify: where Spark runs",
             "auto, yarn or local. auto: on YARN when the cluster has YARN and Spark and this host a Spark "
             "client, otherwise local[*] on this host. yarn / local force one.",
             value_type="value-list", entries=_choices(("auto", "yarn", "local")), overridable=False),
    Property("verify.spark.home", "", "Verify: Spark home",
             "Spark installation holding bin/spark-submit. Empty: SPARK_HOME, the stack's Spark "
             "client, /usr/lib/spark, or a pip-installed pyspark.",
             empty_value_valid=True, overridable=False),
    Property("verify.spark.submit.args", "", "Verify: extra spark-submit arguments",
             "Added to spark-submit. Spark's Kafka connector is not part of Spark: add it here, e.g. "
             "--packages org.apache.spark:spark-sql-kafka-0-10_2.12:3.3.2 or --jars with "
             "spark-sql-kafka-0-10, kafka-clients, commons-pool2 and spark-token-provider-kafka.",
             empty_value_valid=True, overridable=False),
])

TOPOLOGY = ConfigType(names.TOPOLOGY, "Advanced topology (YAML)", [
    Property("content", "", "Topology YAML",
             "Clusters and flows when topology mode is advanced; the schema is in the mpack's documentation, page "
             "Configure, section Topology YAML.",
             value_type="content", content_file="topology.yaml.example",
             empty_value_valid=True, overridable=False),
])

DRIVER = ConfigType(names.DRIVER, "Per-host driver settings (use config groups)", [
    Property("target.clusters", "", "Target clusters served by this host",
             "Comma-separated aliases passed as --clusters: this host runs only the flows into "
             "these clusters. Empty: all targets. Run MM2 near its target.",
             empty_value_valid=True),
    Property("internal.rest.port", "8083", "Internal REST port",
             "Listener of MM2's internal REST server (Kafka 3.5+, several driver hosts).",
             value_type="int", minimum="1024", maximum="65535",
             kafka_key=("listeners", "rest.advertised.port"), scope=GLOBAL, gate=versions.INTERNAL_REST),
    Property("connect.group.id", "mm2-connect", "Connect group (connect mode)",
             "Connect mode: group.id of the worker; its internal topics on the target are <group>-configs.internal, "
             "<group>-offsets.internal and <group>-status.internal. Give each Ambari cluster writing into the "
             "same target its own group."),
    Property("connect.rest.port", "8093", "Connect REST port (connect mode)",
             "Connect mode: the Kafka Connect worker's REST API, bound to 127.0.0.1 only (the control plane "
             "of the flows on this host), or HTTPS with Basic auth (kafka-mm2-env/mm2_connect_rest_tls_enabled).",
             value_type="int", minimum="1024", maximum="65535"),
])

LOG4J = ConfigType(names.LOG4J, "MirrorMaker 2 logging", [
    Property("mm2_log_max_file_size", "256", "Maximum log file size",
             "Size at which mirrormaker.log rolls over.",
             value_type="int", minimum="1", maximum="10240", unit="MB"),
    Property("mm2_log_max_backup_index", "10", "Number of rolled log files kept",
             "How many rolled log files are kept.", value_type="int", minimum="1", maximum="1000"),
    Property("content", "", "log4j template (Kafka up to 3.x)",
             "log4j 1 properties used with Kafka 2.4 to 3.9.", value_type="content",
             content_file="log4j.properties.j2", not_in_theme=_TEMPLATE_TEXT),
    Property("log4j2_content", "", "log4j2 template (Kafka 4.x)",
             "log4j2 YAML used with Kafka 4.x.", value_type="content",
             content_file="log4j2.yaml.j2", not_in_theme=_TEMPLATE_TEXT),
])

CUSTOM = ConfigType(names.CUSTOM, "Custom MM2 properties, passed through after validation", [],
                    supports_adding_forbidden=False)

# Not in <configuration-dependencies> (names.NO_RESTART_CONFIG_TYPES): a save never flags "Restart Required".
LIVE = ConfigType(names.LIVE, "Live flow settings (connect mode, applied without a restart)", [
    Property("flow.settings", "", "Live flow settings",
             "Connect mode only: per-flow settings the running drivers apply without a restart (Actions > Apply Live "
             "Changes, or mm2-ambari run APPLY_LIVE_CHANGES --all-hosts), one per line as "
             "SOURCE->TARGET.setting = value, e.g. A->B.topics = orders.*, payments. Settings: topics, "
             "topics.exclude, groups, groups.exclude, sync.group.offsets.enabled, sync.group.offsets.interval.seconds, "
             "emit.checkpoints.interval.seconds, refresh.topics.interval.seconds, refresh.groups.interval.seconds, "
             "sync.topic.configs.enabled, tasks.max. A line overrides that flow's value from Replication or the "
             "topology. Saving it never marks the drivers Restart Required; dedicated mode refuses it.",
             value_type="content", empty_value_valid=True, overridable=False),
])

CONFIG_TYPES = (ENV, CLUSTERS, REPLICATION, TOPOLOGY, DRIVER, LOG4J, CUSTOM, LIVE)

# A change of only these properties is offered as "Refresh configs" (RECONFIGURE with reconfigureAction
# reload_configs, Ambari's <supported-refresh-commands>) instead of a restart: in connect mode the driver PUTs the
# changed connector configs into its running Connect worker (only the changed flows' connectors restart); when
# the change reaches the worker's own settings (e.g. the target's connection), or in dedicated mode, the command
# restarts the driver by itself. Everything else (env, log4j, driver, custom) keeps "Restart Required".
REFRESH_COMMAND = "reload_configs"
for _type in (CLUSTERS, REPLICATION, TOPOLOGY):
    for _prop in _type.properties:
        _prop.refresh_command = (names.COMPONENT, REFRESH_COMMAND)
BY_NAME = dict((t.name, t) for t in CONFIG_TYPES)

assert tuple(t.name for t in CONFIG_TYPES) == names.OWN_CONFIG_TYPES


def defaults():
    """{config type: {property: default}} for every owned type."""
    return dict((t.name, t.defaults()) for t in CONFIG_TYPES)


def secret_properties():
    """[(config type, property name)] of every PASSWORD property."""
    return [(t.name, p.name) for t in CONFIG_TYPES for p in t.properties if p.is_secret]
