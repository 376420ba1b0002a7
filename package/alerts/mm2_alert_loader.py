"""Entry code shared by the MirrorMaker 2 SCRIPT alerts (alert_mm2_*.py).

Each alert file sets KIND and executes this file into its own namespace: the Ambari agent loads
every alert file on its own, by path (imp.load_source, again on each run), so there is no package
to import this from. It finds mm2_core in this mpack's package/scripts, reloads it when the agent
cache was refreshed with a new mpack, and turns any failure into UNKNOWN (never raises).
"""
import os
import sys

_SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts")


def _runner():
    """mm2_core.alerts.alert_runner from this mpack's package/scripts (reloaded when the mpack changed)."""
    marker = os.path.join(_SCRIPTS, "mm2_core", "alerts", "alert_runner.py")
    loaded = sys.modules.get("mm2_core")
    if loaded is not None:
        where = os.path.dirname(os.path.abspath(getattr(loaded, "__file__", "") or ""))
        stamp = getattr(loaded, "_mm2_alert_stamp", None)
        try:
            current = os.path.getmtime(marker)
        except OSError:
            current = None
        if where != os.path.join(_SCRIPTS, "mm2_core") or (stamp is not None and stamp != current):
            for name in [n for n in sys.modules if n == "mm2_core" or n.startswith("mm2_core.")]:
                del sys.modules[name]
    added = _SCRIPTS not in sys.path
    if added:
        sys.path.insert(0, _SCRIPTS)
    try:
        import mm2_core
        from mm2_core.alerts import alert_runner
    finally:
        if added:
            sys.path.remove(_SCRIPTS)
    if getattr(mm2_core, "_mm2_alert_stamp", None) is None:
        try:
            mm2_core._mm2_alert_stamp = os.path.getmtime(marker)
        except OSError:
            pass
    return alert_runner


def get_tokens():
    try:
        return _runner().tokens()
    except Exception:
        return ()


def execute(configurations={}, parameters={}, host_name=None):
    try:
        return _runner().execute(KIND, configurations, parameters, host_name)
    except Exception as e:
        return ("UNKNOWN", ["The MirrorMaker 2 %s alert could not load its code from %s: %s: %s"
                            % (KIND, _SCRIPTS, e.__class__.__name__, e)])
