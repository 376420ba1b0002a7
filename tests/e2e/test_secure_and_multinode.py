"""End to end on real Kafka 3.9 through the built mpack's scripts (the Ambari agent's way):
SASL_SSL with SCRAM (passwords from Ambari's PASSWORD properties via the secrets file, and a wrong
password), Kerberos with a real MIT KDC and the identity kerberos.json declares, and two driver
hosts sharing the work over KIP-710's internal REST (one killed, the other takes over).

Each case goes INSTALL (existing Kafka home), CONFIGURE, START, STATUS, N records counted exactly on
the target, SERVICE_CHECK, REPLICATION_STATUS, STOP (no JVM left, STATUS: not running).
SCRAM runs on Ambari 2.7.8 (Python 2.7), Kerberos on trunk (Python 3.9): each line's library and Python runs the
scripts; the two-driver case, which tests MM2's own work sharing, runs on trunk.
"""
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import stat
import time
import uuid

import pytest

from e2e import agent
from e2e.conftest import require_line
from mm2_core.alerts.registry import INTERVAL_MINUTES
from mm2_core.config import names
from mm2_core.kafka import versions
from mm2_core.host import process
from realkafka import cluster as rk
from realkafka import security as sec

SOURCE, TARGET = "a", "b"
TOPIC = "orders"
MIRRORED = "%s.%s" % (SOURCE, TOPIC)   # the default (prefixed) replication policy
# Each secure case runs on one Ambari line, each fact proven once (docs/development-and-testing.md, "What proves
# each capability"): SCRAM's passwords on 2.7.8, where Python 2's unicode and Ambari 2.7's logging are where such
# bugs were found; Kerberos's identity on trunk. The other line's handling of the same secrets and identities is
# proven against its real library by tests/agent in the real-Ambari stages, without brokers (test_driver_checks:
# SASL_SSL + SCRAM secrets resolved for the tools and kept out of every output; test_driver_record: START with
# Kerberos, its kinit and JAAS settings).
SCRAM_LINE = "2.7.8"
KERBEROS_LINE = "trunk"


# ---------------------------------------------------------------- helpers

def ok(run, what):
    assert run.exit_code == 0 and not run.timed_out, "%s failed (exit %s):\n%s" % (what, run.exit_code,
                                                                                  run.output[-6000:])
    return run


def start_driver(driver):
    for command in ("INSTALL", "CONFIGURE", "START"):
        ok(driver.run(command), command)
    ok(driver.run("STATUS"), "STATUS after START")


def wait_count(cluster, topic, expected, timeout=180):
    """Bounded wait until the topic's end offsets add up to `expected` (never more: exact)."""
    seen = {}

    def arrived():
        seen["count"] = cluster.count(topic) if topic in cluster.topics() else 0
        assert seen["count"] <= expected, "%d records in %s on %s, more than the %d produced" % (
            seen["count"], topic, cluster.name, expected)
        return seen["count"] == expected
    try:
        rk.wait_until(arrived, timeout, interval=2, what="%d records in %s on %s" % (expected, topic, cluster.name))
    except TimeoutError:
        raise AssertionError("%s on %s holds %s records after %ss, expected %d"
                             % (topic, cluster.name, seen.get("count"), timeout, expected))


def check_and_status(driver, topic=TOPIC):
    """SERVICE_CHECK passes and REPLICATION_STATUS shows the flow's source connector RUNNING."""
    ok(driver.service_check(), "SERVICE_CHECK")
    run = ok(driver.run("REPLICATION_STATUS"), "REPLICATION_STATUS")
    (report,) = [r for r in run.structured_out["replication_status"] if r["flow"] == "%s->%s" % (SOURCE, TARGET)]
    source_connector = report["connectors"]["MirrorSourceConnector"]
    assert source_connector["state"] == "RUNNING", report
    assert source_connector["tasks"] and set(source_connector["tasks"]) == {"RUNNING"}, report
    assert topic in report["matched_topics"] and topic not in report.get("not_yet_mirrored", []), report
    return report


def all_alerts_ok(drivers, joined, what):
    """Every alert of every driver OK within 3 alert intervals; joined: the lag and latency alerts also name the
    host's partitions (it replicates some), not only OK for a host that replicates none.

    The heartbeat gap is asked of the host that replicates the heartbeat partition only: the alert finds it on
    another driver host by reading that host at the service's one metrics port, and two drivers on one machine
    have two ports (the reh8 rehearsal: the partition moved to the restarted host, and the survivor's alert, reading
    its own port for "localhost", did not find it)."""
    seen, t0 = [], time.time()

    def every_ok():
        seen[:] = [dict((d.hostname, d.alerts(agent.TEST_THRESHOLDS)) for d in drivers)]
        gaps = dict((host, alerts.pop("mm2_heartbeat_gap")) for host, alerts in seen[0].items())
        # the host whose own scrape has the heartbeat partition names it: "<source>.heartbeats-0 on <host>"
        mine = [state for host, (state, text) in gaps.items() if "heartbeats-0 on %s" % host in text]
        seen[0]["heartbeat gap"] = gaps
        return mine and all(state == "OK" for state in mine) and all(
            state == "OK" and not (joined and agent.NOT_JOINED in text)
            for host, alerts in seen[0].items() if host != "heartbeat gap" for state, text in alerts.values())
    try:
        rk.wait_until(every_ok, 3 * 60 * INTERVAL_MINUTES, interval=10, what="every alert OK on %s" % what)
        print("every alert OK on %s after %.0f s" % (what, time.time() - t0))
    except TimeoutError:
        raise AssertionError("alerts not OK on %s: %s" % (what, dict(
            (host, dict((n, v) for n, v in alerts.items() if v[0] != "OK" or agent.NOT_JOINED in v[1]))
            for host, alerts in seen[0].items())))


def stop_driver(driver):
    ok(driver.run("STOP"), "STOP")
    assert driver.mm2_pids() == [], "MM2 JVMs left after STOP: %s" % driver.mm2_pids()
    assert not os.path.exists(driver.pid_file), "pid file left after STOP"
    status = driver.run("STATUS")
    assert status.exit_code != 0, "STATUS says running after STOP:\n%s" % status.output[-2000:]


def in_parallel(step, *drivers):
    """step(driver) for every driver at once (as Ambari runs a command on several hosts); re-raises."""
    with concurrent.futures.ThreadPoolExecutor(len(drivers)) as pool:
        for future in [pool.submit(step, d) for d in drivers]:
            future.result()


def simple_clusters(source_bootstrap, target_bootstrap, **per_cluster):
    """kafka-mm2-clusters for a -> b; per_cluster settings go to both roles (source.X and target.X)."""
    values = {"source.alias": SOURCE, "source.bootstrap.servers": source_bootstrap,
              "target.alias": TARGET, "target.bootstrap.servers": target_bootstrap}
    for key, value in per_cluster.items():
        key = key.replace("_", ".")
        values["source." + key] = value
        values["target." + key] = value
    return values


def place_file(driver, host_path, source):
    """Put a file (truststore, keytab) where the driver host's configuration says it is."""
    local = driver.path(host_path)
    os.makedirs(os.path.dirname(local), exist_ok=True)
    shutil.copyfile(source, local)
    os.chmod(local, 0o600)
    return local


def outputs_of(driver):
    """Every command output of this driver (the agent's output-N.txt / errors-N.txt)."""
    data = os.path.join(driver.root, "agent", "data")
    texts = []
    for name in sorted(os.listdir(data)):
        if name.startswith(("output-", "errors-")):
            with open(os.path.join(data, name), errors="replace") as fh:
                texts.append(fh.read())
    return "\n".join(texts)


def mm2_log_has_no_error(driver, needle):
    try:
        with open(driver.log_file, errors="replace") as fh:
            return needle not in fh.read()
    except IOError:
        return True


# ---------------------------------------------------------------- SASL_SSL + SCRAM

@pytest.mark.parametrize("line", [SCRAM_LINE])
def test_sasl_ssl_scram_lifecycle_wrong_password_and_restart(line, mpack, drivers, tmp_path):
    """SCRAM passwords come from the PASSWORD properties and land only in the 0600 secrets file; a
    wrong target password makes START fail fast naming the authentication failure and leaves no JVM;
    START with the right one resumes with nothing lost."""
    require_line(line)
    ca = sec.TestCA(tmp_path)
    broker_props = sec.sasl_ssl_scram_broker_props(ca)
    password = sec.random_password()
    with rk.kafka_clusters(tmp_path, names=(SOURCE, TARGET), listeners={"SASL_SSL": "SASL_SSL"},
                           broker_props=broker_props) as clusters:
        src, dst = clusters[SOURCE], clusters[TARGET]
        for cluster in (src, dst):
            sec.add_scram_user(cluster, "mm2", password)
        src.create_topic(TOPIC, partitions=3)

        truststore = "/etc/security/mm2/truststore.jks"
        security = dict(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_username="mm2",
                        sasl_password=password, ssl_truststore_location=truststore, ssl_truststore_type="JKS",
                        ssl_truststore_password=ca.password)
        configurations = {
            names.CLUSTERS: simple_clusters(src.listener_bootstrap("SASL_SSL"), dst.listener_bootstrap("SASL_SSL"),
                                            **security),
            names.REPLICATION: {"secrets.config.provider.enabled": "true"},
        }
        driver = drivers.new(mpack, line, str(tmp_path / "host"), configurations=configurations, metrics=False)
        place_file(driver, truststore, ca.truststore_path)

        start_driver(driver)
        n = 3000
        src.produce_n(TOPIC, n)
        wait_count(dst, MIRRORED, n)
        check_and_status(driver)

        # the passwords are in the 0600 secrets file only: not in the main properties, not in any output
        conf = driver.conf_dir
        with open(os.path.join(conf, "connect-mirror-maker.properties")) as fh:
            main_properties = fh.read()
        assert password not in main_properties and ca.password not in main_properties
        assert "${file:" in main_properties
        secrets_file = os.path.join(conf, "mm2-secrets.properties")
        assert stat.S_IMODE(os.stat(secrets_file).st_mode) == 0o600
        with open(secrets_file) as fh:
            assert password in fh.read()
        stop_driver(driver)

        # a wrong password for the target: START fails within its timeout, names the cause, leaves nothing
        src.produce_n(TOPIC, 500, prefix="while-down")
        wrong = {names.CLUSTERS: {"target.sasl.password": "not-" + password}}
        began = time.monotonic()
        failed = driver.run("START", configurations=wrong)
        took = time.monotonic() - began
        assert failed.exit_code != 0 and not failed.timed_out, failed.output[-3000:]
        assert took < int(driver.env["mm2_start_timeout_seconds"]), "START took %.0fs to fail" % took
        assert "SaslAuthenticationException" in failed.output or "Authentication failed" in failed.output, \
            failed.output[-4000:]
        assert driver.mm2_pids() == [] and not os.path.exists(driver.pid_file)
        assert driver.run("STATUS").exit_code != 0

        # the right password again: START resumes where the clean STOP left off, nothing lost or doubled
        start_driver(driver)
        wait_count(dst, MIRRORED, n + 500)
        stop_driver(driver)
        everything = outputs_of(driver)
        assert password not in everything and ca.password not in everything, "a password reached a command output"


# ---------------------------------------------------------------- Kerberos

def kerberos_identity(mpack, mm2_user, realm):
    """(principal pattern, keytab path) of the driver as kerberos.json declares them."""
    with open(os.path.join(mpack.service_dir, "kerberos.json")) as fh:
        service = json.load(fh)["services"][0]
    (component,) = [c for c in service["components"] if c["name"] == names.COMPONENT]
    (identity,) = component["identities"]
    principal = identity["principal"]["value"].replace("${%s/mm2_user}" % names.ENV, mm2_user) \
        .replace("${realm}", realm)
    assert identity["principal"]["configuration"] == "%s/mm2_principal_name" % names.ENV
    assert identity["keytab"]["configuration"] == "%s/mm2_keytab" % names.ENV
    keytab = identity["keytab"]["file"].replace("${keytab_dir}", "/etc/security/keytabs")
    return principal, keytab


def kinit_wrapper(directory, kdc, ccache):
    """kerberos-env/executable_search_paths entry: the real kinit, pointed at this test's realm
    (Ambari-managed hosts have it in /etc/krb5.conf; this shared machine must not be changed)."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "kinit")
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\nKRB5_CONFIG='%s' KRB5CCNAME='FILE:%s' exec '%s' \"$@\"\n"
                 % (kdc.krb5_conf, ccache, sec.kdc_binary("kinit")))
    os.chmod(path, 0o755)
    return directory


@pytest.mark.parametrize("line", [KERBEROS_LINE])
def test_kerberos_with_the_declared_identity(line, mpack, drivers, tmp_path):
    """Brokers take GSSAPI from a real MIT KDC; MM2 logs in with the principal and keytab
    kerberos.json declares (kafka-mm2-env/mm2_principal_name with _HOST, mm2_keytab)."""
    require_line(line)
    reason = sec.kdc_skip_reason()
    if reason:
        pytest.skip(reason)
    with sec.Kdc(tmp_path) as kdc:
        broker_keytab = str(tmp_path / "keytabs" / "kafka.service.keytab")
        broker_props = sec.kerberos_broker_props(kdc, broker_keytab)
        with rk.kafka_clusters(tmp_path, names=(SOURCE, TARGET), listeners={"SASL_PLAINTEXT": "SASL_PLAINTEXT"},
                               broker_props=broker_props, env={"KAFKA_OPTS": kdc.java_opts()}) as clusters:
            src, dst = clusters[SOURCE], clusters[TARGET]
            src.create_topic(TOPIC, partitions=2)
            driver = drivers.new(mpack, line, str(tmp_path / "host"), metrics=False)
            user = driver.command("STATUS")["configurations"][names.ENV]["mm2_user"]
            principal_pattern, keytab = kerberos_identity(mpack, user, kdc.realm)
            assert "_HOST" in principal_pattern
            principal = kdc.add_principal(principal_pattern.replace("_HOST", driver.hostname.lower()),
                                          str(tmp_path / "kdc-export" / "mm2.service.keytab"))
            local_keytab = place_file(driver, keytab, str(tmp_path / "kdc-export" / "mm2.service.keytab"))
            driver.configurations = agent._merge(driver.configurations, {
                "cluster-env": {"security_enabled": "true"},
                "kerberos-env": {"realm": kdc.realm, "executable_search_paths":
                                 kinit_wrapper(str(tmp_path / "krb-bin"), kdc, str(tmp_path / "mm2.ccache"))},
                names.CLUSTERS: simple_clusters(src.listener_bootstrap("SASL_PLAINTEXT"),
                                                dst.listener_bootstrap("SASL_PLAINTEXT"),
                                                security_protocol="SASL_PLAINTEXT", sasl_mechanism="GSSAPI"),
            })
            # what Ambari's Kerberos wizard writes into kafka-mm2-env; the JVMs find the realm's krb5.conf
            driver.env.update({"mm2_principal_name": principal_pattern, "mm2_keytab": local_keytab,
                               "mm2_jvm_opts": "%s %s" % (rk.LEAN_MM2_JVM_OPTS, kdc.java_opts())})

            start_driver(driver)
            with open(driver.properties_file) as fh:
                rendered = fh.read()
            assert principal in rendered and local_keytab in rendered   # JAAS with the declared identity
            n = 2000
            src.produce_n(TOPIC, n)
            wait_count(dst, MIRRORED, n)
            check_and_status(driver)
            stop_driver(driver)
            assert os.path.exists(str(tmp_path / "mm2.ccache")), "START did not kinit with the service keytab"


# ---------------------------------------------------------------- two drivers (KIP-710)

def assigned_tasks(driver):
    """Tasks of the a->b herder this driver host runs now, from its MM2 log: the assignments it joined with, each
    adding its taskIds and taking away its revokedTaskIds (a host that started every task first and then gave
    some to the other host in a rebalance no longer runs those: the r6 rehearsal of 2026-11-27 waited 300 s for
    the survivor to "take over" two tasks it had been running all along)."""
    pattern = re.compile(r"\[Worker clientId=%s->%s, [^\]]*\] Joined group at generation \d+ .*?taskIds=\[([^\]]*)\], "
                         r"revokedConnectorIds=\[[^\]]*\], revokedTaskIds=\[([^\]]*)\]" % (SOURCE, TARGET))
    try:
        with open(driver.log_file, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
    except IOError:
        return set()
    current = set()
    for added, revoked in pattern.findall(text):
        current |= set(t.strip() for t in added.split(",") if t.strip())
        current -= set(t.strip() for t in revoked.split(",") if t.strip())
    return current


def started_tasks(driver, since=0):
    """Tasks of the a->b herder this driver host started after byte `since` of its MM2 log (in
    dedicated mode every worker reports the worker id "a->b", so the status topic cannot tell hosts apart)."""
    pattern = re.compile(r"\[Worker clientId=%s->%s, [^\]]*\] Starting task (\S+)" % (SOURCE, TARGET))
    try:
        with open(driver.log_file, "rb") as fh:
            fh.seek(since)
            text = fh.read().decode("utf-8", "replace")
    except IOError:
        return set()
    return set(pattern.findall(text))


def log_size(driver):
    return os.path.getsize(driver.log_file) if os.path.exists(driver.log_file) else 0


def distinct_keys(cluster, topic, expected):
    records = cluster.consume(topic, expected * 2, timeout_ms=6000)
    return len(records), set(k for k, _ in records)


def test_two_drivers_share_tasks_and_survive_a_kill(mpack, kafka_pool, drivers, tmp_path):
    """Line trunk. Two driver hosts (separate dirs, host names and REST ports) serve the same flow;
    the tasks spread over both; kill -9 of one: the other takes its tasks and no record is lost. On the session's
    shared clusters (it kills MM2, not a broker): a topic of its own, lower-case aliases of its own."""
    line = "trunk"
    require_line(line)
    topic = "orders-2d-%s" % uuid.uuid4().hex[:6]
    mirrored = "%s.%s" % (SOURCE, topic)
    with contextlib.nullcontext(kafka_pool(SOURCE, TARGET)) as clusters:
        src, dst = clusters[SOURCE], clusters[TARGET]
        src.create_topic(topic, partitions=4)
        hosts = ["127.0.0.1", "localhost"]
        configurations = {
            names.CLUSTERS: simple_clusters(src.bootstrap, dst.bootstrap),
            names.REPLICATION: {"tasks.max": "4", "topics": "%s, %s" % (topic, names.SERVICE_CHECK_TOPIC)},
            # a worker that vanishes keeps its tasks for scheduled.rebalance.max.delay.ms (5 min by default)
            names.CUSTOM: {"%s.scheduled.rebalance.max.delay.ms" % TARGET: "10000"},
        }
        first, second = [drivers.new(mpack, line, str(tmp_path / ("host-%d" % i)), configurations=configurations,
                                     hostname=host, driver_hosts=hosts)
                         for i, host in enumerate(hosts)]
        version = rk.installed_version(src.home)
        if not versions.supports(version, versions.MULTI_NODE):
            # before 3.5 (KIP-710) several drivers per target lose task reconfigurations: START refuses, says why
            ok(first.run("INSTALL"), "INSTALL")
            refused = first.run("START")
            assert refused.exit_code != 0
            assert "loses task reconfigurations with several drivers per target (KAFKA-9981)" in refused.output, \
                refused.output[-3000:]
            assert first.mm2_pids() == []
            return
        in_parallel(start_driver, first, second)   # Ambari starts the hosts of a component in parallel
        n = 4000
        src.produce_n(topic, n)
        wait_count(dst, mirrored, n)

        # whichever host joined first, the group spread the source tasks over both
        def spread():
            return all(any(t.startswith("MirrorSourceConnector-") for t in assigned_tasks(d)) for d in (first, second))
        try:
            rk.wait_until(spread, 90, interval=3, what="source tasks on both drivers")
        except TimeoutError:
            raise AssertionError("tasks did not spread: the drivers run %s and %s"
                                 % (sorted(assigned_tasks(first)), sorted(assigned_tasks(second))))
        victim_tasks = assigned_tasks(second)
        assert victim_tasks and victim_tasks <= started_tasks(second), (victim_tasks, started_tasks(second))

        # kill -9 the second host's JVM: STATUS there says not running, the first takes its tasks over
        survivor_log = log_size(first)
        victim = second.pid()
        os.kill(victim, 9)
        rk.wait_until(lambda: not process.is_alive(victim), 30, what="pid %d to die" % victim)
        assert second.run("STATUS").exit_code != 0
        m = 2000
        src.produce_n(topic, m, prefix="after-kill")
        try:
            rk.wait_until(lambda: victim_tasks <= started_tasks(first, survivor_log), 300, interval=3,
                          what="the surviving driver to start %s" % sorted(victim_tasks))
        except TimeoutError:
            raise AssertionError("the survivor started only %s of %s" % (started_tasks(first, survivor_log),
                                                                       victim_tasks))
        total, keys = None, set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if dst.count(mirrored) >= n + m:
                total, keys = distinct_keys(dst, mirrored, n + m)
                if len(keys) == n + m:
                    break
            time.sleep(3)
        assert len(keys) == n + m, "%d of %d records reached %s (%s read)" % (len(keys), n + m, mirrored, total)

        # the alerts through the kill (issue 37): the killed host's process alert CRITICAL; the survivor's every
        # alert OK, its lag and latency joined to the partitions it took over (its new tasks' metrics)
        assert second.alerts(agent.TEST_THRESHOLDS)["mm2_driver_process"][0] == "CRITICAL"
        all_alerts_ok([first], joined=True, what="the survivor, replicating every partition")
        check_and_status(first, topic)
        # START recovers the killed host, MM2 on the survivor not restarted: records flow and both hosts' every
        # alert is OK again within 3 alert intervals; then both stop cleanly
        survivor, restarted_log = first.pid(), log_size(second)
        ok(second.run("START"), "START after kill -9")
        src.produce_n(topic, m, prefix="after-start")
        # (at least once: what the killed host had copied since its last offset flush is copied again)
        rk.wait_until(lambda: dst.count(mirrored) >= n + 2 * m and len(distinct_keys(dst, mirrored, n + 2 * m)[1])
                      == n + 2 * m, 180, interval=3, what="%d distinct records in %s" % (n + 2 * m, mirrored))
        rk.wait_until(lambda: any(t.startswith("MirrorSourceConnector-") for t in started_tasks(second, restarted_log)),
                      300, interval=3, what="a source task started again on the restarted host")
        all_alerts_ok([first, second], joined=False, what="both hosts, replicating again after the killed one's START")
        assert first.pid() == survivor
        in_parallel(stop_driver, first, second)
