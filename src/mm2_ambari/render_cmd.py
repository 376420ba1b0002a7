"""`mm2-ambari render`: offline preview of the files the Ambari agent writes on one MM2 host.

Uses the same pure core (mm2_core.rendering.render) as the agent, so the properties file and the secrets
file are byte for byte what the agent writes; mm2-env.sh and the log4j file are rendered with
jinja2 from the same templates (the configured `content` properties, else the mpack's defaults in
package/templates) the way Ambari's InlineTemplate renders them.

Exit codes: 0 written, 2 invalid configuration or bad arguments (every problem is printed).
"""
import json
import os
import socket
import sys

from mm2_core.config import config_values, local_kafka, names, problems, schema
from mm2_core.kafka import versions
from mm2_core.rendering import render, templates
from mm2_ambari import masking

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def _templates_dir():
    """The mpack's default templates: shipped in the wheel as mm2_ambari/templates, else the checkout's
    package/templates (editable installs and running from the source tree)."""
    shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
    if os.path.isfile(os.path.join(shipped, "mm2-env.sh.j2")):
        return shipped
    import mm2_core  # package/scripts/mm2_core in a checkout: the templates are in package/templates
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(mm2_core.__file__)),
                                         os.pardir, os.pardir, "templates"))


TEMPLATES_DIR = _templates_dir()


def register(subparsers):
    p = subparsers.add_parser(
        "render", help="write the MM2 files the agent would write for one host (offline preview)",
        description="Render connect-mirror-maker.properties (and mm2-secrets.properties, mm2-env.sh, "
                    "the log4j file) from an Ambari configurations map, exactly as the agent does.")
    p.add_argument("--configs", required=True, metavar="CONFIGS.json",
                   help="Ambari's configurations map {type: {property: value}}; missing properties "
                        "take the mpack defaults")
    p.add_argument("--kafka-version", required=True, metavar="X.Y.Z",
                   help="Kafka version MM2 runs (2.4.0 or newer), e.g. 3.7.1")
    p.add_argument("--out", required=True, metavar="DIR", help="directory to write the files to")
    p.add_argument("--host", default=None,
                   help="the MM2 host to render for (default: this machine's FQDN)")
    p.add_argument("--kafka-broker-hosts", default="", metavar="H1,H2",
                   help="this Ambari cluster's KAFKA_BROKER hosts: an empty target bootstrap then means "
                        "these brokers (listeners from kafka-broker in CONFIGS.json)")
    p.add_argument("--java-home", default="", help="Ambari's java_home (used when kafka-mm2-env/mm2_java_home "
                                                   "is empty)")
    p.set_defaults(func=run)


def _load_configs(path):
    with open(path) as fh:
        data = json.load(fh)
    if isinstance(data, dict) and "configurations" in data and isinstance(data["configurations"], dict):
        data = data["configurations"]  # also accept a command JSON / blueprint-like wrapper
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError("%s must be a JSON object {config type: {property: value}}" % path)
    return data


def _content(configurations, config_type, name):
    value = (configurations.get(config_type) or {}).get(name)
    if value:
        return value
    prop = schema.BY_NAME[config_type][name]
    path = os.path.join(TEMPLATES_DIR, prop.content_file or "")
    if prop.content_file and os.path.isfile(path):
        with open(path) as fh:
            return fh.read()
    return None


def _render_template(source, context):
    import jinja2
    # Ambari's InlineTemplate: a plain Environment whose loader returns the text itself.
    env = jinja2.Environment(loader=jinja2.FunctionLoader(lambda text: text))
    return env.get_template(source).render(context)


def _write(path, text, mode):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
    except Exception:
        os.unlink(tmp)
        raise
    os.chmod(tmp, mode)
    os.rename(tmp, path)


def run(args):
    try:
        configurations = _load_configs(args.configs)
    except (IOError, OSError, ValueError) as exc:
        sys.stderr.write("mm2-ambari render: cannot read %s: %s\n" % (args.configs, masking.mask_text(str(exc))))
        return EXIT_BAD_INPUT
    try:
        version = versions.KafkaVersion.parse(args.kafka_version)
    except ValueError as exc:
        sys.stderr.write("mm2-ambari render: --kafka-version: %s\n" % exc)
        return EXIT_BAD_INPUT
    unsupported = versions.support_problem(version)
    if unsupported:
        sys.stderr.write("mm2-ambari render: --kafka-version: %s\n" % unsupported[1])
        if unsupported[0] == "ERROR":
            return EXIT_BAD_INPUT
    host = args.host or socket.getfqdn()
    conf_dir = config_values.text(config_values.get(configurations, names.ENV, "mm2_conf_dir"))
    brokers = [h.strip() for h in args.kafka_broker_hosts.split(",") if h.strip()]
    local = local_kafka.local_kafka_from(configurations, brokers) if brokers else None
    try:
        rendering = render.render_mm2(configurations, str(version), host, conf_dir, local_kafka=local)
    except problems.ConfigError as exc:
        sys.stderr.write("The configuration is invalid for Kafka %s:\n" % version)
        for problem in exc.problems:
            sys.stderr.write("  %s %s\n" % (problem.level, masking.mask_text(str(problem))))
        return EXIT_BAD_INPUT
    for problem in rendering.warnings:
        sys.stderr.write("  WARN %s\n" % masking.mask_text(str(problem)))
    # Everything is rendered in memory first: a template that fails writes nothing at all.
    outputs = [(rendered.name, rendered.text, rendered.mode) for rendered in rendering.files]
    context = templates.template_context(configurations, version, host, conf_dir, args.java_home)
    for config_type, prop, file_name in (
            (names.ENV, "content", context["env_file_name"]),
            (names.LOG4J, context["log4j_content_property"], context["log4j_file_name"])):
        source = _content(configurations, config_type, prop)
        if source is None:
            sys.stderr.write("mm2-ambari render: no %s/%s template and none shipped in %s; nothing was written\n"
                             % (config_type, prop, TEMPLATES_DIR))
            return EXIT_BAD_INPUT
        try:
            outputs.append((file_name, _render_template(source, context), 0o644))
        except Exception as exc:  # jinja2.TemplateError and what a template's expressions raise
            sys.stderr.write("mm2-ambari render: %s/%s: the template cannot be rendered (%s: %s); nothing was "
                             "written\n" % (config_type, prop, type(exc).__name__, exc))
            return EXIT_BAD_INPUT
    if not os.path.isdir(args.out):
        os.makedirs(args.out)
    for name, text, mode in outputs:
        _write(os.path.join(args.out, name), text, mode)
    for name, _, mode in outputs:
        sys.stdout.write("%s %s\n" % (oct(mode)[-3:], os.path.join(args.out, name)))
    sys.stdout.write("start: connect-mirror-maker.sh %s\n" % " ".join(
        [os.path.join(conf_dir, render.PROPERTIES_FILE)] + rendering.clusters_args))
    return EXIT_OK
