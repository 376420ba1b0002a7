"""The MM2 process seen from outside: pid file, /proc checks, start wait, stop escalation.

Pure stdlib, Python 2.7 and 3. Everything that touches the system (clock, sleep, kill,
/proc) can be injected, so the decisions are tested without real processes and the same
code drives the real ones.

A pid file proves nothing by itself: after a reboot /var/run is wiped, after a crash the
pid may belong to any other program. A pid is "our MM2" only when /proc/<pid>/cmdline
holds our properties file as an argument and either the MM2 main class or the launcher
script (the launcher execs kafka-run-class.sh, which execs java: the pid stays the same).
"""
import errno
import os
import signal
import socket
import subprocess
import threading
import time

from mm2_core.config import names
from mm2_core.connect import connect_mode
from mm2_core.formats import text as _t   # the module: alert reloads drop mm2_core modules (Python 2 clears
                                 # a dropped module's globals under functions imported from it)

try:
    from shlex import quote as _quote
except ImportError:  # Python 2.7
    from pipes import quote as _quote

LAUNCHER = "connect-mirror-maker.sh"
PROPERTIES_FILE = "connect-mirror-maker.properties"
ENV_FILE = "mm2-env.sh"
PID_FILE = "mirrormaker2.pid"
LOG_FILE = "mirrormaker.log"      # written by log4j (name fixed in both logging templates)
OUT_FILE = "mirrormaker.out"      # stdout/stderr of the JVM (crashes before log4j is up)
STARTED_MARKER = "Kafka MirrorMaker started"   # logged by MirrorMaker.start() on every version
INITIALIZING_MARKER = "Kafka MirrorMaker initializing"   # logged by MirrorMaker.main() first, every version

RUNNING = "running"
NO_PID_FILE = "no pid file"
BAD_PID_FILE = "unreadable pid file"
DEAD = "dead"
NOT_OURS = "not ours"

# Start: once alive, how long without the STARTED_MARKER before we accept a live process
# anyway (the operator may have lowered the log level or logs elsewhere). Only when the log
# does not show MM2 initializing: then the started line (or the exit) is awaited, because a
# real MM2 may spend longer than this scanning plugins before it reaches the clusters and
# fails on a wrong password.
DEFAULT_SETTLE_SECONDS = 8
KILL_WAIT_SECONDS = 10


def quote(arg):
    return _quote(_t.text(arg))


class Status(object):
    """What the pid file says about MM2: state is one of the module constants."""

    def __init__(self, state, pid=None, detail=""):
        self.state = state
        self.pid = pid
        self.detail = detail

    @property
    def running(self):
        return self.state == RUNNING

    def __repr__(self):
        return "Status(%r, pid=%r, %r)" % (self.state, self.pid, self.detail)


def read_pid_file(path):
    """(pid, problem): pid is an int > 0 or None; problem says why not."""
    try:
        with open(path, "rb") as fh:
            content = _t.decode_output(fh.read(64)).strip()
    except (IOError, OSError) as e:
        if e.errno == errno.ENOENT:
            return None, NO_PID_FILE
        return None, "%s: %s" % (BAD_PID_FILE, e)
    if not content.isdigit() or int(content) <= 0:
        return None, "%s: %r" % (BAD_PID_FILE, str(content[:20].encode("ascii", "replace").decode("ascii")))
    return int(content), None


def read_cmdline(pid, proc_root="/proc"):
    """argv of pid as a list of text strings; None when there is no such process."""
    try:
        with open(os.path.join(proc_root, str(pid), "cmdline"), "rb") as fh:
            data = fh.read()
    except (IOError, OSError):
        return None
    parts = data.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return [_t.decode_output(p) for p in parts]


EXITED_STATES = ("Z", "X", "x")


def _stat_state(path):
    try:
        with open(path, "rb") as fh:
            data = _t.decode_output(fh.read())
    except (IOError, OSError):
        return None
    # "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
    rest = data[data.rfind(")") + 1:].split()
    return rest[0] if rest else None


def process_state(pid, proc_root="/proc"):
    """One-letter state from /proc/<pid>/stat (R, S, D, Z, ...); None if no such process."""
    return _stat_state(os.path.join(proc_root, str(pid), "stat"))


def live_threads(pid, proc_root="/proc"):
    """Thread ids of pid, other than its main thread, that have not exited (/proc/<pid>/task)."""
    task_dir = os.path.join(proc_root, str(pid), "task")
    try:
        tids = [int(t) for t in os.listdir(task_dir) if t.isdigit() and int(t) != pid]
    except OSError:
        return []
    return [t for t in tids if _stat_state(os.path.join(task_dir, str(t), "stat")) not in EXITED_STATES + (None,)]


def is_alive(pid, proc_root="/proc"):
    """True for a live process. A zombie has exited (its parent just has not reaped it), unless other
    threads of it still run: /proc/<pid>/stat shows the main thread only, and a JVM's main thread can be
    a zombie while its other threads are still exiting and still hold its listening ports and files
    (seen with a killed multi-threaded process: main thread Z, a thread S, its socket still listening)."""
    if not os.path.isdir(proc_root):  # no procfs: fall back on signal 0
        try:
            os.kill(pid, 0)
        except OSError as e:
            return e.errno == errno.EPERM
        return True
    state = process_state(pid, proc_root)
    if state is None:
        return False
    return state not in EXITED_STATES or bool(live_threads(pid, proc_root))


def is_mm2_cmdline(argv, props_path):
    """Is this command line our MM2: our properties file plus MM2's main class or launcher; or, in connect
    mode, the Connect worker file beside it (connect_mode.WORKER_FILE) plus Connect's main class or launcher."""
    if not argv:
        return False
    wanted = os.path.normpath(_t.text(props_path))
    worker = os.path.join(os.path.dirname(wanted), connect_mode.WORKER_FILE)
    has_props = has_mm2 = has_worker = has_connect = False
    for arg in argv:
        if not arg:
            continue
        if arg == names.MM2_MAIN_CLASS or os.path.basename(arg) == LAUNCHER:
            has_mm2 = True
        elif arg == connect_mode.MAIN_CLASS or os.path.basename(arg) == connect_mode.LAUNCHER:
            has_connect = True
        elif os.path.normpath(arg) == wanted:
            has_props = True
        elif os.path.normpath(arg) == worker:
            has_worker = True
    return (has_props and has_mm2) or (has_worker and has_connect)


def is_our_mm2(pid, props_path, proc_root="/proc"):
    return is_alive(pid, proc_root) and is_mm2_cmdline(read_cmdline(pid, proc_root), props_path)


def check_status(pid_file, props_path, proc_root="/proc"):
    """Status of the MM2 recorded in pid_file: cheap, no JVM, no network."""
    pid, problem = read_pid_file(pid_file)
    if pid is None:
        state = NO_PID_FILE if problem == NO_PID_FILE else BAD_PID_FILE
        return Status(state, None, "%s (%s)" % (problem, pid_file))
    if not is_alive(pid, proc_root):
        return Status(DEAD, pid, "process %d from %s is not running" % (pid, pid_file))
    argv = read_cmdline(pid, proc_root)
    if argv == [] and process_state(pid, proc_root) in EXITED_STATES:  # main thread gone, others exiting
        return Status(DEAD, pid, "process %d from %s is exiting" % (pid, pid_file))
    if not is_mm2_cmdline(argv, props_path):
        shown = " ".join(argv or [])[:200]
        return Status(NOT_OURS, pid, "pid %d from %s belongs to another program (%s), not MM2 with %s"
                      % (pid, pid_file, shown or "no command line", props_path))
    return Status(RUNNING, pid, "MM2 is running as pid %d" % pid)


def live_pids(proc_root="/proc"):
    """Pids listed in /proc (none when it cannot be read)."""
    try:
        return [int(entry) for entry in os.listdir(proc_root) if entry.isdigit()]
    except OSError:
        return []


def find_our_processes(props_path, proc_root="/proc"):
    """Pids of live MM2 processes started with props_path (to adopt or stop strays)."""
    return sorted(pid for pid in live_pids(proc_root) if is_our_mm2(pid, props_path, proc_root))


def write_pid_file(path, pid):
    """Replace the pid file atomically (a reader never sees it half-written)."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as fh:
        fh.write("%d\n" % pid)
    os.rename(tmp, path)


def remove_file(path):
    try:
        os.remove(path)
        return True
    except OSError as e:
        if e.errno != errno.ENOENT:
            raise
        return False


def launch_command(env_file, launcher, props_path, clusters, out_file, pid_file):
    """Shell command that starts MM2 detached and records its pid.

    The launcher runs in the foreground of a background job: nohup execs the launcher, which
    execs kafka-run-class.sh, which execs java, so $! is the pid of the JVM. MM2's own
    -daemon mode is not used: it records no pid.
    """
    args = [launcher, props_path]
    if clusters:
        args += ["--clusters"] + list(clusters)
    return ". %s ; nohup %s > %s 2>&1 < /dev/null & echo $! > %s" % (
        quote(env_file), " ".join(quote(a) for a in args), quote(out_file), quote(pid_file))


def file_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def log_has_marker(path, offset, marker=STARTED_MARKER, max_bytes=4 * 1024 * 1024):
    """Does the log hold marker after byte offset (from the start when it was rotated)?"""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            if size >= offset:
                fh.seek(offset)
            data = fh.read(max_bytes)
    except (IOError, OSError):
        return False
    return marker.encode("utf-8") in data


def tail_lines(path, count=40, max_bytes=256 * 1024):
    """Last count lines of a text file ([] when it does not exist)."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except (IOError, OSError):
        return []
    lines = _t.decode_output(data).splitlines()
    if size > max_bytes and lines:
        lines = lines[1:]  # first line is probably cut
    return lines[-count:]


def parse_listener(url):
    """(scheme, host, port) of a Connect listener like http://host:8083; None if unparsable."""
    if not url:
        return None
    url = url.split(",")[0].strip()
    scheme = "http"
    if "://" in url:
        scheme, url = url.split("://", 1)
    url = url.rstrip("/")
    if ":" not in url:
        return None
    host, port = url.rsplit(":", 1)
    host = host.strip("[]")
    if not port.isdigit():
        return None
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    return scheme.lower(), host, int(port)


def http_answers(scheme, host, port, timeout=2.0):
    """Does something answer HTTP there (any status: MM2's internal REST has no root resource)?"""
    try:
        sock = socket.create_connection((host, port), timeout)
    except (socket.error, socket.timeout, OSError):
        return False
    try:
        if scheme != "http":
            return True  # TLS listener: accepting connections is as far as we look
        sock.sendall(("GET / HTTP/1.0\r\nHost: %s\r\n\r\n" % host).encode("ascii"))
        data = sock.recv(16)
        return data.startswith(b"HTTP/")
    except (socket.error, socket.timeout, OSError):
        return False
    finally:
        sock.close()


class Outcome(object):
    def __init__(self, ok, state, pid=None, detail=""):
        self.ok = ok
        self.state = state
        self.pid = pid
        self.detail = detail

    def __repr__(self):
        return "Outcome(%r, %r, pid=%r, %r)" % (self.ok, self.state, self.pid, self.detail)


def wait_started(pid_file, props_path, timeout, log_path=None, log_offset=0, rest_url=None,
                 settle=DEFAULT_SETTLE_SECONDS, proc_root="/proc", clock=time.time,
                 sleep=time.sleep, poll=0.25, http_check=http_answers, grace=3.0,
                 markers=(STARTED_MARKER, INITIALIZING_MARKER)):
    """Wait until the MM2 just launched is up.

    Up means: alive, its REST listener answering when internal REST is on, and either the
    "started" line in the log since log_offset or, while the log shows no "initializing" line
    of this start either, alive for `settle` seconds. Outcome states:
    'started', 'exited', 'timeout', 'not-ours', 'no-pid'.
    """
    begin = clock()
    deadline = begin + timeout
    settle = min(settle, timeout)
    listener = parse_listener(rest_url) if rest_url else None
    alive_since = None
    while True:
        now = clock()
        st = check_status(pid_file, props_path, proc_root)
        waiting_for = None
        if st.running:
            if alive_since is None:
                alive_since = now
            logged = bool(log_path) and log_has_marker(log_path, log_offset, markers[0])
            initializing = not logged and bool(log_path) and log_has_marker(log_path, log_offset,
                                                                            markers[1])
            if listener and not http_check(*listener):
                waiting_for = "the internal REST listener %s to answer" % rest_url
            elif not logged and (initializing or now - alive_since < settle):
                waiting_for = "'%s' in %s" % (markers[0], log_path)
            else:
                how = "its log says it started" if logged else \
                    "alive for %ds (no '%s' line in %s)" % (settle, markers[0], log_path)
                return Outcome(True, "started", st.pid, "MM2 started as pid %d: %s" % (st.pid, how))
        elif st.state == DEAD:
            return Outcome(False, "exited", st.pid, "MM2 (pid %d) exited during start" % st.pid)
        elif now - begin >= grace and not (st.state == NOT_OURS and not read_cmdline(st.pid, proc_root)):
            # the launcher execs quickly; a pid file that stays missing or foreign is a failure. A live pid with no
            # command line yet is the launch itself, mid-exec on a loaded host (the reh9 rehearsal: "belongs to
            # another program (no command line)" 5 s after the launch, the JVM alive): wait for it until the deadline
            state = "not-ours" if st.state == NOT_OURS else "no-pid"
            return Outcome(False, state, st.pid, st.detail)
        else:
            waiting_for = "the launcher to exec MM2"
        if now >= deadline:
            return Outcome(False, "timeout", st.pid,
                           "MM2 did not come up within %ss: still waiting for %s" % (timeout, waiting_for))
        sleep(poll)


def _signal(kill, pid, sig):
    try:
        kill(pid, sig)
        return True
    except OSError as e:
        if e.errno == errno.ESRCH:
            return False
        raise


def _gone(pid, props_path, proc_root):
    """Has our MM2 with this pid exited (or the pid moved on to another program)?"""
    if not is_alive(pid, proc_root):
        return True
    argv = read_cmdline(pid, proc_root)
    if argv is None:
        return True
    if not argv:
        return False  # exiting: its memory (and command line) is gone, the process not yet
    return not is_mm2_cmdline(argv, props_path)


def _wait_gone(pid, props_path, seconds, proc_root, clock, sleep, poll):
    end = clock() + seconds
    while True:
        if _gone(pid, props_path, proc_root):
            return True
        if clock() >= end:
            return False
        sleep(poll)


def stop_process(pid, props_path, timeout, kill=os.kill, proc_root="/proc", clock=time.time,
                 sleep=time.sleep, poll=0.2, kill_wait=KILL_WAIT_SECONDS):
    """SIGTERM, wait up to timeout, then SIGKILL: only ever signals our own MM2.

    The command line is checked again before each signal (a pid can be reused at any time).
    Outcome states: 'not-running', 'not-ours', 'terminated', 'killed', 'survived'.
    """
    if not is_alive(pid, proc_root):
        return Outcome(True, "not-running", pid, "pid %d is not running" % pid)
    if not is_our_mm2(pid, props_path, proc_root):
        return Outcome(True, "not-ours", pid, "pid %d is not MM2 with %s: left alone" % (pid, props_path))
    if not _signal(kill, pid, int(signal.SIGTERM)):
        return Outcome(True, "terminated", pid, "pid %d exited" % pid)
    if _wait_gone(pid, props_path, timeout, proc_root, clock, sleep, poll):
        return Outcome(True, "terminated", pid, "MM2 (pid %d) stopped after SIGTERM" % pid)
    if not is_our_mm2(pid, props_path, proc_root):
        return Outcome(True, "terminated", pid, "MM2 (pid %d) stopped" % pid)
    _signal(kill, pid, int(signal.SIGKILL))
    if _wait_gone(pid, props_path, kill_wait, proc_root, clock, sleep, poll):
        return Outcome(True, "killed", pid,
                       "MM2 (pid %d) ignored SIGTERM for %ss and was killed with SIGKILL" % (pid, timeout))
    state = process_state(pid, proc_root)
    threads = len(live_threads(pid, proc_root)) if state in EXITED_STATES else 0
    return Outcome(False, "survived", pid,
                   "MM2 (pid %d) is still alive %ss after SIGKILL (state %s%s)"
                   % (pid, kill_wait, state, ": its main thread exited, %d other thread(s) have not" % threads
                      if threads else ""))


# ---------------------------------------------------------------- decisions of START and STOP

LAUNCH = "launch"
ALREADY_RUNNING = "running"
ADOPT = "adopt"


def plan_start(pid_file, props_path, proc_root="/proc"):
    """What START must do: (ALREADY_RUNNING, pid), (ADOPT, pid) for our MM2 running without a
    valid pid file, or (LAUNCH, status) where status says what the pid file held."""
    current = check_status(pid_file, props_path, proc_root)
    if current.running:
        return ALREADY_RUNNING, current.pid, current
    strays = find_our_processes(props_path, proc_root)
    if strays:
        return ADOPT, strays[0], current
    return LAUNCH, None, current


def pids_to_stop(pid_file, props_path, proc_root="/proc"):
    """Our MM2 processes STOP must end: the one in the pid file and any stray one (same
    properties file, e.g. started by hand or left behind by a lost pid file)."""
    current = check_status(pid_file, props_path, proc_root)
    pids = [current.pid] if current.running else []
    pids += [p for p in find_our_processes(props_path, proc_root) if p not in pids]
    return pids, current


# ---------------------------------------------------------------- bounded child processes
# Every program the mpack runs (Kafka tools, java -version) goes through run_bounded, on both
# Ambari lines: resource_management's own timeout kill is broken on Ambari 3 (killtree.sh gets
# "Signals.SIGKILL" on Python 3), and a Kafka tool that never returns would hold the command
# until the agent gives up.

TERM_GRACE_SECONDS = 5


class RunResult(object):
    def __init__(self, code, out, err, timed_out, timeout):
        self.code = code
        self.out = out
        self.err = err
        self.timed_out = timed_out
        self.timeout = timeout

    def __repr__(self):
        return "RunResult(code=%r, timed_out=%r)" % (self.code, self.timed_out)


def children_of(pid, proc_root="/proc"):
    """Direct children of pid, from /proc/<p>/stat."""
    found = []
    for child in live_pids(proc_root):
        try:
            with open(os.path.join(proc_root, str(child), "stat"), "rb") as fh:
                fields = _t.decode_output(fh.read()).rsplit(")", 1)[1].split()
        except (IOError, OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(child)
    return found


def process_tree(pid, proc_root="/proc"):
    """pid and all its descendants (also those in other sessions, e.g. under su)."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        if current in tree:
            continue
        tree.append(current)
        todo.extend(children_of(current, proc_root))
    return tree


def kill_tree(pid, kill=os.kill, grace=TERM_GRACE_SECONDS, proc_root="/proc", clock=time.time,
              sleep=time.sleep):
    """SIGTERM to pid and every descendant, SIGKILL to whatever is left after grace seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        tree = [p for p in process_tree(pid, proc_root) if is_alive(p, proc_root)]
        if not tree:
            return
        for member in tree:
            try:
                kill(member, int(sig))
            except OSError:
                pass
        end = clock() + (grace if sig == signal.SIGTERM else 0)
        while clock() < end and any(is_alive(p, proc_root) for p in tree):
            sleep(0.1)


def _collect(stream, sink):
    try:
        while True:
            chunk = stream.read(65536) if not hasattr(stream, "read1") else stream.read1(65536)
            if not chunk:
                break
            sink.append(chunk)
    except (IOError, OSError, ValueError):
        pass


def run_bounded(argv, timeout, env=None, stdin_text=None, preexec_fn=None, kill=os.kill,
                grace=TERM_GRACE_SECONDS, cwd=None):
    """Run argv (no shell) with a hard time limit; returns a RunResult with text output.

    The child gets its own session; on timeout its whole process tree gets SIGTERM, then
    SIGKILL after grace seconds. Output is decoded as UTF-8 with replacement, whatever bytes
    the program prints. kill(pid, signum) is injectable (the agent's sudo.kill when the child
    runs as another user)."""
    def setup():
        os.setsid()
        if preexec_fn is not None:
            preexec_fn()

    if env is not None:
        env = dict((_t.native(k), _t.native(v)) for k, v in env.items())
    proc = subprocess.Popen([_t.native(a) for a in argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=cwd, close_fds=True, preexec_fn=setup)
    out, err = [], []
    readers = [threading.Thread(target=_collect, args=(proc.stdout, out)),
               threading.Thread(target=_collect, args=(proc.stderr, err))]
    for reader in readers:
        reader.daemon = True
        reader.start()
    try:
        if stdin_text is not None:
            proc.stdin.write(_t.text(stdin_text).encode("utf-8"))
        proc.stdin.close()
    except (IOError, OSError):
        pass
    deadline = time.time() + timeout
    timed_out = False
    while proc.poll() is None:
        if time.time() >= deadline:
            timed_out = True
            kill_tree(proc.pid, kill=kill, grace=grace)
            break
        time.sleep(0.05)
    code = proc.wait()
    for reader in readers:
        reader.join(grace)
    return RunResult(code, _t.decode_output(b"".join(out)), _t.decode_output(b"".join(err)), timed_out, timeout)


def side_by_side(calls, limit=4):
    """Run the callables side by side, at most `limit` at a time, and return their results in order. For reads
    that do not depend on each other, each a Kafka tool (a JVM start of a second or more): a cut-over check reads
    about ten facts, and one after the other they take ten JVM starts of wall time. An exception of a call is
    raised here once every call has ended (the first one's, in the calls' order)."""
    results = [None] * len(calls)
    failed = []
    slots = threading.Semaphore(max(1, int(limit)))

    def run(index, call):
        with slots:
            try:
                results[index] = call()
            except BaseException as exc:   # handed to the caller's thread below
                failed.append((index, exc))
    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.daemon = True
        thread.start()
    for thread in threads:
        thread.join()
    if failed:
        raise sorted(failed, key=lambda f: f[0])[0][1]
    return results
