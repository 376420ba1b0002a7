# -*- coding: utf-8 -*-
"""Every program the mpack starts is bounded by the mpack itself (process.run_bounded), on both
Ambari lines: resource_management's timeout kill is broken on Ambari 3 (killtree.sh gets
"Signals.SIGKILL" on Python 3), so a Kafka tool that hangs must still be stopped, with its
whole process tree (the tool's JVM runs below a shell script), and its output must come back
as text whatever bytes it printed."""
import os
import sys
import time

from mm2_core.host import process

from agent_support import alive, wait_dead

HANG = ("echo started; echo $$ > {pids}; (sleep 300 & echo $! >> {pids}; wait) & echo $! >> {pids}; "
        "trap '' TERM; sleep 300")


def test_a_hanging_tool_and_its_children_are_stopped_in_time(tmpdir):
    pids_file = str(tmpdir.join("pids"))
    began = time.time()
    result = process.run_bounded(["bash", "-c", HANG.format(pids=pids_file)], timeout=2, grace=1)
    took = time.time() - began
    assert result.timed_out and result.code is not None
    assert took < 2 + 1 + 5, "bounded by the timeout plus the SIGTERM grace, not by the tool"
    assert result.out.startswith(u"started")
    with open(pids_file) as fh:
        pids = [int(p) for p in fh.read().split()]
    assert len(pids) == 3
    for pid in pids:   # the shell ignoring SIGTERM got SIGKILL; the children went with it
        assert wait_dead(pid, 5), "pid %d of the tool's tree survived" % pid


def test_a_tool_that_ends_in_time_keeps_its_exit_code_and_output():
    result = process.run_bounded([sys.executable, "-c", "import sys; sys.stderr.write('oops'); sys.exit(3)"], 30)
    assert (result.code, result.timed_out, result.err) == (3, False, u"oops")


def test_output_in_any_encoding_comes_back_as_text(tmpdir):
    script = str(tmpdir.join("noisy.py"))
    # UTF-8 split across pipe reads, Latin-1, and a stdin round trip of non-ASCII text
    with open(script, "w") as fh:
        fh.write("import sys\n"
                 "out = getattr(sys.stdout, 'buffer', sys.stdout)\n"
                 "data = getattr(sys.stdin, 'buffer', sys.stdin).read()\n"
                 "out.write(u'\\u6771\\u4eac'.encode('utf-8') * 40000)\n"
                 "out.write(b'\\n' + u'Schl\\u00fcssel'.encode('latin-1') + b'\\n' + data)\n")
    result = process.run_bounded([sys.executable, script], 30, stdin_text=u"zahlungsströme-ü")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == u"東京" * 40000
    assert lines[1] == u"Schl\ufffdssel"
    assert lines[2] == u"zahlungsströme-ü"


def test_process_tree_finds_children_in_other_sessions(tmpdir):
    """A tool run through su sits in a new session: the tree is found through parent pids."""
    pids_file = str(tmpdir.join("pids"))
    import subprocess
    shell = subprocess.Popen(["bash", "-c", "setsid sleep 300 & echo $! > %s; wait" % pids_file])
    try:
        end = time.time() + 5
        while not (os.path.exists(pids_file) and open(pids_file).read().strip()) and time.time() < end:
            time.sleep(0.05)
        child = int(open(pids_file).read())
        assert child in process.process_tree(shell.pid)
        process.kill_tree(shell.pid, grace=1)
        assert wait_dead(child, 5) and shell.wait() is not None
    finally:
        if shell.poll() is None:
            shell.kill()
            shell.wait()
    assert not alive(child)
