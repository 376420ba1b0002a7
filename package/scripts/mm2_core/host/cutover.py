"""Moved to mm2_core.dr.cutover (issue 34: the disaster-recovery room). This name stays only for src/mm2_ambari
(dr.py, dr_cmds.py), which another branch of issue 34 moves into its own room: once it imports
mm2_core.dr.cutover, delete this file (tests/core/test_agent_seams.py lists it as the one alias allowed)."""
from mm2_core.dr.cutover import *  # noqa: F401,F403
