"""MM2 driver lifecycle in execute mode: the script runs as the agent runs it, against real
(fake-MM2) processes. Start, status, stop, kill -9, stale pid, pid reuse, double start, start
failure with the log tail, stop-timeout escalation, restart with new configuration."""
import os
import signal
import time

import pytest

from mm2_core.config import names
from mm2_core.host import process

import fakekafka
from agent_support import alive, failed, ok, reap, wait_dead
from driver_fixture import Driver


@pytest.fixture
def driver(site):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    return Driver(site)


def test_start_status_stop(driver, guard):
    run = ok(driver.run("START"))
    pid = driver.pid()
    assert pid and alive(pid)
    argv = process.read_cmdline(pid)
    assert names.MM2_MAIN_CLASS in argv and driver.props in argv
    assert "--clusters" not in argv                          # target.clusters empty: every herder
    info = driver.mm2_info()
    assert info["props"]["clusters"] == "A, B" and info["props"]["A->B.enabled"] == "true"
    assert info["herders"] == [["A", "B"], ["B", "A"]]
    # logging wired through mm2-env.sh: log4j 1 file of the conf dir, writing into the log dir
    assert info["sysprops"]["log4j.configuration"] == "file:" + os.path.join(driver.conf_dir, "log4j.properties")
    assert info["log_file"] == os.path.join(driver.log_dir, process.LOG_FILE)
    assert info["env"]["JAVA_HOME"] == driver.site.java_home
    assert info["agents"] == ["%s=9405:%s" % (driver.site.exporter_jar,
                                             os.path.join(driver.conf_dir, "jmx_exporter_mm2.yaml"))]
    assert "MM2 started as pid %d: its log says it started" % pid in run.output

    ok(driver.run("STATUS"))
    run = ok(driver.run("STOP"))
    assert "stopped after SIGTERM" in run.output
    assert wait_dead(pid) and not os.path.exists(driver.pid_file)
    with open(os.path.join(driver.log_dir, process.LOG_FILE)) as fh:
        assert "Kafka MirrorMaker stopped" in fh.read()      # a clean shutdown, not a kill
    failed(driver.run("STATUS"))
    ok(driver.run("STOP"))                                   # stopping twice is fine


def test_double_start_runs_one_process(driver, guard):
    ok(driver.run("START"))
    pid = driver.pid()
    run = ok(driver.run("START"))
    assert "already running (pid %d)" % pid in run.output
    assert driver.pid() == pid
    assert [p for p in fakekafka.started_pids(driver.site.state) if alive(p)] == [pid]


def test_kill_9_then_status_and_start(driver, guard):
    ok(driver.run("START"))
    pid = driver.pid()
    os.kill(pid, signal.SIGKILL)
    assert wait_dead(pid)
    run = failed(driver.run("STATUS"))
    assert "process %d from %s is not running" % (pid, driver.pid_file) in run.output
    run = ok(driver.run("START"))
    assert "Removing stale pid file" in run.output
    assert driver.pid() != pid and alive(driver.pid())


def test_pid_reuse_is_detected_and_the_stranger_left_alone(driver, guard):
    sleeper = guard.popen(["sleep", "300"])
    os.makedirs(driver.pid_dir)
    with open(driver.pid_file, "w") as fh:
        fh.write("%d\n" % sleeper.pid)
    run = failed(driver.run("STATUS"))
    assert "belongs to another program" in run.output
    ok(driver.run("STOP"))
    assert sleeper.poll() is None
    assert not os.path.exists(driver.pid_file)
    with open(driver.pid_file + ".x", "w") as fh:   # and again before START
        fh.write("")
    with open(driver.pid_file, "w") as fh:
        fh.write("%d\n" % sleeper.pid)
    ok(driver.run("START"))
    assert driver.pid() != sleeper.pid and alive(driver.pid())
    ok(driver.run("STOP"))
    time.sleep(0.2)
    assert sleeper.poll() is None and alive(sleeper.pid)


def test_var_run_wiped_by_a_reboot(driver, guard):
    ok(driver.run("START"))
    pid = driver.pid()
    os.kill(pid, signal.SIGKILL)
    assert wait_dead(pid)
    for f in os.listdir(driver.pid_dir):
        os.remove(os.path.join(driver.pid_dir, f))
    os.rmdir(driver.pid_dir)
    run = failed(driver.run("STATUS"))
    assert "no pid file" in run.output
    ok(driver.run("START"))
    assert alive(driver.pid())


def test_lost_pid_file_adopts_the_running_mm2(driver, guard):
    ok(driver.run("START"))
    pid = driver.pid()
    os.remove(driver.pid_file)
    run = ok(driver.run("START"))
    assert "without a valid pid file" in run.output
    assert driver.pid() == pid
    assert [p for p in fakekafka.started_pids(driver.site.state) if alive(p)] == [pid]


def test_start_failure_shows_the_log_tail_and_leaves_nothing_running(driver, guard):
    driver.site.control(fail_at_start="simulated: no route to the target brokers")
    run = failed(driver.run("START"))
    assert "MirrorMaker 2 failed to start" in run.output and "exited during start" in run.output
    assert "simulated: no route to the target brokers" in run.output          # the log tail
    assert "==> %s" % os.path.join(driver.log_dir, process.LOG_FILE) in run.output
    assert not os.path.exists(driver.pid_file)
    assert [p for p in fakekafka.started_pids(driver.site.state) if alive(p)] == []
    failed(driver.run("STATUS"))


def test_slow_start_is_waited_for(driver, guard):
    driver.site.control(start_delay=2)
    run = ok(driver.run("START"))
    assert "its log says it started" in run.output
    ok(driver.run("STATUS"))


def test_start_timeout_fails_and_stops_the_half_started_process(driver, guard):
    driver.site.control(start_delay=30)
    run = failed(driver.run("START", env={"mm2_start_timeout_seconds": "5"}))  # the catalog minimum
    assert "did not come up within 5s" in run.output
    assert [p for p in fakekafka.started_pids(driver.site.state) if alive(p)] == []
    assert not os.path.exists(driver.pid_file)


def test_stop_escalates_to_sigkill_after_the_timeout(driver, guard):
    driver.site.control(ignore_sigterm=True)
    ok(driver.run("START"))
    pid = driver.pid()
    run = ok(driver.run("STOP", env={"mm2_stop_timeout_seconds": "1"}))
    assert "ignored SIGTERM for 1s and was killed with SIGKILL" in run.output
    assert wait_dead(pid)
    with open(os.path.join(driver.log_dir, process.LOG_FILE)) as fh:
        assert "ignoring SIGTERM" in fh.read()
    failed(driver.run("STATUS"))


def test_restart_runs_the_new_configuration(driver, guard):
    ok(driver.run("START", configurations={names.REPLICATION: {"tasks.max": "4"}}))
    first = driver.pid()
    assert driver.mm2_info(first)["props"]["tasks.max"] == "4"
    run = ok(driver.run("RESTART", configurations={names.REPLICATION: {"tasks.max": "7"}},
                        driver={"target.clusters": "B"}))
    second = driver.pid()
    assert second != first and wait_dead(first)
    info = driver.mm2_info(second)
    assert info["props"]["tasks.max"] == "7"
    assert info["clusters_arg"] == ["B"] and info["herders"] == [["A", "B"]]
    assert "Flow A->B has no heartbeats" in run.output      # the --clusters pitfall, as a warning


def test_missing_metrics_agent_never_stops_mm2(driver, guard):
    """Every default on a host with only Java and Kafka: no exporter jar. MM2 starts without the agent and
    START says what is missing and how to provide it; once the jar is there a restart loads it."""
    run = ok(driver.run("START", env={"jmx_exporter_jar": "/nonexistent/jmx.jar"}))
    assert driver.mm2_info()["agents"] == []
    assert "MirrorMaker 2 starts without metrics" in run.output
    assert "The JMX exporter agent jar /nonexistent/jmx.jar is not on this host" in run.output
    assert "set kafka-mm2-env/jmx_exporter_jar to its path or to an http(s) URL and run Install" in run.output
    with open(os.path.join(driver.conf_dir, "mm2-env.sh")) as fh:
        assert "-javaagent" not in fh.read()
    run = ok(driver.run("RESTART"))
    assert "starts without metrics" not in run.output
    assert [a.split("=")[0] for a in driver.mm2_info()["agents"]] == [driver.site.exporter_jar]
    run = ok(driver.run("RESTART", env={"jmx_exporter_jar": "/nonexistent/jmx.jar", "mm2_metrics_enabled": "false"}))
    assert driver.mm2_info()["agents"] == [] and "starts without metrics" not in run.output


def test_kafka_4_uses_log4j2_and_needs_java_17(site, guard):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "kafka4"), "4.0.0", site.state)
    driver = Driver(site)
    ok(driver.run("START"))
    info = driver.mm2_info()
    assert info["sysprops"]["log4j2.configurationFile"] == os.path.join(driver.conf_dir, "log4j2.yaml")
    assert "log4j.configuration" not in info["sysprops"]
    assert info["log_file"] == os.path.join(driver.log_dir, process.LOG_FILE)
    assert info["rest"]                                      # 4.x: internal REST with this host's listener
    assert not os.path.exists(os.path.join(driver.conf_dir, "log4j.properties"))
    ok(driver.run("STOP"))

    site.java_home = fakekafka.make_java_home(os.path.join(site.root, "jdk11"), 11)
    run = failed(driver.run("START", env={"mm2_java_home": site.java_home}))
    assert "Kafka 4.0.0 needs Java 17 or newer" in run.output and "Java 11" in run.output


def test_internal_rest_is_waited_for(site, guard):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    site.control(rest_delay=2)
    driver = Driver(site)
    ok(driver.run("START"))
    assert process.http_answers("http", "127.0.0.1", int(driver.driver["internal.rest.port"]))
    props = driver.mm2_info()["props"]
    assert props["dedicated.mode.enable.internal.rest"] == "true"
    assert props["listeners"] == "http://localhost:%s" % driver.driver["internal.rest.port"]


def test_several_drivers_on_kafka_before_3_5_are_refused(site, guard):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    site.kafka_home = fakekafka.make_kafka_home(os.path.join(site.root, "kafka34"), "3.4.1", site.state)
    driver = Driver(site, driver_hosts=["localhost", "m2.example.com"])
    run = failed(driver.run("START"))
    assert "KAFKA-9981" in run.output and "m2.example.com" in run.output
    assert fakekafka.started_pids(site.state) == []
    # each host with its own target (config groups): this one serves B
    run = ok(driver.run("START", driver={"target.clusters": "B"}))
    assert driver.mm2_info()["clusters_arg"] == ["B"]


def test_two_hosts_with_config_groups_on_kafka_3_5(site, guard):
    """Host 1 near B serves B, host 2 near A serves A (config groups): each runs its herders with its
    own internal REST listener, and the heartbeats of A reach B through the A->B flow."""
    a = site.cluster("A", "a1:9092")
    b = site.cluster("B", "b1:9092")
    hosts = ["localhost", "127.0.0.1"]
    near_b = Driver(site, hostname="localhost", driver_hosts=hosts, sys_name="host1")
    near_a = Driver(site, hostname="127.0.0.1", driver_hosts=hosts, sys_name="host2")
    ok(near_b.run("START", driver={"target.clusters": "B"}))
    ok(near_a.run("START", driver={"target.clusters": "A"}))
    assert near_b.mm2_info()["herders"] == [["A", "B"]] and near_a.mm2_info()["herders"] == [["B", "A"]]
    assert near_b.mm2_info()["props"]["listeners"] != near_a.mm2_info()["props"]["listeners"]
    end = time.time() + 15
    while not b.has_topic("A.heartbeats") and time.time() < end:
        time.sleep(0.1)
    assert b.has_topic("A.heartbeats") and a.has_topic("heartbeats")
    ok(near_b.run("STOP"))
    ok(near_a.run("STOP"))
