"""Connect mode's control plane over HTTPS with Basic auth, and a live flow setting applied without a restart, on
real Kafka through the built mpack's scripts (tests/e2e/agent.py, Ambari trunk's library).

- the worker's REST listener serves HTTPS with the host keystore and refuses a request without the right
  user and password (Connect's BasicAuthSecurityRestExtension); plain HTTP gets no answer;
- every caller uses it: START's connector PUTs, FLOW_PAUSE/FLOW_RESUME, APPLY_LIVE_CHANGES, REPLICATION_STATUS, the
  healer (credentials from its 0600 file, none on its command line) and the tasks alert;
- kafka-mm2-live/flow.settings changes A->B's topics: APPLY_LIVE_CHANGES PUTs only A->B's source and checkpoint
  connectors, the worker JVM keeps its pid, the new topic replicates;
- the passwords are in no command output, no command line and no file others can read.
"""
import base64
import json
import os
import ssl
import stat
import time
import uuid

import pytest

from conftest import require_line
from e2e import agent  # noqa: F401  (the e2e fixtures' module)
from mm2_core.config import names
from mm2_core.connect import connect_mode
from live.live_support import ok, wait_count
from realkafka import cluster as rk

LINE = "trunk"
N = 100

TOPOLOGY = """
clusters:
  A:
    bootstrap.servers: {a}
  B:
    bootstrap.servers: {b}
flows:
  - source: A
    target: B
    topics: {topics}
"""




def https_get(port, path, ca_pem, auth=None):
    """(status, parsed body) of a GET on the worker's HTTPS listener."""
    from urllib.error import HTTPError
    from urllib.request import Request, urlopen
    request = Request("https://127.0.0.1:%d%s" % (port, path))
    if auth:
        request.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % auth).encode()).decode())
    try:
        with urlopen(request, timeout=10, context=ssl.create_default_context(cafile=ca_pem)) as response:
            return response.getcode(), json.loads(response.read().decode("utf-8"))
    except HTTPError as e:
        return e.code, None


def plain_http_answers(port):
    from urllib.request import urlopen
    try:
        with urlopen("http://127.0.0.1:%d/connectors" % port, timeout=5) as response:
            return response.getcode()
    except Exception:   # a TLS listener does not speak plain HTTP
        return None


def test_tls_rest_with_basic_auth_and_a_live_topic_change(mpack, kafka_pool, drivers, tmp_path):
    require_line(LINE)
    import glob
    from realkafka import security
    from mm2_core.connect import rest_security
    if not glob.glob(os.path.join(rk.kafka_home(), "libs", rest_security.EXTENSION_JAR_GLOB)):
        pytest.skip("the test Kafka (%s) lacks libs/%s, which every release tarball ships: a distribution assembled "
                    "before tests/realkafka/dists.py listed it; remove it from the cache to rebuild, or set "
                    "MM2_TEST_KAFKA_HOME to a complete distribution" % (rk.kafka_home(), rest_security.EXTENSION_JAR_GLOB))
    clusters = kafka_pool("a", "b")
    a, b = clusters["a"], clusters["b"]
    run_id = uuid.uuid4().hex[:6]
    port = rk.free_port()
    ta, tb = "ta-%s" % run_id, "tb-%s" % run_id
    a.create_topic(ta, partitions=2)
    a.create_topic(tb, partitions=1)

    ca = security.TestCA(tmp_path)
    keystore = ca.keystore("connect-rest", cn="127.0.0.1")
    user, password = "ops", security.random_password()
    env = {"mm2_run_mode": "connect", "mm2_autorestart_backoff_unit_seconds": "1"}
    # real paths of this machine (not under the host's root): merged after the harness localizes paths
    tls_env = {"mm2_connect_rest_tls_enabled": "true", "mm2_connect_rest_keystore_location": keystore,
           "mm2_connect_rest_keystore_type": "PKCS12", "mm2_connect_rest_keystore_password": ca.password,
           "mm2_connect_rest_ca_file": ca.ca_pem, "mm2_connect_rest_username": user,
           "mm2_connect_rest_password": password}

    def conf(live_text=""):
        return {names.CLUSTERS: {"topology.mode": "advanced"},
                names.TOPOLOGY: {"content": TOPOLOGY.format(a=a.bootstrap, b=b.bootstrap, topics=ta)},
                names.DRIVER: {"connect.rest.port": str(port), "connect.group.id": "mm2-tls-%d" % port},
                names.ENV: dict(env), names.LIVE: {"flow.settings": live_text}}

    d = drivers.new(mpack, LINE, tmp_path, configurations=conf())
    d.env.update(tls_env)
    outputs = []
    for command in ("INSTALL", "START", "STATUS"):
        outputs.append(ok(d.run(command), command).output)
    pid = d.pid()

    # the listener: HTTPS, verified against the CA; no answer without the right credentials
    assert plain_http_answers(port) is None
    assert https_get(port, "/connectors", ca.ca_pem)[0] == 401
    assert https_get(port, "/connectors", ca.ca_pem, (user, "wrong"))[0] == 401
    status, listing = https_get(port, "/connectors", ca.ca_pem, (user, password))
    assert status == 200 and sorted(listing) == sorted(connect_mode.connector_name("A->B", k)
                                                       for k in connect_mode.KINDS)
    a.produce_n(ta, N, prefix="a1")
    wait_count(b, "A." + ta, N)

    # the agent's commands reach it over HTTPS with the credentials
    run = ok(d.run(names.CMD_FLOW_PAUSE, command_params={"flow": "A->B"}), "FLOW_PAUSE")
    assert run.structured_out["state"] == "PAUSED", run.structured_out
    outputs.append(run.output)
    run = ok(d.run(names.CMD_FLOW_RESUME, command_params={"flow": "A->B"}), "FLOW_RESUME")
    assert run.structured_out["state"] == "RUNNING", run.structured_out
    outputs.append(run.output)

    # a live flow setting: only A->B's source and checkpoint connectors change, the JVM stays
    a.produce_n(tb, N, prefix="b1")
    live = "# added while running\nA->B.topics = %s, %s\n" % (ta, tb)
    run = ok(d.run(names.CMD_APPLY_LIVE, configurations=conf(live)), "APPLY_LIVE_CHANGES")
    outputs.append(run.output)
    applied = run.structured_out["reload_configs"]
    assert sorted(applied["updated"]) == ["A->B.MirrorCheckpointConnector", "A->B.MirrorSourceConnector"], applied
    assert applied["unchanged"] == ["A->B.MirrorHeartbeatConnector"] and applied["created"] == [], applied
    wait_count(b, "A." + tb, N, timeout=180)
    assert d.pid() == pid
    # a bad live line is refused by name, nothing changes
    bad = d.run(names.CMD_APPLY_LIVE, configurations=conf("A->C.topics = x"))
    assert bad.exit_code != 0 and "kafka-mm2-live/flow.settings: line 1" in bad.output and "no flow A->C" in bad.output

    status_run = ok(d.run(names.CMD_REPLICATION_STATUS, configurations=conf(live), timeout=240), "REPLICATION_STATUS")
    outputs.append(status_run.output)
    assert "A->B RUNNING" in status_run.output and "https://127.0.0.1:%d" % port in status_run.output

    # the healer: HTTPS with the credentials file, no password on its command line
    with open(d.path("/var/run/kafka-mm2") + "/mm2-healer.pid") as fh:
        healer = int(fh.read().strip())
    with open("/proc/%d/cmdline" % healer, "rb") as fh:
        argv = fh.read().decode("utf-8", "replace").split("\0")
    assert "--credentials-file" in argv and password not in " ".join(argv) and ca.password not in " ".join(argv)
    healer_log = d.path("/var/log/kafka-mm2") + "/mm2-healer.log"
    time.sleep(6)
    with open(healer_log) as fh:
        log_text = fh.read()
    assert "https://127.0.0.1:%d" % port in log_text and "did not answer" not in log_text, log_text[-2000:]

    # the tasks alert reads the worker over HTTPS
    alerts = d.alerts()
    assert alerts["mm2_connector_tasks"][0] == "OK", alerts["mm2_connector_tasks"]

    # secrets: 0600 files, in no output and no world-readable file
    conf_dir = d.conf_dir
    for name in ("mm2-connect-rest.credentials", connect_mode.WORKER_FILE):
        mode = stat.S_IMODE(os.stat(os.path.join(conf_dir, name)).st_mode)
        assert mode == 0o600, (name, oct(mode))
    for text in outputs + [bad.output]:
        assert password not in text and ca.password not in text
    for root, _, files in os.walk(d.root):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not stat.S_IMODE(os.stat(path).st_mode) & 0o004:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
            assert password.encode() not in data and ca.password.encode() not in data, path

    ok(d.run("STOP", configurations=conf(live)), "STOP")
    assert d.mm2_pids() == []
