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
from mm2_core.connect import connect_mode, live
from mm2_core.kafka import versions
from mm2_core.rendering import render, templates
from mm2_ambari.common import inputs, masking
from mm2_ambari.common.errors import BadInput

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def _templates_dir():
    """The mpack's default templates: shipped in the wheel as mm2_ambari/templates, else the checkout's
    package/templates (editable installs and running from the source tree)."""
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # mm2_ambari/, above offline/
    shipped = os.path.join(package_dir, "templates")
    if os.path.isfile(os.path.join(shipped, "mm2-env.sh.j2")):
        return shipped
    import mm2_core  # package/scripts/mm2_core in a checkout: the templates are in package/templates
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(mm2_core.__file__)),
                                         os.pardir, os.pardir, "templates"))


TEMPLATES_DIR = _templates_dir()
CONNECTORS_FILE = "connectors.json"   # render's preview of connect mode: each connector's configuration
# Foreign config types that describe this cluster's Kafka: read only with --kafka-broker-hosts.
LOCAL_KAFKA_TYPES = ("kafka-broker", "kafka-env", "ranger-kafka-plugin-properties")


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
    data = inputs.load_json(path, "--configs", "Ambari's configurations map {config type: {property: value}}")
    return inputs.configurations_map(data, path, "--configs")


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


def _problem_text(problem):
    """'type/property: message': the message is masked, never the whole line (a message about a
    password property is about the property, not its value)."""
    return "%s/%s: %s" % (problem.config_type, problem.name, masking.mask_message(problem.message))


def _connect_preview(configurations, rendering, host, conf_dir):
    """Connect mode (kafka-mm2-env/mm2_run_mode=connect): (the files the driver writes and runs, ConnectPlan): the
    worker, its secrets and REST files (mm2_core.rendering.render.connect_files, as the agent renders them),
    mm2-env.sh and log4j, not the dedicated launcher's properties; None in dedicated mode. ConfigError as the
    agent's CONFIGURE."""
    if connect_mode.run_mode(configurations) != connect_mode.CONNECT:
        return None
    from mm2_core.connect.rest_security import RestSecurity
    entries, _ = live.parse(config_values.text(config_values.get(configurations, names.LIVE, live.PROPERTY)),
                            rendering.topology)
    env = configurations.get(names.ENV) or {}
    security = RestSecurity.from_env(env)
    group = config_values.text(config_values.get(configurations, names.DRIVER, "connect.group.id")).strip()
    plan = connect_mode.plan(live.overlay(rendering.properties, entries), rendering.topology, host,
                             config_values.text(config_values.get(configurations, names.DRIVER, "connect.rest.port")),
                             os.path.join(conf_dir, connect_mode.SECRETS_FILE), group_id=group or connect_mode.GROUP_ID,
                             security=security)
    dedicated = (render.PROPERTIES_FILE, render.SECRETS_FILE)
    files = [f for f in rendering.files if f.name not in dedicated]
    return files + render.connect_files(plan, rendering.version, security, conf_dir), plan


def _write(path, text, mode):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
    except BaseException:   # Ctrl-C too: no half-written file is left
        os.unlink(tmp)
        raise
    os.chmod(tmp, mode)
    os.rename(tmp, path)


def run(args):
    try:
        return _run(args)
    except BadInput as exc:
        sys.stderr.write("mm2-ambari render: %s\n" % masking.mask_text(str(exc)))
        for problem in exc.problems:
            sys.stderr.write("  - %s\n" % masking.mask_text(str(problem)))
        return EXIT_BAD_INPUT


def _run(args):
    configurations = _load_configs(args.configs)
    version, warning = inputs.kafka_version(args.kafka_version, "--kafka-version")
    if warning:
        sys.stderr.write("mm2-ambari render: --kafka-version: %s\n" % warning)
    brokers = [h.strip() for h in args.kafka_broker_hosts.split(",") if h.strip()]
    unused = [t for t in LOCAL_KAFKA_TYPES if t in configurations] if not brokers else []
    if unused:
        raise BadInput("--configs %s: %s describe%s this cluster's Kafka, which is read only with "
                       "--kafka-broker-hosts H1,H2 (its brokers; an empty target bootstrap then means them): give "
                       "--kafka-broker-hosts or remove %s" % (args.configs, ", ".join(unused),
                                                             "s" if len(unused) == 1 else "", ", ".join(unused)))
    host = args.host or socket.getfqdn()
    conf_dir = config_values.text(config_values.get(configurations, names.ENV, "mm2_conf_dir"))
    local = local_kafka.local_kafka_from(configurations, brokers) if brokers else None
    try:
        rendering = render.render_mm2(configurations, str(version), host, conf_dir, local_kafka=local)
        # connect mode's own settings (kafka-mm2-live, the REST listener): the agent's checks at CONFIGURE
        found = live.config_problems(configurations, rendering.topology)
        if any(p.is_error for p in found):
            raise problems.ConfigError(found)
        connect = _connect_preview(configurations, rendering, host, conf_dir)
    except problems.ConfigError as exc:
        sys.stderr.write("The configuration is invalid for Kafka %s:\n" % version)
        for problem in exc.problems:
            if not inputs.is_version_problem(problem, version):
                sys.stderr.write("  %s %s\n" % (problem.level, _problem_text(problem)))
        return EXIT_BAD_INPUT
    for problem in list(rendering.warnings) + found:
        if not inputs.is_version_problem(problem, version):
            sys.stderr.write("  WARN %s\n" % _problem_text(problem))
    # Everything is rendered in memory first: a template that fails writes nothing at all.
    files = rendering.files if connect is None else connect[0]
    outputs = [(rendered.name, rendered.text, rendered.mode) for rendered in files]
    if connect is not None:
        outputs.append((CONNECTORS_FILE, json.dumps(connect[1].connectors, indent=2) + "\n", 0o644))
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
    inputs.check_out_dir(args.out)
    for name, _, _ in outputs:
        if os.path.isdir(os.path.join(args.out, name)):
            raise BadInput("--out %s: %s is a directory there; remove it or give another directory"
                           % (args.out, name))
    for name, text, mode in outputs:
        try:
            _write(os.path.join(args.out, name), text, mode)
        except OSError as exc:
            raise BadInput("--out %s: cannot write %s (%s); give a directory you can write"
                           % (args.out, name, exc.strerror or exc))
    for name, _, mode in outputs:
        sys.stdout.write("%s %s\n" % (oct(mode)[-3:], os.path.join(args.out, name)))
    if connect is not None:
        sys.stdout.write("start: %s %s, then each connector of %s is PUT to %s/connectors/NAME/config "
                         "(connect mode, target %s)\n" % (
                             connect_mode.LAUNCHER, os.path.join(conf_dir, connect_mode.WORKER_FILE),
                             CONNECTORS_FILE, connect[1].rest_url, connect[1].target))
        return EXIT_OK
    sys.stdout.write("start: connect-mirror-maker.sh %s\n" % " ".join(
        [os.path.join(conf_dir, render.PROPERTIES_FILE)] + rendering.clusters_args))
    return EXIT_OK
