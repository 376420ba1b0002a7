"""Test harness for the agent scripts: build command JSON like the agent receives it, and run
scripts in record mode (in-process, resources recorded like Ambari's RMFTestCase) or execute
mode (a subprocess started like the agent starts it, resources really performed).

    from harness import command_json, localize, run_recorded, run_script, using_real_ambari

tests/ is put on sys.path by the root conftest.py.
"""
from harness.paths import (using_real_ambari, real_ambari_src, library_paths, PACKAGE_DIR,  # noqa: F401
                           SCRIPTS_DIR, TEMPLATES_DIR, DOUBLE_DIR)
from harness.command import (command_json, default_configurations, agent_command_name, localize,  # noqa: F401
                             write_command_file, current_user, current_group)
from harness.paths import ensure_sudo_shim_on_path  # noqa: F401
from harness.record import run_recorded, RecordedRun  # noqa: F401
from harness.execute import run_script, ExecutedRun, script_environment  # noqa: F401



def ambari_line():
    """'3' (trunk semantics) or '2.7' (2.7.8 semantics) of the Ambari library under test: real
    Ambari runs trunk on Python 3 and 2.7.8 on Python 2; the double follows the same rule unless
    MM2_DOUBLE_AMBARI_LINE says otherwise."""
    import sys
    if using_real_ambari():
        return "2.7" if sys.version_info[0] == 2 else "3"
    from resource_management import _double
    return _double.ambari_line()


if using_real_ambari():
    ensure_sudo_shim_on_path()
