"""Running the installation's Kafka command-line tools as the MM2 user (service check and
custom commands).

Each cluster gets a client config file built from the rendered MM2 properties (its security
settings, secrets resolved) in a private directory under the MM2 pid directory: mode 0700/0600,
owned by the MM2 user, removed when done. Passwords never appear on a command line or in the agent log.
"""
import os
import shutil
import subprocess
import tempfile

from resource_management.core import shell
from resource_management.core.exceptions import ExecuteTimeoutException, Fail
from resource_management.core.logger import Logger
from resource_management.core.signal_utils import TerminateStrategy

from mm2_core import javaprops, kafka_tools, process
from mm2_core import render as mm2_render

TOOL_HEAP = "-Xmx512m"
TOOL_KILL_GRACE = 10   # seconds between the TERM and the KILL of a tool that overran


def _uid_gid(user, group):
    import grp
    import pwd
    try:
        uid = pwd.getpwnam(user).pw_uid
    except KeyError:
        raise Fail("User %s (kafka-mm2-env/mm2_user) does not exist on this host" % user)
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        gid = pwd.getpwnam(user).pw_gid
    return uid, gid


class ToolResult(object):
    def __init__(self, code, out, err):
        self.code = code
        self.out = out or ""
        self.err = err or ""

    @property
    def ok(self):
        return self.code == 0

    def problem(self, lines=8):
        """The telling part of a failed tool's output (Kafka prints a stack trace)."""
        text = [l for l in (self.err + "\n" + self.out).splitlines() if l.strip()]
        return "\n".join(text[:lines]) or "exit code %s" % self.code


class KafkaCli(object):
    """Kafka tools of params.kafka_home with one client config per cluster alias."""

    def __init__(self, params, rendering, timeout=120):
        self.params = params
        self.rendering = rendering
        self.topology = rendering.topology
        self.version = params.kafka_version_tuple
        self.home = params.kafka_home
        self.timeout = timeout
        self.configs = {}
        self.uid, self.gid = _uid_gid(params.mm2_user, params.user_group)
        # Under the MM2 user's own run directory: on tmpfs on most hosts (secrets never hit a disk)
        # and always reachable by that user, unlike the agent's tmp directory.
        base = params.mm2_pid_dir
        if not os.path.isdir(base):
            os.makedirs(base, 0o755)
            os.chown(base, self.uid, self.gid)
        self.dir = tempfile.mkdtemp(prefix="mm2-cli-", dir=base)
        os.chmod(self.dir, 0o700)
        os.chown(self.dir, self.uid, self.gid)
        secrets = {}
        secrets_file = rendering.file(mm2_render.SECRETS_FILE)
        if secrets_file is not None:
            secrets = javaprops.load_dict(secrets_file.text)
        self.secrets = secrets

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def bootstrap(self, alias):
        return self.topology.clusters[alias].bootstrap

    def config(self, alias):
        """Path of the 0600 client config of cluster alias (written once per command)."""
        if alias not in self.configs:
            items = kafka_tools.client_properties(self.rendering.properties, alias, self.secrets)
            items.append(("client.id", "ambari-mm2-%s" % alias))
            path = os.path.join(self.dir, "client-%s.properties" % alias)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(javaprops.dumps(items, "Kafka client settings for cluster %s (Ambari, temporary)" % alias))
            os.chown(path, self.uid, self.gid)
            self.configs[alias] = path
        return self.configs[alias]

    def environment(self):
        # Not mm2-env.sh: its KAFKA_OPTS carries the JMX exporter agent of the MM2 process.
        # Its -D system properties (krb5.conf, JAAS, TLS) do apply: the tools log in as MM2 does.
        # kafka-run-class.sh splits KAFKA_OPTS on blanks, as it does for MM2's own options.
        opts = kafka_tools.tool_system_properties(self.params.mm2_jvm_opts)
        return {"JAVA_HOME": self.params.mm2_java_home or "", "KAFKA_HEAP_OPTS": TOOL_HEAP,
                "KAFKA_OPTS": " ".join(opts)}

    def run(self, args, stdin=None, timeout=None):
        timeout = int(timeout or self.timeout)
        # coreutils timeout bounds the tool itself (TERM, KILL 10 s later): Ambari trunk's tree kill
        # on Python 3 fails ("killtree.sh <pid> Signals.SIGKILL") and leaves the JVM running.
        command = "timeout -k %d %d %s" % (TOOL_KILL_GRACE, timeout, " ".join(process.quote(a) for a in args))
        if stdin is not None:
            command = "printf '%%s\\n' %s | %s" % (process.quote(stdin), command)
        Logger.info("Running %s (as %s, timeout %ss)" % (" ".join(args), self.params.mm2_user, timeout))
        try:
            # su -c starts a new session: only a tree kill reaches the tool's JVM; a backstop here
            code, out, err = shell.call(command, user=self.params.mm2_user, env=self.environment(),
                                        timeout=timeout + TOOL_KILL_GRACE + 20, stderr=subprocess.PIPE, quiet=True,
                                        timeout_kill_strategy=TerminateStrategy.KILL_PROCESS_TREE)
        except ExecuteTimeoutException as e:
            return ToolResult(124, "", "timed out after %ss: %s" % (timeout, e))
        if code in (124, 137):
            return ToolResult(code, out, "timed out after %ss (killed)\n%s" % (timeout, err or ""))
        return ToolResult(code, out, err)

    # ---- the operations the checks use
    def list_topics(self, alias):
        result = self.run(kafka_tools.topics_list(self.home, self.bootstrap(alias), self.config(alias)))
        topics = kafka_tools.parse_topic_list(result.out) if result.ok else None
        return result, topics

    def create_topic(self, alias, topic, configs=None):
        """kafka-topics --create --if-not-exists; brokers before 2.4 need a replication factor."""
        result = self.run(kafka_tools.topics_create(self.home, self.bootstrap(alias), self.config(alias), topic,
                                                    configs=configs))
        if not result.ok and "Replication factor must be larger than 0" in result.problem(40):
            Logger.info("The brokers of %s want an explicit replication factor (Kafka before 2.4): retrying "
                        "with 1 for %s" % (alias, topic))
            result = self.run(kafka_tools.topics_create(self.home, self.bootstrap(alias), self.config(alias), topic,
                                                        replication_factor=1, configs=configs))
        return result

    def produce(self, alias, topic, line):
        return self.run(kafka_tools.console_producer(self.home, self.version, self.bootstrap(alias),
                                                     self.config(alias), topic), stdin=line)

    def consume(self, alias, topic, mode="text", timeout_ms=10000, max_messages=None):
        return self.run(kafka_tools.console_consumer(self.home, self.version, self.bootstrap(alias),
                                                     self.config(alias), topic, mode=mode, timeout_ms=timeout_ms,
                                                     max_messages=max_messages),
                        timeout=self.timeout + timeout_ms // 1000)
