"""Ambari SCRIPT alert mm2_heartbeat_gap: MirrorMaker 2 Heartbeat Gap.

Generated from package/scripts/mm2_core/alerts/registry.py by `python3 build.py --generate-alerts`:
do not edit (the build fails when this file and the registry differ).

Loaded by the Ambari agent with imp.load_source(<alert name>, <this file>) and called as
execute(configurations, parameters, host_name) on Python 2.7 or 3. All logic lives in
package/scripts/mm2_core/alerts (the registry and alert_runner); this file only names its KIND.
"""
import os

KIND = "heartbeat"
# The shared entry code (mm2_alert_loader.py, beside this file) defines get_tokens() and execute().
_LOADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mm2_alert_loader.py")
with open(_LOADER) as _source:
    exec(compile(_source.read(), _LOADER, "exec"))
