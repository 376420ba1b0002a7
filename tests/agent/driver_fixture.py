"""Running the MM2 driver and service check scripts in execute mode against a fake site."""
import copy
import os

import harness
import testports

from mm2_core.config import names
from mm2_core.host import process

import fakekafka

SCRIPTS = os.path.join(harness.PACKAGE_DIR, "scripts")
DRIVER_SCRIPT = os.path.join(SCRIPTS, "mm2_driver.py")
SERVICE_CHECK_SCRIPT = os.path.join(SCRIPTS, "service_check.py")


free_port = testports.free_port


def base_configurations(source="A", target="B"):
    return {
        names.CLUSTERS: {"source.alias": source, "source.bootstrap.servers": "a1:9092",
                         "target.alias": target, "target.bootstrap.servers": "b1:9092"},
        names.REPLICATION: {"replication.factor": "1", "internal.topics.replication.factor": "1",
                            "emit.heartbeats.interval.seconds": "1"},
    }


class Driver(object):
    """One driver host of a fake site: builds command JSONs and runs the scripts."""

    def __init__(self, site, hostname="localhost", configurations=None, stack_name="HDP", stack_version="3.1",
                 driver_hosts=None, sys_name="sys"):
        self.site = site
        self.hostname = hostname
        self.sys_root = os.path.join(site.root, sys_name)   # one per simulated host
        self.configurations = configurations or base_configurations()
        self.stack_name = stack_name
        self.stack_version = stack_version
        self.driver_hosts = driver_hosts or [hostname]
        self.env = {"kafka_install_source": "path", "kafka_home": site.kafka_home,
                    "mm2_java_home": site.java_home, "jmx_exporter_jar": site.exporter_jar,
                    "mm2_start_timeout_seconds": "30", "mm2_stop_timeout_seconds": "10"}
        self.driver = {"internal.rest.port": str(free_port())}
        self.task = 0

    # paths on the "host"
    def path(self, config_value):
        return self.sys_root + config_value

    @property
    def conf_dir(self):
        return self.path("/etc/kafka-mm2/conf")

    @property
    def log_dir(self):
        return self.path("/var/log/kafka-mm2")

    @property
    def pid_dir(self):
        return self.path("/var/run/kafka-mm2")

    @property
    def pid_file(self):
        return os.path.join(self.pid_dir, process.PID_FILE)

    @property
    def props(self):
        return os.path.join(self.conf_dir, process.PROPERTIES_FILE)

    def pid(self):
        return process.read_pid_file(self.pid_file)[0]

    def command(self, command, configurations=None, env=None, driver=None, role=names.COMPONENT, extra=None,
                command_params=None):
        configs = copy.deepcopy(self.configurations)
        for key, value in (configurations or {}).items():
            configs.setdefault(key, {}).update(value)
        self.task += 1
        cmd = harness.command_json(role=role, command=command, configurations=configs, hostname=self.hostname,
                                   stack_name=self.stack_name, stack_version=self.stack_version,
                                   java_home=self.site.java_home, task_id=self.task,
                                   cluster_host_info={names.COMPONENT.lower() + "_hosts": self.driver_hosts},
                                   command_params=command_params, extra=extra)
        cmd = harness.localize(cmd, self.sys_root)
        cmd["configurations"][names.ENV].update(self.env)
        cmd["configurations"][names.ENV].update(env or {})
        cmd["configurations"][names.DRIVER].update(self.driver)
        cmd["configurations"][names.DRIVER].update(driver or {})
        return cmd

    def run(self, command, script=DRIVER_SCRIPT, **kwargs):
        timeout = kwargs.pop("timeout", 180)
        cmd = self.command(command, **kwargs)
        return harness.run_script(script, cmd, os.path.join(self.sys_root, "agent"), timeout=timeout)

    def service_check(self, **kwargs):
        return self.run("SERVICE_CHECK", script=SERVICE_CHECK_SCRIPT, role=names.SERVICE_CHECK_ROLE, **kwargs)

    def mm2_info(self, pid=None):
        return fakekafka.mm2_info(self.site.state, pid or self.pid())
