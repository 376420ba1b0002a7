"""What the MM2 alerts need from Ambari's configurations: flows, endpoint, parameters.

Pure stdlib, Python 2.7 and 3. The alert scripts ask the agent for whole config types
(tokens like '{{kafka-mm2-env}}' resolve to the type's dict) because kafka-mm2-custom holds
free-form keys no token list could name; configurations() turns the token-keyed map the
agent passes into the usual {type: {property: value}} shape.
"""
from mm2_core.config import env_checks, names, schema
# the module, not its names: an alert reload drops mm2_core modules, and Python 2 clears the globals of a dropped
# module that nothing holds under the functions still in use
from mm2_core.config import config_values
from mm2_core.kafka import replication_policy
from mm2_core.model import placement

# Tokens every MM2 alert asks for. '/clusterHostInfo' starts at the root of the agent's
# command dictionary (not under /configurations): the heartbeat alert reads the other driver
# hosts from it. Whole dicts come back as they are (BaseAlert._get_configuration_value).
TYPE_TOKENS = tuple("{{%s}}" % t for t in names.OWN_CONFIG_TYPES if t != names.LOG4J)
HOSTS_TOKEN = "{{/clusterHostInfo}}"
TOKENS = TYPE_TOKENS + (HOSTS_TOKEN,)
DRIVER_HOSTS_KEY = names.COMPONENT.lower() + "_hosts"

HEARTBEATS_TOPIC = replication_policy.HEARTBEATS_TOPIC
IDENTITY_POLICY_CLASS = replication_policy.POLICY_CLASSES[replication_policy.IDENTITY]

_ENV = schema.BY_NAME[names.ENV]


def env_default(prop):
    return _ENV[prop].default


def configurations(token_map):
    """Token-keyed map from the agent -> {config type: {property: value}} (missing types: {})."""
    token_map = token_map or {}
    result = {}
    for ctype in names.OWN_CONFIG_TYPES:
        value = token_map.get("{{%s}}" % ctype)
        if value is None:
            value = token_map.get(ctype)  # also accept an already shaped map
        result[ctype] = dict(value) if isinstance(value, dict) else {}
    return result


def driver_hosts(token_map):
    """Hosts of MIRRORMAKER2_DRIVER from clusterHostInfo ([] when unknown)."""
    info = (token_map or {}).get(HOSTS_TOKEN)
    if not isinstance(info, dict):
        return []
    hosts = info.get(DRIVER_HOSTS_KEY) or []
    if isinstance(hosts, str):
        hosts = hosts.split(",")
    return [h.strip() for h in hosts if h and h.strip()]


def _flag(value, default):
    parsed = config_values.parse_bool(value)
    return default if parsed is None else parsed


def param_float(parameters, name, default):
    """A numeric alert parameter (the UI may hand it back as a string)."""
    try:
        value = float(str((parameters or {}).get(name, default)).strip())
    except (TypeError, ValueError):
        return float(default)
    return value if value == value else float(default)


def param_str(parameters, name, default=""):
    value = (parameters or {}).get(name, default)
    return default if value is None else str(value).strip()


class FlowSpec(object):
    """One replication flow as the alerts see it.

    remote_topic / upstream_topic follow MM2's DefaultReplicationPolicy (prefix with the
    source alias and separator) or IdentityReplicationPolicy (names kept; heartbeats are
    still prefixed so they cannot loop).
    """

    def __init__(self, source, target, separator=".", identity=False, sync_group_offsets=False,
                 emit_checkpoints=True, heartbeats=True, enabled=True):
        self.source = source
        self.target = target
        self.separator = separator or "."
        self.identity = identity
        self.sync_group_offsets = sync_group_offsets
        self.emit_checkpoints = emit_checkpoints
        self.heartbeats = heartbeats
        self.enabled = enabled
        self.name = "%s->%s" % (source, target)
        self._prefix = source + self.separator

    @property
    def _policy(self):
        return replication_policy.IDENTITY if self.identity else replication_policy.PREFIXED

    def remote_topic(self, topic):
        return replication_policy.remote_topic(self.source, topic, self._policy, self.separator)

    def upstream_topic(self, remote):
        return replication_policy.upstream_topic(self.source, remote, self._policy, self.separator)

    def owns_remote_topic(self, remote):
        """Could this flow have produced the target topic name (prefix test)?"""
        return remote.startswith(self._prefix)

    @property
    def heartbeat_topic(self):
        return self.remote_topic(HEARTBEATS_TOPIC)

    def __repr__(self):
        return "FlowSpec(%r)" % self.name


def _from_topology(configs, kafka_version):
    """FlowSpecs of the enabled flows, from the one resolution of the model (mm2_core.model.resolved);
    raises ConfigError when the configurations are not valid. Cached on the configurations' content:
    the agent runs every alert each minute on the same configurations."""
    key = repr((kafka_version, sorted((t, sorted(p.items())) for t, p in configs.items())))
    cached = _FLOWS_CACHE.get(key)
    if cached is None:
        from mm2_core.model import parse, resolved
        answers = resolved.resolve(parse.build_topology(configs, kafka_version))
        cached = [(f.source, f.target, f.separator, f.identity, f.sync_group_offsets, f.checkpoints, f.heartbeats)
                  for f in answers.flows]
        _FLOWS_CACHE.clear()
        _FLOWS_CACHE[key] = cached
    return [FlowSpec(source, target, separator=separator, identity=identity, sync_group_offsets=sync,
                     emit_checkpoints=checkpoints, heartbeats=heartbeats)
            for source, target, separator, identity, sync, checkpoints, heartbeats in cached]


_FLOWS_CACHE = {}


def expected_flows(configs, kafka_version=None):
    """(flows, problem): every enabled flow of the deployment, or (None, why not)."""
    try:
        return _from_topology(configs, kafka_version), None
    except Exception as e:  # ConfigError or anything else: the alert still runs on what it sees
        return None, "the MM2 topology in the configurations is not valid: %s" % (e,)


def host_targets(configs):
    """Aliases this host serves (kafka-mm2-driver/target.clusters); [] means all."""
    return placement.parse_targets((configs.get(names.DRIVER) or {}).get("target.clusters"))


def flows_for_host(flows, targets):
    if not targets:
        return list(flows)
    wanted = set(targets)
    return [f for f in flows if f.target in wanted]


class Endpoint(object):
    """Where and how to read the exporter: the same settings the exporter is rendered from."""

    def __init__(self, enabled, port, https=False, ca_file="", verify=True, username="", password="",
                 path="/metrics", jar="", bind=""):
        self.enabled = enabled
        self.port = port
        self.bind = bind  # kafka-mm2-env/mm2_metrics_host: '' every interface, _HOST, or an address
        self.https = https
        self.ca_file = ca_file
        self.verify = verify
        self.username = username
        self.password = password
        self.path = path
        self.jar = jar

    def local_url(self, host):
        """Where this host's alerts read its own exporter: the bound address, else the host name."""
        return self.url(env_checks.metrics_scrape_host(self.bind, host))

    def url(self, host):
        if ":" in host and not host.startswith("["):
            host = "[%s]" % host  # IPv6 literal
        return "%s://%s:%d%s" % ("https" if self.https else "http", host, self.port, self.path)


def endpoint(configs):
    """Endpoint from kafka-mm2-env; raises ValueError naming the property when it is unusable."""
    env = configs.get(names.ENV) or {}

    def get(prop):
        value = env.get(prop)
        return env_default(prop) if value is None else value

    raw_port = str(get("mm2_metrics_port")).strip()
    try:
        port = int(raw_port)
    except ValueError:
        raise ValueError("%s/mm2_metrics_port is %r, not a port number: set it to the exporter's "
                         "HTTP port (default %s)" % (names.ENV, raw_port, env_default("mm2_metrics_port")))
    if not 0 < port < 65536:
        raise ValueError("%s/mm2_metrics_port is %d, outside 1-65535" % (names.ENV, port))
    return Endpoint(enabled=_flag(get("mm2_metrics_enabled"), True), port=port,
                    https=_flag(get("mm2_metrics_ssl_enabled"), False),
                    ca_file=str(get("mm2_metrics_ssl_ca_file") or "").strip(),
                    verify=_flag(get("mm2_metrics_ssl_verify"), True),
                    username=str(get("mm2_metrics_auth_username") or "").strip(),
                    password=str(get("mm2_metrics_auth_password") or ""),
                    jar=str(get("jmx_exporter_jar") or "").strip(),
                    bind=_bind_host(get("mm2_metrics_host") if "mm2_metrics_host" in _ENV else ""))


def _bind_host(value):
    problem = env_checks.metrics_host_problem(value)
    if problem:
        raise ValueError("%s/mm2_metrics_host: %s" % (names.ENV, problem))
    return str(value or "").strip()
