"""Facts about the double itself (not part of real Ambari; never import this from agent code).

Where Ambari 2.7.8 and trunk behave differently the double follows one line:
Python 2 -> 2.7.8 (the 2.7 agent runs scripts with python2), Python 3 -> trunk.
MM2_DOUBLE_AMBARI_LINE=2.7 or =3 overrides the choice.

Differences reproduced (2.7.8 vs trunk):
- File without owner/group: 2.7.8 leaves ownership alone; trunk chowns to root:root.
- File content: 2.7.8 writes the target in place and then chmods it (a window with umask
  permissions); trunk writes a temporary file, applies owner/group/mode, then moves it in place.
- sudo.read_file: returns bytes on Python 3 (trunk), str on Python 2.
- Script.post_start: trunk decodes the pid file bytes; 2.7.8 joins str.
- format_stack_version (so Script.get_stack_version): 2.7.8 pads to 4 segments ('3.1.0.0'),
  trunk to 3 ('3.1.0').
- Stack version reporting without cluster-env/stack_packages: 2.7.8 raises, trunk logs.
- shell.call: 2.7.8 also accepts shell=; trunk does not. The double rejects it on both lines
  (agent code must run on both).
- Trunk-only Script API (get_execution_command, get_module_configs, ...) is not provided.
"""
import os
import sys

IS_DOUBLE = True


def ambari_line():
    line = os.environ.get("MM2_DOUBLE_AMBARI_LINE")
    if line in ("2.7", "3"):
        return line
    return "2.7" if sys.version_info[0] == 2 else "3"


def is_trunk():
    return ambari_line() == "3"


# Bound on Script.post_stop's wait loop. Real Ambari loops forever; a test must not. Only used
# when MM2_DOUBLE_POST_STOP_MAX_SECONDS is set (the harness sets it), else unbounded like Ambari.
def post_stop_bound():
    value = os.environ.get("MM2_DOUBLE_POST_STOP_MAX_SECONDS")
    return float(value) if value else None
