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
