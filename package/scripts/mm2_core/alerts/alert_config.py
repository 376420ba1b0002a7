"""What the MM2 alerts need from Ambari's configurations: flows, endpoint, parameters.

Pure stdlib, Python 2.7 and 3. The alert scripts ask the agent for whole config types
(tokens like '{{kafka-mm2-env}}' resolve to the type's dict) because kafka-mm2-custom holds
free-form keys no token list could name; configurations() turns the token-keyed map the
agent passes into the usual {type: {property: value}} shape.
"""
from mm2_core.config import env_checks, names, schema
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


def is_true(value, default=False):
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "yes", "1", "on")


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


def _custom_setting(configs, flow_name, key):
    custom = configs.get(names.CUSTOM) or {}
    value = custom.get("%s.%s" % (flow_name, key))
    if value is None:
        value = custom.get(key)
    return value


def flow_setting(configs, flow_name, key, default=None):
    """A flow's MM2 setting: '<src>-><tgt>.<key>' or '<key>' in kafka-mm2-custom, then
    kafka-mm2-replication, then the default."""
    value = _custom_setting(configs, flow_name, key)
    if value is None:
        value = (configs.get(names.REPLICATION) or {}).get(key)
    return default if value is None or value == "" else value


def _policy(configs, flow_name):
    cls = _custom_setting(configs, flow_name, "replication.policy.class") or ""
    if cls:
        identity = cls.strip().endswith("IdentityReplicationPolicy")
    else:
        identity = flow_setting(configs, flow_name, "replication.policy", "prefixed") == "identity"
    separator = (_custom_setting(configs, flow_name, "replication.policy.separator")
                 or flow_setting(configs, flow_name, "replication.policy.separator", "."))
    return identity, separator


def make_flow(configs, source, target, settings=None, policy=None, separator=None):
    """FlowSpec for source->target with its MM2 settings.

    Precedence: '<src>-><tgt>.<key>' in kafka-mm2-custom, then `settings` (what the topology
    model resolved for this flow: per-flow overrides over global settings), then '<key>' in
    kafka-mm2-custom, then kafka-mm2-replication, then MM2's default.
    """
    name = "%s->%s" % (source, target)
    settings = settings or {}
    custom = configs.get(names.CUSTOM) or {}

    def get(key, default):
        for value in (custom.get("%s.%s" % (name, key)), settings.get(key)):
            if value not in (None, ""):
                return value
        return flow_setting(configs, name, key, default)

    identity, sep = _policy(configs, name)
    if policy is not None and not _custom_setting(configs, name, "replication.policy.class"):
        identity = policy == "identity"
    if separator and not _custom_setting(configs, name, "replication.policy.separator"):
        sep = separator
    heartbeats = (is_true(get("emit.heartbeats.enabled", "true"), True)
                  and is_true(get("heartbeats.replication.enabled", "true"), True))
    return FlowSpec(source, target, separator=sep, identity=identity,
                    sync_group_offsets=is_true(get("sync.group.offsets.enabled", "false")),
                    emit_checkpoints=is_true(get("emit.checkpoints.enabled", "true"), True),
                    heartbeats=heartbeats)


def _alias(obj):
    return getattr(obj, "alias", obj)


def _from_topology(configs, kafka_version):
    """Flows from mm2_core.topology; None when that module cannot be used here."""
    try:
        from mm2_core.model import parse
    except Exception:  # absent or broken: fall back on the simple-mode reading below
        return None
    topo = parse.build_topology(configs, kafka_version)
    flows = []
    for flow in topo.flows:
        if getattr(flow, "enabled", True) is False:
            continue
        settings = dict(getattr(topo, "settings", None) or {})
        for attr in ("settings", "overrides"):
            value = getattr(flow, attr, None)
            if isinstance(value, dict):
                settings.update(value)
        flows.append(make_flow(configs, str(_alias(flow.source)), str(_alias(flow.target)), settings=settings,
                               policy=getattr(topo, "policy", None), separator=getattr(topo, "separator", None)))
    return flows


def _simple_flows(configs):
    clusters = configs.get(names.CLUSTERS) or {}
    if (clusters.get("topology.mode") or "simple") != "simple":
        return None
    source = (clusters.get("source.alias") or "").strip()
    target = (clusters.get("target.alias") or "").strip()
    if not source or not target:
        return None
    flows = [make_flow(configs, source, target)]
    if (configs.get(names.REPLICATION) or {}).get("direction") == "active-active":
        flows.append(make_flow(configs, target, source))
    return flows


def expected_flows(configs, kafka_version=None):
    """(flows, problem): every enabled flow of the deployment, or (None, why not)."""
    try:
        flows = _from_topology(configs, kafka_version)
    except Exception as e:  # ConfigError or anything else: the alert still runs on what it sees
        return None, "the MM2 topology in the configurations is not valid: %s" % (e,)
    if flows is None:
        flows = _simple_flows(configs)
        if flows is None:
            return None, "the flows of the advanced topology could not be read (no topology module)"
    return flows, None


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
    return Endpoint(enabled=is_true(get("mm2_metrics_enabled"), True), port=port,
                    https=is_true(get("mm2_metrics_ssl_enabled"), False),
                    ca_file=str(get("mm2_metrics_ssl_ca_file") or "").strip(),
                    verify=is_true(get("mm2_metrics_ssl_verify"), True),
                    username=str(get("mm2_metrics_auth_username") or "").strip(),
                    password=str(get("mm2_metrics_auth_password") or ""),
                    jar=str(get("jmx_exporter_jar") or "").strip(),
                    bind=_bind_host(get("mm2_metrics_host") if "mm2_metrics_host" in _ENV else ""))


def _bind_host(value):
    problem = env_checks.metrics_host_problem(value)
    if problem:
        raise ValueError("%s/mm2_metrics_host: %s" % (names.ENV, problem))
    return str(value or "").strip()
