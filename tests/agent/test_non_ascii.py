# -*- coding: utf-8 -*-
"""Non-ASCII in every value a user or Kafka can put into an agent command, table-driven, in
execute mode (the script runs as the agent runs it). On the Ambari 2.7 line (Python 2.7) the
agent's JSON gives `unicode` values; Kafka and MM2 print UTF-8 bytes. Every command must either
succeed or fail with a Fail that names the property, never with a traceback, and a failed
START must leave nothing running."""
import io
import json
import os
import sys

import pytest

from mm2_core.config import names
from mm2_core.host import process

import fakekafka
from agent_support import alive, failed, ok, wait_dead
from driver_fixture import Driver

PASSWORD = u"pässwörd-密码-\u00a7"
USER = u"mirrör-用户"
PLACE = u"Zürich-東京"
GROUP = u"zahlungsströme-ü, 東京"


def read(path):
    with io.open(path, encoding="utf-8") as fh:
        return fh.read()


OPERATOR_ERRORS = ("resource_management.core.exceptions.Fail: ", "Fail: ",
                   "resource_management.core.exceptions.ComponentIsNotRunning", "ComponentIsNotRunning")


def traceback_free(run):
    """Success, or Ambari's Fail with a message (the agent prints its traceback, as for every
    Fail): never another exception escaping the script."""
    assert "UnicodeDecodeError" not in run.output and "UnicodeEncodeError" not in run.output, run
    if "Traceback (most recent call last)" in run.stderr:
        last = [l for l in run.stderr.splitlines() if l.strip()][-1]
        assert last.startswith(OPERATOR_ERRORS) or "exceptions.Fail" in run.stderr.split("Traceback")[-1], run
    return run


@pytest.fixture
def clusters(site):
    return site.cluster("A", "a1:9092"), site.cluster("B", "b1:9092")


# (id, configurations, env, what must be in the rendered files)
CONFIGURE_CASES = [
    ("sasl-password-in-main-file",
     {names.CLUSTERS: {"source.security.protocol": "SASL_PLAINTEXT", "source.sasl.mechanism": "PLAIN",
                       "source.sasl.username": USER, "source.sasl.password": PASSWORD}}, {},
     ["connect-mirror-maker.properties"]),
    ("sasl-password-in-secrets-file",
     {names.CLUSTERS: {"source.security.protocol": "SASL_PLAINTEXT", "source.sasl.mechanism": "PLAIN",
                       "source.sasl.username": USER, "source.sasl.password": PASSWORD},
      names.REPLICATION: {"secrets.config.provider.enabled": "true"}}, {},
     ["mm2-secrets.properties"]),
    ("metrics-user-password-keystore", {},
     {"mm2_metrics_ssl_enabled": "true", "mm2_metrics_ssl_keystore_location": u"/etc/security/%s.p12" % PLACE,
      "mm2_metrics_ssl_keystore_password": PASSWORD, "mm2_metrics_ssl_certificate_alias": u"mirrör-alias",
      "mm2_metrics_auth_username": USER,
      "mm2_metrics_auth_password": PASSWORD},
     ["jmx_exporter_mm2.yaml"]),
    ("jvm-options-and-heap", {}, {"mm2_jvm_opts": u"-Dmm2.site=%s" % PLACE}, ["mm2-env.sh"]),
    ("stack-config-of-another-service",
     {"cluster-env": {"motd": u"Willkommen in %s" % PLACE}, "hadoop-env": {"content": u"# %s" % PLACE}}, {}, []),
    ("non-ascii-group-filter", {names.REPLICATION: {"groups": u"zahlungen-ü.*, billing"}}, {},
     ["connect-mirror-maker.properties"]),
]


def _secret_values(files_text):
    """Every rendered form of the password: as typed (UTF-8) or Java-escaped (\\uXXXX)."""
    from mm2_core.formats import javaprops
    return [v for v in (PASSWORD, javaprops.dumps([("k", PASSWORD)], None).split("k=", 1)[-1].strip())
            if v in files_text]


@pytest.mark.parametrize("case_id,configurations,env,files", CONFIGURE_CASES, ids=[c[0] for c in CONFIGURE_CASES])
def test_configure_start_stop_with_non_ascii_values(site, clusters, guard, case_id, configurations, env, files):
    driver = Driver(site)
    if case_id == "metrics-user-password-keystore":
        env = dict(env, mm2_metrics_ssl_keystore_location=driver.path(env["mm2_metrics_ssl_keystore_location"]))
    run = traceback_free(ok(driver.run("CONFIGURE", configurations=configurations, env=env)))
    assert PASSWORD not in run.output
    text = u"".join(read(os.path.join(driver.conf_dir, f)) for f in files)
    if PASSWORD in json.dumps(configurations, ensure_ascii=False) + json.dumps(env, ensure_ascii=False):
        assert _secret_values(text), "the password must reach its file intact"
        assert u"b'" not in text and u"\\\\x" not in text
    for value in [v for v in env.values() if PLACE in v and "opts" in v]:
        assert value in text
    start = traceback_free(ok(driver.run("START", configurations=configurations, env=env)))
    pid = driver.pid()
    assert alive(pid) and PASSWORD not in start.output
    traceback_free(ok(driver.run("STATUS", configurations=configurations, env=env)))
    traceback_free(ok(driver.run("STOP", configurations=configurations, env=env)))
    assert wait_dead(pid)


# (id, configurations, the property the Fail must name)
INVALID_CASES = [
    ("bad-regex-echoes-value", {names.REPLICATION: {"topics": u"bestellungen-ü(["}}, "kafka-mm2-replication/topics"),
    ("bad-bootstrap-echoes-value", {names.CLUSTERS: {"source.bootstrap.servers": u"brökers of %s" % PLACE}},
     "kafka-mm2-clusters/source.bootstrap.servers"),
    ("bad-alias", {names.CLUSTERS: {"source.alias": u"Zürich"}}, "kafka-mm2-clusters/source.alias"),
]


@pytest.mark.parametrize("case_id,configurations,prop", INVALID_CASES, ids=[c[0] for c in INVALID_CASES])
def test_invalid_non_ascii_values_fail_naming_the_property(site, clusters, guard, case_id, configurations, prop):
    driver = Driver(site)
    ok(driver.run("CONFIGURE"))
    props = os.path.join(driver.conf_dir, process.PROPERTIES_FILE)
    before = read(props)
    for command in ("CONFIGURE", "START"):
        run = traceback_free(failed(driver.run(command, configurations=configurations)))
        assert prop in run.output
        assert read(props) == before
    assert not os.path.exists(driver.pid_file)


# MM2 writes non-ASCII bytes (a topic, a principal, a path in its error) and dies at start.
# (id, MM2's error, bytes already in its .out file from an earlier run)
FAILED_START_OUTPUTS = [
    ("utf8", u"cannot read %s/ü.jks: Zugriff verweigert ✓" % PLACE, b""),
    ("latin1-bytes-in-out-file", u"Zugriff verweigert", u"Fehler: Schlüssel ungültig\n".encode("latin-1")),
    ("utf8-split-multibyte", u"Zugriff verweigert " + u"東" * 700, u"東京\n".encode("utf-8")[:4] + b"\n"),
]


@pytest.mark.parametrize("case_id,message,out_bytes", FAILED_START_OUTPUTS, ids=[c[0] for c in FAILED_START_OUTPUTS])
def test_failed_start_with_non_ascii_output_leaves_nothing_behind(site, clusters, guard, case_id, message, out_bytes):
    site.control(fail_at_start=message)
    driver = Driver(site)
    ok(driver.run("CONFIGURE"))
    with open(os.path.join(driver.log_dir, process.OUT_FILE), "ab") as fh:
        fh.write(out_bytes)
    run = traceback_free(failed(driver.run("START")))
    assert "MirrorMaker 2 failed to start" in run.output
    assert "Zugriff verweigert" in run.output
    assert "==> %s" % os.path.join(driver.log_dir, process.LOG_FILE) in run.output
    assert not os.path.exists(driver.pid_file)
    assert not [p for p in fakekafka.started_pids(site.state) if alive(p)]
    traceback_free(failed(driver.run("STATUS")))


def test_start_that_fails_after_launch_stops_what_it_launched(site, clusters, guard):
    """The process comes up but never reports started (its log stays silent): START times out,
    stops it and removes its pid file, so STATUS does not say running."""
    site.control(start_delay=600)
    driver = Driver(site)
    driver.env["mm2_start_timeout_seconds"] = "5"
    run = traceback_free(failed(driver.run("START")))
    assert "MirrorMaker 2 failed to start" in run.output
    assert not os.path.exists(driver.pid_file)
    for pid in fakekafka.started_pids(site.state):
        assert wait_dead(pid)
    traceback_free(failed(driver.run("STATUS")))


@pytest.mark.parametrize("prop", ["mm2_log_dir", "mm2_conf_dir"])
def test_paths_and_hostname_with_non_ascii(site, clusters, guard, prop):
    """Ambari 3 (Python 3) manages non-ASCII paths; the Ambari 2.7 agent cannot even log a
    resource with one, so there the command must fail naming the property, with nothing started."""
    driver = Driver(site)
    env = {prop: driver.path(u"/var/kafka-mm2-%s/%s" % (PLACE, prop))}
    if sys.version_info[0] == 2:
        for command in ("CONFIGURE", "START"):
            run = traceback_free(failed(driver.run(command, env=env)))
            assert u"kafka-mm2-env/%s is %s" % (prop, env[prop]) in run.output
            assert "Use an ASCII name" in run.output
        assert not [p for p in fakekafka.started_pids(site.state) if alive(p)]
        return
    traceback_free(ok(driver.run("START", env=env)))
    pid = driver.pid()
    assert alive(pid) and os.path.isdir(env[prop])
    if prop == "mm2_log_dir":
        assert os.path.exists(os.path.join(env[prop], process.LOG_FILE))
    else:
        assert read(os.path.join(env[prop], process.PROPERTIES_FILE)).count(u"A.bootstrap.servers") == 1
    run = traceback_free(ok(driver.run("STOP", env=env)))
    assert wait_dead(pid) and "stopped after SIGTERM" in run.output


def test_replication_status_and_export_with_non_ascii_groups(site, clusters, guard):
    a, b = clusters
    a.create_topic("orders")
    for i in range(3):
        a.append("orders", (u"bestellung-ü-%d" % i).encode("utf-8"))
    a.commit(GROUP, "orders", 0, 2)
    driver = Driver(site)
    ok(driver.run("START"))

    def translated():
        return [fakekafka.decode_checkpoint(k, v)[0] for _, k, v, _ in b.records("A.checkpoints.internal")]

    end = __import__("time").time() + 20
    while GROUP not in translated() and __import__("time").time() < end:
        __import__("time").sleep(0.2)
    assert GROUP in translated()
    run = traceback_free(ok(driver.run(names.CMD_REPLICATION_STATUS)))
    assert "Flow A->B" in run.output
    run = traceback_free(ok(driver.run(names.CMD_EXPORT_OFFSETS, command_params={"groups": GROUP.split(",")[0]})))
    run = traceback_free(ok(driver.run(names.CMD_EXPORT_OFFSETS)))
    (entry,) = run.structured_out["translated_offsets"]
    assert list(entry["groups"]) == [GROUP]
    with io.open(entry["all_groups_csv"], encoding="utf-8") as fh:
        assert GROUP in fh.read()
    traceback_free(ok(driver.run("STOP")))


def test_verify_topics_setting_keeps_non_ascii_text():
    """VERIFY_REPLICATION reads kafka-mm2-replication/verify.topics as any text (a topic pattern
    the operator typed, echoed back in its errors)."""
    from mm2_core.config import schema
    from mm2_verify_job import plan
    configurations = dict((ct.name, dict((p.name, p.default) for p in ct.properties)) for ct in schema.CONFIG_TYPES)
    configurations[names.REPLICATION]["verify.topics"] = u"bestellungen-ü.*, orders"
    assert plan.verify_settings(configurations)["topics"] == u"bestellungen-ü.*, orders"


def _snapshot(directory):
    found = {}
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), "rb") as fh:
            found[name] = (fh.read(), os.stat(os.path.join(directory, name)).st_mode)
    return found


@pytest.mark.parametrize("bad", [
    ({"env": {"content": u"export JAVA_HOME={{ java_home"}}, "kafka-mm2-env/content"),
    ({"configurations": {names.LOG4J: {"content": u"log4j.rootLogger={% if %}"}}}, "kafka-mm2-log4j/content"),
], ids=["env-template", "log4j-template"])
def test_failed_configure_keeps_every_previous_file_byte_identical(site, clusters, guard, bad):
    """Everything is rendered in memory first: a template that does not render fails the
    command naming the property, and no file changes, not even those rendered before it."""
    overrides, prop = bad
    driver = Driver(site)
    ok(driver.run("CONFIGURE"))
    before = _snapshot(driver.conf_dir)
    changed = {names.REPLICATION: {"topics": u"orders-ü, payments"}}   # would change the properties file
    configurations = dict(changed, **overrides.get("configurations", {}))
    run = traceback_free(failed(driver.run("CONFIGURE", configurations=configurations, env=overrides.get("env"))))
    assert prop in run.output and "cannot be rendered" in run.output
    assert _snapshot(driver.conf_dir) == before
