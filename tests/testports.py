"""The one place tests get a TCP port for a process they start (a broker, MM2's REST, an Ambari server).

Bind-to-0-and-release is not enough on a host where CI runs five lanes side by side: the kernel hands the
same ephemeral range to every outgoing connection (each Kafka client, each curl), so a port released here
can be some client's local port by the time the broker binds it (the CI of 2026-11-27 lost a 4.0.2 broker
to "BindException: Address already in use" on its controller port that way). So a port comes from

- below the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range), which no outgoing
  connection and no bind-to-0 listener is ever given, and
- a reservation every test process on the host honours: a POSIX record lock on byte <port> of one lock
  file, held by the process that picked it for as long as it lives (the kernel drops it when the process
  ends, however it ends), and
- a bind check on 127.0.0.1 that it is free right now.

Runs on Python 2.7 and 3 (the double's agent and alert suites use it on both).
"""
import errno
import fcntl
import os
import random
import socket
import tempfile

LOCK_FILE = os.path.join(tempfile.gettempdir(), "mm2-mpack-test-ports.lock")
FLOOR = 15000                 # lowest port handed out (above the registered services this host could run)
RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range"

_held = set()                 # ports this process reserved (a process never conflicts with its own locks)
_lock_fd = None


def ephemeral_range():
    """(low, high) of the kernel's ephemeral ports; None when it cannot be read."""
    try:
        with open(RANGE_FILE) as fh:
            low, high = [int(x) for x in fh.read().split()[:2]]
        return low, high
    except (IOError, OSError, ValueError):
        return None


def candidate_range():
    """[first, last] ports free_port picks from: FLOOR up to just below the ephemeral range (or None when
    the ephemeral range cannot be read, or leaves fewer than 1000 ports below it)."""
    span = ephemeral_range()
    if span is None or span[0] - 1 - FLOOR < 1000:
        return None
    return FLOOR, span[0] - 1


def _lock_file():
    global _lock_fd
    if _lock_fd is None:
        _lock_fd = os.open(LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)   # never closed: closing drops every lock
    return _lock_fd


def _reserve(port):
    """True when this process now holds port's lock (False: another process holds it)."""
    try:
        fcntl.lockf(_lock_file(), fcntl.LOCK_EX | fcntl.LOCK_NB, 1, port, os.SEEK_SET)
        return True
    except (IOError, OSError) as exc:
        if exc.errno in (errno.EACCES, errno.EAGAIN):
            return False
        raise


def _bindable(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        return True
    except socket.error:
        return False
    finally:
        sock.close()


def _bind_zero():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
    finally:
        sock.close()


def free_port():
    """A TCP port on 127.0.0.1 that is free now, outside the ephemeral range, and that no other test
    process on this host will be given while this one lives. Falls back to bind-to-0 only where the
    ephemeral range cannot be read (not Linux)."""
    span = candidate_range()
    if span is None:
        return _bind_zero()
    first, last = span
    size = last - first + 1
    start = random.randrange(size)
    for i in range(size):
        port = first + (start + i) % size
        if port in _held or not _reserve(port):
            continue
        _held.add(port)                  # kept even when not bindable: something else is on it
        if _bindable(port):
            return port
    raise RuntimeError("no free test port in %d-%d (every one reserved in %s or in use)" % (first, last, LOCK_FILE))
