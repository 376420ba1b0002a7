"""Running the installation's Kafka command-line tools as the MM2 user (service check and
custom commands).

Each cluster gets a client config file built from the rendered MM2 properties (its security
settings, secrets resolved) in a private directory under the MM2 pid directory: mode 0700/0600,
owned by the MM2 user, removed when done. Passwords never appear on a command line or in the agent log.
"""
import os
import shutil
import tempfile
import time

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

from mm2_core.kafka import versions
from mm2_core.formats import javaprops
from mm2_core.formats.text import native, text
from mm2_core.host import kafka_tools, process
from mm2_core.kafkatools import commands as kafka_commands, output as kafka_output
from mm2_core.rendering import render as mm2_render

TOOL_HEAP = "-Xmx512m"
# A tool lives seconds: the client compiler only and the serial collector, instead of Kafka's default C2 and G1
# whose threads are CPU a short run never pays back (benchmarks/tool_jvm_bench.py; kafka-run-class.sh reads it)
TOOL_JVM_OPTS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true"
TOOL_KILL_GRACE = 10   # seconds between the TERM and the KILL of a tool that overran
RECENT_RECORDS = 200          # per partition: heartbeats/s x herders, minutes of them
RECENT_WINDOW_SECONDS = 60    # before Kafka 3.0: how long a read from the beginning may take
QUIET_MS = 3000               # a bounded read ends after this much quiet (below heartbeat intervals)
SUBSCRIBE_QUIET_MS = 15000    # the same for a read from the beginning, which joins a group before its first record


def _uid_gid(user, group):
    import grp
    import pwd
    try:
        uid = pwd.getpwnam(native(user)).pw_uid
    except KeyError:
        raise Fail(u"User %s (kafka-mm2-env/mm2_user) does not exist on this host" % text(user))
    try:
        gid = grp.getgrnam(native(group)).gr_gid
    except KeyError:
        gid = pwd.getpwnam(native(user)).pw_gid
    return uid, gid


def as_user(user, uid, gid):
    """How a child process becomes the MM2 user: (preexec_fn, argv prefix, kill).

    As root (the usual agent) the child drops to the user itself; when the agent already runs
    as that user nothing changes; a non-root agent goes through ambari-sudo.sh (then killing the
    child needs sudo too)."""
    if os.geteuid() == 0:
        def demote():
            os.setgroups([])
            try:
                os.initgroups(native(user), gid)
            except (AttributeError, OSError):
                pass
            os.setgid(gid)
            os.setuid(uid)
        return demote, [], os.kill
    if os.geteuid() == uid:
        return None, [], os.kill
    from resource_management.core import sudo

    def sudo_kill(pid, sig):
        sudo.kill(pid, sig)
    return None, ["ambari-sudo.sh", "-H", "-u", native(user), "env"], sudo_kill


class ToolResult(object):
    def __init__(self, code, out, err):
        self.code = code
        self.out = text(out or u"")
        self.err = text(err or u"")
        self.note = None   # read_recent: why the records read may be incomplete
        self.read_started = None   # read_recent without end offsets: when the read from the beginning began

    @property
    def ok(self):
        return self.code == 0

    def problem(self, lines=8):
        """The telling part of a failed tool's output (Kafka prints a stack trace)."""
        found = [l for l in (self.err + u"\n" + self.out).splitlines() if l.strip()]
        return u"\n".join(found[:lines]) or u"exit code %s" % self.code


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
            with os.fdopen(fd, "wb") as fh:
                fh.write(text(javaprops.dumps(items, "Kafka client settings for cluster %s (Ambari, temporary)"
                                              % alias)).encode("utf-8"))
            os.chown(path, self.uid, self.gid)
            self.configs[alias] = path
        return self.configs[alias]

    def environment(self):
        # Not mm2-env.sh: its KAFKA_OPTS carries the JMX exporter agent of the MM2 process.
        import pwd
        home = pwd.getpwuid(self.uid).pw_dir
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "USER": native(self.params.mm2_user), "LOGNAME": native(self.params.mm2_user),
               "JAVA_HOME": native(self.params.mm2_java_home or ""), "KAFKA_HEAP_OPTS": TOOL_HEAP,
               "KAFKA_JVM_PERFORMANCE_OPTS": TOOL_JVM_OPTS,
               # mm2-env.sh's KAFKA_OPTS carries the exporter agent of the MM2 process; its -D system
               # properties (krb5.conf, JAAS, TLS) do apply: the tools log in as MM2 does
               "KAFKA_OPTS": native(" ".join(kafka_tools.tool_system_properties(self.params.mm2_jvm_opts)))}
        for name in ("LANG", "LC_ALL", "TZ"):
            if os.environ.get(name):
                env[name] = os.environ[name]
        return env

    def run(self, args, stdin=None, timeout=None, keep_output=True):
        """One Kafka tool as the MM2 user, bounded by timeout (its whole process tree is
        killed when it runs over: the agent would otherwise wait for it). What it printed before
        a kill is returned too (code 124), so keep_output is always true."""
        timeout = int(timeout or self.timeout)
        Logger.info(u"Running %s (as %s, timeout %ss)" % (u" ".join(text(a) for a in args),
                                                          text(self.params.mm2_user), timeout))
        preexec, prefix, kill = as_user(self.params.mm2_user, self.uid, self.gid)
        env = self.environment()
        if prefix:  # sudo starts the tool with a clean environment: hand it over explicitly
            prefix = prefix + ["%s=%s" % (k, v) for k, v in sorted(env.items()) if k != "PATH"]
        try:
            result = process.run_bounded(prefix + list(args), timeout, env=env,
                                         stdin_text=None if stdin is None else text(stdin) + u"\n",
                                         preexec_fn=preexec, kill=kill, grace=TOOL_KILL_GRACE)
        except OSError as e:
            return ToolResult(127, u"", u"cannot run %s: %s" % (text(args[0]), text(e)))
        if result.timed_out:
            return ToolResult(124, result.out, u"timed out after %ss (stopped it)\n%s" % (timeout, result.err))
        return ToolResult(result.code, result.out, result.err)

    # ---- the operations the checks use
    def list_topics(self, alias):
        result = self.run(kafka_commands.topics_list(self.home, self.bootstrap(alias), self.config(alias)))
        topics = kafka_output.parse_topic_list(result.out) if result.ok else None
        return result, topics

    def create_topic(self, alias, topic, configs=None):
        """kafka-topics --create --if-not-exists; brokers before 2.4 need a replication factor. Tools that
        refuse --if-not-exists with --bootstrap-server (2.4-2.5) create without it: "already exists" is fine."""
        if_not_exists = versions.supports(".".join(str(v) for v in self.version),
                                          versions.TOPICS_IF_NOT_EXISTS_WITH_BOOTSTRAP)

        def create(**extra):
            result = self.run(kafka_commands.topics_create(self.home, self.bootstrap(alias), self.config(alias), topic,
                                                           configs=configs, if_not_exists=if_not_exists, **extra))
            if not if_not_exists and not result.ok and kafka_output.topic_exists(result.problem(40)):
                Logger.info("%s already exists on %s" % (topic, alias))
                return ToolResult(0, result.out, u"")
            return result
        result = create()
        if not result.ok and kafka_output.needs_replication_factor(result.problem(40)):
            Logger.info("The brokers of %s want an explicit replication factor (Kafka before 2.4): retrying "
                        "with 1 for %s" % (alias, topic))
            result = create(replication_factor=1)
        return result

    def produce(self, alias, topic, line):
        return self.run(kafka_commands.console_producer(self.home, self.version, self.bootstrap(alias),
                                                        self.config(alias), topic), stdin=line)

    def consume(self, alias, topic, mode="text", timeout_ms=10000, max_messages=None, partition=None, offset=None):
        return self.run(kafka_commands.console_consumer(self.home, self.version, self.bootstrap(alias),
                                                        self.config(alias), topic, mode=mode, timeout_ms=timeout_ms,
                                                        max_messages=max_messages, partition=partition, offset=offset),
                           timeout=self.timeout + timeout_ms // 1000, keep_output=True)

    def read_compacted(self, alias, topic, mode, interval_seconds):
        """Every record of a compacted topic up to its current end, bounded even while MM2 writes to it.

        With end offsets (Kafka 3.0+): each partition from its start until its end offset was reached (or quiet
        for QUIET_MS: compaction leaves gaps). Without (2.x): from the beginning until a quiet shorter than
        interval_seconds, the interval in which a version that re-emits every record each interval (before
        versions.CHECKPOINTS_ONLY_WHEN_CHANGED) writes all of them once more, bounded by that interval + 45 s.
        A plain read until idle never ends on such a version (a new batch every interval)."""
        command = kafka_commands.end_offsets_command(self.home, self.version, self.bootstrap(alias), self.config(alias),
                                                     topic)
        if command is not None:
            res = self.run(command)
            if not res.ok:
                return res
            ends = kafka_output.topic_offsets(res.out, topic)
            outs = []
            for partition in sorted(ends):
                if ends[partition] <= 0:
                    continue
                part = self.consume(alias, topic, mode=mode, timeout_ms=QUIET_MS, max_messages=ends[partition],
                                    partition=partition, offset=0)
                if not part.ok:
                    return part
                outs.append(part.out)
            return ToolResult(0, u"\n".join(outs), u"")
        # MM2's internal compacted topics have one partition: read it by assignment (no group join), and end on
        # the quiet between two re-emissions (shorter than the interval), so the tool exits by itself with all
        # it printed; a JVM killed at the window's end lost its buffered output (real 2.8.2: 0 of 272 read)
        quiet_ms = max(2000, min(10000, int(interval_seconds) * 1000 - 1500))
        result = self.run(kafka_commands.console_consumer(self.home, self.version, self.bootstrap(alias),
                                                          self.config(alias), topic, mode=mode, timeout_ms=quiet_ms,
                                                          partition=0, offset=0),
                             timeout=int(interval_seconds) + 45, keep_output=True)
        if result.code == 124:   # cut by the window: what it read covers a whole re-emission interval
            return ToolResult(0, result.out, result.err)
        return result

    def read_recent(self, alias, topic, mode="text", records=RECENT_RECORDS, window_seconds=RECENT_WINDOW_SECONDS):
        """The last `records` records of each partition of a topic that may be written to
        continuously (heartbeats): bounded by its end offsets (Kafka 3.0+), else by a time window
        over a read from the beginning. Returns a ToolResult whose .note says when the read may
        be incomplete (window ended, offsets unknown) and why."""
        command = kafka_commands.end_offsets_command(self.home, self.version, self.bootstrap(alias), self.config(alias),
                                                     topic)
        if command is not None:
            res = self.run(command)
            ends = kafka_output.topic_offsets(res.out, topic) if res.ok else {}
            if ends:
                outs, errs, code = [], [], 0
                for partition, start, count in kafka_tools.tail_reads(ends, records):
                    part = self.consume(alias, topic, mode=mode, timeout_ms=QUIET_MS, max_messages=count,
                                        partition=partition, offset=start)
                    if part.ok and count and not part.out.strip():
                        # the offsets say records are there: on a loaded host the consumer's first fetch can
                        # outlast QUIET_MS (seen at load 24: "no heartbeats" of a running flow); read once more
                        # with the patience of a read that joins a group (it ends at `count` records)
                        part = self.consume(alias, topic, mode=mode, timeout_ms=SUBSCRIBE_QUIET_MS,
                                            max_messages=count, partition=partition, offset=start)
                    outs.append(part.out)
                    if not part.ok:
                        code = part.code
                        errs.append(part.problem())
                result = ToolResult(code, "\n".join(outs), "\n".join(errs))
                if not result.ok:
                    result.note = "reading %s on %s failed: %s" % (topic, alias, result.problem())
                return result
            why = "end offsets unknown (%s)" % (res.problem() if not res.ok else "no partitions")
        else:
            why = "Kafka %s has no kafka-get-offsets" % ".".join(str(v) for v in self.version)
        started = time.time()
        # MM2's heartbeats topic has one partition: read it by assignment (a group join first could outlast
        # QUIET_MS with no record yet: real 2.8.2 read 0 of 77); quiet bound for a loaded host
        result = self.run(kafka_commands.console_consumer(self.home, self.version, self.bootstrap(alias),
                                                          self.config(alias), topic, mode=mode,
                                                          timeout_ms=SUBSCRIBE_QUIET_MS, partition=0, offset=0),
                             timeout=window_seconds, keep_output=True)
        result.read_started = started
        if result.code == 124:
            result.note = ("%s; read %s on %s from the beginning for %ss only: older records may be all that was "
                           "seen" % (why, topic, alias, window_seconds))
        elif not result.ok:
            result.note = "reading %s on %s failed: %s" % (topic, alias, result.problem())
        return result
