"""Real Apache Kafka clusters for tests (Python 3 only).

One-node clusters on 127.0.0.1 started from a real Kafka home: the official distribution of MM2_TEST_KAFKA_VERSION
(default 3.9, i.e. 3.9.1; see dists.py: bin/ + config/ of ../shared/kafka-bin, libs/ from Maven Central, cached outside
the project), or MM2_TEST_KAFKA_HOME. KRaft from 3.x; ZooKeeper mode (a ZooKeeper of the same distribution) for 2.x,
the way 2.8 operators run it. Every port is checked free, every wait is bounded, and every process is stopped
by the pid we started (never by name: other suites may run Kafka on the same machine).
"""
import base64
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time

from realkafka import client, dists
import testports

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TESTS_DIR)
SHARED_DIR = os.environ.get("MM2_SHARED_DIR") or os.path.join(os.path.dirname(REPO_ROOT), "shared")
KAFKA_HOME_ENV = "MM2_TEST_KAFKA_HOME"
JAVA_CANDIDATES = ("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/java-17-openjdk-arm64")
BROKER_HEAP = "-Xmx384m -Xms128m"
TOOL_HEAP = "-Xmx192m"


KAFKA_VERSION_ENV = "MM2_TEST_KAFKA_VERSION"
_HOMES = {}


def kafka_version_name():
    """The version of the matrix the real-Kafka suites run (MM2_TEST_KAFKA_VERSION, default: official 3.9)."""
    return os.environ.get(KAFKA_VERSION_ENV) or dists.DEFAULT


def kafka_home(version=None):
    """The Kafka installation the real-Kafka suites use, or None (then dist_problem() says why).

    MM2_TEST_KAFKA_HOME wins; else the official distribution of `version` / MM2_TEST_KAFKA_VERSION, assembled
    once from Maven Central into the cache (tests/realkafka/dists.py)."""
    explicit = os.environ.get(KAFKA_HOME_ENV)
    if explicit and version is None:
        return explicit if os.path.isfile(os.path.join(explicit, "bin", "kafka-server-start.sh")) else None
    name = version or kafka_version_name()
    if name not in _HOMES:
        try:
            _HOMES[name] = (dists.build(name), None)
        except (RuntimeError, KeyError, OSError) as exc:
            _HOMES[name] = (None, "Kafka %s: %s" % (name, exc))
    return _HOMES[name][0]


def dist_problem(version=None):
    name = version or kafka_version_name()
    kafka_home(version)
    return _HOMES.get(name, (None, None))[1]


def installed_version(home):
    """The release of a Kafka home, read from libs/kafka-clients-<v>.jar as an installation does."""
    for name in os.listdir(os.path.join(home, "libs")):
        m = re.match(r"^kafka-clients-(\d+\.\d+\.\d+)(?:[-.].*)?\.jar$", name)
        if m:
            return m.group(1)
    raise RuntimeError("no libs/kafka-clients-<version>.jar in %s" % home)


def version_tuple(home):
    return tuple(int(x) for x in installed_version(home).split("."))


def shared_dir(name):
    """<repo>/../shared/<name> when it exists (jmx-exporter, spark-kafka, ambari, ...), else None."""
    path = os.path.join(SHARED_DIR, name)
    return path if os.path.isdir(path) else None


def java_home():
    if os.environ.get("JAVA_HOME") and os.path.isfile(os.path.join(os.environ["JAVA_HOME"], "bin", "java")):
        return os.environ["JAVA_HOME"]
    for candidate in JAVA_CANDIDATES:
        if os.path.isfile(os.path.join(candidate, "bin", "java")):
            return candidate
    java = shutil.which("java")
    return os.path.dirname(os.path.dirname(os.path.realpath(java))) if java else None


def skip_reason():
    """None when real Kafka can run here, else why not (for pytest.skip)."""
    if kafka_home() is None:
        return dist_problem() or "no Kafka home at %s (%s)" % (os.environ.get(KAFKA_HOME_ENV), KAFKA_HOME_ENV)
    if java_home() is None:
        return "no Java 17 (JAVA_HOME) for the real Kafka"
    return None


free_port = testports.free_port   # rk.free_port(): reserved across the host's test processes


def wait_until(predicate, timeout, interval=0.5, what="condition"):
    """Poll predicate() until it returns a truthy value (returned); TimeoutError naming `what` after timeout s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


# The test's own brokers, ZooKeeper and command-line tools run with the client compiler only and the serial
# collector: they live seconds to minutes on a 2-core host where CI runs everything at once, and C2 and G1's
# threads are CPU they never pay back (measured: tests/realkafka/test_cluster.py 42.9 -> 32.9 CPU-seconds, kafka-topics.sh 1.55 -> 1.2 a call).
LEAN_JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true"
# MirrorMaker 2's own JVMs in the tests, the hand-started ones and the product's (through kafka-mm2-env/mm2_jvm_opts,
# tests/e2e/agent.py): the same two options. Measured on real 3.9 with a hand-started MM2 copying 2,000 records
# (2026-11-27, /work load ~20): start and copy 11.0 -> 7.9 CPU s, then idle 0.044 -> 0.017 cores, against Kafka's
# default G1 and C2. The tests copy thousands of records, where the client compiler's code is fast enough.
LEAN_MM2_JVM_OPTS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"


def tool_env(log_dir, heap=TOOL_HEAP, extra=None, lean=True):
    """Environment for Kafka's bin/*.sh: our Java, a bounded heap, logs outside the (shared) Kafka home;
    lean: LEAN_JVM_OPTS, else Kafka's default JVM options."""
    env = dict(os.environ)
    env["JAVA_HOME"] = java_home() or ""
    env["KAFKA_HEAP_OPTS"] = heap
    if lean:
        env["KAFKA_JVM_PERFORMANCE_OPTS"] = LEAN_JVM_OPTS
    else:
        env.pop("KAFKA_JVM_PERFORMANCE_OPTS", None)
    env["LOG_DIR"] = log_dir
    env.pop("KAFKA_OPTS", None)
    env.pop("KAFKA_JMX_OPTS", None)
    env.pop("JMX_PORT", None)
    if extra:
        env.update(extra)
    return env


def random_uuid():
    """A Kafka Uuid as `kafka-storage.sh random-uuid` prints it: 16 random bytes, URL-safe base64 without padding
    (org.apache.kafka.common.Uuid.toString), never starting with '-' (Uuid.randomUuid retries those)."""
    while True:
        text = base64.urlsafe_b64encode(os.urandom(16)).decode("ascii").rstrip("=")
        if not text.startswith("-"):
            return text


def file_tail(paths, chars):
    """The last chars of the first of paths that can be read ("" if none)."""
    for name in paths:
        try:
            with open(name) as fh:
                return fh.read()[-chars:]
        except IOError:
            continue
    return ""


def stop_pid(pid, grace=30):
    """SIGTERM, a bounded wait, then SIGKILL: only for pids this harness started."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return
            time.sleep(0.2)


def run_bounded(argv, timeout, env=None, input=None, cwd=None):
    """subprocess.run with its own session; on timeout the whole process group is killed (no orphans)."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                            start_new_session=True, universal_newlines=True)
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise TimeoutError("%s did not finish within %ss; stderr tail: %s"
                           % (os.path.basename(argv[0]), timeout, (err or "")[-800:]))
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


class _ChildJvm(object):
    """What a broker and a hand-started MM2 share: one child JVM (self.process), stopped only by its pid."""
    process = None
    _stdout = None

    def running(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        if self.running():
            stop_pid(self.process.pid)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self._stdout:
            self._stdout.close()
            self._stdout = None

    def kill9(self):
        if self.running():
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class KafkaCluster(_ChildJvm):
    """A one-node Kafka cluster on 127.0.0.1: KRaft (broker+controller) from 3.x, ZooKeeper mode for 2.x (a
    ZooKeeper of the same distribution, admin server off, its own free port), as operators of each line run it.

    listeners: extra {NAME: PROTOCOL} beside PLAINTEXT (used by the tools); each gets a free port
    (`listener_port(NAME)`). broker_props are written last, so they override anything generated.
    zookeeper: None = by version (2.x), True/False to force.
    """

    def __init__(self, name, workdir, home=None, broker_props=None, listeners=None, env=None, zookeeper=None):
        self.name = name
        self.home = home or kafka_home()
        if self.home is None:
            raise RuntimeError(skip_reason())
        self.version = version_tuple(self.home)
        self.zookeeper = self.version < (3, 0, 0) if zookeeper is None else zookeeper
        self.dir = os.path.join(workdir, name)
        self.data_dir = os.path.join(self.dir, "data")
        self.log_dir = os.path.join(self.dir, "logs")
        self.tool_log_dir = os.path.join(self.dir, "tool-logs")
        self.ports = {"PLAINTEXT": free_port()}
        self.protocols = {"PLAINTEXT": "PLAINTEXT"}
        if not self.zookeeper:
            self.ports["CONTROLLER"] = free_port()
            self.protocols["CONTROLLER"] = "PLAINTEXT"
        self.zk_port = free_port() if self.zookeeper else None
        self.zk_process = None
        for listener, protocol in (listeners or {}).items():
            self.ports[listener] = free_port()
            self.protocols[listener] = protocol
        self.broker_props = dict(broker_props or {})
        self.env = dict(env or {})
        self.process = None
        self._stdout = None

    # -- addresses
    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.ports["PLAINTEXT"]

    def listener_port(self, name):
        return self.ports[name]

    def listener_bootstrap(self, name):
        return "127.0.0.1:%d" % self.ports[name]

    # -- lifecycle
    def server_properties(self):
        listeners = ",".join("%s://127.0.0.1:%d" % (n, p) for n, p in self.ports.items())
        advertised = ",".join("%s://127.0.0.1:%d" % (n, p) for n, p in self.ports.items() if n != "CONTROLLER")
        if self.zookeeper:
            props = {"broker.id": "1", "zookeeper.connect": "127.0.0.1:%d/kafka" % self.zk_port,
                     "zookeeper.connection.timeout.ms": "30000"}
        else:
            props = {"process.roles": "broker,controller", "node.id": "1",
                     "controller.quorum.voters": "1@127.0.0.1:%d" % self.ports["CONTROLLER"],
                     "controller.listener.names": "CONTROLLER"}
        props.update({
            "listeners": listeners,
            "advertised.listeners": advertised,
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": ",".join("%s:%s" % kv for kv in self.protocols.items()),
            "log.dirs": self.data_dir,
            "num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "5",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "num.network.threads": "2",
            "num.io.threads": "2",
            "log.segment.bytes": str(64 * 1024 * 1024),
        })
        props.update(self.broker_props)
        return "".join("%s=%s\n" % (k, v) for k, v in props.items())

    def _start_zookeeper(self, env):
        zk_dir = os.path.join(self.dir, "zookeeper")
        os.makedirs(zk_dir, exist_ok=True)
        config = os.path.join(self.dir, "zookeeper.properties")
        with open(config, "w") as fh:
            fh.write("dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\n"
                     "admin.enableServer=false\n4lw.commands.whitelist=ruok\n" % (zk_dir, self.zk_port))
        zk_env = dict(env, LOG_DIR=os.path.join(self.dir, "zk-logs"), KAFKA_HEAP_OPTS="-Xmx128m")
        self._zk_stdout = open(os.path.join(self.dir, "zk-stdout.log"), "a")
        self.zk_process = subprocess.Popen(
            [os.path.join(self.home, "bin", "zookeeper-server-start.sh"), config],
            stdout=self._zk_stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=zk_env,
            start_new_session=True)

        def serving():
            if self.zk_process.poll() is not None:
                raise RuntimeError("ZooKeeper of %s exited: %s" % (self.name, file_tail(
                    [os.path.join(self.dir, "zk-stdout.log")], 1500)))
            try:
                with contextlib.closing(socket.create_connection(("127.0.0.1", self.zk_port), 2)) as sock:
                    sock.sendall(b"ruok")
                    return sock.recv(8) == b"imok"
            except OSError:
                return False
        wait_until(serving, 60, what="ZooKeeper of %s on port %d" % (self.name, self.zk_port))

    def start(self, wait=True, timeout=120):
        for path in (self.data_dir, self.log_dir, self.tool_log_dir):
            os.makedirs(path, exist_ok=True)
        config = os.path.join(self.dir, "server.properties")
        with open(config, "w") as fh:
            fh.write(self.server_properties())
        env = tool_env(self.log_dir, heap=BROKER_HEAP, extra=self.env)
        if self.zookeeper:
            if self.zk_process is None or self.zk_process.poll() is not None:
                self._start_zookeeper(env)
        elif not os.path.exists(os.path.join(self.data_dir, "meta.properties")):
            # first start: format; a restart after stop() keeps the data (same ports, same cluster id)
            cluster_id = random_uuid()   # what `kafka-storage.sh random-uuid` prints, without its JVM
            self._run(["kafka-storage.sh", "format", "-t", cluster_id, "-c", config], env=env, timeout=60)
        # fresh clients for this start: ones made before a stop kept asking the old broker's connections and timed
        # out after the restart (reh2 and its rerun: the identity failback's describe of a group on A)
        client.forget(self.bootstrap)
        self._log_mark = self._server_log_mark()
        self._stdout = open(os.path.join(self.dir, "stdout.log"), "a")
        self.process = subprocess.Popen(
            [os.path.join(self.home, "bin", "kafka-server-start.sh"), config],
            stdout=self._stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        if wait:
            self.wait_started(timeout)
        return self

    def close(self):
        """stop() the broker (ZooKeeper mode: also its ZooKeeper); both by their pids. stop() alone keeps
        ZooKeeper, so start() brings the same cluster back."""
        self.stop()
        client.forget(self.bootstrap)
        if self.zk_process is not None and self.zk_process.poll() is None:
            stop_pid(self.zk_process.pid)
        if getattr(self, "_zk_stdout", None):
            self._zk_stdout.close()
            self._zk_stdout = None

    def __exit__(self, *exc):
        self.close()

    def _server_log_mark(self):
        """Where this start's lines begin: (inode, size) of server.log now and the time."""
        server_log = os.path.join(self.log_dir, "server.log")
        try:
            st = os.stat(server_log)
            return st.st_ino, st.st_size, time.time()
        except OSError:
            return None, 0, time.time()

    def server_log_text(self, since_mark=None):
        """server.log with the files it rolled into (the appenders roll hourly: a start at hh:59 logs into
        server.log.<date>-hh), oldest first. since_mark: only the lines written since that start's mark."""
        names = sorted(n for n in os.listdir(self.log_dir) if n.startswith("server.log.")) if os.path.isdir(self.log_dir) else []
        names.append("server.log")
        ino, offset, started = since_mark if since_mark else (None, 0, 0)
        parts = []
        for name in names:
            path = os.path.join(self.log_dir, name)
            try:
                st = os.stat(path)
                with open(path) as fh:
                    if since_mark and st.st_ino == ino:
                        fh.seek(offset if st.st_size >= offset else 0)   # the file this start began in: its new lines
                    elif since_mark and st.st_mtime < started - 1:
                        continue                                             # rolled before this start
                    parts.append(fh.read())
            except (IOError, OSError):
                continue
        return "".join(parts)

    def wait_started(self, timeout=120):
        server_log = os.path.join(self.log_dir, "server.log")
        started_line = re.compile(r"Kafka Server started|\[KafkaServer id=\d+\] started")
        mark = getattr(self, "_log_mark", None)

        def started():
            if self.process.poll() is not None:
                raise RuntimeError("broker %s exited with %s: %s" % (self.name, self.process.returncode, self.log_tail()))
            return started_line.search(self.server_log_text(since_mark=mark)) is not None
        wait_until(started, timeout, what="broker %s to start (%s)" % (self.name, server_log))

    def log_tail(self, chars=2000):
        return file_tail((os.path.join(self.log_dir, "server.log"), os.path.join(self.dir, "stdout.log")), chars)

    # -- tools
    def _run(self, argv, env=None, timeout=60, input=None, check=True):
        script = os.path.join(self.home, "bin", argv[0])
        result = run_bounded([script] + list(argv[1:]), timeout, env=env or tool_env(self.tool_log_dir), input=input)
        if check and result.returncode != 0:
            raise RuntimeError("%s failed (%s): %s" % (" ".join(argv[:3]), result.returncode, result.stderr[-1500:]))
        return result

    def tool(self, script, *args, **kwargs):
        """Run bin/<script>.sh against this cluster's Kafka home: bounded (timeout=60), check=True by default."""
        name = script if script.endswith(".sh") else script + ".sh"
        return self._run([name] + list(args), timeout=kwargs.pop("timeout", 60), input=kwargs.pop("input", None),
                         check=kwargs.pop("check", True))

    # Reads and writes go through the session's one Kafka client (client.py: librdkafka in this process), not a
    # Kafka tool JVM per call; tool() still runs any of Kafka's own tools against this cluster.
    def create_topic(self, topic, partitions=1, config=None):
        client.create_topic(self.bootstrap, topic, partitions, config)

    def topics(self):
        return client.topics(self.bootstrap)

    def produce(self, topic, records, timeout=180):
        """records: iterable of (key, value) strings; acks=all, so they are durable on return."""
        client.produce(self.bootstrap, topic, records, timeout=timeout)

    def produce_n(self, topic, n, prefix="r", start=0):
        self.produce(topic, (("%s-%d" % (prefix, i), "%s-value-%d" % (prefix, i)) for i in range(start, start + n)))

    def end_offsets(self, topic, bootstrap=None):
        """{partition: end offset} ({} when the topic does not exist)."""
        return client.end_offsets(bootstrap or self.bootstrap, topic)

    def log_start_offsets(self, topic):
        return client.log_start_offsets(self.bootstrap, topic)

    def count(self, topic):
        return sum(self.end_offsets(topic).values())

    def consume(self, topic, max_records, timeout_ms=15000, group=None, from_beginning=True, partition=None,
                offset=None):
        """Up to max_records (key, value) pairs; stops after timeout_ms without a new record (counted from the
        assignment, so a slow join or first fetch on a loaded host does not end the read early).
        partition/offset: read that partition from that offset instead. group: join, read, commit what was read."""
        return client.consume(self.bootstrap, topic, max_records, timeout_ms, group, from_beginning, partition, offset)

    def records(self, topic, max_records=None, timeout_ms=8000, partition=None, offset=None,
                isolation="read_uncommitted"):
        """[(partition, offset, key, value)] of the topic (or of `partition` from `offset`), each partition in order;
        max_records: by default every record the topic holds now. isolation="read_committed": only committed
        transactions' records (exactly-once targets, whose end offsets also count transaction markers)."""
        if max_records is None:
            max_records = self.count(topic)
        return client.records(self.bootstrap, topic, max_records, timeout_ms, None, True, partition, offset,
                              isolation=isolation)

    def commit_group_offsets(self, group, topic, partition_offsets):
        """Commit {partition: offset} for an inactive group (as kafka-consumer-groups --reset-offsets --execute)."""
        client.commit_group_offsets(self.bootstrap, group, topic, partition_offsets)

    def group_offsets(self, group, timeout=60):
        """{(topic, partition): committed offset} of a group on this cluster ({} when the group does not exist).
        Asked again (bounded by `timeout` s) while the coordinator is loading or moving."""
        return client.group_offsets(self.bootstrap, group, timeout=timeout)

    def group_members(self, group, timeout=20):
        """How many members the group has now (0 when it does not exist), or -1 while its coordinator does not
        answer within timeout s (a broker just restarted): neither "some" nor "none", so a poll for either goes on."""
        try:
            return client.group_description(self.bootstrap, group, timeout=timeout)[1]
        except RuntimeError:
            return -1


@contextlib.contextmanager
def kafka_clusters(workdir, names=("a", "b"), **kwargs):
    """Start one cluster per name in parallel; yield {name: KafkaCluster}; stop them all on exit (also on failure)."""
    clusters = dict((name, KafkaCluster(name, str(workdir), **kwargs)) for name in names)
    try:
        for cluster in clusters.values():
            cluster.start(wait=False)
        for cluster in clusters.values():
            cluster.wait_started()
        yield clusters
    finally:
        threads = [threading.Thread(target=lambda c=c: c.close()) for c in clusters.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)


class ClusterPool(object):
    """The test process's shared clusters (the `kafka_pool` fixture, tests/conftest.py): get("a", "b") -> {name:
    KafkaCluster} of the run's Kafka, or of the distribution at home=, starting the missing ones in parallel and any
    a test left stopped. One distribution's clusters at a time: asking for another stops the previous ones first
    (never two versions' brokers at once; a caller orders its tests by version). A test isolates itself by its
    topic, group and cluster-alias names; only tests that need other listeners or that leave a broker broken start
    clusters of their own."""

    def __init__(self, workdir):
        self.workdir = str(workdir)
        self.home = None
        self.started = {}

    def get(self, *names, **kwargs):
        home = kwargs.pop("home", None) or kafka_home()
        if kwargs:
            raise TypeError("unknown arguments %s" % sorted(kwargs))
        if home != self.home:
            self.close()
            self.home = home
        missing = [KafkaCluster(n, os.path.join(self.workdir, os.path.basename(home.rstrip("/"))), home=home)
                   for n in names if n not in self.started]
        for cluster in missing:
            self.started[cluster.name] = cluster
        starting = missing + [self.started[n] for n in names if n in self.started and
                              self.started[n] not in missing and not self.started[n].running()]
        for cluster in starting:
            cluster.start(wait=False)
        for cluster in starting:
            cluster.wait_started()
        return dict((n, self.started[n]) for n in names)

    def close(self):
        threads = [threading.Thread(target=lambda c=c: c.close()) for c in self.started.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)
        self.started = {}


def interrupt_on_sigterm():
    """`timeout` (CI, a developer) sends SIGTERM: turn it into KeyboardInterrupt, so pytest still runs the
    finalizers that stop our brokers and MM2 JVMs by pid (otherwise they outlive the run)."""
    def handler(signum, frame):
        raise KeyboardInterrupt("SIGTERM")
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, handler)


class MirrorMaker(_ChildJvm):
    """MM2 started by hand with connect-mirror-maker.sh (what an operator would run), stopped by its pid.

    properties: dict or text of connect-mirror-maker.properties; env adds e.g. KAFKA_OPTS (-javaagent:...).
    """

    def __init__(self, workdir, properties, home=None, env=None, clusters_arg=None, heap="-Xmx512m -Xms128m"):
        self.home = home or kafka_home()
        self.dir = str(workdir)
        os.makedirs(self.dir, exist_ok=True)
        self.config = os.path.join(self.dir, "mm2.properties")
        text = properties if isinstance(properties, str) else "".join(
            "%s=%s\n" % kv for kv in properties.items())
        with open(self.config, "w") as fh:
            fh.write(text)
        self.log_dir = os.path.join(self.dir, "logs")
        self.env = tool_env(self.log_dir, heap=heap, extra=dict({"KAFKA_JVM_PERFORMANCE_OPTS": LEAN_MM2_JVM_OPTS},
                                                                **(env or {})), lean=False)
        self.clusters_arg = clusters_arg
        self.process = None
        self._stdout = None

    def start(self):
        os.makedirs(self.log_dir, exist_ok=True)
        argv = [os.path.join(self.home, "bin", "connect-mirror-maker.sh"), self.config]
        if self.clusters_arg:
            argv += ["--clusters"] + list(self.clusters_arg)
        self._stdout = open(os.path.join(self.dir, "stdout.log"), "w")
        self.process = subprocess.Popen(argv, stdout=self._stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=self.env, start_new_session=True)
        return self

    def log_text(self):
        try:
            with open(os.path.join(self.dir, "stdout.log")) as fh:
                return fh.read()
        except IOError:
            return ""



def mm2_test_properties(clusters, flows, extra=None):
    """Minimal dedicated-mode MM2 properties for one-node test clusters.

    clusters: {alias: bootstrap}; flows: ["a->b", ...]; internal topics get replication factor 1.
    """
    props = {"clusters": ", ".join(clusters)}
    for alias, bootstrap in clusters.items():
        props["%s.bootstrap.servers" % alias] = bootstrap
    for flow in flows:
        props["%s.enabled" % flow] = "true"
        props["%s.topics" % flow] = ".*"
    for key in ("replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor",
                "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
                "status.storage.replication.factor", "config.storage.replication.factor"):
        props[key] = "1"
    props["refresh.topics.interval.seconds"] = "5"
    props["refresh.groups.interval.seconds"] = "5"
    props["emit.checkpoints.interval.seconds"] = "5"
    props["sync.group.offsets.interval.seconds"] = "5"
    props.update(extra or {})
    return props
