"""Operating the service through the real Ambari server, with real Kafka clusters outside Ambari.

    cfg = service_configurations(ambari, root, source, target)   # stack defaults + this host's overrides
    prepare_cluster_env(ambari, cluster)                          # what the installer wizard set for the cluster
    wizard_add_service(ambari, cluster, host, cfg)                # the Add Service wizard's REST calls
    wait_request(ambari, cluster, request_id)                     # -> the request, or AssertionError with the
                                                                    failed tasks' output
    remove_service(ambari, cluster)                               # stop, delete components and service

Everything the service writes on the host (configuration, pid, logs, data) is localized under `root`, the
service and its users run as the current user, Kafka comes from the `path` install source (the official
distribution the real-Kafka suites use), and the cluster is a sys-prepped host (server.py) whose cluster-env
tells the stack hooks to create no users or groups and set up no JCE.
"""
import time

from harness import command as hcommand
from mm2_core.config import names
from realkafka import artifacts
from realkafka import cluster as rk

S, C = names.SERVICE, names.COMPONENT
STACK = "/api/v1/stacks/BIGTOP/versions/3.3.0"
SERVICE_CONFIGS = STACK + "/services/%s/configurations?fields=StackConfigurations/*" % S
STACK_CONFIGS = STACK + "/configurations?fields=StackLevelConfigurations/*"
FINAL = ("COMPLETED", "FAILED", "ABORTED", "TIMEDOUT", "SKIPPED_FAILED")

# one-node loopback clusters: RF 1 and fast refreshes (tests/e2e/agent.py TEST_REPLICATION)
TEST_REPLICATION = {
    "replication.factor": "1", "internal.topics.replication.factor": "1",
    "refresh.topics.interval.seconds": "10", "refresh.groups.interval.seconds": "10",
    "emit.checkpoints.interval.seconds": "5", "emit.heartbeats.interval.seconds": "1",
    "offset.flush.interval.ms": "2000", "tasks.max": "2",
}

# cluster-env switches the BIGTOP stack hooks honour (stack-hooks/*/scripts/params.py) on a sys-prepped host
HOOK_SWITCHES = {
    "ignore_groupsusers_create": "true",             # before-ANY setup_users
    "sysprep_skip_create_users_and_groups": "true",  # before-ANY setup_users (host_sys_prepped)
    "sysprep_skip_setup_jce": "true",                # before-START JCE policy
    "sysprep_skip_conf_select": "true",              # after-INSTALL link_configs
    "sysprep_skip_copy_fast_jar_hdfs": "true",       # before-START
    "override_uid": "false",
}


def explain(ambari, body, lines=25):
    """A 500's message names an exception id: the server log's lines from it (what failed inside the server)."""
    import re
    text = body.get("message", "") if isinstance(body, dict) else str(body)
    match = re.search(r"exception by ([0-9a-f-]{36})", text)
    if not match:
        return text
    log = ambari.log_text().splitlines()
    for index, line in enumerate(log):
        if match.group(1) in line:
            causes = [l for l in log[index:index + 400] if l.startswith("Caused by")]
            return "\n".join(log[index:index + lines] + causes[-3:])
    return text


def stack_service_defaults(ambari):
    """{config type: {name: value}} and {config type: [password property names]} of the stack."""
    status, body = ambari.get(SERVICE_CONFIGS)
    assert status == 200, body
    props, passwords = {}, {}
    for item in body["items"]:
        c = item["StackConfigurations"]
        config_type = c["type"][:-4] if c["type"].endswith(".xml") else c["type"]
        props.setdefault(config_type, {})[c["property_name"]] = "" if c.get("property_value") is None else str(c["property_value"])
        if "PASSWORD" in (c.get("property_type") or []):
            passwords.setdefault(config_type, []).append(c["property_name"])
    return props, passwords


def host_overrides(root, source, target, rest_port=None, metrics_port=None):
    """What the operator of this host sets beyond the stack defaults: the existing Kafka (path install source),
    its Java, the two clusters, loopback-sized replication. Paths are localized by localize()."""
    jar = "" if artifacts.skip_reason("jmx-exporter") else artifacts.jmx_exporter_jar("1.0.1")
    return {
        names.ENV: {"kafka_install_source": "path", "kafka_home": rk.kafka_home(), "mm2_java_home": rk.java_home(),
                    "mm2_heap_opts": "-Xms128m -Xmx512m", "mm2_jvm_opts": rk.LEAN_MM2_JVM_OPTS,
                    # START waits for MM2's "started" line: 240 s, as the e2e driver's, for a CI host at load 20-40
                    # (the rehearsal of 2026-11-27 ran over 120 s once at load ~40)
                    "mm2_start_timeout_seconds": "240",
                    "mm2_stop_timeout_seconds": "30", "mm2_metrics_enabled": "true" if jar else "false",
                    "mm2_metrics_port": str(metrics_port or rk.free_port()), "jmx_exporter_jar": jar},
        names.CLUSTERS: {"topology.mode": "simple", "source.alias": "src", "source.bootstrap.servers": source.bootstrap,
                         "target.alias": "dst", "target.bootstrap.servers": target.bootstrap},
        names.REPLICATION: dict(TEST_REPLICATION, direction="one-way", **{"replication.policy": "prefixed"}),
        names.DRIVER: {"internal.rest.port": str(rest_port or rk.free_port())},
    }


def service_configurations(ambari, root, source, target):
    """The service's configuration types as the operator would save them: stack defaults + host_overrides,
    every absolute path of our types under root, every user property the current user (harness.localize)."""
    props, passwords = stack_service_defaults(ambari)
    overrides = host_overrides(root, source, target)
    keep = ("kafka_home", "mm2_java_home", "jmx_exporter_jar")
    localized = hcommand.localize({"configurations": props}, root, keep=keep)["configurations"]
    for config_type, values in overrides.items():
        localized.setdefault(config_type, {}).update(values)
    localized.pop("cluster-env", None)
    return localized, passwords


def cluster_env_properties(ambari):
    """The stack's cluster-env with this host's user and group and the hook switches."""
    status, body = ambari.get(STACK_CONFIGS)
    assert status == 200, body
    env = {}
    for item in body["items"]:
        c = item["StackLevelConfigurations"]
        if c["type"] in ("cluster-env.xml", "cluster-env"):
            env[c["property_name"]] = "" if c.get("property_value") is None else str(c["property_value"])
    env.update(HOOK_SWITCHES)
    env.update(user_group=hcommand.current_group(), smokeuser=hcommand.current_user())
    return env


def ensure_repository_os(ambari, family):
    """The stack's repository version also names this host's OS family (an operator registers the repositories
    of every OS in the cluster on the Versions page)."""
    repo_id = ambari.repository_version("BIGTOP", "3.3.0")
    path = STACK + "/repository_versions/%s" % repo_id
    status, body = ambari.get(path + "?fields=operating_systems/OperatingSystems/*,operating_systems/repositories/*,"
                                     "RepositoryVersions/*")
    assert status == 200, body
    oses = body["operating_systems"]
    if any(o["OperatingSystems"]["os_type"] == family for o in oses):
        return repo_id
    new = [{"OperatingSystems": {"os_type": o["OperatingSystems"]["os_type"], "ambari_managed_repositories": False},
            "repositories": [{"Repositories": dict((k, r["Repositories"][k]) for k in ("repo_id", "repo_name", "base_url"))}
                             for r in o["repositories"]]} for o in oses]
    new.append({"OperatingSystems": {"os_type": family, "ambari_managed_repositories": False},
                "repositories": [{"Repositories": {"repo_id": "BIGTOP-3.3.0", "repo_name": "bigtop",
                                                   "base_url": "http://127.0.0.1:1/unused-" + family}}]})
    status, body = ambari.request("PUT", path, {"RepositoryVersions": {
        "display_name": body["RepositoryVersions"]["display_name"]}, "operating_systems": new})
    assert status == 200, (status, body)
    return repo_id


def prepare_cluster_env(ambari, cluster):
    """cluster-env as the installer wizard saves it (the stack's values) with this host's user and group and
    the hook switches of a sys-prepped lab host."""
    env = cluster_env_properties(ambari)
    status, body = ambari.request("PUT", "/api/v1/clusters/" + cluster, [
        {"Clusters": {"desired_config": [{"type": "cluster-env", "tag": "lab%d" % int(time.time() * 1000),
                                          "properties": env}]}}])
    assert status == 200, (status, explain(ambari, body))
    return env


def desired_config(config_type, properties, passwords, note):
    """configs_saver.js createDesiredConfig: type, properties, the version note, properties_attributes when
    there is a password (the server generates the tag)."""
    out = {"type": config_type, "properties": dict(properties), "service_config_version_note": note}
    secret = passwords.get(config_type) or []
    if secret:
        out["properties_attributes"] = {"final": {}, "password": dict((n, "true") for n in secret if n in properties),
                                         "user": {}, "group": {}, "text": {}, "additional_user_property": {},
                                         "not_managed_hdfs_path": {}, "value_from_property_file": {}}
    return out


def wizard_add_service(ambari, cluster, host, configurations, passwords, timeout=600):
    """Exactly the calls of ambari-web's Add Service wizard, step 8 (step8_controller._startDeploy: services,
    configurations, components, host components) and step 9 (add_controller.installServices, then
    step9_controller.launchStartServices), waiting for each request as the wizard's progress page does.
    Returns [(method, path, status)]."""
    c = "/api/v1/clusters/" + cluster
    level = {"level": "CLUSTER", "cluster_name": cluster}
    sent = []

    def send(method, path, body, expect):
        status, answer = ambari.request(method, path, body)
        sent.append((method, path, status))
        assert status in expect, (method, path, status, explain(ambari, answer))
        return answer

    send("POST", c + "/services", [{"ServiceInfo": {"service_name": S}}], (201,))
    note = "Initial configurations for MirrorMaker 2"
    send("PUT", c, [{"Clusters": {"desired_config": [desired_config(t, configurations[t], passwords, note)
                                                     for t in sorted(configurations)]}}], (200,))
    send("POST", c + "/services?ServiceInfo/service_name=" + S,
         {"components": [{"ServiceComponentInfo": {"component_name": C}}]}, (201,))
    send("POST", c + "/hosts", {"RequestInfo": {"query": "Hosts/host_name=" + host},
                                "Body": {"host_components": [{"HostRoles": {"component_name": C}}]}}, (201,))
    answer = send("PUT", c + "/services?ServiceInfo/service_name.in(%s)" % S,
                  {"RequestInfo": {"context": "Install Services", "operation_level": level},
                   "Body": {"ServiceInfo": {"state": "INSTALLED"}}}, (202,))
    wait_request(ambari, cluster, answer["Requests"]["id"], timeout)
    answer = send("PUT", c + "/services?ServiceInfo/state=INSTALLED&ServiceInfo/service_name.in(%s)"
                  "&params/run_smoke_test=true&params/reconfigure_client=false" % S,
                  {"RequestInfo": {"context": "Start Added Services", "operation_level": level},
                   "Body": {"ServiceInfo": {"state": "STARTED"}}}, (202,))
    wait_request(ambari, cluster, answer["Requests"]["id"], timeout)
    return sent


def wait_request(ambari, cluster, request_id, timeout=600):
    """Poll the request until it ends; its Requests dict when COMPLETED, else AssertionError with every
    failed task's stdout and stderr (what the web UI's operation dialog shows)."""
    path = "/api/v1/clusters/%s/requests/%s" % (cluster, request_id)
    deadline = time.time() + timeout
    while True:
        status, body = ambari.get(path + "?fields=Requests/*")
        assert status == 200, (status, body)
        req = body["Requests"]
        if req["request_status"] in FINAL:
            break
        if time.time() > deadline:
            raise AssertionError("request %s (%s) still %s after %ss\n%s" % (
                request_id, req.get("request_context"), req["request_status"], timeout, task_report(ambari, path)))
        time.sleep(2)
    if req["request_status"] != "COMPLETED":
        raise AssertionError("request %s (%s) %s\n%s" % (request_id, req.get("request_context"),
                                                        req["request_status"], task_report(ambari, path)))
    return req


def task_report(ambari, request_path, chars=3000):
    status, body = ambari.get(request_path + "/tasks?fields=Tasks/*")
    if status != 200:
        return "(tasks: %s %s)" % (status, body)
    out = []
    for item in body["items"]:
        t = item["Tasks"]
        if t["status"] != "COMPLETED":
            out.append("task %s %s %s on %s: %s (exit %s)\n--- stdout\n%s\n--- stderr\n%s" % (
                t["id"], t["role"], t["command"], t["host_name"], t["status"], t.get("exit_code"),
                (t.get("stdout") or "")[-chars:], (t.get("stderr") or "")[-chars:]))
    return "\n".join(out)


def service_state(ambari, cluster):
    status, body = ambari.get("/api/v1/clusters/%s/services/%s?fields=ServiceInfo/state" % (cluster, S))
    return body["ServiceInfo"]["state"] if status == 200 else None


def host_component_state(ambari, cluster, host):
    status, body = ambari.get("/api/v1/clusters/%s/hosts/%s/host_components/%s?fields=HostRoles/state" % (
        cluster, host, C))
    return body["HostRoles"]["state"] if status == 200 else None


def set_service_state(ambari, cluster, state, context, timeout=600):
    """The web UI's service action (ajax 'common.service.update': operation_level SERVICE)."""
    status, body = ambari.request("PUT", "/api/v1/clusters/%s/services/%s" % (cluster, S), {
        "RequestInfo": {"context": context,
                        "operation_level": {"level": "SERVICE", "cluster_name": cluster, "service_name": S}},
        "Body": {"ServiceInfo": {"state": state}}})
    assert status in (200, 202), (status, body)
    if status == 202:
        return wait_request(ambari, cluster, body["Requests"]["id"], timeout)
    return None


def run_request(ambari, cluster, request_info, filters, timeout=600):
    """POST /requests (service check, restart, custom commands); the finished request."""
    status, body = ambari.request("POST", "/api/v1/clusters/%s/requests" % cluster,
                                  {"RequestInfo": request_info, "Requests/resource_filters": filters})
    assert status == 202, (status, body)
    return wait_request(ambari, cluster, body["Requests"]["id"], timeout), body["Requests"]["id"]


def task_outputs(ambari, cluster, request_id):
    status, body = ambari.get("/api/v1/clusters/%s/requests/%s/tasks?fields=Tasks/*" % (cluster, request_id))
    assert status == 200, body
    return [item["Tasks"] for item in body["items"]]


def remove_service(ambari, cluster, host, timeout=600):
    """Stop the service, then delete its host component, component and service (Ambari refuses to delete a
    started one). Nothing when the service is absent."""
    if service_state(ambari, cluster) is None:
        return
    if host_component_state(ambari, cluster, host) == "STARTED":
        set_service_state(ambari, cluster, "INSTALLED", "Stop MirrorMaker 2", timeout)
    base = "/api/v1/clusters/%s" % cluster
    status, body = ambari.get(base + "/services/%s/components/%s/host_components" % (S, C))
    for item in (body or {}).get("items", []) if status == 200 else []:
        h = item["HostRoles"]["host_name"]
        status, answer = ambari.request("DELETE", base + "/hosts/%s/host_components/%s" % (h, C))
        assert status == 200, (status, answer)
    status, answer = ambari.request("DELETE", base + "/services/" + S)
    assert status == 200, (status, answer)


OTHER_SERVICE = "ZOOKEEPER"


def ensure_other_service(ambari, cluster):
    """A service of the cluster's stack besides ours (no components: nothing is installed for it), holding
    the repository version as the installer wizard's first services do."""
    status, _ = ambari.get("/api/v1/clusters/%s/services/%s" % (cluster, OTHER_SERVICE))
    if status == 404:
        repo_id = ambari.repository_version("BIGTOP", "3.3.0")
        status, body = ambari.request("POST", "/api/v1/clusters/%s/services" % cluster, [
            {"ServiceInfo": {"service_name": OTHER_SERVICE, "desired_repository_version_id": repo_id}}])
        assert status == 201, (status, body)


def delete_service(ambari, cluster, service):
    status, body = ambari.request("DELETE", "/api/v1/clusters/%s/services/%s" % (cluster, service))
    assert status in (200, 404), (status, body)


def alerts(ambari, cluster):
    """{definition name: (state, text)} of this service's current alerts."""
    status, body = ambari.get("/api/v1/clusters/%s/alerts?fields=Alert/definition_name,Alert/state,Alert/text"
                              "&Alert/service_name=%s" % (cluster, S))
    assert status == 200, body
    return dict((a["Alert"]["definition_name"], (a["Alert"]["state"], a["Alert"].get("text")))
                for a in body["items"])



def blueprint_cluster(ambari, cluster, host, configurations, passwords, blueprint="mm2-lab"):
    """Delete the cluster (its services removed first) and create it again from a blueprint with one host
    group holding MIRRORMAKER2_DRIVER (POST /blueprints, then POST /clusters with the host mapping, the
    documented blueprint flow). The provisioning request's id."""
    status, body = ambari.get("/api/v1/clusters/%s/services" % cluster)
    assert status == 200 and body["items"] == [], (status, body)
    status, body = ambari.request("DELETE", "/api/v1/clusters/" + cluster)
    assert status == 200, (status, body)
    ambari.request("DELETE", "/api/v1/blueprints/" + blueprint)
    env = cluster_env_properties(ambari)
    bp_configurations = [{"cluster-env": {"properties": env}}] + [
        {t: {"properties": dict(p)}} for t, p in sorted(configurations.items())]
    status, body = ambari.request("POST", "/api/v1/blueprints/" + blueprint, {
        "Blueprints": {"stack_name": "BIGTOP", "stack_version": "3.3.0"},
        "configurations": bp_configurations,
        "host_groups": [{"name": "mm2", "cardinality": "1", "components": [{"name": C}]}]})
    assert status == 201, (status, body)
    repo_id = ambari.repository_version("BIGTOP", "3.3.0")
    status, body = ambari.request("POST", "/api/v1/clusters/" + cluster, {
        "blueprint": blueprint, "repository_version_id": repo_id, "config_recommendation_strategy": "NEVER_APPLY",
        "provision_action": "INSTALL_AND_START", "host_groups": [{"name": "mm2", "hosts": [{"fqdn": host}]}]})
    assert status == 202, (status, body)
    return body["Requests"]["id"]
