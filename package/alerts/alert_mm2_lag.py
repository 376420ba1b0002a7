"""Ambari SCRIPT alert: MirrorMaker 2 replication record lag per flow (worst partition).

records-lag of the replication consumers: flow-qualified from Kafka 3.5, joined by topic before.

Loaded by the Ambari agent with imp.load_source(<alert name>, <this file>) and called as
execute(configurations, parameters, host_name) on Python 2.7 or 3. All logic lives in
package/scripts/mm2_core/alerts (alert_runner); this file only names its KIND.
"""
import os

KIND = "lag"
# The shared entry code (mm2_alert_loader.py, beside this file) defines get_tokens() and execute().
_LOADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mm2_alert_loader.py")
with open(_LOADER) as _source:
    exec(compile(_source.read(), _LOADER, "exec"))
