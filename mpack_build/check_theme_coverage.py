"""Every property the service owns is on a theme tab, or says why not (Property.not_in_theme).

A property that is on no tab is easy to miss in the web UI (it only shows under Advanced <type>): a
new property added to the schema without a theme placement is how kafka-mm2-env/
mm2_metrics_ssl_certificate_alias went unnoticed in 1.0.0.0."""


class ThemeCoverageChecks(object):
    """A part of Checker (checker.py), which provides self.add/json, .core, .layout."""

    def check_theme_coverage(self):
        prefix = self.core.service_dir + "/themes/"
        placed = set()
        themes = [rel for rel in sorted(self.layout.origin) if rel.startswith(prefix) and rel.endswith(".json")]
        for rel in themes:
            if not self._parsable(rel):
                return  # reported already; coverage cannot be judged
            src = self.json(rel)
            conf = src.obj.get("configuration") if src is not None and isinstance(src.obj, dict) else None
            if not isinstance(conf, dict):
                return
            placement = conf.get("placement") or {}
            widgets = set(w.get("config") for w in conf.get("widgets") or [] if isinstance(w, dict))
            placed |= set(p.get("config") for p in placement.get("configs") or []
                          if isinstance(p, dict) and p.get("config") in widgets)
        if not themes:
            return
        for ctype in self.core.schema.CONFIG_TYPES:
            for prop in ctype.properties:
                ref = "%s/%s" % (ctype.name, prop.name)
                reason = getattr(prop, "not_in_theme", None)
                if ref not in placed and not reason:
                    self.problems.append(self.core.problem(
                        ctype.name, prop.name, "on no tab of %s: place it there (placement.configs and widgets) or "
                        "say why not with Property(..., not_in_theme=\"...\")" % ", ".join(themes)))
                elif ref in placed and reason:
                    self.problems.append(self.core.problem(
                        ctype.name, prop.name, "placed in the theme but not_in_theme says %r: drop one" % reason))
