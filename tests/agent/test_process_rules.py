"""The process rules of mm2_core.host.process, on fake /proc trees and on real processes."""
import os
import signal
import socket
import subprocess
import threading
import time

import pytest

from mm2_core.config import names
from mm2_core.host import process

from agent_support import alive, reap
from mm2_fixture import Instance


def write(path, text):
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(path, "w") as fh:
        fh.write(text)


def fake_proc(root, pid, argv, state="S"):
    """A /proc/<pid> entry with a command line and a state."""
    d = os.path.join(str(root), str(pid))
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(os.path.join(d, "cmdline"), "wb") as fh:
        fh.write(b"\0".join(a.encode("utf-8") for a in argv) + b"\0")
    write(os.path.join(d, "stat"), "%d (java) %s 1 1 1" % (pid, state))


PROPS = "/etc/kafka-mm2/conf/connect-mirror-maker.properties"
JAVA_ARGV = ["/usr/jdk/bin/java", "-Xmx2g", "-cp", "/opt/kafka/libs/*", names.MM2_MAIN_CLASS, PROPS,
             "--clusters", "B"]


# ---------------------------------------------------------------- pure rules

def test_pid_file_reading(tmpdir):
    path = str(tmpdir.join("mm2.pid"))
    assert process.read_pid_file(path) == (None, process.NO_PID_FILE)
    for bad in ("", "abc", "-5", "0", "12 13"):
        write(path, bad)
        pid, problem = process.read_pid_file(path)
        assert pid is None and problem.startswith(process.BAD_PID_FILE)
    write(path, "4242\n")
    assert process.read_pid_file(path) == (4242, None)


@pytest.mark.parametrize("argv,ours", [
    (JAVA_ARGV, True),
    (["/bin/bash", "/opt/kafka/bin/connect-mirror-maker.sh", PROPS], True),       # before exec
    (["/bin/bash", "/opt/kafka/bin/kafka-run-class.sh", "-name", "mirrorMaker", names.MM2_MAIN_CLASS, PROPS], True),
    (["/usr/jdk/bin/java", names.MM2_MAIN_CLASS, "/other/mm2.properties"], False),  # another MM2
    (["sleep", "300"], False),
    (["vi", PROPS], False),                                                        # our file, not MM2
    (["/bin/bash", "-c", ". env ; nohup connect-mirror-maker.sh %s" % PROPS], False),  # one argument
    ([], False),
])
def test_cmdline_identifies_our_mm2(argv, ours):
    assert process.is_mm2_cmdline(argv, PROPS) is ours


def test_status_states_on_fake_proc(tmpdir):
    proc = tmpdir.mkdir("proc")
    pid_file = str(tmpdir.join("mm2.pid"))
    assert process.check_status(pid_file, PROPS, str(proc)).state == process.NO_PID_FILE

    write(pid_file, "100")
    st = process.check_status(pid_file, PROPS, str(proc))
    assert st.state == process.DEAD and st.pid == 100            # stale pid file, no such process

    fake_proc(proc, 100, ["/usr/sbin/sshd", "-D"])                # pid reused after a reboot
    st = process.check_status(pid_file, PROPS, str(proc))
    assert st.state == process.NOT_OURS and "sshd" in st.detail

    fake_proc(proc, 100, JAVA_ARGV)
    assert process.check_status(pid_file, PROPS, str(proc)).running

    fake_proc(proc, 100, JAVA_ARGV, state="Z")                    # exited, not reaped
    assert process.check_status(pid_file, PROPS, str(proc)).state == process.DEAD

    assert process.find_our_processes(PROPS, str(proc)) == []
    fake_proc(proc, 100, JAVA_ARGV)
    fake_proc(proc, 7, ["sleep", "1"])
    fake_proc(proc, 300, JAVA_ARGV)
    assert process.find_our_processes(PROPS, str(proc)) == [100, 300]


class Clock(object):
    def __init__(self):
        self.now = 1000.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_wait_started_outcomes(tmpdir):
    proc = tmpdir.mkdir("proc")
    pid_file = str(tmpdir.join("mm2.pid"))
    log = str(tmpdir.join("mirrormaker.log"))
    write(log, "old run\n[x] INFO Kafka MirrorMaker started\n")
    offset = os.path.getsize(log)

    def wait(**kw):
        c = Clock()
        kw.setdefault("settle", 5)
        return process.wait_started(pid_file, PROPS, 30, log_path=log, log_offset=offset, proc_root=str(proc),
                                    clock=c.time, sleep=c.sleep, **kw), c

    # the process died: fails at once, whatever the timeout
    write(pid_file, "100")
    out, c = wait()
    assert (out.ok, out.state) == (False, "exited") and c.now == 1000.0

    # alive; the 'started' line of an earlier run does not count, the settle period does
    fake_proc(proc, 100, JAVA_ARGV)
    out, c = wait()
    assert out.ok and c.now >= 1005.0
    with open(log, "a") as fh:
        fh.write("[y] INFO Kafka MirrorMaker started\n")
    out, c = wait()
    assert out.ok and c.now == 1000.0

    # a log showing MM2 initializing: the settle period no longer counts, the started line (or the
    # exit) is awaited; a real MM2 can scan plugins for longer than the settle period and only then
    # fail on a wrong password
    write(log, "old run\n[x] INFO Kafka MirrorMaker started\n[z] INFO Kafka MirrorMaker initializing ...\n")
    out, c = wait()
    assert (out.ok, out.state) == (False, "timeout") and "Kafka MirrorMaker started" in out.detail
    with open(log, "a") as fh:
        fh.write("[y] INFO Kafka MirrorMaker started\n")
    out, c = wait()
    assert out.ok and c.now == 1000.0

    # internal REST on: waits for the listener until the timeout, and says what it waited for
    out, c = wait(rest_url="http://h1:8083", http_check=lambda scheme, host, port: False)
    assert (out.ok, out.state) == (False, "timeout") and "http://h1:8083" in out.detail
    calls = []
    out, c = wait(rest_url="http://h1:8083", http_check=lambda *a: calls.append(a) or len(calls) > 3)
    assert out.ok and calls[0] == ("http", "h1", 8083)

    # the pid file names another program for longer than the exec grace period
    fake_proc(proc, 100, ["sleep", "300"])
    out, c = wait()
    assert (out.ok, out.state) == (False, "not-ours")

    # a live pid with no command line (mid-exec on a loaded host) is waited for until the deadline, not refused
    fake_proc(proc, 100, [])
    with open(os.path.join(str(proc), "100", "cmdline"), "wb") as fh:
        fh.write(b"")                                    # what /proc shows for a process mid-exec
    out, c = wait()
    assert (out.ok, out.state) == (False, "timeout"), out


def test_stop_escalation_with_fake_kill(tmpdir):
    proc = tmpdir.mkdir("proc")
    sent = []
    c = Clock()

    def kill(pid, sig):
        sent.append((pid, sig))

    fake_proc(proc, 100, ["sleep", "300"])
    out = process.stop_process(100, PROPS, 5, kill=kill, proc_root=str(proc), clock=c.time, sleep=c.sleep)
    assert out.state == "not-ours" and sent == []                 # never signals a stranger

    fake_proc(proc, 100, JAVA_ARGV)                               # ignores SIGTERM, dies on SIGKILL
    def stubborn(pid, sig):
        sent.append((pid, sig))
        if sig == signal.SIGKILL:
            fake_proc(proc, 100, JAVA_ARGV, state="Z")
    out = process.stop_process(100, PROPS, 5, kill=stubborn, proc_root=str(proc), clock=c.time, sleep=c.sleep)
    assert out.state == "killed" and sent == [(100, signal.SIGTERM), (100, signal.SIGKILL)]
    assert c.now >= 1005.0

    # the pid changes hands between SIGTERM and the escalation: no SIGKILL for the newcomer
    del sent[:]
    fake_proc(proc, 100, JAVA_ARGV)
    def replaced(pid, sig):
        sent.append((pid, sig))
        fake_proc(proc, 100, ["sleep", "300"])
    out = process.stop_process(100, PROPS, 5, kill=replaced, proc_root=str(proc), clock=c.time, sleep=c.sleep)
    assert out.ok and sent == [(100, signal.SIGTERM)]


def test_listener_parsing():
    assert process.parse_listener("http://h1:8083") == ("http", "h1", 8083)
    assert process.parse_listener("https://h1:8443,http://h1:8083") == ("https", "h1", 8443)
    assert process.parse_listener("http://:8083") == ("http", "127.0.0.1", 8083)
    assert process.parse_listener("http://[::1]:8083") == ("http", "::1", 8083)
    assert process.parse_listener("junk") is None


def test_http_answers_needs_an_http_server():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        assert not process.http_answers("http", "127.0.0.1", port, timeout=0.5)  # accepts, never answers
    finally:
        server.close()
    assert not process.http_answers("http", "127.0.0.1", port, timeout=0.5)      # nothing listening


def test_log_tail_and_marker(tmpdir):
    log = str(tmpdir.join("m.log"))
    assert process.tail_lines(log) == []
    write(log, "".join("line %d\n" % i for i in range(100)))
    assert process.tail_lines(log, 3) == ["line 97", "line 98", "line 99"]
    assert not process.log_has_marker(log, 0)
    size = os.path.getsize(log)
    write(log, "rotated\nKafka MirrorMaker started\n")                 # smaller than the offset: rotated
    assert process.log_has_marker(log, size)


# ---------------------------------------------------------------- real processes

def test_launch_records_the_jvm_pid_and_status_follows_it(site, guard):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    mm2 = Instance(site)
    pid = mm2.launch(clusters=["B"])
    out = process.wait_started(mm2.pid_file, mm2.props, 20, log_path=mm2.log_file)
    assert out.ok, out
    assert out.pid == pid and "its log says it started" in out.detail
    argv = process.read_cmdline(pid)
    assert names.MM2_MAIN_CLASS in argv and mm2.props in argv and argv[-2:] == ["--clusters", "B"]
    assert mm2.status().running

    # kill -9: status says dead, and the stale pid file does not fool it
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        if not alive(pid):
            break
        time.sleep(0.05)
    st = mm2.status()
    assert st.state == process.DEAD
    reap(pid)


def test_stop_never_touches_an_unrelated_process(site, guard):
    sleeper = guard.popen(["sleep", "300"])
    mm2 = Instance(site)
    write(mm2.pid_file, str(sleeper.pid))
    assert mm2.status().state == process.NOT_OURS
    out = process.stop_process(sleeper.pid, mm2.props, 1)
    assert out.state == "not-ours"
    time.sleep(0.2)
    assert sleeper.poll() is None and alive(sleeper.pid)


def test_stop_sigterm_and_escalation_on_real_processes(site, guard):
    mm2 = Instance(site)
    pid = mm2.launch()
    assert process.wait_started(mm2.pid_file, mm2.props, 20, log_path=mm2.log_file).ok
    out = process.stop_process(pid, mm2.props, 10)
    assert out.state == "terminated", out
    with open(mm2.log_file) as fh:
        assert "Kafka MirrorMaker stopped" in fh.read()       # it shut down cleanly
    reap(pid)

    site.control(ignore_sigterm=True)
    offset = process.file_size(mm2.log_file)
    pid = mm2.launch()
    assert process.wait_started(mm2.pid_file, mm2.props, 20, log_path=mm2.log_file, log_offset=offset).ok
    out = process.stop_process(pid, mm2.props, 1)
    assert out.state == "killed", out
    assert not alive(pid)
    reap(pid)


def test_a_start_failure_is_reported_as_exited(site, guard):
    site.control(fail_at_start="simulated bad configuration")
    mm2 = Instance(site)
    mm2.launch()
    out = process.wait_started(mm2.pid_file, mm2.props, 20, log_path=mm2.log_file)
    assert (out.ok, out.state) == (False, "exited")
    assert any("simulated bad configuration" in line for line in process.tail_lines(mm2.log_file))


def test_side_by_side_keeps_the_order_bounds_the_calls_at_once_and_raises_the_first_failure():
    """A cut-over check's independent reads run side by side: their results in the calls' order, never more than
    `limit` at once, and a failed read raised to the command once every read has ended."""
    lock = threading.Lock()
    running, peak, ended = [0], [0], []

    def call(i, fail=False):
        def read():
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1
                ended.append(i)
            if fail:
                raise ValueError("read %d failed" % i)
            return i * 10
        return read
    assert process.side_by_side([call(i) for i in range(7)], limit=3) == [0, 10, 20, 30, 40, 50, 60]
    assert peak[0] == 3
    del ended[:]
    try:
        process.side_by_side([call(0), call(1, fail=True), call(2, fail=True), call(3)], limit=2)
    except ValueError as exc:
        assert str(exc) == "read 1 failed"
    else:
        raise AssertionError("a failed read was not raised")
    assert sorted(ended) == [0, 1, 2, 3]   # every read ended before the failure was raised
