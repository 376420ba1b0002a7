"""What the commands read from Ambari: the operation Context, maintenance rules of host components, and the
reads (cluster, service, host components, configurations as ConfigState, the stack's defaults as StackDefaults,
config groups)."""
import time

from mm2_core.config import names
from mm2_core.config.local_kafka import describe_local_kafka
from mm2_ambari.common.errors import AmbariHttpError, BadInput, OperationFailed

S, C = names.SERVICE, names.COMPONENT


HC_FIELDS = ("HostRoles/host_name,HostRoles/component_name,HostRoles/state,HostRoles/desired_state,"
             "HostRoles/stale_configs,HostRoles/maintenance_state")
KDC_CREDENTIAL = "kdc.admin.credential"
# Host component states that mean the driver is not installed (yet): never healthy.
NOT_INSTALLED = ("INIT", "INSTALL_FAILED")
# States from which Ambari lets a host component be deleted (ServiceComponentHostImpl.canBeRemoved).
REMOVABLE = ("INIT", "INSTALLED", "INSTALL_FAILED", "UNINSTALLED", "UNKNOWN", "DISABLED")
# Which effective maintenance states an operation level still acts on
# (MaintenanceStateHelper.isOperationAllowed(Resource.Type, ServiceComponentHost)); HOST_COMPONENT: all.
ALLOWED_AT = {"CLUSTER": ("OFF",), "SERVICE": ("OFF", "IMPLIED_FROM_SERVICE"), "HOST": ("OFF", "IMPLIED_FROM_HOST")}
MAINTENANCE_WHY = {"ON": "the component is in maintenance mode",
                   "IMPLIED_FROM_HOST": "its host is in maintenance mode",
                   "IMPLIED_FROM_SERVICE": "the service is in maintenance mode",
                   "IMPLIED_FROM_SERVICE_AND_HOST": "the service and its host are in maintenance mode"}


class ConfigState(object):
    """One config type as Ambari's desired config: tag, version, properties (with SECRET refs)."""

    def __init__(self, config_type, tag, version, properties, attributes=None):
        self.type, self.tag, self.version = config_type, tag, version
        self.properties = dict(properties or {})
        self.attributes = dict(attributes or {})


class StackDefaults(object):
    """The stack's configuration defaults of the service (GET .../services/<S>/configurations)."""

    def __init__(self, properties=None, password_names=None):
        self.properties = properties or {}          # {type: {name: value}}
        self.password_names = password_names or {}  # {type: set(name)} with property_type PASSWORD

    @classmethod
    def from_response(cls, body):
        props, passwords = {}, {}
        for item in (body or {}).get("items", []):
            conf = item.get("StackConfigurations") or {}
            config_type = conf.get("type", "")
            if config_type.endswith(".xml"):
                config_type = config_type[:-len(".xml")]
            name = conf.get("property_name")
            if not config_type or name is None:
                continue
            value = conf.get("property_value")
            props.setdefault(config_type, {})[name] = "" if value is None else str(value)
            if "PASSWORD" in (conf.get("property_type") or []):
                passwords.setdefault(config_type, set()).add(name)
        return cls(props, passwords)

    def is_password(self, config_type, name):
        return name in self.password_names.get(config_type, ())


def maintenance(hc):
    """The effective maintenance state Ambari reports for a host component (OFF when absent)."""
    return hc.get("maintenance_state") or "OFF"


def allowed(level, hc):
    """Would Ambari act on this host component at this operation level, given its maintenance state?"""
    return level == "HOST_COMPONENT" or maintenance(hc) in ALLOWED_AT[level]


def why_skipped(hc):
    return MAINTENANCE_WHY.get(maintenance(hc), "maintenance state %s" % maintenance(hc))


def new_tag():
    """A config tag as ambari-web makes them: 'version' + milliseconds."""
    return "version%d" % int(time.time() * 1000)


class Context(object):
    """What one command works with: the client, the cluster, the waiter and the output stream."""

    def __init__(self, client, cluster, waiter, out, err, dry_run=False):
        self.client, self.cluster, self.waiter = client, cluster, waiter
        self.out, self.err, self.dry_run = out, err, dry_run

    def say(self, message=""):
        print(message, file=self.out)

    def log(self, message):
        print(message, file=self.err)

    @property
    def c(self):
        return "/clusters/" + self.cluster


# --- reads -----------------------------------------------------------------------------------------
def read_cluster(ctx):
    body = ctx.client.get_or_none("%s?fields=Clusters/version,Clusters/desired_configs,Clusters/security_type" % ctx.c)
    if body is None:
        raise BadInput("cluster %r not found on %s: check deployment.ambari.cluster or --cluster "
                       "(GET %s/api/v1/clusters lists them)" % (ctx.cluster, ctx.client.base, ctx.client.base))
    info = body.get("Clusters") or {}
    stack_name, _, stack_version = (info.get("version") or "").partition("-")
    return {"stack": (stack_name, stack_version), "desired": info.get("desired_configs") or {},
            "kerberos": info.get("security_type") == "KERBEROS"}


def read_service(ctx):
    """The service resource, or None when it is not installed (404 Service not found)."""
    try:
        return ctx.client.get("%s/services/%s?fields=ServiceInfo/state,ServiceInfo/maintenance_state,"
                              "components/ServiceComponentInfo/component_name" % (ctx.c, S))
    except AmbariHttpError as exc:
        if exc.status != 404:
            raise
        if "Cluster not found" in (exc.ambari_message or ""):
            raise BadInput("cluster %r not found on %s (Ambari: %s)" % (ctx.cluster, ctx.client.base,
                                                                        exc.ambari_message))
        return None


def read_host_components(ctx, extra=""):
    body = ctx.client.get("%s/host_components?HostRoles/service_name=%s%s&fields=%s" % (ctx.c, S, extra, HC_FIELDS))
    return sorted((item.get("HostRoles") or {} for item in body.get("items", [])),
                  key=lambda hr: (hr.get("host_name"), hr.get("component_name")))


def read_cluster_hosts(ctx):
    body = ctx.client.get("%s/hosts?fields=Hosts/host_name" % ctx.c)
    return set((item.get("Hosts") or {}).get("host_name") for item in body.get("items", []))


def read_config(ctx, config_type, tag):
    body = ctx.client.get("%s/configurations?type=%s&tag=%s" % (ctx.c, config_type, tag))
    items = body.get("items") or []
    if not items:
        raise OperationFailed("Ambari lists %s tag %s as desired but has no such configuration" % (config_type, tag))
    item = items[0]
    return ConfigState(config_type, item.get("tag", tag), item.get("version"), item.get("properties"),
                       item.get("properties_attributes"))


def read_current_configs(ctx, desired):
    return dict((t, read_config(ctx, t, desired[t]["tag"])) for t in sorted(desired)
                if t in names.OWN_CONFIG_TYPES)


def read_local_kafka(ctx, desired):
    """This cluster's own Kafka as the service advisor describes it for the validator (broker count,
    listeners), or None when the cluster has no KAFKA_BROKER."""
    body = ctx.client.get("%s/host_components?HostRoles/component_name=%s&fields=HostRoles/host_name"
                          % (ctx.c, names.KAFKA_BROKER))
    brokers = sorted(set((item.get("HostRoles") or {}).get("host_name") for item in body.get("items", [])))
    if not brokers:
        return None

    def props(config_type):
        return read_config(ctx, config_type, desired[config_type]["tag"]).properties if config_type in desired else {}
    security = str(props("cluster-env").get("security_enabled", "false")).strip().lower() == "true"
    ranger = str(props("ranger-kafka-plugin-properties").get("ranger-kafka-plugin-enabled", "")).strip().lower()
    return describe_local_kafka(brokers, props("kafka-broker"), props("kafka-env"),
                                       security_enabled=security, ranger_kafka_enabled=ranger == "yes")


def read_stack_defaults(ctx, stack):
    name, version = stack
    body = ctx.client.get_or_none("/stacks/%s/versions/%s/services/%s/configurations?fields=StackConfigurations/*"
                                  % (name, version, S))
    if body is None:
        raise OperationFailed(
            "stack %s %s has no service %s: install the mpack on the Ambari server "
            "(ambari-server install-mpack --mpack=kafka-mirrormaker2-mpack-<version>.tar.gz) and restart "
            "it" % (name, version, S))
    return StackDefaults.from_response(body)


def read_config_groups(ctx):
    body = ctx.client.get("%s/config_groups?ConfigGroup/tag=%s&fields=ConfigGroup/*" % (ctx.c, S))
    groups = []
    for item in body.get("items", []):
        group = item.get("ConfigGroup") or {}
        configs = dict((d["type"], read_config(ctx, d["type"], d["tag"]))
                       for d in group.get("desired_configs") or [])
        groups.append({"id": group.get("id"), "name": group.get("group_name"),
                       "description": group.get("description") or "",
                       "hosts": sorted(h.get("host_name") for h in group.get("hosts") or []),
                       "configs": configs})
    return groups
