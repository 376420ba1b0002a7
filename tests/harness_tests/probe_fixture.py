"""Helpers shared by the harness tests: the probe service fixture and its command JSON."""
import os

import harness

PROBE_PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "probe", "package")
PROBE_SCRIPT = os.path.join(PROBE_PACKAGE, "scripts", "probe.py")


def probe_configurations(password="s3cret-pw", **overrides):
    env = {
        "probe_user": "probe",
        "probe_conf_dir": "/etc/probe/conf",
        "probe_log_dir": "/var/log/probe",
        "probe_pid_dir": "/var/run/probe",
        "probe_password": password,
        "probe_enabled": "true",
    }
    env.update(overrides)
    return {"probe-env": env}


def probe_command(command="START", root=None, **kwargs):
    """Command JSON for the probe; with root, paths move under root and users become the
    current user (execute mode)."""
    cmd = harness.command_json(role="PROBE_SERVER", command=command, service_name="PROBE",
                               configurations=probe_configurations(**kwargs), script="scripts/probe.py")
    if root:
        cmd = harness.localize(cmd, root, config_types=["probe-env"])
        cmd["configurations"]["probe-env"]["probe_user"] = harness.current_user()
    return cmd
