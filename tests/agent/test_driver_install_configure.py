"""INSTALL and CONFIGURE in execute mode: Kafka from the stack, a path or a tarball; the files,
owners and modes; a bad configuration writing nothing; metrics exporter secrets."""
import io
import json
import os
import stat
import tarfile

import harness
import pytest

from mm2_core.config import names

import fakekafka
from driver_fixture import Driver
from agent_support import failed, ok


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def read(path):
    with io.open(path, encoding="utf-8") as fh:
        return fh.read()


def kafka_tarball(path, version, top, state):
    """A Kafka-shaped tarball whose bin/ and libs/ come from a fake home."""
    home = fakekafka.make_kafka_home(path + ".src", version, state)
    with tarfile.open(path, "w:gz") as tar:
        tar.add(home, arcname=top)
    return path


def test_install_from_a_tarball_on_hdp31(site, guard):
    """HDP 3.1: the stack's Kafka 2.0 has no MM2; a tarball from the local repository is unpacked."""
    root = site.root
    stack_kafka = fakekafka.make_kafka_home(os.path.join(root, "usr", "hdp", "current", "kafka-broker"),
                                            "2.0.0.3.1.4.0-315", site.state, launcher=False)
    assert os.path.isdir(stack_kafka)
    tarball = kafka_tarball(os.path.join(root, "repo", "kafka_2.12-3.7.1.tgz"), "3.7.1", "kafka_2.12-3.7.1", site.state)
    stack_root = {"cluster-env": {"stack_root": json.dumps({"HDP": os.path.join(root, "usr", "hdp")})}}
    driver = Driver(site)
    home = os.path.join(root, "opt", "kafka-mm2", "current")
    driver.env.update({"kafka_install_source": "auto", "kafka_home": home})

    run = failed(driver.run("INSTALL", configurations=stack_root))
    assert "stack Kafka 2.0.0.3.1.4.0-315" in run.output and "has no MirrorMaker 2" in run.output
    assert "kafka-mm2-env/kafka_tarball_url" in run.output

    run = ok(driver.run("INSTALL", configurations=stack_root, env={"kafka_tarball_url": tarball}))
    assert os.path.islink(home) and os.readlink(home) == "kafka_2.12-3.7.1"
    assert "MirrorMaker 2 will run from %s (Kafka 3.7.1" % home in run.output
    assert "stack Kafka 2.0.0.3.1.4.0-315" in run.output      # why the stack's Kafka was not used
    if os.geteuid() == 0:
        assert os.stat(os.path.join(home, "bin", "connect-mirror-maker.sh")).st_uid == 0
    ok(driver.run("INSTALL", configurations=stack_root, env={"kafka_tarball_url": tarball}))  # idempotent

    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    ok(driver.run("START", configurations=stack_root, env={"kafka_tarball_url": tarball}))
    assert driver.mm2_info()["version"] == "3.7.1"


def test_install_checks_java_for_the_kafka_line(site, guard):
    site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "k4"), "4.0.0", site.state)
    driver = Driver(site)
    driver.env["mm2_java_home"] = fakekafka.make_java_home(os.path.join(site.root, "jdk8"), 8)
    run = failed(driver.run("INSTALL"))
    assert "Kafka 4.0.0 needs Java 17 or newer" in run.output and "is Java 8" in run.output


def test_bigtop_uses_the_stack_kafka(site, guard):
    root = site.root
    stack_home = fakekafka.make_kafka_home(os.path.join(root, "usr", "bigtop", "current", "kafka-broker"),
                                           "2.8.2", site.state)
    driver = Driver(site, stack_name="BIGTOP", stack_version="3.2.0")
    driver.env.update({"kafka_install_source": "auto", "kafka_home": "/opt/kafka-mm2/current"})
    conf = {"cluster-env": {"stack_root": json.dumps({"BIGTOP": os.path.join(root, "usr", "bigtop")})}}
    run = ok(driver.run("INSTALL", configurations=conf))
    assert "MirrorMaker 2 will run from %s (Kafka 2.8.2" % stack_home in run.output
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    ok(driver.run("START", configurations=conf))
    argv = open("/proc/%d/cmdline" % driver.pid(), "rb").read().split(b"\0")
    assert (stack_home + "/bin/../libs/*").encode() in argv


def test_install_downloads_the_metrics_agent(site, guard):
    jar_src = os.path.join(site.root, "jmx_prometheus_javaagent-1.0.1.jar")
    with open(jar_src, "w") as fh:
        fh.write("jar")
    driver = Driver(site)
    driver.env["jmx_exporter_jar"] = "http://127.0.0.1:1/jmx_prometheus_javaagent-1.0.1.jar"
    run = failed(driver.run("INSTALL"))
    assert "Cannot download http://127.0.0.1:1/jmx_prometheus_javaagent-1.0.1.jar" in run.output


def test_configure_writes_files_with_owners_and_modes(site, guard):
    driver = Driver(site)
    ok(driver.run("CONFIGURE"))
    conf = driver.conf_dir
    for d in (driver.conf_dir, driver.log_dir, driver.pid_dir):
        assert mode(d) == 0o755 and os.stat(d).st_uid == os.getuid()
    props = os.path.join(conf, "connect-mirror-maker.properties")
    assert mode(props) == 0o640 and "A.bootstrap.servers=a1:9092" in read(props)
    env_sh = read(os.path.join(conf, "mm2-env.sh"))
    assert "export JAVA_HOME='%s'" % site.java_home in env_sh
    assert "export LOG_DIR='%s'" % driver.log_dir in env_sh
    assert "export KAFKA_LOG4J_OPTS='-Dlog4j.configuration=file:%s/log4j.properties'" % conf in env_sh
    assert "-javaagent:%s=9405:%s/jmx_exporter_mm2.yaml" % (site.exporter_jar, conf) in env_sh
    assert "log4j.appender.mm2File.MaxFileSize=256MB" in read(os.path.join(conf, "log4j.properties"))
    assert mode(os.path.join(conf, "jmx_exporter_mm2.yaml")) == 0o644
    assert not [f for f in os.listdir(conf) if f.endswith(".new")]


def test_bad_configuration_writes_nothing_and_keeps_the_previous_files(site, guard):
    driver = Driver(site)
    ok(driver.run("CONFIGURE"))
    props = os.path.join(driver.conf_dir, "connect-mirror-maker.properties")
    before = read(props)
    mtime = os.stat(props).st_mtime
    run = failed(driver.run("CONFIGURE", configurations={
        names.CLUSTERS: {"source.bootstrap.servers": "not a host list"},
        names.REPLICATION: {"topics": "orders(["}}))
    assert "nothing was written and the previous files are kept" in run.output
    assert "kafka-mm2-clusters/source.bootstrap.servers" in run.output
    assert "kafka-mm2-replication/topics" in run.output
    assert read(props) == before and os.stat(props).st_mtime == mtime
    assert not [f for f in os.listdir(driver.conf_dir) if f.endswith(".new")]


def test_secrets_file_and_its_removal(site, guard):
    driver = Driver(site)
    secure = {names.CLUSTERS: {"source.security.protocol": "SASL_PLAINTEXT", "source.sasl.mechanism": "PLAIN",
                               "source.sasl.username": "mm2", "source.sasl.password": "Pl41n-pw"},
              names.REPLICATION: {"secrets.config.provider.enabled": "true"}}
    run = ok(driver.run("CONFIGURE", configurations=secure))
    secrets = os.path.join(driver.conf_dir, "mm2-secrets.properties")
    props = os.path.join(driver.conf_dir, "connect-mirror-maker.properties")
    assert mode(secrets) == 0o600 and "Pl41n-pw" in read(secrets)
    assert "Pl41n-pw" not in read(props) and mode(props) == 0o640
    assert "Pl41n-pw" not in run.output
    # the option turned off: the password moves into the main file (0600) and the old file goes
    secure[names.REPLICATION]["secrets.config.provider.enabled"] = "false"
    run = ok(driver.run("CONFIGURE", configurations=secure))
    assert not os.path.exists(secrets)
    assert mode(props) == 0o600 and "Pl41n-pw" in read(props) and "Pl41n-pw" not in run.output


def test_metrics_exporter_with_tls_and_basic_auth(site, guard):
    driver = Driver(site)
    run = ok(driver.run("CONFIGURE", env={
        "mm2_metrics_ssl_enabled": "true", "mm2_metrics_ssl_keystore_location": "/etc/security/mm2.p12",
        "mm2_metrics_ssl_keystore_type": "PKCS12", "mm2_metrics_ssl_keystore_password": "Ks-pw-1",
        "mm2_metrics_ssl_certificate_alias": "mm2-host",
        "mm2_metrics_auth_username": "prometheus", "mm2_metrics_auth_password": "Scrape-pw-2"}))
    path = os.path.join(driver.conf_dir, "jmx_exporter_mm2.yaml")
    text = read(path)
    assert mode(path) == 0o600
    assert text.startswith(read(os.path.join(harness.PACKAGE_DIR, "files", "jmx_exporter_mm2.yaml")))
    assert 'password: "Ks-pw-1"' in text and 'type: "PKCS12"' in text and 'username: "prometheus"' in text
    assert 'alias: "mm2-host"' in text   # every exporter from 0.20.0 exits the JVM without it
    assert "Ks-pw-1" not in run.output and "Scrape-pw-2" not in run.output
    ok(driver.run("CONFIGURE", env={"mm2_metrics_enabled": "false"}))
    assert not os.path.exists(path)


def test_broken_live_flow_settings_are_refused_in_the_validators_words(site, guard):
    """Connect mode's CONFIGURE refuses kafka-mm2-live/flow.settings with the words `validate`, `render` and the
    advisor use (mm2_core.connect.live.parse): flow, setting and fix; never a Python tuple."""
    driver = Driver(site)
    ok(driver.run("CONFIGURE"))
    props = os.path.join(driver.conf_dir, "connect-mirror-maker.properties")
    before = read(props)
    run = failed(driver.run("CONFIGURE", env={"mm2_run_mode": "connect"}, configurations={
        names.LIVE: {"flow.settings": "A->B.tasks.max = four\nA->C.topics = x"}}))
    assert "nothing was written and the previous files are kept" in run.output
    assert ("kafka-mm2-live/flow.settings: line 1 (A->B.tasks.max = four): tasks.max of flow A->B: 'four' is not a "
            "whole number: tasks.max is a Kafka int; fix the value or remove the line") in run.output
    assert "line 2 (A->C.topics = x): no flow A->C in this topology" in run.output
    assert "('ERROR'" not in run.output
    assert read(props) == before


def test_connect_mode_configure_writes_the_worker_files_render_previews(site, guard):
    """The worker and its secrets come from mm2_core.rendering.render.connect_files, which
    `mm2-ambari render` previews too: the same files, the same modes."""
    from mm2_core.connect import connect_mode
    driver = Driver(site)
    ok(driver.run("CONFIGURE", env={"mm2_run_mode": "connect"},
                  configurations={names.LIVE: {"flow.settings": "A->B.tasks.max = 3"}}))
    worker = os.path.join(driver.conf_dir, connect_mode.WORKER_FILE)
    secrets = os.path.join(driver.conf_dir, connect_mode.SECRETS_FILE)
    assert "group.id=mm2-connect" in read(worker) and mode(worker) in (0o640, 0o600)
    assert mode(secrets) == 0o600
