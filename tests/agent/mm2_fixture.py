"""Starting a fake MM2 the way the driver does (process.launch_command run by bash), without
Ambari: for the process-level tests and the soak test."""
import os
import subprocess

from mm2_core.host import process

PROPS = """clusters = A, B
A.bootstrap.servers = a1:9092
B.bootstrap.servers = b1:9092
A->B.enabled = true
"""

LOG4J = """log4j.rootLogger=INFO, f
log4j.appender.f=org.apache.log4j.RollingFileAppender
log4j.appender.f.File=${kafka.logs.dir}/mirrormaker.log
"""


class Instance(object):
    """Paths of one MM2 instance: conf dir with properties, env file and log4j file."""

    def __init__(self, site, name="mm2", props=PROPS, conf_name="conf"):
        self.site = site
        base = os.path.join(site.root, name)
        self.conf = os.path.join(base, conf_name)
        self.logs = os.path.join(base, "logs")   # kafka-run-class.sh itself breaks on spaces here
        self.run = os.path.join(base, "run")
        for d in (self.conf, self.logs, self.run):
            if not os.path.isdir(d):
                os.makedirs(d)
        self.props = os.path.join(self.conf, process.PROPERTIES_FILE)
        self.pid_file = os.path.join(self.run, process.PID_FILE)
        self.log_file = os.path.join(self.logs, process.LOG_FILE)
        self.out_file = os.path.join(self.logs, process.OUT_FILE)
        self.env_file = os.path.join(self.conf, process.ENV_FILE)
        with open(self.props, "w") as fh:
            fh.write(props)
        log4j = os.path.join(self.conf, "log4j.properties")
        with open(log4j, "w") as fh:
            fh.write(LOG4J)
        with open(self.env_file, "w") as fh:
            fh.write("export JAVA_HOME='%s'\nexport LOG_DIR='%s'\nexport KAFKA_LOG4J_OPTS=-Dlog4j.configuration=file:%s\n"
                     % (site.java_home, self.logs, log4j))
        self.launcher = os.path.join(site.kafka_home, "bin", process.LAUNCHER)

    def launch(self, clusters=None):
        """Run the driver's launch command; returns the pid it recorded."""
        cmd = process.launch_command(self.env_file, self.launcher, self.props, clusters,
                                     self.out_file, self.pid_file)
        subprocess.check_call(["/bin/bash", "-c", cmd])
        pid, problem = process.read_pid_file(self.pid_file)
        assert pid, problem
        return pid

    def status(self):
        return process.check_status(self.pid_file, self.props)
