"""Checks of alerts.json and the alert scripts it names."""

import io
import os
import re

from . import json_schema
from .ambari_rules import ALERT_SOURCE_TYPES

TELEMETRY_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas",
                                "ambari-3.1-telemetry.schema.json")


class AlertChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_alert_registry(self):
        """alerts.json and the alert scripts are written from package/scripts/mm2_core/alerts/registry.py
        (build.py --generate-alerts): a hand edit or a registry change not written out is a problem."""
        registry = self.core.alerts
        wanted = [(self.core.service_dir + "/alerts.json", registry.alerts_json_text())]
        wanted += [(self.core.service_dir + "/" + rel, text) for rel, text in registry.metric_files()]
        wanted += [(self.core.service_dir + "/package/alerts/" + kind.stub, registry.stub_text(kind.kind))
                   for kind in registry.KINDS]
        for rel, text in wanted:
            path = self.layout.path(rel)
            current = None
            if os.path.isfile(path):
                with io.open(path, encoding="utf-8") as fh:
                    current = fh.read()
            if current == text:
                continue
            line = 1
            if current is not None:
                for number, (got, want) in enumerate(zip(current.split("\n"), text.split("\n")), 1):
                    if got != want:
                        line = number
                        break
                else:
                    line = min(current.count("\n"), text.count("\n")) + 1
            self.add(rel, line, "%s the alert registry (package/scripts/mm2_core/alerts/registry.py): run "
                     "python3 build.py --generate-alerts" % ("is missing, it is written from" if current is None
                                                             else "differs from"))

    def check_telemetry(self):
        """telemetry.json (Ambari 3.1): conforms to the schema derived from Ambari's own reader of the file
        (mpack_build/schemas/ambari-3.1-telemetry.schema.json), names the service's component, and each
        configuration reference it holds is a property of the service's configuration (the server reads the
        port and the HTTPS switch from them)."""
        rel = self.core.service_dir + "/telemetry.json"
        if not os.path.isfile(self.layout.path(rel)) or not self._parsable(rel):
            return
        src = self.json(rel)
        for pointer, message in json_schema.problems(src.obj, json_schema.load(TELEMETRY_SCHEMA)):
            key = pointer.rstrip("/").rsplit("/", 1)[-1]
            self.add(rel, src.line_of('"%s"' % key) if key else 1, "%s %s (Ambari 3.1's telemetry descriptor, "
                     "mpack_build/schemas/%s)" % (pointer, message, os.path.basename(TELEMETRY_SCHEMA)))
        components = src.obj.get("components") if isinstance(src.obj, dict) else None
        for name, component in sorted(components.items()) if isinstance(components, dict) else []:
            if name != self.names.COMPONENT:
                self.add(rel, src.line_of('"%s"' % name), "telemetry for %r: the service's component is %s"
                         % (name, self.names.COMPONENT))
            endpoint = component.get("endpoint") if isinstance(component, dict) else None
            for part, ref in sorted((endpoint or {}).items()) if isinstance(endpoint, dict) else []:
                if not isinstance(ref, dict):
                    continue
                config_type, prop = ref.get("configType"), ref.get("property")
                if not self.core.has_property(config_type, prop):
                    self.add(rel, src.line_of('"%s"' % prop), "endpoint.%s names %s/%s, which is not a property "
                             "of the service's configuration" % (part, config_type, prop))

    def check_alerts(self):
        rel = self.core.service_dir + "/alerts.json"
        if not os.path.isfile(self.layout.path(rel)) or not self._parsable(rel):
            return
        src = self.json(rel)
        names = self.names
        if not isinstance(src.obj, dict) or list(src.obj) != [names.SERVICE]:
            self.add(rel, 1, "alerts.json must have the single top-level key %s" % names.SERVICE)
            return
        groups = src.obj[names.SERVICE]
        all_defs = []
        for group, defs in groups.items():
            if group not in ("service", names.COMPONENT):
                self.add(rel, src.key_line(group), "alerts are grouped under 'service' or %s, not %r"
                         % (names.COMPONENT, group))
                continue
            all_defs.extend(defs if isinstance(defs, list) else [])
        alert_names = [d.get("name") for d in all_defs if isinstance(d, dict)]
        for definition in all_defs:
            self._alert(src, definition, alert_names)
        for match in re.finditer(r"\{\{([^{}]+)\}\}", src.text):
            problem = self.ref_problem(match.group(1).strip())
            if problem:
                self.add(rel, src.text.count("\n", 0, match.start()) + 1, "{{%s}}: %s" % (match.group(1), problem))

    def _alert(self, src, definition, alert_names):
        rel = src.rel
        if not isinstance(definition, dict) or not definition.get("name"):
            self.add(rel, 1, "every alert definition needs a name")
            return
        name = definition["name"]
        line = src.line_of('"%s"' % name)
        if alert_names.count(name) > 1:
            self.add(rel, line, "alert name %s is used twice" % name)
        for key in ("label", "interval", "scope", "source"):
            if key not in definition:
                self.add(rel, line, "alert %s needs %r" % (name, key))
        if "interval" in definition and not (isinstance(definition["interval"], int) and definition["interval"] > 0):
            self.add(rel, line, "alert %s: interval is a positive number of minutes" % name)
        if definition.get("scope", "ANY") not in ("ANY", "HOST", "SERVICE"):
            self.add(rel, line, "alert %s: scope must be ANY, HOST or SERVICE" % name)
        source = definition.get("source") or {}
        kind = source.get("type")
        if kind not in ALERT_SOURCE_TYPES:
            self.add(rel, line, "alert %s: source type %r is not one Ambari knows" % (name, kind))
        if kind == "SCRIPT":
            self._alert_script(src, name, source.get("path"))
        if kind == "AGGREGATE" and source.get("alert_name") not in alert_names:
            self.add(rel, line, "alert %s aggregates %r, which is not defined here" % (name, source.get("alert_name")))
        for param in source.get("parameters", []):
            if not param.get("name") or param.get("type", "STRING") not in ("STRING", "NUMERIC", "PERCENT") \
                    or param.get("threshold", "OK") not in ("OK", "WARNING", "CRITICAL") \
                    or param.get("visibility", "VISIBLE") not in ("VISIBLE", "HIDDEN", "READ_ONLY"):
                self.add(rel, src.line_of('"%s"' % param.get("name")), "alert %s: parameter %r needs a name, type "
                         "STRING|NUMERIC|PERCENT, threshold OK|WARNING|CRITICAL, visibility VISIBLE|HIDDEN|READ_ONLY"
                         % (name, param.get("name")))

    def _alert_script(self, src, name, path):
        """The agent tries the path as absolute, then under its stacks, common-services, host_scripts
        and extensions cache dirs (script_alert.py _load_source); ours must hit common-services."""
        line = src.line_of('"%s"' % path) if path else src.line_of('"%s"' % name)
        prefix = "%s/%s/package/" % (self.names.SERVICE, self.names.SERVICE_VERSION)
        if not path or os.path.isabs(path) or not path.endswith(".py"):
            self.add(src.rel, line, "alert %s: SCRIPT path must be a relative .py path like %salerts/x.py"
                     % (name, prefix))
        elif not path.startswith(prefix):
            self.add(src.rel, line, "alert %s: path %s must start with %s: the agent resolves it against its "
                     "common-services cache directory" % (name, path, prefix))
        elif not os.path.isfile(self.layout.path("common-services/" + path)):
            self.add(src.rel, line, "alert %s: %s does not exist (expected package/%s in the checkout)"
                     % (name, path, path[len(prefix):]))
