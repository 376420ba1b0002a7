"""STOP returns only when the whole MM2 process is gone, not just its main thread.

A JVM is many threads. When it is stopped (SIGTERM, or SIGKILL after the timeout) its main thread can
exit first: /proc/<pid>/stat then says Z (zombie) while the other threads still exit and still hold the
process's files and listening sockets (the JMX exporter's port, Connect's REST port). A STOP that trusted
the main thread's state returned then, and the START of a RESTART that followed found the ports taken.
Here a real process does exactly that on SIGTERM (its main thread exits, a thread keeps the listening
socket for a while), and the same rule is checked on fake /proc trees.
"""
import os
import platform
import signal
import socket
import subprocess
import sys
import time

import pytest

from mm2_core.config import names
from mm2_core.host import process

# SYS_exit (one thread), not exit_group (the whole process): what makes a main thread exit alone
SYS_EXIT = {"x86_64": 60, "amd64": 60, "aarch64": 93, "arm64": 93}.get(platform.machine().lower())

SLOW_DYING = r"""
import ctypes, os, signal, socket, sys, threading, time
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
hold = float(sys.argv[3])
def on_term(signum, frame):
    def shutdown():                     # the JVM's other threads: still exiting, still holding the socket
        time.sleep(hold)
        os._exit(0)
    threading.Thread(target=shutdown).start()
    ctypes.CDLL(None).syscall(int(sys.argv[4]), 0)   # the main thread exits alone
signal.signal(signal.SIGTERM, on_term)
sys.stdout.write("%d\n" % listener.getsockname()[1])
sys.stdout.flush()
while True:
    time.sleep(0.05)
"""


def _port_free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except socket.error:
        return False
    finally:
        s.close()


@pytest.mark.skipif(SYS_EXIT is None or not os.path.isdir("/proc/self/task"),
                    reason="needs Linux /proc and a known SYS_exit number (x86_64, aarch64)")
def test_stop_waits_until_the_last_thread_is_gone(tmpdir):
    props = str(tmpdir.join(process.PROPERTIES_FILE))
    with open(props, "w") as fh:
        fh.write("clusters = A, B\n")
    hold = 2.0
    child = subprocess.Popen([sys.executable, "-c", SLOW_DYING, names.MM2_MAIN_CLASS, props, str(hold), str(SYS_EXIT)],
                             stdout=subprocess.PIPE)
    try:
        port = int(child.stdout.readline().decode("ascii").strip())
        assert process.is_our_mm2(child.pid, props)
        assert not _port_free(port)
        t0 = time.time()
        out = process.stop_process(child.pid, props, timeout=15, poll=0.05)
        waited = time.time() - t0
        assert out.ok and out.state == "terminated", out
        # when STOP returns, nothing of the process is left: its port can be bound by the next START
        assert process.live_threads(child.pid) == []
        assert _port_free(port), "STOP returned after %.2fs while a thread of pid %d still held port %d" % (
            waited, child.pid, port)
        assert waited >= hold * 0.5  # it did wait for the slow thread (the main thread was gone at once)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


# ---------------------------------------------------------------- the same rule on fake /proc trees

PROPS = "/etc/kafka-mm2/conf/connect-mirror-maker.properties"
ARGV = ["/usr/jdk/bin/java", "-Xmx2g", names.MM2_MAIN_CLASS, PROPS]


def _write(path, data):
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(path, "wb") as fh:
        fh.write(data)


def _proc(root, pid, argv, state, threads=()):
    """/proc/<pid> with its main thread in `state` and (tid, state) threads under task/."""
    base = os.path.join(str(root), str(pid))
    _write(os.path.join(base, "cmdline"), b"\0".join(a.encode("utf-8") for a in argv) + (b"\0" if argv else b""))
    _write(os.path.join(base, "stat"), ("%d (java) %s 1 1 1" % (pid, state)).encode("ascii"))
    _write(os.path.join(base, "task", str(pid), "stat"), ("%d (java) %s 1 1 1" % (pid, state)).encode("ascii"))
    for tid, tstate in threads:
        _write(os.path.join(base, "task", str(tid), "stat"), ("%d (java) %s 1 1 1" % (tid, tstate)).encode("ascii"))


def test_a_zombie_main_thread_with_running_threads_is_alive(tmpdir):
    root = str(tmpdir)
    _proc(root, 100, [], "Z", threads=[(101, "S"), (102, "Z")])   # main thread gone, GC thread still exiting
    _proc(root, 200, [], "Z", threads=[(201, "Z")])                # every thread gone: a zombie to reap
    _proc(root, 300, ARGV, "S", threads=[(301, "S")])              # running
    assert process.is_alive(100, root) and process.live_threads(100, root) == [101]
    assert not process.is_alive(200, root)
    assert process.is_alive(300, root)


def test_status_of_an_exiting_mm2_says_so(tmpdir):
    root = str(tmpdir)
    pid_file = str(tmpdir.join("mm2.pid"))
    _write(pid_file, b"100\n")
    _proc(root, 100, [], "Z", threads=[(101, "S")])
    st = process.check_status(pid_file, PROPS, root)
    assert st.state == process.DEAD and not st.running
    assert st.detail == "process 100 from %s is exiting" % pid_file


class Clock(object):
    def __init__(self):
        self.now = 0.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_escalation_waits_for_the_threads_of_a_killed_process(tmpdir):
    """SIGKILL: the main thread is a zombie at once, a thread lingers for 3 polls, then goes."""
    root = str(tmpdir)
    _proc(root, 100, ARGV, "S", threads=[(101, "S")])
    clock, sent, polls = Clock(), [], []

    def kill(pid, sig):
        sent.append(sig)
        if sig == int(signal.SIGKILL):
            _proc(root, 100, [], "Z", threads=[(101, "D")])

    def sleep(seconds):
        clock.sleep(seconds)
        if sent and sent[-1] == int(signal.SIGKILL):
            polls.append(clock.now)
            if len(polls) == 3:
                _proc(root, 100, [], "Z", threads=[(101, "Z")])

    out = process.stop_process(100, PROPS, timeout=1, kill=kill, proc_root=root, clock=clock.time, sleep=sleep,
                               poll=0.5, kill_wait=10)
    assert sent == [int(signal.SIGTERM), int(signal.SIGKILL)]
    assert out.state == "killed", out
    assert len(polls) == 3  # it returned only once the last thread had exited

    _proc(root, 200, ARGV, "S", threads=[(201, "S")])
    sent[:] = []

    def kill_stuck(pid, sig):  # a thread that never finishes exiting (uninterruptible I/O)
        sent.append(sig)
        if sig == int(signal.SIGKILL):
            _proc(root, 200, [], "Z", threads=[(201, "D")])

    stuck = process.stop_process(200, PROPS, timeout=1, kill=kill_stuck, proc_root=root, clock=clock.time,
                                 sleep=clock.sleep, poll=0.5, kill_wait=3)
    assert not stuck.ok and stuck.state == "survived", stuck
    assert stuck.detail == ("MM2 (pid 200) is still alive 3s after SIGKILL (state Z: its main thread exited, "
                            "1 other thread(s) have not)")
