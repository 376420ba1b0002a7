"""Checks of themes/*.json and quick links."""

import re

from .ambari_rules import DEAD_WIDGETS, TIME_UNITS, WIDGET_VALUE_TYPES
from .configuration_xml import int_or_none
from .problems import text_type


class ThemeChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_themes(self):
        prefix = self.core.service_dir + "/themes/"
        for rel in sorted(self.layout.origin):
            if rel.startswith(prefix) and rel.endswith(".json") and self._parsable(rel):
                src = self.json(rel)
                if src is not None:
                    ThemeChecker(self, rel, src).run()

    # -- quick links ---------------------------------------------------------------------------
    def check_quicklinks(self):
        prefix = self.core.service_dir + "/quicklinks/"
        for rel in sorted(self.layout.origin):
            if not (rel.startswith(prefix) and rel.endswith(".json") and self._parsable(rel)):
                continue
            src = self.json(rel)
            conf = src.obj.get("configuration") if isinstance(src.obj, dict) else None
            if not isinstance(conf, dict) or not src.obj.get("name"):
                self.add(rel, 1, "quick links need 'name' and 'configuration'")
                continue
            protocol = conf.get("protocol") or {}
            for check in protocol.get("checks") or []:
                problem = self.ref_problem("%s/%s" % (check.get("site"), check.get("property")))
                if problem:
                    self.add(rel, src.line_of('"%s"' % check.get("property")), "protocol check: " + problem)
            links = conf.get("links")
            if not isinstance(links, list) or not links:
                self.add(rel, src.key_line("links"), "configuration.links must be a non-empty list")
                continue
            for link in links:
                line = src.line_of('"%s"' % link.get("name")) if isinstance(link, dict) else 1
                if not isinstance(link, dict) or not link.get("name") or not link.get("label") or "%@" not in str(link.get("url", "")):
                    self.add(rel, line, "each link needs name, label and a url with %@ placeholders")
                    continue
                if link.get("component_name") != self.names.COMPONENT:
                    self.add(rel, line, "component_name must be %s" % self.names.COMPONENT)
                port = link.get("port") or {}
                for key in ("http", "https"):
                    if key + "_property" not in port:
                        continue
                    ref = "%s/%s" % (port.get("site"), port[key + "_property"])
                    problem = self.ref_problem(ref)
                    if problem:
                        self.add(rel, src.line_of('"%s"' % port[key + "_property"]), "port.%s_property: %s"
                                 % (key, problem))
                        continue
                    prop = self.core.prop(*ref.split("/", 1))
                    default = port.get(key + "_default_port")
                    if prop is not None and default is not None and str(default) != str(prop.default):
                        self.add(rel, src.line_of('"%s"' % default), "port.%s_default_port %s differs from the "
                                 "default of %s (%s)" % (key, default, ref, prop.default))


class ThemeChecker(object):
    """A theme lays out the Customize Services step; ambari-web resolves everything by name."""

    def __init__(self, checker, rel, src):
        self.ck = checker
        self.rel = rel
        self.src = src
        self.subsections = set()

    def add(self, line, message):
        self.ck.add(self.rel, line, message)

    def run(self):
        theme = self.src.obj
        if not isinstance(theme, dict) or not theme.get("name") or not isinstance(theme.get("configuration"), dict):
            self.add(1, "a theme needs 'name' and 'configuration'")
            return
        conf = theme["configuration"]
        layouts = conf.get("layouts") or []
        layout_names = [lay.get("name") for lay in layouts if isinstance(lay, dict)]
        for layout in layouts:
            for tab in layout.get("tabs") or []:
                self.tab(tab)
        placement = conf.get("placement") or {}
        if placement.get("configuration-layout") not in layout_names:
            self.add(self.src.key_line("configuration-layout"), "placement.configuration-layout must name one of "
                     "the layouts (%s)" % ", ".join(str(n) for n in layout_names))
        placed = self.placements(placement.get("configs") or [])
        widgets = self.widgets(conf.get("widgets") or [])
        for config in sorted(set(placed) - set(widgets)):
            self.add(self.src.line_of('"%s"' % config), "%s is placed but has no widget, so ambari-web does not "
                     "show it" % config)
        for config in sorted(set(widgets) - set(placed)):
            self.add(self.src.line_of('"%s"' % config, after='"widgets"'), "%s has a widget but no placement" % config)

    def tab(self, tab):
        name = tab.get("name")
        line = self.src.line_of('"%s"' % name)
        if not name or not tab.get("display-name"):
            self.add(line, "every tab needs name and display-name")
        if name == "advanced":
            # themes_mapper ids tabs <SERVICE>_<name>; <SERVICE>_advanced is the generated Advanced tab
            self.add(line, "a tab named 'advanced' collides with the Advanced tab ambari-web generates")
        layout = tab.get("layout") or {}
        rows, cols = int_or_none(layout.get("tab-rows")), int_or_none(layout.get("tab-columns"))
        if rows is None or cols is None:
            self.add(line, "tab %s: layout needs numeric tab-rows and tab-columns" % name)
            return
        for section in layout.get("sections") or []:
            self.grid_item(section, "section", rows, cols)
            srows, scols = int_or_none(section.get("section-rows")), int_or_none(section.get("section-columns"))
            if srows is None or scols is None:
                self.add(self.src.line_of('"%s"' % section.get("name")), "section %s needs numeric section-rows and "
                         "section-columns" % section.get("name"))
                continue
            for sub in section.get("subsections") or []:
                self.grid_item(sub, "subsection", srows, scols)
                if sub.get("name") in self.subsections:
                    self.add(self.src.line_of('"%s"' % sub.get("name"), nth=2), "subsection name %s is used twice "
                             "(ambari-web ids subsections by name)" % sub.get("name"))
                self.subsections.add(sub.get("name"))
                for cond in sub.get("depends-on") or []:
                    self.condition(cond, self.src.line_of('"%s"' % sub.get("name")))

    def grid_item(self, item, kind, rows, cols):
        name = item.get("name")
        line = self.src.line_of('"%s"' % name)
        if not name:
            self.add(line, "every %s needs a name" % kind)
            return
        numbers = {}
        for key in ("row-index", "column-index", "row-span", "column-span"):
            numbers[key] = int_or_none(item.get(key))
            if numbers[key] is None:
                self.add(line, "%s %s needs a numeric %s" % (kind, name, key))
                return
        if numbers["row-index"] + numbers["row-span"] > rows or numbers["column-index"] + numbers["column-span"] > cols:
            self.add(line, "%s %s does not fit its %dx%d grid" % (kind, name, rows, cols))

    def placements(self, configs):
        placed = []
        for entry in configs:
            config = entry.get("config")
            line = self.src.line_of('"%s"' % config)
            problem = self.own_ref(config)
            if problem:
                self.add(line, "placement %s: %s" % (config, problem))
            if entry.get("subsection-name") not in self.subsections:
                self.add(line, "placement %s: subsection %r is not defined in the layout"
                         % (config, entry.get("subsection-name")))
            if config in placed:
                self.add(line, "%s is placed twice" % config)
            placed.append(config)
            for cond in entry.get("depends-on") or []:
                self.condition(cond, line)
        return placed

    def own_ref(self, config):
        problem = self.ck.ref_problem(config)
        if problem is None and config.split("/", 1)[0] not in self.ck.core.own_types:
            return "a theme can only lay out the service's own properties"
        return problem

    def widgets(self, widgets):
        found = []
        for entry in widgets:
            config = entry.get("config")
            line = self.src.line_of('"%s"' % config, after='"widgets"')
            problem = self.own_ref(config)
            found.append(config)
            if problem:
                self.add(line, "widget %s: %s" % (config, problem))
                continue
            widget = entry.get("widget") or {}
            kind = widget.get("type")
            prop = self.ck.core.prop(*config.split("/", 1))
            if kind not in WIDGET_VALUE_TYPES:
                self.add(line, "%s: widget type %r is not one ambari-web has (%s)"
                         % (config, kind, ", ".join(sorted(WIDGET_VALUE_TYPES))))
                continue
            suits = WIDGET_VALUE_TYPES[kind]
            if kind in DEAD_WIDGETS:
                self.add(line, "%s: a %s widget does not work for an operator: %s. Use a toggle for two entries, a "
                               "text-field (whose description names every entry of a value-list) otherwise"
                         % (config, kind, DEAD_WIDGETS[kind]))
            elif suits is not None and prop.value_type not in suits:
                self.add(line, "%s: a %s widget does not suit value type %s" % (config, kind, prop.value_type))
            elif kind == "toggle" and len(prop.ambari_entries or ()) != 2:
                self.add(line, "%s: a toggle shows exactly two states, not the %d entries of this value-list"
                         % (config, len(prop.ambari_entries or ())))
            elif kind == "text-field" and prop.value_type == "value-list":
                unnamed = [v for v, _ in prop.entries if v not in prop.description]
                if unnamed:
                    self.add(line, "%s: a value-list in a text-field needs its description to name every entry "
                                   "(the operator types one); it lacks %s" % (config, ", ".join(unnamed)))
            if prop.value_type == "password" and kind != "password":
                self.add(line, "%s: passwords need the password widget (any other shows the secret)" % config)
            units = [u.get("unit-name", "") for u in widget.get("units") or []]
            if kind == "slider" and (prop.minimum is None or prop.maximum is None):
                self.add(line, "%s: a slider needs minimum and maximum in the schema" % config)
            if kind == "time-interval-spinner":
                if prop.unit not in TIME_UNITS:
                    self.add(line, "%s: a time-interval-spinner needs a time unit (%s) in the schema, not %r"
                             % (config, ", ".join(TIME_UNITS), prop.unit))
                for unit in units:
                    for part in unit.split(","):
                        if part not in TIME_UNITS:
                            self.add(line, "%s: spinner unit %r is not one of %s" % (config, part, ", ".join(TIME_UNITS)))
        return found

    def condition(self, cond, line):
        """depends-on: {"configs": [...], "if": "${t/p} === v && ...", "then": {...}, "else": {...}}"""
        configs = cond.get("configs") or []
        for config in configs:
            problem = self.ck.ref_problem(config)
            if problem:
                self.add(line, "depends-on %s: %s" % (config, problem))
        expression = cond.get("if")
        if not isinstance(expression, (str, text_type)) or "${" not in expression:
            self.add(line, "depends-on needs an 'if' like ${type/property} === value")
            return
        for part in re.split(r"&&|\|\|", expression):
            # theme.js calculateConfigCondition: split on ===, compare the config value as a string
            left, _, right = part.partition("===")
            token = re.match(r"^\s*\$\{([^}]+)\}\s*$", left)
            if not token:
                self.add(line, "condition %r must be ${type/property} or ${type/property} === value" % part.strip())
                continue
            ref = token.group(1)
            problem = self.ck.ref_problem(ref)
            if problem:
                self.add(line, "condition ${%s}: %s" % (ref, problem))
                continue
            if ref not in configs:
                self.add(line, "condition uses ${%s} but 'configs' does not list it, so ambari-web does not "
                         "re-evaluate it when that property changes" % ref)
            prop = self.ck.core.prop(*ref.split("/", 1))
            if prop is None:
                continue
            value = right.strip() if right else "true"
            if prop.value_type == "value-list" and value not in [v for v, _ in prop.entries]:
                self.add(line, "condition ${%s} === %s can never hold: entries are %s"
                         % (ref, value, [v for v, _ in prop.entries]))
            if prop.value_type == "boolean" and value not in ("true", "false"):
                self.add(line, "condition ${%s} compares a boolean with %r" % (ref, value))
        for branch in ("then", "else"):
            attrs = (cond.get(branch) or {}).get("property_value_attributes")
            if not isinstance(attrs, dict) or not isinstance(attrs.get("visible"), bool):
                self.add(line, "depends-on needs %s.property_value_attributes.visible (true/false)" % branch)
