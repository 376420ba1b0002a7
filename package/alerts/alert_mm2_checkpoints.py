"""Ambari SCRIPT alert: MirrorMaker 2 checkpoint / consumer offset sync staleness per flow.

Only for flows with sync.group.offsets.enabled: age of the last checkpoint while records keep flowing.

Loaded by the Ambari agent with imp.load_source(<alert name>, <this file>) and called as
execute(configurations, parameters, host_name) on Python 2.7 or 3. All logic lives in
package/scripts/mm2_core/alerts (alert_runner); this file only names its KIND.
"""
import os

KIND = "checkpoint"
# The shared entry code (mm2_alert_loader.py, beside this file) defines get_tokens() and execute().
_LOADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mm2_alert_loader.py")
with open(_LOADER) as _source:
    exec(compile(_source.read(), _LOADER, "exec"))
