"""Fixtures of the real-server suite: one built server per test session, the mpack installed by its own
install-mpack, started on free 127.0.0.1 ports; skipped with the reason when it cannot run here."""
import glob
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

if sys.version_info[0] < 3:  # PY3_ONLY folder: nothing here is imported on Python 2.7
    collect_ignore_glob = ["*"]
    server = None
else:
    import server  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
CLUSTER = "mm2real"


@pytest.fixture(scope="session")
def server_home():
    """The server build: MM2_REALSERVER_HOME (set by tests/realserver/run.sh after build.sh), or with
    MM2_REALSERVER_BUILD=1 build.sh is run here. Otherwise skipped: the double stages of tests/run.sh
    collect this folder too, and must not start a Maven build."""
    if os.environ.get("MM2_REALSERVER_HOME"):
        return os.environ["MM2_REALSERVER_HOME"]
    if os.environ.get("MM2_REALSERVER_BUILD") != "1":
        pytest.skip("the real Ambari server suite runs with `bash tests/realserver/run.sh` (it builds the server)")
    try:
        return server.build()
    except server.Skip as why:
        pytest.skip(str(why))


@pytest.fixture(scope="session")
def built_mpack(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("dist"))
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "build.py"), "--out", out],
                          capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tarball, = glob.glob(os.path.join(out, "*.tar.gz"))
    return tarball


@pytest.fixture(scope="session")
def ambari(server_home, built_mpack, tmp_path_factory):
    try:
        with server.started(server_home, str(tmp_path_factory.mktemp("ambari-server")), built_mpack) as s:
            yield s
    except server.Skip as why:
        pytest.skip(str(why))


@pytest.fixture(scope="session")
def ambari_cluster(ambari):
    """A cluster on BIGTOP 3.3.0 with the service added (no hosts yet): what makes the server read the
    service's alert definitions into the cluster."""
    status, body = ambari.get("/api/v1/clusters/" + CLUSTER)
    if status == 404:
        status, body = ambari.request("POST", "/api/v1/clusters/" + CLUSTER, {"Clusters": {"version": "BIGTOP-3.3.0"}})
        assert status in (201, 202), (status, body)
        # the first service of a cluster names its repository version (the wizard sends it too)
        repo_id = ambari.repository_version("BIGTOP", "3.3.0")
        status, body = ambari.request("POST", "/api/v1/clusters/%s/services" % CLUSTER,
                                      [{"ServiceInfo": {"service_name": "KAFKA_MIRRORMAKER2",
                                                        "desired_repository_version_id": repo_id}}])
        assert status in (201, 202), (status, body)
        deadline = time.time() + 60
        while time.time() < deadline:
            status, body = ambari.get("/api/v1/clusters/%s/alert_definitions?AlertDefinition/service_name=KAFKA_MIRRORMAKER2" % CLUSTER)
            if status == 200 and body["items"]:
                break
            time.sleep(1)
    return ambari, CLUSTER


@pytest.fixture(scope="session")
def agent_host(ambari, tmp_path_factory):
    """A real Ambari 3 agent (../shared/ambari/trunk under Python 3.9) registered with the server; its host
    name. Stopped by pid at the end of the session."""
    import agent as agent_mod
    # in a private mount namespace when this host allows it: the stack hooks and service commands the real
    # server sends then write /etc, /usr, /var ... into overlays of the agent's workdir (agent.py)
    with agent_mod.registered(ambari, str(tmp_path_factory.mktemp("ambari-agent")),
                              private_mounts=agent_mod.RealAgent.private_mounts_problem() is None) as a:
        yield a


@pytest.fixture(scope="session")
def cluster_with_host(ambari_cluster, agent_host):
    """The cluster of ambari_cluster with the agent's host added (what the wizard's Install Options step does)."""
    ambari, cluster = ambari_cluster
    status, body = ambari.get("/api/v1/clusters/%s/hosts/%s" % (cluster, agent_host.hostname))
    if status == 404:
        status, body = ambari.request("POST", "/api/v1/clusters/%s/hosts/%s" % (cluster, agent_host.hostname))
        assert status in (201, 202), (status, body)
    return ambari, cluster, agent_host.hostname
