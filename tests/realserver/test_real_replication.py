"""The service added through the real Ambari server ends with MirrorMaker 2 replicating between two real Kafka
clusters (started here, outside Ambari), exact record counts; then operated through the server's API only.

The real agent runs every command the server sends (stack hooks included) in a private mount namespace whose
/etc, /usr, /var, /opt are overlays in its workdir (agent.py), on a sys-prepped host (server.py) with the
cluster-env switches of the stack hooks (realops.HOOK_SWITCHES): nothing is written on the machine outside
the test's directories, and the test asserts that (agent.written_outside()).

The file has a server, agent and cluster of its own (the session's server of the other files is never touched,
whatever the order). Its cases share that cluster and run in file order: (a) the web UI's Add Service wizard
calls, then the operations; (b) the service removed and deployed again with `mm2-ambari deploy`; (c) a blueprint;
(d) the alerts: every alert OK in the server's alert API, lag and latency not OK with the target Kafka stopped.
Skipped with the reason without root, `unshare --mount` with overlayfs, or the official Kafka distribution.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

import realops
from realops import S, C
from mm2_core.config import names
from mm2_core.host import process
from realkafka import artifacts
from realkafka import cluster as rk

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPIC = "orders"
MIRRORED = "src." + TOPIC       # the prefixed replication policy: <source alias>.<topic>
HOOK_WRITES = ("/usr/lib/ambari-logsearch-logfeeder", "/usr/lib/ambari-logsearch-logfeeder/conf")


CLUSTER = "mm2repl"


def _prerequisites_problem():
    """Why this file cannot run here (None when it can): checked before any server, agent or Kafka starts."""
    import agent as agent_mod
    reason = rk.skip_reason()
    if reason:
        return reason
    problem = agent_mod.RealAgent.private_mounts_problem()
    if problem:
        return ("the agent cannot run in a private mount namespace with overlays here (%s): the stack hooks "
                "would write to this machine" % problem)
    return None


@pytest.fixture(scope="module")
def prerequisites():
    problem = _prerequisites_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope="module")
def own_ambari(server_home, prerequisites, built_mpack, tmp_path_factory):
    """A server of this file's own (not the session's `ambari`): the cases below remove, redeploy and recreate
    the cluster, which must never touch what the other files of this folder see, whatever the order."""
    import server
    try:
        with server.started(server_home, str(tmp_path_factory.mktemp("ambari-server-repl")), built_mpack) as s:
            yield s
    except server.Skip as why:
        pytest.skip(str(why))


@pytest.fixture(scope="module")
def own_agent(own_ambari, tmp_path_factory):
    import agent as agent_mod
    with agent_mod.registered(own_ambari, str(tmp_path_factory.mktemp("ambari-agent-repl")),
                              private_mounts=True) as a:
        yield a


@pytest.fixture(scope="module")
def kafka_pair(tmp_path_factory):
    reason = rk.skip_reason()
    if reason:
        pytest.skip(reason)
    with rk.kafka_clusters(str(tmp_path_factory.mktemp("kafka")), names=("src", "dst")) as clusters:
        yield clusters["src"], clusters["dst"]


@pytest.fixture(scope="module")
def lab(own_ambari, own_agent, kafka_pair, tmp_path_factory):
    """This file's server with a cluster, its host, cluster-env saved, another service holding the repository
    version, and no MirrorMaker 2 service yet."""
    ambari, cluster, host, agent_host = own_ambari, CLUSTER, own_agent.hostname, own_agent
    source, target = kafka_pair
    status, body = ambari.request("POST", "/api/v1/clusters/" + cluster, {"Clusters": {"version": "BIGTOP-3.3.0"}})
    assert status in (201, 202), (status, body)
    # The server caches each registered host's configurations of every cluster (AgentConfigsHolder), filled
    # once and refreshed only by a configuration save. A cluster created after the agent registered is missing
    # from that cache, and the first configuration save after its host joined fails inside the server
    # (ConfigHelper.updateAgentConfigs: NullPointerException). A save while the cluster has no host yet
    # refreshes the cache of every host (the installer wizard saves cluster-env before it adds hosts, too).
    realops.prepare_cluster_env(ambari, cluster)
    status, body = ambari.request("POST", "/api/v1/clusters/%s/hosts/%s" % (cluster, host))
    assert status in (201, 202), (status, body)
    realops.ensure_repository_os(ambari, ambari.host_os_family())
    # the Add Service wizard runs on an installed cluster: its services name the repository version a new
    # service gets (ServiceResourceProvider: "No repositories were found for service installation" otherwise)
    realops.ensure_other_service(ambari, cluster)
    root = str(tmp_path_factory.mktemp("mm2-host"))
    configurations, passwords = realops.service_configurations(ambari, root, source, target)
    lab = type("Lab", (), {})()
    lab.ambari, lab.cluster, lab.host, lab.agent = ambari, cluster, host, agent_host
    lab.source, lab.target, lab.root = source, target, root
    lab.configurations, lab.passwords = configurations, passwords
    lab.pid_file = os.path.join(configurations[names.ENV]["mm2_pid_dir"], process.PID_FILE)
    try:
        yield lab
    finally:
        _kill_left_over(lab.pid_file)


def _kill_left_over(pid_file):
    """The MirrorMaker 2 JVM the agent started for this test, if a failed case left it running (by its pid)."""
    try:
        with open(pid_file) as fh:
            pid = int(fh.read().strip())
        os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError):
        pass


def _mm2_running(lab):
    try:
        with open(lab.pid_file) as fh:
            pid = int(fh.read().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def _wait_count(cluster, topic, expected, timeout=420):
    """Wait until topic holds exactly `expected` records; fail at once on more (duplicates)."""
    seen = {"n": None}

    def reached():
        n = seen["n"] = cluster.count(topic)
        assert n <= expected, "%s holds %d records, more than the %d produced" % (topic, n, expected)
        return n == expected
    try:
        rk.wait_until(reached, timeout, interval=3, what="%d records in %s on %s" % (expected, topic, cluster.name))
    except TimeoutError as exc:
        raise AssertionError("%s: it held %s" % (exc, seen["n"]))


def test_a_add_service_wizard_calls_replicate_exactly(lab):
    lab.source.create_topic(TOPIC, partitions=2)
    lab.source.produce_n(TOPIC, 500, prefix="a")
    sent = realops.wizard_add_service(lab.ambari, lab.cluster, lab.host, lab.configurations, lab.passwords)
    assert [(m, p.split("?")[0]) for m, p, _ in sent] == [
        ("POST", "/api/v1/clusters/%s/services" % lab.cluster),
        ("PUT", "/api/v1/clusters/%s" % lab.cluster),
        ("POST", "/api/v1/clusters/%s/services" % lab.cluster),
        ("POST", "/api/v1/clusters/%s/hosts" % lab.cluster),
        ("PUT", "/api/v1/clusters/%s/services" % lab.cluster),
        ("PUT", "/api/v1/clusters/%s/services" % lab.cluster)]
    assert realops.service_state(lab.ambari, lab.cluster) == "STARTED"
    assert realops.host_component_state(lab.ambari, lab.cluster, lab.host) == "STARTED"
    _wait_count(lab.target, MIRRORED, 500)
    lab.source.produce_n(TOPIC, 300, prefix="b", start=500)
    _wait_count(lab.target, MIRRORED, 800)
    # What the hooks and scripts wrote outside the test's directories landed in the agent's overlays, not on
    # this machine: the after-INSTALL hook's Directory(/usr/lib/ambari-logsearch-logfeeder/conf) (written even on
    # a sys-prepped host); the rest are the parents of what was written (overlayfs copies them up).
    outside = [p for p in lab.agent.written_outside() if not p.startswith("/var/lib/ambari-agent")]
    contained = sorted(p for p in outside if not os.path.exists(p))
    assert set(contained) <= set(HOOK_WRITES), contained
    assert all(os.path.isdir(p) for p in outside if p not in HOOK_WRITES), outside


def test_a_service_check_passes_through_the_server(lab):
    req, rid = realops.run_request(lab.ambari, lab.cluster, {
        "context": "MirrorMaker 2 Service Check", "command": names.SERVICE_CHECK_ROLE,
        "operation_level": {"level": "SERVICE", "cluster_name": lab.cluster, "service_name": S}},
        [{"service_name": S}])
    tasks = realops.task_outputs(lab.ambari, lab.cluster, rid)
    assert [(t["role"], t["status"]) for t in tasks] == [(names.SERVICE_CHECK_ROLE, "COMPLETED")]


def test_a_stop_start_restart(lab):
    before = _mm2_running(lab)
    assert before
    realops.set_service_state(lab.ambari, lab.cluster, "INSTALLED", "Stop MirrorMaker 2")
    assert realops.host_component_state(lab.ambari, lab.cluster, lab.host) == "INSTALLED"
    assert _mm2_running(lab) is None
    lab.source.produce_n(TOPIC, 100, prefix="c", start=800)   # while stopped: replicated after the start
    realops.set_service_state(lab.ambari, lab.cluster, "STARTED", "Start MirrorMaker 2")
    assert realops.host_component_state(lab.ambari, lab.cluster, lab.host) == "STARTED"
    started = _mm2_running(lab)
    assert started and started != before
    _wait_count(lab.target, MIRRORED, 900)
    realops.run_request(lab.ambari, lab.cluster, {
        "context": "Restart all components for MirrorMaker 2", "command": "RESTART",
        "operation_level": {"level": "SERVICE", "cluster_name": lab.cluster, "service_name": S}},
        [{"service_name": S, "component_name": C, "hosts": lab.host}])
    restarted = _mm2_running(lab)
    assert restarted and restarted != started
    assert realops.host_component_state(lab.ambari, lab.cluster, lab.host) == "STARTED"
    lab.source.produce_n(TOPIC, 100, prefix="d", start=900)
    _wait_count(lab.target, MIRRORED, 1000)


def test_a_custom_command_replication_status(lab):
    req, rid = realops.run_request(lab.ambari, lab.cluster, {
        "context": "Replication status", "command": "REPLICATION_STATUS"},
        [{"service_name": S, "component_name": C, "hosts": lab.host}])
    (task,) = realops.task_outputs(lab.ambari, lab.cluster, rid)
    assert task["status"] == "COMPLETED"
    structured = task["structured_out"]
    if isinstance(structured, str):
        import json
        structured = json.loads(structured)
    (report,) = structured["replication_status"]
    assert (report["source"], report["target"], report["problems"]) == ("src", "dst", [])
    assert TOPIC in report["matched_topics"] and report["not_yet_mirrored"] == []


def _stack_defaults(lab):
    return realops.stack_service_defaults(lab.ambari)[0]


def _cli(url, *argv, cwd=None):
    """mm2-ambari as an operator runs it (a separate process; credentials from the environment)."""
    env = dict(os.environ, AMBARI_USER="admin", AMBARI_PASSWORD="admin", NETRC=os.devnull,
               PYTHONPATH=os.pathsep.join([os.path.join(REPO_ROOT, "src"), os.path.join(REPO_ROOT, "package", "scripts")]))
    argv = list(argv) + ["--url", url, "--no-progress"]
    proc = subprocess.run([sys.executable, "-c", "import sys; from mm2_ambari.cli import main; sys.exit(main())"] + argv,
                          env=env, capture_output=True, text=True, timeout=900, cwd=cwd)
    return proc


@pytest.fixture(scope="module")
def twins(lab):
    """The real server behind a recording proxy, and the fake Ambari of tests/rest shaped like it (same cluster,
    host, stack, the stack's Kafka version, the same admin credentials): every mm2-ambari scenario below runs
    against both and their mutating calls must be equal (tests/rest/rest_helpers.normalize: tags)."""
    from recording_proxy import RecordingProxy
    from fake_vs_real_support import FakeAmbari
    status, body = lab.ambari.get(realops.STACK + "/services/KAFKA?fields=StackServices/service_version")
    proxy = RecordingProxy(lab.ambari.url).start()
    fake = FakeAmbari(cluster=lab.cluster, stack=("BIGTOP", "3.3.0"), hosts=(lab.host,),
                      users={"admin": ("admin", "admin")},
                      stack_kafka_version=body["StackServices"]["service_version"]).start()
    fake.steps = 1
    try:
        yield proxy, fake
    finally:
        proxy.stop()
        fake.stop()


def _same_on_both(twins, *argv, cwd=None):
    """Run one mm2-ambari scenario against the fake and the real server; equal exit codes and mutating calls."""
    from fake_vs_real_support import normalize
    proxy, fake = twins
    proxy.reset()
    del fake.calls[:]
    on_fake = _cli(fake.url, *argv, cwd=cwd)
    on_real = _cli(proxy.url, *argv, cwd=cwd)
    assert on_real.returncode == 0, on_real.stdout[-4000:] + on_real.stderr[-6000:]
    assert on_fake.returncode == on_real.returncode, on_fake.stdout[-3000:] + on_fake.stderr[-3000:]
    real_calls, fake_calls = normalize(proxy.mutating_calls()), normalize(fake.mutating_calls())
    assert fake_calls == real_calls
    return on_real


def test_b_mm2_ambari_deploy_replicates_exactly(lab, twins, tmp_path):
    """The service removed, then `mm2-ambari deploy` of a topology file naming the two real clusters, and the
    CLI's operations, each run against the fake Ambari too with the same calls."""
    import yaml
    realops.remove_service(lab.ambari, lab.cluster, lab.host)
    assert _mm2_running(lab) is None
    lab.source.create_topic("payments", partitions=2)
    lab.source.produce_n("payments", 400, prefix="p")
    defaults = _stack_defaults(lab)
    # what differs from the stack defaults on this host (the clusters come from the file: advanced mode)
    configurations = dict((t, dict((k, v) for k, v in props.items() if defaults.get(t, {}).get(k) != v))
                          for t, props in lab.configurations.items() if t not in (names.CLUSTERS, names.TOPOLOGY))
    topology = {
        "clusters": {"src": {"bootstrap.servers": lab.source.bootstrap},
                     "dst": {"bootstrap.servers": lab.target.bootstrap}},
        "flows": [{"source": "src", "target": "dst", "topics": "payments"}],
        "deployment": {"ambari": {"url": lab.ambari.url, "cluster": lab.cluster},
                       "kafka_version": ".".join(str(p) for p in rk.version_tuple(rk.kafka_home())),
                       "hosts": [lab.host], "note": "real server deploy",
                       "configurations": dict((t, p) for t, p in configurations.items() if p)}}
    path = tmp_path / "topology.yaml"
    path.write_text(yaml.safe_dump(topology, sort_keys=False))
    _same_on_both(twins, "deploy", str(path))
    assert realops.service_state(lab.ambari, lab.cluster) == "STARTED"
    assert _mm2_running(lab)
    _wait_count(lab.target, "src.payments", 400)
    lab.source.produce_n("payments", 100, prefix="q", start=400)
    _wait_count(lab.target, "src.payments", 500)
    status, body = lab.ambari.get("/api/v1/clusters/%s/configurations/service_config_versions?service_name=%s"
                                  "&is_current=true&fields=service_config_version_note" % (lab.cluster, S))
    assert [i["service_config_version_note"] for i in body["items"]] == ["real server deploy"]
    lab.topology_path = str(path)


def test_b_cli_operations_same_on_fake_and_real(lab, twins, tmp_path):
    cluster = ("--cluster", lab.cluster)
    status = _same_on_both(twins, "status", "--json", *cluster)
    assert lab.host in status.stdout and "STARTED" in status.stdout
    _same_on_both(twins, "check", *cluster)
    out = _same_on_both(twins, "run", "REPLICATION_STATUS", *cluster)
    assert "src" in out.stdout and "dst" in out.stdout, out.stdout[-3000:]
    before = _mm2_running(lab)
    _same_on_both(twins, "restart", *cluster)
    after = _mm2_running(lab)
    assert after and after != before
    # a changed topology: one more topic; configure = a new config version and a restart of the driver
    text = open(lab.topology_path).read()
    assert "topics: payments" in text
    changed = tmp_path / "topology-changed.yaml"
    changed.write_text(text.replace("topics: payments", "topics: payments, refunds"))
    lab.source.create_topic("refunds")
    lab.source.produce_n("refunds", 60, prefix="r")
    _same_on_both(twins, "configure", str(changed))
    _wait_count(lab.target, "src.refunds", 60)


def test_c_blueprint_replicates_exactly(lab, twins):
    """The cluster recreated from a blueprint (same name, same host) with the service in a host group."""
    ambari, cluster, host = lab.ambari, lab.cluster, lab.host
    _same_on_both(twins, "remove", "--yes", "--cluster", cluster)
    assert realops.service_state(ambari, cluster) is None
    assert _mm2_running(lab) is None
    realops.delete_service(ambari, cluster, realops.OTHER_SERVICE)
    lab.source.create_topic("invoices", partitions=2)
    lab.source.produce_n("invoices", 300, prefix="i")
    request_id = realops.blueprint_cluster(ambari, cluster, host, lab.configurations, lab.passwords)
    realops.wait_request(ambari, cluster, request_id, 600)
    assert realops.service_state(ambari, cluster) == "STARTED"
    assert _mm2_running(lab)
    # the blueprint's configuration is the one the server gave the agent: the clusters and topics of this run
    _wait_count(lab.target, "src.invoices", 300)
    lab.source.produce_n("invoices", 200, prefix="j", start=300)
    _wait_count(lab.target, "src.invoices", 500)


def _alert_definition_ids(lab):
    """{definition name: id} of the service's alert definitions in the server's cluster (the API)."""
    status, body = lab.ambari.get("/api/v1/clusters/%s/alert_definitions?AlertDefinition/service_name=%s"
                                  "&fields=AlertDefinition/name,AlertDefinition/id" % (lab.cluster, S))
    assert status == 200, (status, body)
    return dict((i["AlertDefinition"]["name"], i["AlertDefinition"]["id"]) for i in body["items"])


def _run_now(lab, definition_ids):
    """What an operator's "Run Now" sends: the server asks the agent to run these definitions at once."""
    for definition_id in definition_ids:
        status, body = lab.ambari.request("PUT", "/api/v1/clusters/%s/alert_definitions/%s?run_now=true"
                                          % (lab.cluster, definition_id))
        assert status in (200, 202), (status, body)


def _wait_alerts(lab, what, done, ids, timeout, interval=15, run_now_every=45):
    """Poll the server's alert API until done(alerts) holds (bounded); the definitions not yet in the wanted
    state are run now every run_now_every seconds (their own interval is a minute). The failure quotes what
    the server last showed."""
    state = {"last": None, "run_now": 0.0}

    def check():
        current = realops.alerts(lab.ambari, lab.cluster)
        state["last"] = current
        if done(current):
            return current
        if time.time() - state["run_now"] >= run_now_every:
            state["run_now"] = time.time()
            _run_now(lab, [i for name, i in ids.items() if not done({name: current.get(name, ("", ""))}, one=True)])
        return None
    try:
        return rk.wait_until(check, timeout, interval=interval, what=what)
    except (TimeoutError, AssertionError, RuntimeError) as exc:
        raise AssertionError("%s: not within %ds (%s); the server's alerts of %s last showed:\n%s" % (
            what, timeout, exc, S, "\n".join("  %s %s: %s" % (n, s, t) for n, (s, t) in
                                             sorted((state["last"] or {}).items()))))


DOWN_ALERTS = ("mm2_replication_lag", "mm2_replication_latency")


def test_d_alerts_ok_then_target_down_turns_lag_and_latency_non_ok(lab):
    """Every alert definition of the mpack (the alert registry, the one source of alerts.json) shows OK in the
    server's alert API while MirrorMaker 2 replicates; with the target Kafka stopped and records still produced,
    lag and latency leave OK; after the target is back and the service restarted through the server, they are
    OK again and nothing produced during the outage is missing."""
    from mm2_core.alerts import registry
    if lab.configurations[names.ENV].get("mm2_metrics_enabled") != "true":
        pytest.skip("the JMX exporter agent is not available (tests/realkafka/artifacts.py): the metric alerts "
                    "would be UNKNOWN: %s" % artifacts.skip_reason("jmx-exporter"))
    expected = set(kind.name for kind in registry.KINDS)
    assert set(DOWN_ALERTS) <= expected
    ids = _alert_definition_ids(lab)
    assert set(ids) == expected, "the server's alert definitions %s, the mpack's %s" % (sorted(ids), sorted(expected))

    def all_ok(current, one=False):
        return all(state == "OK" for state, _ in current.values()) if one else \
            set(current) == expected and all(state == "OK" for state, _ in current.values())
    ok_now = _wait_alerts(lab, "every alert of %s OK" % S, all_ok, ids, timeout=600)
    assert sorted(ok_now) == sorted(expected)

    topic = "invoices"                 # test_c's topic: 500 records mirrored so far
    produced = {"n": 500}
    lab.target.stop()
    try:
        def faulted(current, one=False):
            if one:
                return all(st != "OK" for st, _ in current.values())
            # records keep coming while the target is down
            lab.source.produce_n(topic, 200, prefix="k", start=produced["n"])
            produced["n"] += 200
            return all(current.get(name, ("OK",))[0] != "OK" for name in DOWN_ALERTS)
        down = _wait_alerts(lab, "lag and latency not OK with the target stopped", faulted,
                            dict((n, ids[n]) for n in DOWN_ALERTS), timeout=600)
        for name in DOWN_ALERTS:
            assert down[name][0] in ("WARNING", "CRITICAL"), (name, down[name])
    finally:
        lab.target.start()
    # the target is back: what an operator does then (tests/e2e's target-down step too) is restart the driver
    realops.run_request(lab.ambari, lab.cluster, {
        "context": "Restart MirrorMaker 2 after the target outage", "command": "RESTART",
        "operation_level": {"level": "SERVICE", "cluster_name": lab.cluster, "service_name": S}},
        [{"service_name": S, "component_name": C, "hosts": lab.host}])
    # records produced while the target was down may arrive twice (tasks restart from the last flushed source
    # offsets), none may be missing
    rk.wait_until(lambda: lab.target.count("src." + topic) >= produced["n"], 420, interval=5,
                  what="%d records of src.%s on dst after the outage" % (produced["n"], topic))
    _wait_alerts(lab, "lag and latency OK again after the outage", lambda cur, one=False: all(
        cur.get(name, ("",))[0] == "OK" for name in (cur if one else DOWN_ALERTS)),
        dict((n, ids[n]) for n in DOWN_ALERTS), timeout=600)
