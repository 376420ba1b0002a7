# -*- coding: utf-8 -*-
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

from mm2_core.config import names
from mm2_core.host import process

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
    """Directories, then every file rendered in memory written to a temp name (all or none),
    then the renames, then the removals of files no longer wanted."""
    conf = driver.conf_dir
    for d in (conf, driver.log_dir, driver.pid_dir):
        run.assert_resource_called("Directory", d, owner="mm2", group="hadoop", mode=0o755,
                                   create_parents=True, cd_access="a")
    planned = [(name, props_mode if name == "connect-mirror-maker.properties" else 0o600) for name in rendered]
    planned += [(log4j, 0o644), ("mm2-env.sh", 0o644), ("jmx_exporter_mm2.yaml", 0o644), (".rendered-files", 0o644)]
    files = {}
    for name, mode in planned:
        files[name] = run.assert_resource_called(
            "File", os.path.join(conf, "." + name + ".new"), content=ANY, owner="mm2", group="hadoop",
            mode=mode, encoding="utf-8")
    for name, _ in planned:
        run.assert_resource_called("Execute", ("mv", "-f", os.path.join(conf, "." + name + ".new"),
                                               os.path.join(conf, name)), sudo=True)
    run.assert_resource_called("File", os.path.join(conf, stale), action=["delete"])
    texts = dict((k, content(run, v)) for k, v in files.items())
    assert texts[".rendered-files"] == "\n".join(rendered) + "\n"
    with open(os.path.join(harness.PACKAGE_DIR, "files", "jmx_exporter_mm2.yaml")) as fh:
        assert texts["jmx_exporter_mm2.yaml"] == fh.read()
    return texts


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
    return mock.patch("mm2_core.host.process.wait_started",
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


def _without(cmd, *props):
    for config_type, name in props:
        cmd["configurations"][config_type].pop(name, None)
    return cmd


@pytest.mark.parametrize("missing", [
    [(names.ENV, "content")], [(names.LOG4J, "content")], [(names.ENV, "content"), (names.LOG4J, "content")]],
    ids=["env", "log4j", "both"])
def test_missing_template_property_falls_back_to_the_shipped_template(site, missing):
    """A partial REST write, or a property of a newer mpack before `ambari-server upgrade`: the
    command lacks kafka-mm2-env/content or kafka-mm2-log4j/content. CONFIGURE renders the
    template the mpack ships instead of writing an empty mm2-env.sh / log4j.properties."""
    driver = Driver(site)
    full = assert_configure(harness.run_recorded(DRIVER_SCRIPT, CLASS, "configure",
                                                 record_command(driver, "CONFIGURE")), driver)
    run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "configure",
                               _without(record_command(driver, "CONFIGURE"), *missing))
    texts = assert_configure(run, driver)
    def lines(t):   # the shipped file and the stack default differ only in blank lines
        return [line for line in t.splitlines() if line.strip()]
    for name in ("mm2-env.sh", "log4j.properties"):
        assert texts[name].strip() and lines(texts[name]) == lines(full[name])
    assert "export JAVA_HOME='%s'" % site.java_home in texts["mm2-env.sh"]
    for config_type, name in missing:
        assert "%s/%s is missing or empty in this command" % (config_type, name) in run.log_text()


def test_bad_template_fails_naming_the_property_and_writes_nothing(site):
    from resource_management.core.exceptions import Fail
    driver = Driver(site)
    cmd = record_command(driver, "CONFIGURE", env={"content": "export JAVA_HOME={{ java_home"})  # unclosed
    with pytest.raises(Fail) as caught:
        harness.run_recorded(DRIVER_SCRIPT, CLASS, "configure", cmd)
    assert "kafka-mm2-env/content" in str(caught.value) and "cannot be rendered" in str(caught.value)
    assert "previous files are kept" in str(caught.value)


def test_install_problem_is_a_fail_not_the_cores_install_error(site):
    from resource_management.core.exceptions import Fail
    driver = Driver(site)
    driver.env["kafka_home"] = os.path.join(site.root, "no", "kafka", "here")
    with pytest.raises(Fail) as caught:
        harness.run_recorded(DRIVER_SCRIPT, CLASS, "install", record_command(driver, "INSTALL"))
    assert type(caught.value) is Fail
    assert "kafka-mm2-env/" in str(caught.value)


def test_decrypted_bytes_are_rendered_as_text(site):
    """Ambari 3 with sensitive-data encryption hands the decrypted passwords over as bytes (on
    Python 2, UTF-8 bytes are a plain str): they must reach the files as the text the operator
    typed, never as b'...' or mojibake."""
    driver = Driver(site)
    password = u"pässwörd-密码"
    cmd = record_command(driver, "CONFIGURE", configurations={names.CLUSTERS: {
        "source.security.protocol": "SASL_PLAINTEXT", "source.sasl.mechanism": "PLAIN",
        "source.sasl.username": "mm2", "source.sasl.password": password.encode("utf-8")}},
        env={"mm2_metrics_auth_username": "prometheus", "mm2_metrics_auth_password": password.encode("utf-8")})
    run = harness.run_recorded(DRIVER_SCRIPT, CLASS, "configure", cmd)
    (yaml_file,) = [r for r in run.find("File") if r.name.endswith(".jmx_exporter_mm2.yaml.new")]
    (props_file,) = [r for r in run.find("File") if r.name.endswith(".connect-mirror-maker.properties.new")]
    exporter, props = content(run, yaml_file), content(run, props_file)
    assert 'password: "%s"' % password in exporter and "b'" not in exporter
    from mm2_core.formats import javaprops
    jaas = javaprops.load_dict(props)["A.sasl.jaas.config"]
    assert 'password="%s"' % password in jaas and "b'" not in jaas
