"""Run every alert definition of the mpack through the real agent's ScriptAlert (Python 2.7 and 3).

Started by agent.Driver.alerts() with the line's Python and the agent's PYTHONPATH. Reads one JSON request on
stdin: agent_dir (ambari_agent of the checkout), common_services (the unpacked mpack's), definitions
(alerts.json's list), thresholds ({alert: {parameter: value}}), state_dir, host, full (the command JSON: what ConfigurationBuilder hands the alerts).
Prints {alert name: [state, text]} as JSON on the last stdout line.
"""
import json
import sys


class _Config(object):
    def get(self, section, key, default=None):
        return default


class _Collector(object):
    def __init__(self):
        self.data = []

    def put(self, cluster, data):
        self.data.append(data)


class _Builder(object):
    def __init__(self, full):
        self.full = full

    def get_configuration(self, cluster_id, service, component, configurations_timestamp=None):
        return self.full


def main():
    request = json.loads(sys.stdin.read())
    sys.path.insert(0, request["agent_dir"])
    from alerts.script_alert import ScriptAlert
    results = {}
    for i, definition in enumerate(request["definitions"]):
        meta = dict(definition, definitionId=i, uuid="u%d" % i)
        source = json.loads(json.dumps(definition["source"]))
        edited = request["thresholds"].get(definition["name"], {})
        params = [dict(p, value=edited.get(p["name"], p.get("value"))) for p in source.get("parameters", [])
                  if p["name"] != "state.directory"]
        source["parameters"] = params + [{"name": "state.directory", "value": request["state_dir"]}]
        source["common_services_directory"] = request["common_services"]
        alert = ScriptAlert(meta, source, _Config())
        collector = _Collector()
        alert.set_helpers(collector, None, _Builder(request["full"]))
        alert.set_cluster(request["full"].get("clusterName", "c1"), 1, request["host"])
        alert.collect()
        data = collector.data[0]
        results[definition["name"]] = [data["state"], data["text"]]
    sys.stdout.write("\n" + json.dumps(results) + "\n")


if __name__ == "__main__":
    main()
