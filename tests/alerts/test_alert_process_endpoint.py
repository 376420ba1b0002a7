"""Process/endpoint alert, and how every alert behaves when the metrics path is broken:
slow, unreachable, TLS, authentication, not the mpack's rules, metrics disabled."""
import os
import subprocess
import sys
import time

import pytest

from conftest import render
from metrics_server import free_port
from mm2_core.alerts import alert_fetch, alert_runner, metrics as m, process_check
from mm2_core.config import names
from mm2_sim import Flow, MM2Process, partitions

PAYLOAD_PROCESS = MM2Process("3.7.1", herders=[("A", "B"), ("B", "A")], flows=[Flow("A", "B", partitions("t", 3))])


@pytest.fixture
def fake_mm2(tmpdir):
    """A real process whose command line looks like MM2's, with a pid file, as the driver starts it."""
    procs = []

    def start(agent=None):
        pid_dir = tmpdir.mkdir("pid%d" % len(procs))
        conf_dir = tmpdir.join("conf")
        if not conf_dir.check():
            conf_dir.mkdir()
        props = str(conf_dir.join("connect-mirror-maker.properties"))
        args = [sys.executable, "-c", "import time; time.sleep(300)"]
        if agent:
            args.append("-javaagent:" + agent)
        args += [names.MM2_MAIN_CLASS, props]
        proc = subprocess.Popen(args)
        procs.append(proc)
        # Until the child has exec'd, /proc/<pid>/cmdline still shows pytest's command line and the
        # alert would rightly say the pid is not MM2: wait (bounded) for the exec.
        deadline = time.time() + 30
        while names.MM2_MAIN_CLASS not in _cmdline(proc.pid) and time.time() < deadline:
            time.sleep(0.01)
        pid_dir.join("mirrormaker2.pid").write("%d\n" % proc.pid)
        return {"mm2_pid_dir": str(pid_dir), "mm2_conf_dir": str(conf_dir), "pid": proc.pid}

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except (IOError, OSError):
        return ""


def _env(info, **extra):
    env = dict((k, v) for k, v in info.items() if k != "pid")
    env.update(extra)
    return env


def test_not_running_is_critical(run_alert):
    state, text = run_alert("process", free_port())
    assert state == "CRITICAL"
    assert text == "MirrorMaker 2 is not running on 127.0.0.1: no pid file (/nonexistent/mm2-pid/mirrormaker2.pid)"


def test_running_with_endpoint_is_ok(metrics_server, run_alert, fake_mm2, tmpdir):
    server = metrics_server(render(PAYLOAD_PROCESS))
    info = fake_mm2()
    state, text = run_alert("process", server.port, env=_env(info))
    assert state == "OK"
    assert text.startswith("MirrorMaker 2 (pid %d) metrics endpoint answered in " % info["pid"])
    assert text.endswith("(warning 2 s, critical 4 s); herders A->B, B->A; Kafka 3.7.1; JMX scrape took 0.412 s")


def test_running_without_the_agent_and_no_jar_warns_with_the_fix(run_alert, fake_mm2):
    """START runs MM2 without the agent while the jar is missing (metrics never stop MM2): the process alert
    is a WARNING that says what is missing and how to provide it; the replication alerts stay UNKNOWN."""
    info = fake_mm2()
    port = free_port()
    env = _env(info, jmx_exporter_jar="/nonexistent/jmx_prometheus_javaagent.jar")
    state, text = run_alert("process", port, env=env)
    assert state == "WARNING"
    assert text.startswith("MirrorMaker 2 runs (pid %d) without the JMX exporter agent, so nothing serves metrics. "
                           "The JMX exporter agent jar /nonexistent/jmx_prometheus_javaagent.jar is not on this host "
                           "(neither the stack nor the mpack ships it)" % info["pid"])
    assert "set kafka-mm2-env/jmx_exporter_jar to its path or to an http(s) URL and run Install" in text
    assert "Maven io.prometheus.jmx:jmx_prometheus_javaagent" in text
    state, text = run_alert("lag", port, env=env)
    assert state == "UNKNOWN"
    assert text.startswith("Cannot read MirrorMaker 2 metrics from http://127.0.0.1:%d/metrics: connection refused. "
                           "MirrorMaker 2 runs (pid %d) without the JMX exporter agent" % (port, info["pid"]))
    assert "The JMX exporter agent jar /nonexistent/jmx_prometheus_javaagent.jar is not on this host" in text


def test_running_without_the_agent_while_the_jar_is_there_asks_for_a_restart(run_alert, fake_mm2, tmpdir):
    jar = tmpdir.join("jmx_prometheus_javaagent-1.0.1.jar")
    jar.write("")
    info = fake_mm2()
    state, text = run_alert("process", free_port(), env=_env(info, jmx_exporter_jar=str(jar)))
    assert state == "WARNING"
    assert text.endswith("The jar %s is on this host now: restart the MirrorMaker 2 Driver to load it "
                         "(kafka-mm2-env/mm2_metrics_enabled stays true)" % jar)


def test_jar_downloaded_from_a_url_is_looked_for_where_install_puts_it(run_alert, fake_mm2):
    info = fake_mm2()
    env = _env(info, jmx_exporter_jar="https://repo.example.com/jmx_prometheus_javaagent-1.0.1.jar",
               kafka_home="/nonexistent/kafka-mm2/current")
    state, text = run_alert("process", free_port(), env=env)
    assert state == "WARNING"
    assert "The JMX exporter agent jar /nonexistent/kafka-mm2/lib/jmx_prometheus_javaagent-1.0.1.jar is not on " \
           "this host" in text


def test_agent_whose_jar_vanished(run_alert, fake_mm2):
    port = free_port()
    info = fake_mm2(agent="/gone/jmx_prometheus_javaagent-1.0.1.jar=%d:/etc/x/jmx_exporter_mm2.yaml" % port)
    state, text = run_alert("process", port, env=_env(info))
    assert state == "UNKNOWN"
    assert "was started with -javaagent:/gone/jmx_prometheus_javaagent-1.0.1.jar but that jar is missing" in text


def test_agent_on_another_port(run_alert, fake_mm2, tmpdir):
    jar = tmpdir.join("jmx_prometheus_javaagent-1.0.1.jar")
    jar.write("")
    port = free_port()
    info = fake_mm2(agent="%s=9999:/etc/x/jmx_exporter_mm2.yaml" % jar)
    state, text = run_alert("process", port, env=_env(info))
    assert state == "UNKNOWN"
    assert "serves metrics on port 9999 but kafka-mm2-env/mm2_metrics_port is %d: restart" % port in text


def test_agent_loaded_but_nothing_listens(run_alert, fake_mm2, tmpdir):
    jar = tmpdir.join("jmx_prometheus_javaagent-1.0.1.jar")
    jar.write("")
    port = free_port()
    info = fake_mm2(agent="%s=%d:/etc/x/jmx_exporter_mm2.yaml" % (jar, port))
    state, text = run_alert("process", port, env=_env(info, mm2_log_dir="/var/log/kafka-mm2"))
    assert state == "UNKNOWN"
    assert text.endswith("has the exporter agent on port %d but nothing listens: see /var/log/kafka-mm2/mirrormaker.out "
                         "for the agent's error (port in use, unreadable /etc/x/jmx_exporter_mm2.yaml)" % port)


@pytest.mark.parametrize("elapsed,expected", [
    (1.999, "OK"), (2.0, "WARNING"), (2.001, "WARNING"), (3.999, "WARNING"), (4.0, "CRITICAL"), (4.001, "CRITICAL"),
])
def test_response_time_at_the_boundaries(elapsed, expected):
    fetched = alert_fetch.Fetched("http://h:9405/metrics", text=render(PAYLOAD_PROCESS), elapsed=elapsed)
    snap = m.Snapshot(fetched.text, alert_runner.FAMILIES["process"])
    result = process_check.evaluate_process(snap, fetched, alert_runner.thresholds_for("process", {}), None, "h")
    assert result.state == expected
    against = {"OK": "(warning 2 s, critical 4 s)", "WARNING": ">= warning 2 s (critical 4 s)",
               "CRITICAL": ">= critical 4 s"}[expected]
    assert result.text.startswith("MirrorMaker 2 metrics endpoint answered in %s s %s;" % (("%.3f" % elapsed).rstrip("0").rstrip("."), against))


def test_scrape_errors_and_foreign_rules_warn(metrics_server, run_alert, fake_mm2):
    info = fake_mm2()
    server = metrics_server("# TYPE jmx_scrape_error gauge\njmx_scrape_error 1.0\n# TYPE jvm_threads_current gauge\n"
                            "jvm_threads_current 10.0\n")
    state, text = run_alert("process", server.port, env=_env(info))
    assert state == "WARNING"
    assert "exports no MirrorMaker 2 herder (mm2_herder_up)" in text and "jmx_scrape_error=1" in text
    state, text = run_alert("latency", server.port)
    assert state == "UNKNOWN" and "the exporter does not use the mpack's rules (jmx_exporter_mm2.yaml" in text


def test_metrics_disabled(run_alert, fake_mm2):
    info = fake_mm2()
    state, text = run_alert("process", free_port(), env=_env(info, mm2_metrics_enabled="false"))
    assert state == "OK" and "metrics endpoint is disabled (kafka-mm2-env/mm2_metrics_enabled=false)" in text
    for kind in ("latency", "lag", "heartbeat", "checkpoint", "tasks"):
        state, text = run_alert(kind, free_port(), env={"mm2_metrics_enabled": "false"})
        assert state == "UNKNOWN"
        assert text.startswith("MirrorMaker 2 metrics are disabled (kafka-mm2-env/mm2_metrics_enabled=false)")


@pytest.mark.parametrize("kind", alert_runner.KINDS)
def test_slow_endpoint_gives_unknown_within_the_timeout(metrics_server, run_alert, kind):
    server = metrics_server(render(PAYLOAD_PROCESS), delay=30.0)
    state, text = run_alert(kind, server.port, params={"connection.timeout": 0.5})
    if kind == "process":
        assert state == "CRITICAL"   # no MM2 process here: that is checked before the endpoint
        return
    assert state == "UNKNOWN"
    assert text.startswith("Cannot read MirrorMaker 2 metrics from http://127.0.0.1:%d/metrics: timed out" % server.port)
    assert "raise 'connection.timeout'" in text


@pytest.mark.parametrize("kind", ["latency", "lag", "heartbeat", "checkpoint", "tasks"])
def test_unreachable_endpoint(run_alert, kind):
    port = free_port()
    state, text = run_alert(kind, port)
    assert state == "UNKNOWN"
    assert text == ("Cannot read MirrorMaker 2 metrics from http://127.0.0.1:%d/metrics: connection refused. "
                    "MirrorMaker 2 is not running on this host (no pid file (/nonexistent/mm2-pid/mirrormaker2.pid))"
                    % port)


def test_http_error(metrics_server, run_alert):
    server = metrics_server("oops", status=500)
    state, text = run_alert("tasks", server.port)
    assert state == "UNKNOWN" and "HTTP 500" in text


def test_bad_port_property_is_named(run_alert):
    state, text = run_alert("lag", 1, env={"mm2_metrics_port": "nine"})
    assert state == "UNKNOWN"
    assert text.startswith("kafka-mm2-env/mm2_metrics_port is 'nine', not a port number")


def test_name_filter_is_sent_and_optional(metrics_server, run_alert):
    honoring = metrics_server(render(PAYLOAD_PROCESS))
    ignoring = metrics_server(render(PAYLOAD_PROCESS), honor_names=False)
    a = run_alert("latency", honoring.port)
    b = run_alert("latency", ignoring.port)
    assert a == b and a[0] == "OK"
    path = honoring.requests[0][0]
    assert path.startswith("/metrics?name%5B%5D=")
    assert "name%5B%5D=" + m.SOURCE_LATENCY_AVG in path


def test_alerts_of_one_run_share_one_scrape(metrics_server, run_alert):
    server = metrics_server(render(PAYLOAD_PROCESS))
    for kind in ("latency", "lag", "tasks", "heartbeat"):
        assert run_alert(kind, server.port, params={"metrics.cache.seconds": 20})[0] == "OK"
    assert len(server.requests) == 1


def test_proxy_settings_of_the_agent_are_ignored(metrics_server, run_alert, monkeypatch):
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:%d" % free_port())
    server = metrics_server(render(PAYLOAD_PROCESS))
    assert run_alert("tasks", server.port)[0] == "OK"


# --- TLS and authentication: the alerts follow kafka-mm2-env, as the exporter does -------------------------
# The agent connects to its host's FQDN; "localhost" is in the test certificate as a DNS name (Python 2.7's
# host name check does not read IP address entries).
TLS_HOST = "localhost"


def _tls_env(tls_files, **extra):
    env = {"mm2_metrics_ssl_enabled": "true", "mm2_metrics_ssl_ca_file": tls_files["ca"]}
    env.update(extra)
    return env


def test_https_with_the_cluster_ca(metrics_server, run_alert, tls_files):
    server = metrics_server(render(PAYLOAD_PROCESS), tls=(tls_files["cert"], tls_files["key"]))
    state, text = run_alert("tasks", server.port, host=TLS_HOST, env=_tls_env(tls_files))
    assert state == "OK"


def test_https_with_an_untrusted_certificate(metrics_server, run_alert, tls_files):
    server = metrics_server(render(PAYLOAD_PROCESS), tls=(tls_files["cert"], tls_files["key"]))
    state, text = run_alert("tasks", server.port, host=TLS_HOST, env=_tls_env(tls_files, mm2_metrics_ssl_ca_file=tls_files["other_ca"]))
    assert state == "UNKNOWN"
    assert text.startswith("Cannot read MirrorMaker 2 metrics from https://localhost:%d/metrics: TLS error" % server.port)
    assert "kafka-mm2-env/mm2_metrics_ssl_ca_file" in text


def test_https_verification_can_be_turned_off(metrics_server, run_alert, tls_files):
    server = metrics_server(render(PAYLOAD_PROCESS), tls=(tls_files["cert"], tls_files["key"]))
    env = _tls_env(tls_files, mm2_metrics_ssl_ca_file=tls_files["other_ca"], mm2_metrics_ssl_verify="false")
    assert run_alert("tasks", server.port, host=TLS_HOST, env=env)[0] == "OK"


def test_plain_http_against_https_fails_cleanly(metrics_server, run_alert, tls_files):
    server = metrics_server(render(PAYLOAD_PROCESS), tls=(tls_files["cert"], tls_files["key"]))
    state, text = run_alert("tasks", server.port, host=TLS_HOST)
    assert state == "UNKNOWN" and text.startswith("Cannot read MirrorMaker 2 metrics from http://localhost")


def test_basic_auth(metrics_server, run_alert, tls_files):
    server = metrics_server(render(PAYLOAD_PROCESS), tls=(tls_files["cert"], tls_files["key"]), auth=("prom", "s3cret"))
    env = _tls_env(tls_files, mm2_metrics_auth_username="prom", mm2_metrics_auth_password="s3cret")
    assert run_alert("tasks", server.port, host=TLS_HOST, env=env)[0] == "OK"
    state, text = run_alert("tasks", server.port, host=TLS_HOST, env=dict(env, mm2_metrics_auth_password="wrong"))
    assert state == "UNKNOWN"
    assert "HTTP 401" in text and "mm2_metrics_auth_username and mm2_metrics_auth_password must match" in text
    assert "s3cret" not in text and "wrong" not in text


# --- kafka-mm2-env/mm2_metrics_host: the exporter on one interface (issue 26) -----------------------

def test_the_alerts_read_the_exporter_where_it_is_bound(metrics_server, run_alert, fake_mm2):
    server = metrics_server(render(PAYLOAD_PROCESS))  # listens on 127.0.0.1 only
    info = fake_mm2()
    # The host's name would not reach a loopback-only exporter; the bound address does.
    state, text = run_alert("process", server.port, host="mm2-1.invalid",
                            env=_env(info, mm2_metrics_host="127.0.0.1"))
    assert state == "OK", text
    state, text = run_alert("process", server.port, host="127.0.0.1", env=_env(info, mm2_metrics_host="_HOST"))
    assert state == "OK", text


def test_an_unusable_bind_address_is_named(run_alert):
    state, text = run_alert("process", free_port(), env={"mm2_metrics_host": "127.0.0.1:9404"})
    assert state == "UNKNOWN"
    assert text.startswith("kafka-mm2-env/mm2_metrics_host: '127.0.0.1:9404': give only the address"), text
