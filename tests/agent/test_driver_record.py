"""Record mode (like Ambari's RMFTestCase): the resources CONFIGURE, START and STOP declare, in
order, with their owners and modes, for a few configurations (Kerberos on/off, separate vs
stack Kafka, log4j 1 on 3.x vs log4j2 on 4.x)."""
import json
import os

import harness
import pytest

try:
    from unittest import mock
except ImportError:  # Python 2
    import mock
    if not hasattr(mock, "patch"):  # Ambari's bundled mock (MM2_AMBARI_SRC) is a package holding mock.py
        from mock import mock

from mm2_core import names, process

import fakekafka
from driver_fixture import DRIVER_SCRIPT, Driver

CLASS = "MirrorMaker2Driver"


class _Anything(object):
    """Matches any recorded value (the content is checked separately, rendered)."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


ANY = _Anything()


def record_command(host, command, **kwargs):
    """Command JSON with the real service user and group names (record mode changes nothing)."""
    cmd = host.command(command, **kwargs)
    cmd["configurations"][names.ENV]["mm2_user"] = "mm2"
    cmd["configurations"]["cluster-env"]["user_group"] = "hadoop"
    return cmd


def content(run, resource):
    with run.env:
        return resource.arguments["content"].get_content()


def assert_configure(run, driver, log4j="log4j.properties", stale="log4j2.yaml", props_mode=0o640,
                     rendered=("connect-mirror-maker.properties",)):
    conf = driver.conf_dir
    for d in (conf, driver.log_dir, driver.pid_dir):
        run.assert_resource_called("Directory", d, owner="mm2", group="hadoop", mode=0o755,
                                   create_parents=True, cd_access="a")
    files = {}
    for name in rendered:
        files[name] = run.assert_resource_called(
            "File", os.path.join(conf, "." + name + ".new"), content=ANY, owner="mm2", group="hadoop",
            mode=props_mode if name == "connect-mirror-maker.properties" else 0o600)
    for name in rendered:
        run.assert_resource_called("Execute", ("mv", "-f", os.path.join(conf, "." + name + ".new"),
                                               os.path.join(conf, name)), sudo=True)
    run.assert_resource_called("File", os.path.join(conf, ".rendered-files"), content="\n".join(rendered) + "\n",
                               owner="mm2", group="hadoop", mode=0o644)
    files[log4j] = run.assert_resource_called("File", os.path.join(conf, log4j), content=ANY,
                                              owner="mm2", group="hadoop", mode=0o644)
    run.assert_resource_called("File", os.path.join(conf, stale), action=["delete"])
    files["mm2-env.sh"] = run.assert_resource_called("File", os.path.join(conf, "mm2-env.sh"), content=ANY,
                                                     owner="mm2", group="hadoop", mode=0o644)
    run.assert_resource_called("File", os.path.join(conf, "jmx_exporter_mm2.yaml"),
                               content=run.StaticFile("jmx_exporter_mm2.yaml"), owner="mm2", group="hadoop",
                               mode=0o644)
    return dict((k, content(run, v)) for k, v in files.items())


def test_configure_separate_kafka_3x(site):
    driver = Driver(site)
    run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "configure", record_command(driver, "CONFIGURE"))
    texts = assert_configure(run, driver)
    run.assert_no_more_resources()
    assert "A.bootstrap.servers=a1:9092" in texts["connect-mirror-maker.properties"]
    assert "log4j.appender.mm2File.File=${kafka.logs.dir}/mirrormaker.log" in texts["log4j.properties"]
    env_sh = texts["mm2-env.sh"]
    assert "export KAFKA_LOG4J_OPTS='-Dlog4j.configuration=file:%s/log4j.properties'" % driver.conf_dir in env_sh
    assert "export KAFKA_HEAP_OPTS='-Xms1g -Xmx2g'" in env_sh


def test_configure_kafka_4_switches_to_log4j2(site):
    site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "k4"), "4.0.0", site.state)
    driver = Driver(site)
    run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "configure", record_command(driver, "CONFIGURE"))
    texts = assert_configure(run, driver, log4j="log4j2.yaml", stale="log4j.properties")
    run.assert_no_more_resources()
    assert 'fileName: "${sys:kafka.logs.dir}/mirrormaker.log"' in texts["log4j2.yaml"]
    assert 'size: "256MB"' in texts["log4j2.yaml"] and "max: 10" in texts["log4j2.yaml"]
    assert "KAFKA_LOG4J_OPTS='-Dlog4j2.configurationFile=%s/log4j2.yaml'" % driver.conf_dir in texts["mm2-env.sh"]


def _prepare_start(driver):
    # the check topic is already on the source (START would otherwise create it with the tools)
    os.makedirs(driver.conf_dir)
    with open(os.path.join(driver.conf_dir, ".check-topic-A"), "w") as fh:
        fh.write("1\n")


def _started():
    return mock.patch("mm2_core.process.wait_started",
                      return_value=process.Outcome(True, "started", 4242, "MM2 started as pid 4242: test"))


def _launch(driver, home, clusters=""):
    return (". %s/mm2-env.sh ; nohup %s/bin/connect-mirror-maker.sh %s/connect-mirror-maker.properties%s > "
            "%s/mirrormaker.out 2>&1 < /dev/null & echo $! > %s/mirrormaker2.pid"
            % (driver.conf_dir, home, driver.conf_dir, clusters, driver.log_dir, driver.pid_dir))


def test_start_with_kerberos(site):
    driver = Driver(site)
    _prepare_start(driver)
    kerberos = {"cluster-env": {"security_enabled": "true"},
                names.CLUSTERS: {"source.security.protocol": "SASL_PLAINTEXT", "source.sasl.mechanism": "GSSAPI"}}
    cmd = record_command(driver, "START", configurations=kerberos, driver={"target.clusters": "B, A"},
                         env={"mm2_principal_name": "mm2/_HOST@EXAMPLE.COM",
                              "mm2_keytab": "/etc/security/keytabs/mm2.service.keytab"})
    with _started():
        run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "start", cmd)
    texts = assert_configure(run, driver)
    run.assert_resource_called("Execute", ("/usr/bin/kinit", "-kt", "/etc/security/keytabs/mm2.service.keytab",
                                           "mm2/localhost@EXAMPLE.COM"), user="mm2")
    run.assert_resource_called("Execute", _launch(driver, site.kafka_home, " --clusters B A"), user="mm2")
    run.assert_no_more_resources()
    jaas = ('A.sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true '
            'storeKey=true keyTab="/etc/security/keytabs/mm2.service.keytab" principal="mm2/localhost@EXAMPLE.COM";')
    assert jaas in texts["connect-mirror-maker.properties"]
    assert "A.sasl.kerberos.service.name=kafka" in texts["connect-mirror-maker.properties"]


def test_start_without_kerberos_runs_no_kinit_and_uses_the_stack_kafka(site):
    stack_home = fakekafka.make_kafka_home(os.path.join(site.root, "usr", "odp", "current", "kafka-broker"),
                                           "3.1.0.1.0.0.0-1", site.state)
    driver = Driver(site, stack_name="ODP", stack_version="1.0")
    driver.env.update({"kafka_install_source": "auto", "kafka_home": "/opt/kafka-mm2/current"})
    _prepare_start(driver)
    cmd = record_command(driver, "START", configurations={
        "cluster-env": {"stack_root": json.dumps({"ODP": os.path.join(site.root, "usr", "odp")})}})
    with _started():
        run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "start", cmd)
    assert_configure(run, driver)
    run.assert_resource_called("Execute", _launch(driver, stack_home), user="mm2")
    run.assert_no_more_resources()


def test_stop_when_nothing_runs(site):
    driver = Driver(site)
    run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "stop", record_command(driver, "STOP"))
    run.assert_resource_called("File", driver.pid_file, action=["delete"])
    run.assert_no_more_resources()
    assert "not running according to its pid file: no pid file" in run.log_text()


def test_status_reads_only_the_pid_file(site):
    from resource_management.core.exceptions import ComponentIsNotRunning
    driver = Driver(site)
    cmd = record_command(driver, "STATUS")
    with mock.patch("resource_management.core.shell.call") as call:
        with pytest.raises(ComponentIsNotRunning):
            harness.run_recorded(DRIVER_SCRIPT, CLASS, "status", cmd)
    assert not call.called
