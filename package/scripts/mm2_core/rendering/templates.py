"""The env (mm2-env.sh) and logging templates: the variables they use, computed as the agent's
params.py does. Pure, stdlib only; the agent renders them with Ambari's InlineTemplate, the
off-cluster render command with Jinja2."""
import os
import re

from mm2_core.config import env_checks, names
from mm2_core.config.config_values import get, parse_bool, text
from mm2_core.host import install, process
from mm2_core.kafka import versions


def metrics_listen(configurations, hostname):
    """The exporter agent's [host:]port (kafka-mm2-env/mm2_metrics_host and mm2_metrics_port)."""
    port = text(get(configurations, names.ENV, "mm2_metrics_port")).strip()
    bind = env_checks.metrics_bind_host(get(configurations, names.ENV, "mm2_metrics_host"), hostname)
    return "%s:%s" % (bind, port) if bind else port


def template_context(configurations, kafka_version, hostname=None, conf_dir=None, java_home=None):
    """Values the env / log4j templates use, computed as the agent's params do (pure; for the CLI)."""
    version = versions.KafkaVersion.parse(kafka_version)
    conf_dir = conf_dir or text(get(configurations, names.ENV, "mm2_conf_dir"))
    log4j2 = versions.supports(version, versions.LOG4J2)
    log4j_file = os.path.join(conf_dir, "log4j2.yaml" if log4j2 else "log4j.properties")
    kafka_home = text(get(configurations, names.ENV, "kafka_home")).strip()
    opts = []
    if parse_bool(get(configurations, names.ENV, "mm2_metrics_enabled")):
        jar = install.jmx_agent_jar_path(text(get(configurations, names.ENV, "jmx_exporter_jar")).strip(),
                                         kafka_home or "/opt/kafka-mm2/current")
        if jar:
            opts.append("-javaagent:%s=%s:%s" % (jar, metrics_listen(configurations, hostname),
                                                 os.path.join(conf_dir, "jmx_exporter_mm2.yaml")))
    from mm2_core.connect import rest_security
    rest = rest_security.RestSecurity.from_env(dict(
        (p, get(configurations, names.ENV, p)) for p in rest_security.PROPERTIES))
    if text(get(configurations, names.ENV, "mm2_run_mode")).strip() == "connect" and rest.tls:
        opts.append(rest.kafka_opt(os.path.join(conf_dir, rest_security.JAAS_FILE)))
    return {
        "mm2_java_home": text(get(configurations, names.ENV, "mm2_java_home")).strip() or (java_home or ""),
        "mm2_log_dir": text(get(configurations, names.ENV, "mm2_log_dir")),
        "mm2_heap_opts": text(get(configurations, names.ENV, "mm2_heap_opts")),
        "mm2_jvm_opts": text(get(configurations, names.ENV, "mm2_jvm_opts")),
        "mm2_log4j_opts": ("-Dlog4j2.configurationFile=" if log4j2 else "-Dlog4j.configuration=file:") + log4j_file,
        "mm2_kafka_opts": " ".join(opts),
        "mm2_log_max_file_size": text(get(configurations, names.LOG4J, "mm2_log_max_file_size")),
        "mm2_log_max_backup_index": text(get(configurations, names.LOG4J, "mm2_log_max_backup_index")),
        "log4j_file_name": os.path.basename(log4j_file),
        "log4j_content_property": "log4j2_content" if log4j2 else "content",
        "env_file_name": process.ENV_FILE,
        "hostname": hostname,
    }


# --- template syntax, checked at validation time -------------------------------------------------
# Ambari renders these templates with Jinja2 at CONFIGURE; a syntax error there would fail the
# command after other files were written. The checker below refuses what Jinja2 refuses to parse
# in the constructs templates use (tags, expressions, strings, brackets, blocks); stdlib only.

_BLOCK_TAGS = {"if": "endif", "for": "endfor", "macro": "endmacro", "call": "endcall", "filter": "endfilter",
               "block": "endblock", "with": "endwith", "autoescape": "endautoescape", "raw": "endraw"}
_MIDDLE_TAGS = {"elif": ("if",), "else": ("if", "for")}
_SIMPLE_TAGS = ("set", "include", "import", "from", "extends", "do", "break", "continue", "endset")
_CLOSERS = {"{{": "}}", "{%": "%}", "{#": "#}"}
_OPENER = re.compile(r"\{[{%#]")


def template_problem(source):
    """None when Jinja2 can parse the template as far as these checks see, else 'line N: what is wrong'."""
    stack = []   # (tag, line)
    pos = 0
    while True:
        match = _OPENER.search(source, pos)
        if match is None:
            break
        opener = match.group(0)
        line = source.count("\n", 0, match.start()) + 1
        closer = _CLOSERS[opener]
        end, problem = _find_closer(source, match.end(), closer, opener != "{#")
        if problem:
            return "line %d: %s" % (line, problem)
        if end < 0:
            return "line %d: '%s' is never closed with '%s'" % (line, opener, closer)
        body = source[match.end():end].strip().strip("-+").strip()
        pos = end + len(closer)
        if opener == "{{" and not body:
            return "line %d: empty expression '{{ }}'" % line
        if opener != "{%":
            continue
        tag = body.split(None, 1)[0] if body else ""
        if tag in _BLOCK_TAGS:
            if tag == "raw":
                raw_end = re.compile(r"\{%-?\s*endraw\s*-?%\}").search(source, pos)
                if raw_end is None:
                    return "line %d: {%% raw %%} without {%% endraw %%}" % line
                pos = raw_end.end()
                continue
            if tag == "set" or (tag in ("if", "for", "macro", "call", "filter", "block", "with")
                                and len(body.split()) < 2 and tag not in ("with", "autoescape")):
                return "line %d: {%% %s %%} needs an expression" % (line, tag)
            stack.append((tag, line))
        elif tag in _MIDDLE_TAGS:
            if not stack or stack[-1][0] not in _MIDDLE_TAGS[tag]:
                return "line %d: {%% %s %%} outside {%% %s %%}" % (line, tag, " / ".join(_MIDDLE_TAGS[tag]))
        elif tag.startswith("end"):
            if not stack:
                return "line %d: {%% %s %%} without an opening tag" % (line, tag)
            opened, opened_line = stack.pop()
            if _BLOCK_TAGS[opened] != tag:
                return "line %d: {%% %s %%} closes {%% %s %%} of line %d; expected {%% %s %%}" % (
                    line, tag, opened, opened_line, _BLOCK_TAGS[opened])
        elif tag not in _SIMPLE_TAGS:
            return "line %d: unknown tag {%% %s %%}" % (line, tag)
    if stack:
        tag, line = stack[-1]
        return "line %d: {%% %s %%} is never closed with {%% %s %%}" % (line, tag, _BLOCK_TAGS[tag])
    return None


def _find_closer(source, start, closer, is_code):
    """(index of the closer, None) honouring strings and brackets in code; (-1, None) if absent."""
    if not is_code:
        return source.find(closer, start), None
    depth = []
    index = start
    pairs = {"(": ")", "[": "]", "{": "}"}
    while index < len(source):
        char = source[index]
        if not depth and source.startswith(closer, index):
            return index, None
        if char in "\"'":
            close = source.find(char, index + 1)
            while close > 0 and source[close - 1] == "\\" and source[close - 2:close] != "\\\\":
                close = source.find(char, close + 1)
            if close < 0:
                return -1, "unterminated string %s..." % source[index:index + 20].split("\n")[0]
            index = close + 1
            continue
        if char in pairs:
            depth.append(pairs[char])
        elif char in ")]}":
            if not depth or depth.pop() != char:
                return -1, "unbalanced '%s'" % char
        index += 1
    return -1, None
