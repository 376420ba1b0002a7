"""A Prometheus JMX exporter emulator fed with the MBeans an MM2 process registers.

Used by the alert tests and benchmarks/alerts_bench.py to produce what the real exporter would
serve for the mpack's rules (package/files/jmx_exporter_mm2.yaml), for a given Kafka version:

- MBeans are named as Kafka names them (JmxReporter: domain:type=<group>,<tags in order>;
  values outside [A-Za-z0-9_-%. \\t] quoted by ObjectName.quote) per version: 2.4-3.4 and 3.5+
  default without source=, 3.5+ with add.source.alias.to.metrics and 4.x with source=;
  replication consumers with generated ids before 3.5 and role-qualified ids from 3.5.
- The rules are applied the way io.prometheus.jmx.JmxCollector does: includeObjectNames, pattern
  wrapped as ^.*(?:p).*$ and matched against 'domain<k=v, ...><>attr: value', first match
  wins, $n substitution (unmatched groups empty), empty labels dropped, string values only
  with a rule 'value', toSafeName, lowercaseOutputName.
- Output in the text format as exporter 1.x writes it (families and labels sorted, Java
  Double.toString values) or as 0.x writes it (labels sorted too, first-seen family order, a
  comma after every label as simpleclient's TextFormat.write004 writes it). tests/alerts_real
  compares these layouts with what the real agents 1.0.1 and 0.20.0 serve.
"""
import math
import os
import re
from collections import OrderedDict

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RULES_FILE = os.path.join(REPO, "package", "files", "jmx_exporter_mm2.yaml")

_SAFE = re.compile(r"^[\w\-%\. \t]*$")


def jmx_sanitize(value):
    """Kafka's Sanitizer.jmxSanitize: quote anything outside the safe set (ObjectName.quote)."""
    if _SAFE.match(value):
        return value
    out = ['"']
    for c in value:
        if c in '"*?\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def java_double(value):
    """Java's Double.toString for the values the exporter writes."""
    if isinstance(value, bool):
        value = 1.0 if value else 0.0
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0.0"
    if 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if ("." in text or "e" in text) else text + ".0"
    exp = int(math.floor(math.log10(abs(value))))
    mant = value / (10 ** exp)
    text = repr(round(mant, 15))
    if "." not in text:
        text += ".0"
    return "%sE%d" % (text, exp)


def java_value_string(value):
    """String.valueOf(attribute value) as JmxCollector puts it into the match string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double(value)
    return str(value)


class MBean(object):
    def __init__(self, domain, props, attrs):
        self.domain = domain
        self.props = list(props)      # [(key, raw value)] in registration order
        self.attrs = list(attrs)      # [(attribute, value)]

    @property
    def object_name(self):
        return "%s:%s" % (self.domain, ",".join("%s=%s" % (k, jmx_sanitize(v)) for k, v in self.props))

    def prop_map(self):
        return dict((k, jmx_sanitize(v)) for k, v in self.props)


class _OrderedLoader(yaml.SafeLoader):
    """Mappings keep their order (SnakeYAML does; PyYAML on Python 2 would not)."""


def _ordered_mapping(loader, node):
    loader.flatten_mapping(node)
    return OrderedDict(loader.construct_pairs(node))


_OrderedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _ordered_mapping)


def load_rules(path=RULES_FILE):
    with open(path) as fh:
        return yaml.load(fh, Loader=_OrderedLoader)


def _object_name_pattern(text):
    domain, _, rest = text.partition(":")
    wildcard = False
    required = {}
    for part in rest.split(","):
        if part == "*":
            wildcard = True
        elif part:
            k, _, v = part.partition("=")
            required[k] = v
    return domain, required, wildcard


class Rule(object):
    def __init__(self, spec):
        self.pattern = re.compile("^.*(?:" + spec["pattern"] + ").*$") if "pattern" in spec else None
        self.name = spec.get("name")
        self.value = spec.get("value")
        self.type = spec.get("type", "UNTYPED")
        self.help = spec.get("help")
        self.labels = list((spec.get("labels") or {}).items())


def _subst(template, match):
    def repl(mo):
        g = int(mo.group(1))
        return match.group(g) or ""
    return re.sub(r"\$(\d+)", repl, str(template))


def to_safe_name(name):
    out = []
    prev_us = False
    if name and name[0].isdigit():
        out.append("_")
    for c in name:
        legal = c.isalnum() and ord(c) < 128 or c == ":"
        if not legal or c == "_":
            if not prev_us:
                out.append("_")
                prev_us = True
        else:
            out.append(c)
            prev_us = False
    return "".join(out)


class Exporter(object):
    """The rules file applied to MBeans, rendered as the exporter's /metrics text."""

    def __init__(self, rules_path=RULES_FILE):
        conf = load_rules(rules_path)
        self.lower_name = bool(conf.get("lowercaseOutputName"))
        self.lower_labels = bool(conf.get("lowercaseOutputLabelNames"))
        self.includes = [_object_name_pattern(p) for p in conf.get("includeObjectNames") or []]
        self.rules = [Rule(r) for r in conf.get("rules") or []]

    def included(self, bean):
        if not self.includes:
            return True
        props = bean.prop_map()
        for domain, required, wildcard in self.includes:
            if domain != bean.domain:
                continue
            if any(props.get(k) != v for k, v in required.items()):
                continue
            if not wildcard and set(props) != set(required):
                continue
            return True
        return False

    def samples(self, beans):
        """[(name, help, [(label, value)], value)] in scrape order."""
        out = []
        for bean in beans:
            if not self.included(bean):
                continue
            props = ", ".join("%s=%s" % (k, jmx_sanitize(v)) for k, v in bean.props)
            prefix = "%s<%s><>" % (bean.domain, props)
            for attr, value in bean.attrs:
                match_name = "%s%s: %s" % (prefix, attr, java_value_string(value))
                for rule in self.rules:
                    mo = rule.pattern.match(match_name) if rule.pattern else None
                    if rule.pattern is not None and mo is None:
                        continue
                    if rule.name is None:
                        break  # default export is not used by the mpack's rules
                    if rule.value is not None:
                        number = float(_subst(rule.value, mo))
                    elif isinstance(value, bool):
                        number = 1.0 if value else 0.0
                    elif isinstance(value, (int, float)):
                        number = float(value)
                    else:
                        break  # a string attribute without a rule value is dropped
                    name = to_safe_name(_subst(rule.name, mo))
                    if self.lower_name:
                        name = name.lower()
                    labels = []
                    for lname, ltemplate in rule.labels:
                        ln = to_safe_name(_subst(lname, mo))
                        if self.lower_labels:
                            ln = ln.lower()
                        lv = _subst(ltemplate, mo)
                        if ln and lv:
                            labels.append((ln, lv))
                    out.append((name, _subst(rule.help, mo) if rule.help else name, labels, number))
                    break
        return out

    def render(self, beans, style="1.x", extra=""):
        samples = self.samples(beans)
        families = OrderedDict()
        for name, help_text, labels, value in samples:
            fam = families.setdefault(name, {"help": help_text, "samples": OrderedDict()})
            labels = sorted(labels)   # both agents sort label names (checked against 0.20.0 and 1.0.1)
            key = tuple(labels)
            fam["samples"][key] = value   # same name + labels: the exporter keeps one
        names = sorted(families) if style == "1.x" else list(families)
        lines = []
        for name in names:
            fam = families[name]
            lines.append("# HELP %s %s" % (name, fam["help"].replace("\\", "\\\\").replace("\n", "\\n")))
            lines.append("# TYPE %s gauge" % name)
            items = fam["samples"].items()
            if style == "1.x":
                items = sorted(items)
            for labels, value in items:
                if labels:
                    body = ",".join('%s="%s"' % (k, v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n"))
                                    for k, v in labels)
                    if style != "1.x":
                        body += ","   # simpleclient's TextFormat ends every label with a comma
                    lines.append("%s{%s} %s" % (name, body, java_double(value)))
                else:
                    lines.append("%s %s" % (name, java_double(value)))
        text = "\n".join(lines) + "\n"
        return text + (extra or "")


EXPORTER_TAIL = """# HELP jmx_scrape_duration_seconds Time this JMX scrape took, in seconds.
# TYPE jmx_scrape_duration_seconds gauge
jmx_scrape_duration_seconds %(duration)s
# HELP jmx_scrape_error Non-zero if this scrape failed.
# TYPE jmx_scrape_error gauge
jmx_scrape_error %(error)s
# HELP jvm_threads_current Current thread count of a JVM
# TYPE jvm_threads_current gauge
jvm_threads_current 187.0
# HELP jvm_memory_used_bytes Used bytes of a given JVM memory area.
# TYPE jvm_memory_used_bytes gauge
jvm_memory_used_bytes{area="heap"} 5.36870912E8
jvm_memory_used_bytes{area="nonheap"} 9.1234567E7
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.700000000123E9
"""


def exporter_tail(duration=0.412, error=0.0):
    return EXPORTER_TAIL % {"duration": java_double(duration), "error": java_double(error)}
