"""This Ambari cluster's own Kafka as MM2 needs it: listeners, protocol, brokers.

Read from kafka-broker / kafka-env / cluster-env by the advisor, the agent and the REST tool
alike (describe_local_kafka gives a plain dict; LocalKafka is the model's typed view of it).
"""
import re

from mm2_core.config import schema
from mm2_core.config.config_values import configs, parse_bool, text

KNOWN_PROTOCOLS = schema.PROTOCOLS
# Old HDP names for SASL_PLAINTEXT (Ambari 2.x KAFKA kerberos.json rewrites listeners to it).
PROTOCOL_ALIASES = {"PLAINTEXTSASL": "SASL_PLAINTEXT", "SASL_PLAINTEXTSASL": "SASL_PLAINTEXT"}
# Kerberos makes Ambari's KAFKA advisor turn PLAINTEXT/SSL listeners into their SASL twins on the
# same port, so the protocol MM2 must speak follows the same mapping.
KERBEROS_UPGRADE = {"PLAINTEXT": "SASL_PLAINTEXT", "SSL": "SASL_SSL"}

_LISTENER = re.compile(r"^([A-Za-z0-9_]+)://(\[[^\]]*\]|[^:/\s]*):(\d{1,5})$")
_HOST_PORT = re.compile(r"^(\[[^\]]+\]|[^:\s\[\]]+):(\d{1,5})$")


class Listener(object):
    """One entry of a broker's `listeners`: name, security protocol (None if unknown), port."""

    def __init__(self, name, protocol, host, port):
        self.name = name
        self.protocol = protocol
        self.host = host
        self.port = port

    def __repr__(self):
        return "Listener(%r, %r, %r, %r)" % (self.name, self.protocol, self.host, self.port)

    def __eq__(self, other):
        return isinstance(other, Listener) and self.__dict__ == other.__dict__

    def __ne__(self, other):
        return not self == other


def normalize_protocol(value):
    """'plaintextsasl' -> 'SASL_PLAINTEXT'; unknown or empty -> None."""
    value = (value or "").strip().upper()
    value = PROTOCOL_ALIASES.get(value, value)
    return value if value in KNOWN_PROTOCOLS else None


def parse_protocol_map(value):
    """listener.security.protocol.map 'INTERNAL:SASL_PLAINTEXT,EXT:SSL' -> {'INTERNAL': 'SASL_PLAINTEXT', ...}."""
    result = {}
    for item in (value or "").split(","):
        if ":" in item:
            name, protocol = item.split(":", 1)
            protocol = normalize_protocol(protocol)
            if name.strip() and protocol:
                result[name.strip().upper()] = protocol
    return result


def parse_listeners(value, protocol_map=None):
    """Kafka `listeners` -> [Listener]. Unparseable entries are skipped (Kafka itself rejects them).

    A listener name is its protocol unless listener.security.protocol.map says otherwise.
    """
    protocol_map = protocol_map or {}
    result = []
    for item in (value or "").split(","):
        match = _LISTENER.match(item.strip())
        if not match:
            continue
        name = match.group(1).upper()
        protocol = protocol_map.get(name) or normalize_protocol(name)
        result.append(Listener(name, protocol, match.group(2), match.group(3)))
    return result


def parse_host_ports(value):
    """'h1:9092, h2:9092' -> ([('h1', '9092'), ('h2', '9092')], [malformed entries])."""
    good, bad = [], []
    for item in (value or "").split(","):
        item = item.strip()
        if not item:
            continue
        match = _HOST_PORT.match(item)
        if match and 0 < int(match.group(2)) < 65536:
            good.append((match.group(1), match.group(2)))
        else:
            bad.append(item)
    return good, bad


def _choose_listener(listeners, kafka_broker, security_enabled):
    """The listener MM2 should use: the inter-broker one (the cluster's main listener), SASL on Kerberos."""
    usable = [l for l in listeners if l.protocol]
    if not usable:
        return None
    inter_name = (kafka_broker.get("inter.broker.listener.name") or "").strip().upper()
    for listener in usable:
        if inter_name and listener.name == inter_name:
            return listener
    inter_protocol = normalize_protocol(kafka_broker.get("security.inter.broker.protocol"))
    candidates = usable
    if security_enabled:
        candidates = [l for l in usable if l.protocol.startswith("SASL_")] or usable
    for listener in candidates:
        if listener.protocol == inter_protocol:
            return listener
    return candidates[0]


def _effective_protocol(protocol, security_enabled):
    return KERBEROS_UPGRADE.get(protocol, protocol) if security_enabled else protocol


def _sasl_mechanism(kafka_broker, security_enabled):
    if security_enabled:
        return "GSSAPI"
    enabled = [m.strip().upper() for m in (kafka_broker.get("sasl.enabled.mechanisms") or "").split(",")]
    for mechanism in enabled:
        if mechanism in schema.SASL_MECHANISMS:
            return mechanism
    return "GSSAPI"  # Kafka's default sasl.enabled.mechanisms


def describe_local_kafka(broker_hosts, kafka_broker=None, kafka_env=None, security_enabled=False,
                         ranger_kafka_enabled=False):
    """A plain description of this Ambari cluster's own Kafka, or None when it has no brokers.

    broker_hosts: KAFKA_BROKER host names; kafka_broker / kafka_env: those config types' properties;
    security_enabled: cluster-env/security_enabled (Kerberos); ranger_kafka_enabled: the Ranger
    Kafka plugin authorizes the brokers. The result feeds both recommend() and the core validator
    (broker count for replication factors).
    """
    hosts = sorted(set(h for h in (broker_hosts or []) if h))
    if not hosts:
        return None
    kafka_broker = kafka_broker or {}
    kafka_env = kafka_env or {}
    protocol_map = parse_protocol_map(kafka_broker.get("listener.security.protocol.map"))
    listeners = parse_listeners(kafka_broker.get("listeners"), protocol_map)
    chosen = _choose_listener(listeners, kafka_broker, security_enabled)
    # Bigtop keeps operator-defined listeners in raw.listeners: valid targets, never the default.
    listeners += parse_listeners(kafka_broker.get("raw.listeners"), protocol_map)
    if chosen is None and (kafka_broker.get("port") or "").strip().isdigit():
        # Kafka before 0.9 had only `port` (old HDP stacks): one PLAINTEXT listener.
        protocol = normalize_protocol(kafka_broker.get("security.inter.broker.protocol")) or "PLAINTEXT"
        chosen = Listener(protocol, protocol, "", kafka_broker["port"].strip())
        listeners = [chosen]
    result = {
        "hosts": hosts,
        "broker_count": len(hosts),
        "listeners": [{"name": l.name, "protocol": _effective_protocol(l.protocol, security_enabled),
                       "port": l.port} for l in listeners if l.protocol],
        "security_enabled": bool(security_enabled),
        "ranger_kafka_enabled": bool(ranger_kafka_enabled),
        "bootstrap.servers": "",
        "security.protocol": None,
        "sasl.mechanism": None,
        "sasl.kerberos.service.name": None,
    }
    if chosen is not None:
        protocol = _effective_protocol(chosen.protocol, security_enabled)
        result.update(_endpoint(hosts, chosen.port, protocol, kafka_broker, kafka_env, security_enabled))
    return result


def _endpoint(hosts, port, protocol, kafka_broker, kafka_env, security_enabled):
    endpoint = {
        "bootstrap.servers": bootstrap_servers(hosts, port),
        "security.protocol": protocol,
        "sasl.mechanism": None,
        "sasl.kerberos.service.name": None,
    }
    if protocol.startswith("SASL_"):
        mechanism = _sasl_mechanism(kafka_broker, security_enabled)
        endpoint["sasl.mechanism"] = mechanism
        if mechanism == "GSSAPI":
            # The brokers' principal is ${kafka-env/kafka_user}/_HOST@REALM (KAFKA kerberos.json).
            endpoint["sasl.kerberos.service.name"] = (
                (kafka_broker.get("sasl.kerberos.service.name") or "").strip()
                or (kafka_env.get("kafka_user") or "").strip() or "kafka")
    return endpoint


def bootstrap_servers(hosts, port):
    return ",".join("%s:%s" % (host, port) for host in sorted(set(hosts)))


class LocalKafka(object):
    """This Ambari cluster's own Kafka, as far as MM2 needs it.

    Built from local_kafka.describe_local_kafka's dict (hosts, broker_count, bootstrap.servers,
    security.protocol, sasl.mechanism, sasl.kerberos.service.name, ranger_kafka_enabled), or from
    a small dict with those keys (or hosts/port/protocol).
    """

    def __init__(self, bootstrap, protocol="PLAINTEXT", broker_count=None, sasl_mechanism=None,
                 kerberos_service_name=None, ranger=False, hosts=()):
        self.bootstrap = bootstrap or ""
        self.protocol = protocol or "PLAINTEXT"
        self.broker_count = broker_count
        self.sasl_mechanism = sasl_mechanism
        self.kerberos_service_name = kerberos_service_name
        self.ranger = bool(ranger)
        self.hosts = list(hosts or ())

    @classmethod
    def coerce(cls, value):
        if value is None or isinstance(value, LocalKafka):
            return value
        if isinstance(value, dict):
            hosts = list(value.get("hosts") or [])
            bootstrap = value.get("bootstrap.servers") or value.get("bootstrap") or ""
            if not bootstrap and hosts and value.get("port"):
                bootstrap = ",".join("%s:%s" % (h, value["port"]) for h in hosts)
            count = value.get("broker_count")
            if count is None and hosts:
                count = len(hosts)
            return cls(bootstrap, value.get("security.protocol") or value.get("protocol") or "PLAINTEXT",
                       count, value.get("sasl.mechanism"), value.get("sasl.kerberos.service.name"),
                       value.get("ranger_kafka_enabled") or value.get("ranger"), hosts)
        raise TypeError("local_kafka must be a dict or LocalKafka, not %r" % (value,))

    def __repr__(self):
        return "LocalKafka(%r, %r, brokers=%r)" % (self.bootstrap, self.protocol, self.broker_count)


def local_kafka_from(configurations, broker_hosts):
    """LocalKafka from Ambari configurations (kafka-broker, kafka-env, cluster-env, Ranger) and the
    KAFKA_BROKER hosts (clusterHostInfo kafka_broker_hosts); None when there are no brokers."""
    configurations = configurations or {}
    security_enabled = parse_bool(configs(configurations, "cluster-env").get("security_enabled")) or False
    ranger_value = text(configs(configurations, "ranger-kafka-plugin-properties").get(
        "ranger-kafka-plugin-enabled")).strip().lower()
    described = describe_local_kafka(
        broker_hosts, configs(configurations, "kafka-broker"), configs(configurations, "kafka-env"),
        security_enabled=security_enabled, ranger_kafka_enabled=ranger_value in ("yes", "true"))
    return LocalKafka.coerce(described)

