"""Soak of the MM2 process rules: many start/stop/kill cycles against real (fake-MM2)
processes, driven through the same decisions START and STOP make (mm2_core.host.process.plan_start,
pids_to_stop, wait_started, stop_process), with the disturbances an agent meets: kill -9, a
/var/run wiped by a reboot, a pid file pointing at another program, a lost pid file, a
double start, an MM2 ignoring SIGTERM. Used by test_soak.py (bounded) and
benchmarks/lifecycle_soak.py (prints timings)."""
import os
import random
import signal
import subprocess
import time

from mm2_core.host import process

import fakekafka
from agent_support import alive, cmdline, reap
from mm2_fixture import Instance

POLL = 0.02


class SoakResult(object):
    def __init__(self):
        self.cycles = 0
        self.starts = 0
        self.launches = 0
        self.status_checks = 0
        self.wrong_status = []
        self.duplicates = []
        self.leaked = []
        self.stranger_killed = False
        self.escalations = 0
        self.actions = {}
        self.seconds = 0.0
        self.start_seconds = []
        self.stop_seconds = []

    def summary(self):
        return ("%d cycles, %d starts (%d launches), %d status checks: %d wrong status answers, %d duplicate "
                "processes, %d leaked processes, stranger killed: %s, %d SIGKILL escalations, %.1fs (%s)"
                % (self.cycles, self.starts, self.launches, self.status_checks, len(self.wrong_status),
                   len(self.duplicates), len(self.leaked), self.stranger_killed, self.escalations, self.seconds,
                   ", ".join("%s=%d" % kv for kv in sorted(self.actions.items()))))


class Soak(object):
    def __init__(self, site, seed=4242):
        self.site = site
        self.rng = random.Random(seed)
        self.mm2 = Instance(site)
        self.result = SoakResult()
        self.sleeper = subprocess.Popen(["sleep", "3600"])
        self.expected = False
        self.dead = set()   # fake MM2 pids seen gone: never looked at again (the kernel hands pids out again)

    # the START and STOP commands, minus Ambari
    def start(self):
        r = self.result
        r.starts += 1
        t0 = time.time()
        action, pid, current = process.plan_start(self.mm2.pid_file, self.mm2.props)
        if action == process.ADOPT:
            process.write_pid_file(self.mm2.pid_file, pid)
        elif action == process.LAUNCH:
            if current.state != process.NO_PID_FILE:
                process.remove_file(self.mm2.pid_file)
            offset = process.file_size(self.mm2.log_file)
            self.mm2.launch()
            r.launches += 1
            out = process.wait_started(self.mm2.pid_file, self.mm2.props, 20, log_path=self.mm2.log_file,
                                       log_offset=offset, poll=POLL)
            assert out.ok, out
        r.start_seconds.append(time.time() - t0)
        self.expected = True

    def stop(self, timeout=5):
        t0 = time.time()
        pids, _ = process.pids_to_stop(self.mm2.pid_file, self.mm2.props)
        for pid in pids:
            out = process.stop_process(pid, self.mm2.props, timeout, poll=POLL)
            assert out.ok, out
            if out.state == "killed":
                self.result.escalations += 1
            reap(pid)
        process.remove_file(self.mm2.pid_file)
        self.result.stop_seconds.append(time.time() - t0)
        self.expected = False

    # disturbances
    def kill9(self):
        pid = process.read_pid_file(self.mm2.pid_file)[0]
        if pid and process.is_our_mm2(pid, self.mm2.props):
            os.kill(pid, signal.SIGKILL)
            self._gone(pid)
        self.expected = False

    def reboot(self):
        self.kill9()
        for name in os.listdir(self.mm2.run):
            os.remove(os.path.join(self.mm2.run, name))
        os.rmdir(self.mm2.run)
        os.makedirs(self.mm2.run)   # START's Directory resource recreates it

    def reuse(self):
        """The pid file names another live program (after a reboot, pids are handed out again)."""
        if self.expected:
            self.stop()
        process.write_pid_file(self.mm2.pid_file, self.sleeper.pid)
        self.expected = False

    def lose_pid_file(self):
        process.remove_file(self.mm2.pid_file)
        self.expected = False   # status follows the pid file; the next START adopts the process

    def _gone(self, pid):
        end = time.time() + 10
        while alive(pid) and time.time() < end:
            time.sleep(POLL)
        reap(pid)

    # checks
    def check(self, where):
        r = self.result
        r.status_checks += 1
        st = process.check_status(self.mm2.pid_file, self.mm2.props)
        if st.running != self.expected:
            r.wrong_status.append((r.cycles, where, st))
        ours = self.live_mm2()
        if len(ours) > 1:
            r.duplicates.append((r.cycles, where, ours))
        if self.sleeper.poll() is not None:
            r.stranger_killed = True

    def live_mm2(self):
        """The fake MM2 processes of this soak still running. A pid once seen gone is never looked at again,
        and a live pid counts only while its command line is still this MM2's: pids are reused (pid_max is
        32768 on the CI host, and the counter wraps within minutes under load), and a reused one runs some
        other program. Counting every pid ever started as alive when /proc/<pid> exists reported that other
        program as a 'duplicate process' under load."""
        live = []
        for pid in fakekafka.started_pids(self.site.state):
            if pid in self.dead:
                continue
            if alive(pid) and self.mm2.props in cmdline(pid):
                live.append(pid)
            else:
                self.dead.add(pid)
        return sorted(live)

    def cycle(self):
        r = self.result
        stubborn = self.rng.random() < 0.05
        self.site.control(ignore_sigterm=stubborn)
        self.start()
        self.check("start")
        if self.rng.random() < 0.2:
            self.start()                      # double start: still one process
            self.check("double start")
        ending = self.rng.choice(["stop", "stop", "kill9", "reboot", "reuse", "lose"])
        if stubborn:
            ending = "stop"
        r.actions[ending] = r.actions.get(ending, 0) + 1
        if ending == "stop":
            self.stop(timeout=0.3 if stubborn else 5)
        elif ending == "kill9":
            self.kill9()
        elif ending == "reboot":
            self.reboot()
        elif ending == "reuse":
            self.reuse()
        elif ending == "lose":
            self.lose_pid_file()
            self.check("lost pid file")
            self.start()                      # adopts, never launches a second one
            self.check("adopt")
            self.stop()
        self.check(ending)
        if ending in ("stop", "reuse", "lose") and self.rng.random() < 0.3:
            self.stop()                       # stopping twice is fine
            self.check("second stop")
        r.cycles += 1

    def run(self, cycles):
        t0 = time.time()
        try:
            for _ in range(cycles):
                self.cycle()
            self.stop()
            self.check("end")
        finally:
            self.result.seconds = time.time() - t0
            time.sleep(0.1)
            self.result.leaked = self.live_mm2()
            if self.sleeper.poll() is not None:
                self.result.stranger_killed = True
            self.sleeper.kill()
            self.sleeper.wait()
        return self.result
