"""The deployment file: an advanced topology YAML plus an optional `deployment:` section.

Everything except `deployment:` is the advanced topology, stored verbatim (comments included) as
kafka-mm2-topology/content and validated by the same core validator the agent uses. `deployment:`
says where and how to deploy it:

    deployment:
      ambari: {url: https://ambari.example.com:8443, cluster: prod}
      stack: {name: BIGTOP, version: 3.2.0}      # optional: checked against the cluster's stack
      kafka_version: 3.7.1                       # optional: default the stack's Kafka (2.4+)
      repository_version_id: 2                   # optional: Ambari 2.7 asks for it with several repos
      hosts: [mm2-1.example.com, mm2-2.example.com]
      note: "DR replication"                     # optional: service config version note
      configurations:                            # other kafka-mm2-* types; null resets to the default
        kafka-mm2-env: {mm2_heap_opts: "-Xms2g -Xmx4g"}
        kafka-mm2-custom: {some.key: {from_env: SOME_VAR}}
      config_groups:                             # per-host overrides, e.g. --clusters near each target
        - name: mm2-dc2
          hosts: [mm2-2.example.com]
          configurations: {kafka-mm2-driver: {target.clusters: dc2}}
"""
import difflib
import json
import os

import yaml

from mm2_core.config import names, schema
from mm2_core.kafka import versions
from mm2_ambari.common import inputs, masking
from mm2_ambari.common.errors import BadInput

DEPLOYMENT = "deployment"
# Types the file itself decides: the topology YAML and the switch to advanced mode.
FILE_OWNED = {names.TOPOLOGY: ("content",), names.CLUSTERS: ("topology.mode",)}
TOPOLOGY_MODE = ("topology.mode", "advanced")
RESET = object()  # a null value in the file: back to the stack default

_DEPLOYMENT_KEYS = ("ambari", "stack", "kafka_version", "repository_version_id", "hosts", "note",
                    "configurations", "config_groups")
_GROUP_KEYS = ("name", "description", "hosts", "configurations")


class ConfigGroupSpec(object):
    def __init__(self, name, description, hosts, configurations):
        self.name, self.description = name, description
        self.hosts, self.configurations = list(hosts), configurations


class DeployFile(object):
    def __init__(self, path, text):
        self.path, self.text = path, text
        self.data = {}
        self.topology_text = ""
        self.ambari_url = self.cluster = self.stack = self.kafka_version = self.note = None
        self.repository_version_id = None
        self.hosts = []
        self.configurations = {}  # {type: {name: str | RESET}}
        self.config_groups = []
        self._root = None

    def where(self, *keys):
        """'file:line' of a key path such as ('deployment', 'hosts'), or just the file name."""
        line = _line_of(self._root, keys)
        return "%s:%d" % (self.path, line) if line else self.path

    def desired_overrides(self):
        """{type: {name: value | RESET}}: what the file sets, topology included."""
        wanted = dict((t, dict(props)) for t, props in self.configurations.items())
        wanted.setdefault(names.CLUSTERS, {})[TOPOLOGY_MODE[0]] = TOPOLOGY_MODE[1]
        wanted.setdefault(names.TOPOLOGY, {})["content"] = self.topology_text
        return wanted


def load(path, environ=None):
    environ = os.environ if environ is None else environ
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise BadInput("cannot read %s: %s" % (path, exc.strerror or exc))
    return parse(text, path, environ, base_dir=os.path.dirname(os.path.abspath(path)))


def parse(text, path="<topology>", environ=None, base_dir="."):
    environ = os.environ if environ is None else environ
    df = DeployFile(path, text)
    _refuse_json(text, path)
    try:
        check_limits(text, path)
        df._root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise BadInput(inputs.yaml_error(path, exc))
    problems = []
    _duplicate_keys(df._root, path, problems)
    if problems:
        raise BadInput("%s: duplicate keys" % path, problems)
    if not isinstance(data, dict):
        raise BadInput("%s: the topology file must be a mapping with clusters: and flows: at the top" % path)
    df.data = data
    df.topology_text = _topology_text(text, df._root, data)
    deployment = data.get(DEPLOYMENT)
    if deployment is None:
        deployment = {}
    if not isinstance(deployment, dict):
        raise BadInput("%s: deployment: must be a mapping (see docs/automate.md)"
                       % df.where(DEPLOYMENT))
    _parse_deployment(df, deployment, environ, base_dir, problems)
    if problems:
        raise BadInput("%s: invalid deployment section" % path, problems)
    return df


def _refuse_json(text, path):
    """A JSON file is valid YAML, but not a deployment file: say what it is and what to do with it."""
    if not text.lstrip().startswith("{"):
        return
    try:
        data = json.loads(text)
    except ValueError:
        return  # a YAML flow mapping, or broken JSON: the YAML parser reports it
    if isinstance(data, dict) and isinstance(data.get("configurations"), dict):
        data = data["configurations"]
    if isinstance(data, dict) and data and all(str(k).startswith("kafka-mm2") or k in names.FOREIGN_CONFIG_TYPES
                                               for k in data):
        raise BadInput("%s is an Ambari configurations map (%s), not a deployment file: preview what it renders "
                       "with `mm2-ambari render --configs %s --kafka-version X.Y.Z --out DIR`; a deployment file "
                       "is a topology YAML with clusters:, flows: and deployment: (examples/deploy-dr.yaml, "
                       "docs/automate.md)" % (path, ", ".join(sorted(data)[:3]), path))
    raise BadInput("%s is JSON; a deployment file is block-style YAML (its topology is stored as written and the "
                   "agents read block-style YAML): write it as YAML, like examples/deploy-dr.yaml" % path)


# --- bounded work on hostile input ----------------------------------------------------------------
MAX_BYTES = 1024 * 1024      # a deployment file is a few KB
MAX_DEPTH = 40               # nesting levels (PyYAML composes recursively)
MAX_NODES = 100000           # nodes after alias expansion (a "billion laughs" file expands to 10^9)


def check_limits(text, path):
    """Refuse a file too big, too deep or expanding too much through aliases, before PyYAML builds it.

    Walks PyYAML's event stream (iterative, no recursion), counting each alias as the size of the
    node it repeats.
    """
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        raise BadInput("%s: %d bytes; a deployment file may have at most %d" % (path, size, MAX_BYTES))
    depth, nodes, anchored, open_nodes = 0, 0, {}, []
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            nodes += 1
            if depth > MAX_DEPTH:
                raise BadInput("%s:%d: nested more than %d levels deep" % (path, event.start_mark.line + 1, MAX_DEPTH))
            open_nodes.append((event.anchor, nodes))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
            anchor, first = open_nodes.pop()
            if anchor:
                anchored[anchor] = nodes - first + 1
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            if event.anchor:
                anchored[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            nodes += anchored.get(event.anchor, 1)
        if nodes > MAX_NODES:
            raise BadInput("%s:%d: the document expands to more than %d nodes (aliases repeating aliases?); "
                           "write the values out or use fewer aliases" % (path, event.start_mark.line + 1, MAX_NODES))


# --- deployment section -------------------------------------------------------------------------
def _parse_deployment(df, dep, environ, base_dir, problems):
    def bad(keys, message):
        problems.append("%s: %s: %s" % (df.where(DEPLOYMENT, *keys), ".".join((DEPLOYMENT,) + keys), message))

    for key in dep:
        if key not in _DEPLOYMENT_KEYS:
            bad((str(key),), "unknown key%s; known keys: %s" % (_did_you_mean(key, _DEPLOYMENT_KEYS),
                                                                 ", ".join(_DEPLOYMENT_KEYS)))
    ambari = dep.get("ambari") or {}
    if not isinstance(ambari, dict):
        bad(("ambari",), "must be a mapping {url: https://host:8443, cluster: NAME}")
        ambari = {}
    for key in ambari:
        if key not in ("url", "cluster"):
            bad(("ambari", str(key)), "unknown key; use url and cluster")
    url = ambari.get("url")
    if url is not None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            bad(("ambari", "url"), "must be http(s)://host:port of the Ambari server, got %r"
                % (masking.mask_text(url) if isinstance(url, str) else url,))
        elif masking.url_password_problem(url):
            bad(("ambari", "url"), masking.url_password_problem(url))
        else:
            df.ambari_url = url
    cluster = ambari.get("cluster")
    if cluster is not None:
        if not isinstance(cluster, str) or not cluster.strip():
            bad(("ambari", "cluster"), "must be the Ambari cluster name")
        else:
            df.cluster = cluster
    stack = dep.get("stack")
    if stack is not None:
        if (not isinstance(stack, dict) or set(stack) != {"name", "version"}
                or not all(isinstance(v, (str, int, float)) for v in stack.values())):
            bad(("stack",), "must be {name: BIGTOP, version: 3.2.0}")
        else:
            df.stack = (str(stack["name"]), str(stack["version"]))
    if dep.get("kafka_version") is not None:
        version = str(dep["kafka_version"])
        if not _looks_like_version(version):
            bad(("kafka_version",), "must be a Kafka version such as 3.7.1 (quote it in YAML), got %r"
                % (dep["kafka_version"],))
        else:
            df.kafka_version = version
    repo = dep.get("repository_version_id")
    if repo is not None:
        if isinstance(repo, bool) or not isinstance(repo, int) or repo < 1:
            bad(("repository_version_id",), "must be the id of a repository version of the cluster "
                                            "(GET /api/v1/clusters/<c>/stack_versions lists them)")
        else:
            df.repository_version_id = repo
    if dep.get("note") is not None:
        df.note = str(dep["note"])
    df.hosts = _host_list(dep.get("hosts"), ("hosts",), bad)
    df.configurations = _configurations(dep.get("configurations"), ("configurations",), bad,
                                        environ, base_dir, group=False)
    df.config_groups = _config_groups(dep.get("config_groups"), df.hosts, bad, environ, base_dir)


def _host_list(value, keys, bad):
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(h, str) and h.strip() for h in value):
        bad(keys, "must be a list of host names as Ambari knows them (Hosts/host_name)")
        return []
    seen = set()
    for host in value:
        if host in seen:
            bad(keys, "host %s is listed twice" % host)
        seen.add(host)
        odd = sorted(set(ch for ch in host if not (ch.isalnum() or ch in "._-")))
        if odd:
            bad(keys, "'%s' is not a host name (it contains %s); give the name as Ambari knows it "
                      "(Hosts/host_name, e.g. mm2-1.example.com)" % (host, ", ".join(
                          "a space" if ch == " " else "'%s'" % ch for ch in odd)))
    return list(value)


def _configurations(value, keys, bad, environ, base_dir, group):
    result = {}
    if value is None:
        return result
    if not isinstance(value, dict):
        bad(keys, "must be a mapping {config type: {property: value}}")
        return result
    for config_type, props in value.items():
        tkeys = keys + (str(config_type),)
        if config_type not in names.OWN_CONFIG_TYPES:
            bad(tkeys, "not a config type of %s%s; use one of %s" % (
                names.SERVICE, _did_you_mean(config_type, names.OWN_CONFIG_TYPES),
                ", ".join(t for t in names.OWN_CONFIG_TYPES if t != names.TOPOLOGY)))
            continue
        if config_type == names.TOPOLOGY:
            bad(tkeys, "the topology is the file itself (everything outside deployment:); "
                       "remove this entry")
            continue
        if not isinstance(props, dict):
            bad(tkeys, "must be a mapping {property: value}")
            continue
        catalog = schema.BY_NAME[config_type]
        parsed = {}
        for name, raw in props.items():
            pkeys = tkeys + (str(name),)
            if name in FILE_OWNED.get(config_type, ()):
                bad(pkeys, "set by the file itself (a topology file always uses advanced mode); remove it")
                continue
            if catalog.properties and name not in catalog:
                bad(pkeys, "unknown property of %s%s" % (
                    config_type, _did_you_mean(name, [p.name for p in catalog.properties])))
                continue
            if group and catalog.properties and not catalog[name].overridable:
                bad(pkeys, "cannot be overridden in a config group (Ambari marks it not overridable); "
                           "set it under deployment.configurations")
                continue
            value_ = _scalar(raw, pkeys, bad, environ, base_dir)
            if value_ is not None:
                parsed[name] = value_
        result[config_type] = parsed
    return result


def _config_groups(value, hosts, bad, environ, base_dir):
    if value is None:
        return []
    if not isinstance(value, list):
        bad(("config_groups",), "must be a list of {name, hosts, configurations}")
        return []
    groups, seen_names, host_group = [], set(), {}
    for index, item in enumerate(value):
        keys = ("config_groups", str(index))
        if not isinstance(item, dict):
            bad(keys, "must be a mapping {name, hosts, configurations}")
            continue
        for key in item:
            if key not in _GROUP_KEYS:
                bad(keys + (str(key),), "unknown key; known keys: %s" % ", ".join(_GROUP_KEYS))
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            bad(keys + ("name",), "every config group needs a name")
            continue
        if name in seen_names:
            bad(keys + ("name",), "config group %s is defined twice" % name)
        seen_names.add(name)
        group_hosts = _host_list(item.get("hosts"), keys + ("hosts",), bad)
        if not group_hosts:
            bad(keys + ("hosts",), "config group %s needs at least one host" % name)
        for host in group_hosts:
            if hosts and host not in hosts:
                bad(keys + ("hosts",), "host %s is not in deployment.hosts" % host)
            if host in host_group:
                bad(keys + ("hosts",), "host %s is already in config group %s (Ambari allows one "
                                       "group per service and host)" % (host, host_group[host]))
            host_group.setdefault(host, name)
        configs = _configurations(item.get("configurations"), keys + ("configurations",), bad,
                                  environ, base_dir, group=True)
        for config_type, props in configs.items():
            for prop, val in props.items():
                if val is RESET:
                    bad(keys + ("configurations", config_type, prop),
                        "null is not allowed in a config group; remove the property instead")
        groups.append(ConfigGroupSpec(name, str(item.get("description") or ""), group_hosts, configs))
    return groups


def _scalar(raw, keys, bad, environ, base_dir):
    """A YAML value as the string Ambari stores; None after reporting a problem."""
    if raw is None:
        return RESET
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, (int, float, str)):
        return str(raw)
    if isinstance(raw, dict) and len(raw) == 1 and "from_env" in raw:
        var = str(raw["from_env"])
        if var not in environ:
            bad(keys, "environment variable %s is not set" % var)
            return None
        return environ[var]
    if isinstance(raw, dict) and len(raw) == 1 and "from_file" in raw:
        path = os.path.join(base_dir, str(raw["from_file"]))
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read()
        except OSError as exc:
            bad(keys, "cannot read %s: %s" % (path, exc.strerror or exc))
            return None
    bad(keys, "must be a string, number, boolean, null (reset to default), {from_env: VAR} "
              "or {from_file: PATH}")
    return None


# --- topology text --------------------------------------------------------------------------------
def _topology_text(text, root, data):
    """The file without its deployment section, line numbers kept (so validator messages match)."""
    rest = dict((k, v) for k, v in data.items() if k != DEPLOYMENT)
    if DEPLOYMENT not in data:
        return text
    lines = text.split("\n")
    span = _deployment_span(root, lines)
    if span is not None:
        first, end = span
        cut = lines[:first] + [""] * (end - first) + lines[end:]
        candidate = "\n".join(cut).rstrip() + "\n"
        try:
            if yaml.safe_load(candidate) == rest:
                return candidate
        except yaml.YAMLError:
            pass
    # Unusual layout (flow-style root...): fall back to a re-dump, which loses comments only.
    # No line wrapping: the agent's strict parser (mm2_core.formats.yamlish) refuses multi-line scalars.
    return yaml.safe_dump(rest, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 30)


def _deployment_span(root, lines):
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        return None
    keys = [k for k, _v in root.value]
    for index, key in enumerate(keys):
        if key.value == DEPLOYMENT and key.start_mark.column == 0:
            first = key.start_mark.line
            end = keys[index + 1].start_mark.line if index + 1 < len(keys) else len(lines)
            # Comments right above the next key describe that key: keep them.
            while end - 1 > first and (lines[end - 1].startswith("#") or not lines[end - 1].strip()):
                end -= 1
            return first, end
    return None


# --- helpers --------------------------------------------------------------------------------------
def _duplicate_keys(node, path, problems):
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    problems.append("%s:%d: key %r repeated (first at line %d); YAML keeps only the last" % (
                        path, key.start_mark.line + 1, key.value, seen[key.value]))
                seen.setdefault(key.value, key.start_mark.line + 1)
            _duplicate_keys(value, path, problems)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _duplicate_keys(item, path, problems)


def _line_of(node, keys):
    line = None
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            match = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key]
            if not match:
                return line
            line, node = match[0][0].start_mark.line + 1, match[0][1]
        elif isinstance(node, yaml.SequenceNode) and str(key).isdigit() and int(key) < len(node.value):
            node = node.value[int(key)]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _yaml_error(exc):
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return "line %d, column %d: %s" % (mark.line + 1, mark.column + 1, problem)
    return problem


def _did_you_mean(word, choices):
    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return " (did you mean %s?)" % close[0] if close else ""


def _looks_like_version(text):
    try:
        versions.KafkaVersion.parse(text)
    except ValueError:
        return False
    return True
