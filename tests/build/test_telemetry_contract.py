"""telemetry.json against Ambari 3.1's real telemetry contract.

The contract, as found (no JSON schema is published; the server's reader is the contract):
- the reader: apache/ambari ambari-server/src/main/java/org/apache/ambari/server/agent/stomp/
  TelemetryAssignmentCompiler.java, commit a4c4d173e9bd4323fb5b191d4462af800eb3f9bf (AMBARI-26638, PR 4182):
  validateDescriptor (schemaVersion integral 1, components an object), compileTarget (format prometheus_text or
  jmx_json, path starting "/" and not "//", no "?" or "#", profile required for jmx_json, timeoutSeconds 1-60,
  maxResponseBytes 1024-64 MiB, maxConcurrentRequests 1-16), resolveEndpoint (HTTPS when the policy property's
  value equals one of httpsValues, ignoring case; then endpoint.https must be an object), resolveAddress /
  parsePort (a propertyPrefix entry whose host is this host, else the property; a bare number or host:port;
  defaultPort when unset; a port outside 1-65535 is an error), addAuthentication (Kerberos only on a KERBEROS
  cluster with an auth block; principal and keytab are configType/property references);
- the stack's own descriptors at the same commit: ambari-server/src/main/resources/stacks/BIGTOP/3.2.0/
  services/HDFS/telemetry.json and services/YARN/telemetry.json;
- the published field table: https://ambari.apache.org/docs/3.1.0/monitoring/service-integration.
The schema derived from these is mpack_build/schemas/ambari-3.1-telemetry.schema.json (the build checks the
generated file against it). Below, `compile_target` restates the reader's rules in Python (a restatement, not
a copy: the Java is not run here), and the tests check the file, the schema and the reader against each other.

Not proven here: Ambari 3.1 itself loading the file from the mpack's common-services directory (the server's
ServiceDirectory/ServiceInfo of that commit, which find the file, were not in the fetched sources), and a
VMAGENT scrape through an agent route (no Ambari 3.1 build is run on this machine).
"""
import copy
import io
import json
import numbers
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
from mpack_build import json_schema  # noqa: E402

DESCRIPTOR = os.path.join(REPO, "common-services", "KAFKA_MIRRORMAKER2", "1.0.0", "telemetry.json")
SCHEMA = os.path.join(REPO, "mpack_build", "schemas", "ambari-3.1-telemetry.schema.json")
COMPONENT = "MIRRORMAKER2_DRIVER"
HOST = "driver1.example.com"
try:
    _STR = (str, unicode)  # noqa: F821 (Python 2)
except NameError:
    _STR = (str,)


class Refused(Exception):
    """What the server's AmbariException says when it refuses a descriptor or cannot compile a target."""


def _text(node, field):
    value = node.get(field) if isinstance(node, dict) else None
    return value if isinstance(value, _STR) else None


def _reference(ref, configs):
    if not isinstance(ref, dict):
        return None
    return (configs.get(ref.get("configType")) or {}).get(ref.get("property"))


def _port(address, default):
    if not address:
        return default
    if re.match(r"^[+-]?\d+$", address):
        return int(address)
    match = re.match(r"^(\[[^\]]*\]|[^:/]*)(?::(\d+))?$", address)
    return int(match.group(2)) if match and match.group(2) else default


def _host_of(address):
    match = re.match(r"^(\[[^\]]*\]|[^:/]*)", address or "")
    return match.group(1) if match else None


def _same_host(expected, configured):
    if not configured or configured in ("0.0.0.0", "::"):
        return False
    return (expected.lower() == configured.lower()
            or expected.split(".", 1)[0].lower() == configured.split(".", 1)[0].lower())


def _address(definition, configs, host):
    properties = configs.get(definition.get("configType"))
    if properties is None:
        return None
    prefix = definition.get("propertyPrefix")
    if prefix is not None:
        for key in sorted(properties):
            if key.startswith(prefix) and _same_host(host, _host_of(properties[key])):
                return properties[key]
    return properties.get(definition.get("property"))


def _bounded(component, field, default, low, high):
    if field not in component:
        return default
    value = component[field]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise Refused("Telemetry %s is out of range" % field)
    return value


def compile_target(descriptor, component_name, configs, host=HOST, kerberos=False):
    """What TelemetryAssignmentCompiler makes of one component on one host: the target's url, auth and bounds,
    None when the descriptor does not name the component, Refused where the server throws."""
    version = descriptor.get("schemaVersion") if isinstance(descriptor, dict) else None
    if (isinstance(version, bool) or not isinstance(version, numbers.Integral) or version != 1
            or not isinstance(descriptor.get("components"), dict)):
        raise Refused("Invalid telemetry descriptor")
    component = descriptor["components"].get(component_name)
    if component is None:
        return None
    fmt, path = _text(component, "format"), _text(component, "path")
    if not fmt:
        raise Refused("Telemetry format is missing")
    if fmt not in ("prometheus_text", "jmx_json"):
        raise Refused("Unsupported telemetry format " + fmt)
    if not path:
        raise Refused("Telemetry path is missing")
    if not path.startswith("/") or path.startswith("//") or "?" in path or "#" in path:
        raise Refused("Invalid telemetry path " + path)
    endpoint = component.get("endpoint")
    if not isinstance(endpoint, dict):
        raise Refused("Telemetry endpoint is missing")
    https = False
    if isinstance(endpoint.get("policy"), dict):
        value = _reference(endpoint["policy"], configs)
        https = value is not None and any(str(v).lower() == value.lower()
                                          for v in endpoint["policy"].get("httpsValues") or [])
    scheme = "https" if https else "http"
    definition = endpoint.get(scheme)
    if not isinstance(definition, dict):
        raise Refused("Telemetry %s endpoint is missing" % scheme)
    default = definition.get("defaultPort", -1)
    port = _port(_address(definition, configs, host), default if isinstance(default, numbers.Integral) else -1)
    if not 1 <= port <= 65535:
        raise Refused("Unable to resolve telemetry port")
    target = {"url": "%s://%s:%d%s" % (scheme, host, port, path),
              "timeoutSeconds": _bounded(component, "timeoutSeconds", 5, 1, 60),
              "maxResponseBytes": _bounded(component, "maxResponseBytes", 32 * 1024 * 1024, 1024, 64 << 20),
              "maxConcurrentRequests": _bounded(component, "maxConcurrentRequests", 2, 1, 16)}
    if fmt == "jmx_json" and not _text(component, "profile"):
        raise Refused("Telemetry profile is missing")
    auth = component.get("auth")
    if not kerberos or auth is None:
        target["auth"] = {"type": "none"}
    else:
        principal = _reference((auth or {}).get("principal"), configs)
        keytab = _reference((auth or {}).get("keytab"), configs)
        if principal is None or keytab is None:
            raise Refused("Kerberos telemetry authentication is missing principal or keytab")
        target["auth"] = {"type": "kerberos", "principal": principal.replace("_HOST", host.lower()),
                          "keytab": keytab}
    return target


def _load(path):
    with io.open(path, encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def descriptor():
    return _load(DESCRIPTOR)


@pytest.fixture(scope="module")
def schema():
    return _load(SCHEMA)


def _env(**values):
    return {"kafka-mm2-env": dict(values)}


def test_descriptor_conforms_to_the_schema(descriptor, schema):
    assert json_schema.problems(descriptor, schema) == []


def test_the_schema_takes_the_stacks_own_descriptor_shapes(schema):
    """A native NameNode-like and a typed-JMX NodeManager-like component, in the layout of the stack's
    HDFS and YARN descriptors (written here, not copied), conform: the schema is not tailored to ours."""
    ref = {"configType": "site", "property": "p"}
    stack_like = {"schemaVersion": 1, "components": {
        "NAMENODE": {"format": "prometheus_text", "path": "/prom", "endpoint": {
            "policy": dict(ref, httpsValues=["HTTPS_ONLY", "HTTP_AND_HTTPS"]),
            "http": dict(ref, propertyPrefix="p.", defaultPort=9870),
            "https": dict(ref, propertyPrefix="p.", defaultPort=9871)},
            "auth": {"principal": ref, "keytab": ref}},
        "NODEMANAGER": {"format": "jmx_json", "path": "/jmx", "profile": "telemetry-profiles/nm.json",
                        "endpoint": {"http": dict(ref, defaultPort=8042)}}}}
    assert json_schema.problems(stack_like, schema) == []


@pytest.mark.parametrize("configs,url", [
    ({}, "http://%s:9405/metrics" % HOST),                                       # no kafka-mm2-env yet
    (_env(mm2_metrics_port="9405", mm2_metrics_ssl_enabled="false"), "http://%s:9405/metrics" % HOST),
    (_env(mm2_metrics_port="9500", mm2_metrics_ssl_enabled="false"), "http://%s:9500/metrics" % HOST),
    (_env(mm2_metrics_port="9500", mm2_metrics_ssl_enabled="true"), "https://%s:9500/metrics" % HOST),
    (_env(mm2_metrics_port="9500", mm2_metrics_ssl_enabled="TRUE"), "https://%s:9500/metrics" % HOST),
    (_env(mm2_metrics_ssl_enabled="true"), "https://%s:9405/metrics" % HOST),   # port unset: defaultPort
])
def test_the_server_resolves_our_endpoint_from_the_effective_configuration(descriptor, configs, url):
    """The HTTP and HTTPS variants the component supports (the contract's 'verify effective configuration
    resolution' step), with the server's defaults for the scrape bounds."""
    target = compile_target(descriptor, COMPONENT, configs)
    assert target == {"url": url, "timeoutSeconds": 5, "maxResponseBytes": 32 * 1024 * 1024,
                      "maxConcurrentRequests": 2, "auth": {"type": "none"}}


def test_a_kerberos_cluster_scrapes_without_spnego(descriptor):
    """No auth block: on a KERBEROS cluster the target's auth stays none (the exporter has no SPNEGO)."""
    target = compile_target(descriptor, COMPONENT, _env(mm2_metrics_port="9405"), kerberos=True)
    assert target["auth"] == {"type": "none"}


def test_the_descriptor_names_only_the_service_component(descriptor):
    assert list(descriptor["components"]) == [COMPONENT]
    assert compile_target(descriptor, "KAFKA_BROKER", {}) is None


def test_the_earlier_layout_is_refused_by_the_server():
    """The layout this project wrote before (components a list with "name", "httpsValue" a string, references
    as "type/property") makes the server refuse the whole descriptor; the schema refuses it too."""
    earlier = {"schemaVersion": 1, "service": "KAFKA_MIRRORMAKER2", "components": [
        {"name": COMPONENT, "format": "prometheus_text", "path": "/metrics", "endpoint": {
            "policy": {"property": "kafka-mm2-env/mm2_metrics_ssl_enabled", "httpsValue": "true"},
            "http": {"property": "kafka-mm2-env/mm2_metrics_port", "defaultPort": 9405}}}]}
    with pytest.raises(Refused):
        compile_target(earlier, COMPONENT, {})
    assert json_schema.problems(earlier, _load(SCHEMA))


def _mutations(descriptor):
    """(what, mutated descriptor): each breaks one rule of the reader, or one rule only the schema adds."""
    def changed(fn):
        d = copy.deepcopy(descriptor)
        fn(d["components"][COMPONENT], d)
        return d
    return [
        ("schemaVersion 2", changed(lambda c, d: d.update(schemaVersion=2))),
        ("schemaVersion \"1\"", changed(lambda c, d: d.update(schemaVersion="1"))),
        ("format missing", changed(lambda c, d: c.pop("format"))),
        ("format openmetrics", changed(lambda c, d: c.update(format="openmetrics"))),
        ("jmx_json without profile", changed(lambda c, d: c.update(format="jmx_json"))),
        ("path relative", changed(lambda c, d: c.update(path="metrics"))),
        ("path //", changed(lambda c, d: c.update(path="//evil/metrics"))),
        ("path with query", changed(lambda c, d: c.update(path="/metrics?name[]=x"))),
        ("path with fragment", changed(lambda c, d: c.update(path="/metrics#x"))),
        ("endpoint missing", changed(lambda c, d: c.pop("endpoint"))),
        ("https missing with a policy", changed(lambda c, d: c["endpoint"].pop("https"))),
        ("timeoutSeconds 0", changed(lambda c, d: c.update(timeoutSeconds=0))),
        ("timeoutSeconds 61", changed(lambda c, d: c.update(timeoutSeconds=61))),
        ("maxResponseBytes 1023", changed(lambda c, d: c.update(maxResponseBytes=1023))),
        ("maxConcurrentRequests 17", changed(lambda c, d: c.update(maxConcurrentRequests=17))),
        ("defaultPort 0", changed(lambda c, d: c["endpoint"]["https"].update(defaultPort=0))),
        ("auth without keytab", changed(lambda c, d: c.update(auth={"principal": {
            "configType": "kafka-mm2-env", "property": "p"}}))),
    ]


MUTATIONS = _mutations(_load(DESCRIPTOR))


@pytest.mark.parametrize("what,mutated", MUTATIONS, ids=[what for what, _ in MUTATIONS])
def test_the_schema_refuses_what_the_server_refuses(schema, what, mutated):
    """Each mutation the reader refuses (on an HTTPS host with the port unset, on a KERBEROS cluster) is
    refused by the schema as well, so a descriptor the build passes is one the server compiles."""
    assert json_schema.problems(mutated, schema), what
    env = _env(mm2_metrics_port="", mm2_metrics_ssl_enabled="true")
    with pytest.raises(Refused):
        compile_target(mutated, COMPONENT, env, kerberos=True)


@pytest.mark.parametrize("key", ["httpsValue", "service", "name", "port"])
def test_the_schema_refuses_keys_the_server_would_ignore(descriptor, schema, key):
    """A misspelt key is ignored by the server (a policy without httpsValues never selects HTTPS), so the
    schema refuses any key the server does not read."""
    mutated = copy.deepcopy(descriptor)
    mutated["components"][COMPONENT]["endpoint"]["policy"][key] = "true"
    assert json_schema.problems(mutated, schema)
    assert compile_target(mutated, COMPONENT, _env(mm2_metrics_ssl_enabled="true"))["url"].startswith("https")
