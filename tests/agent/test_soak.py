"""Bounded soak: 200 start/stop/kill cycles with reboots, pid reuse, lost pid files, double
starts and SIGTERM-deaf processes; afterwards no process is left and no status answer was wrong.
Prints its numbers (run with -s to see them); timings are measured by benchmarks/lifecycle_soak.py."""
import os

from soak import Soak

CYCLES = int(os.environ.get("MM2_SOAK_CYCLES", "200"))


def test_soak_start_stop_kill_cycles(site, guard):
    result = Soak(site).run(CYCLES)
    print("\nsoak: " + result.summary())
    assert result.cycles == CYCLES
    assert result.wrong_status == []
    assert result.duplicates == []
    assert result.leaked == []
    assert not result.stranger_killed
    assert result.launches < result.starts          # double starts and adoptions launched nothing
    assert result.escalations > 0                   # the SIGTERM-deaf process was met and killed


def test_a_reused_pid_is_not_counted_as_a_second_mm2(site, guard):
    """The kernel hands a dead MM2's pid to another program (pid_max 32768 wraps within minutes on a busy
    host): the soak's duplicate check must not count that program (it did: 'duplicate process' flakes
    under load). Here the registration of a fake MM2 names the soak's unrelated sleeper."""
    soak = Soak(site)
    try:
        soak.start()
        ours = soak.live_mm2()
        assert len(ours) == 1
        with open(os.path.join(site.state, "mm2", "%d.json" % soak.sleeper.pid), "w") as fh:
            fh.write("{}")
        assert soak.live_mm2() == ours
        soak.stop()
        assert soak.live_mm2() == []
    finally:
        soak.sleeper.kill()
        soak.sleeper.wait()
