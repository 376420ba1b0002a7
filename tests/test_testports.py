"""tests/testports.py: the ports tests hand to brokers, MM2 and Ambari servers cannot be taken in between by
another test process on the host, nor by the kernel for an outgoing connection (Python 2.7 and 3)."""
import os
import signal
import subprocess
import sys

import pytest

import testports

HERE = os.path.dirname(os.path.abspath(__file__))

# A child test process: reserves `count` ports with the given lock and range files, prints them, then waits
# (holding them) until its stdin closes or it is killed.
CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
import testports
testports.LOCK_FILE, testports.RANGE_FILE, testports.FLOOR = sys.argv[2], sys.argv[3], int(sys.argv[4])
ports = []
for _ in range(int(sys.argv[5])):
    ports.append(testports.free_port())
sys.stdout.write(" ".join(str(p) for p in ports) + "\n")
sys.stdout.flush()
sys.stdin.read()
"""


@pytest.fixture
def window(tmp_path, monkeypatch):
    """This process uses its own lock file and a 1001-port window [floor, floor + 1000] (the ephemeral range
    starts just above it), so other test processes running now cannot disturb the counts."""
    floor = 15000 + 1001 * (os.getpid() % 10)
    range_file = tmp_path / "ip_local_port_range"
    range_file.write_text(u"%d\t60999\n" % (floor + 1001))
    lock = str(tmp_path / "ports.lock")
    monkeypatch.setattr(testports, "LOCK_FILE", lock)
    monkeypatch.setattr(testports, "RANGE_FILE", str(range_file))
    monkeypatch.setattr(testports, "FLOOR", floor)
    monkeypatch.setattr(testports, "_held", set())
    monkeypatch.setattr(testports, "_lock_fd", None)
    yield {"floor": floor, "last": floor + 1000, "lock": lock, "range_file": str(range_file)}
    if testports._lock_fd is not None:
        os.close(testports._lock_fd)


def child(window, count):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, HERE, window["lock"], window["range_file"],
                             str(window["floor"]), str(count)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    line = proc.stdout.readline().decode()
    assert line.strip(), "the child reserved no ports (exit %s)" % proc.poll()
    return proc, set(int(p) for p in line.split())


def draw_all():
    """Every port this process can still be given in the window (until free_port says there is none)."""
    ports = []
    with pytest.raises(RuntimeError) as exc:
        while True:
            ports.append(testports.free_port())
    assert testports.LOCK_FILE in str(exc.value)     # the error says where the reservations are
    return ports


def test_ports_come_from_below_the_kernels_ephemeral_range():
    span = testports.ephemeral_range()
    if span is None:
        pytest.skip("no %s on this host (free_port falls back to bind-to-0)" % testports.RANGE_FILE)
    ports = [testports.free_port() for _ in range(20)]
    assert len(set(ports)) == 20
    assert all(testports.FLOOR <= p < span[0] for p in ports), (span, ports)


def test_a_port_is_free_when_handed_out(window):
    import socket
    port = testports.free_port()
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", port))      # would raise if something listened there
    finally:
        sock.close()


def test_another_live_test_process_never_gets_our_ports_and_gets_them_when_we_are_gone(window):
    proc, theirs = child(window, 400)
    try:
        assert len(theirs) == 400
        assert all(window["floor"] <= p <= window["last"] for p in theirs)
        ours = draw_all()
        assert not set(ours) & theirs                      # while the child lives, none of its ports
        assert len(set(ours)) == len(ours)
        # every other port of the window is ours, save the few something else on the host listens on now
        assert len(ours) >= 1001 - 400 - 20, len(ours)
    finally:
        os.kill(proc.pid, signal.SIGKILL)                  # killed, not closed: the kernel drops its locks
        proc.wait()
    testports._held.clear()                                # this process may now be given any port again
    again = draw_all()
    assert len(set(again) & theirs) >= 400 - 20


def test_without_the_ephemeral_range_it_falls_back_to_the_kernels_choice(window, tmp_path, monkeypatch):
    monkeypatch.setattr(testports, "RANGE_FILE", str(tmp_path / "absent"))
    port = testports.free_port()
    assert 0 < port < 65536
    assert testports.candidate_range() is None
