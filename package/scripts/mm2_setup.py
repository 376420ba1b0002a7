"""CONFIGURE for the MirrorMaker 2 driver: directories and every file the process reads.

Thin Ambari adapter: the files' content comes from the pure core (mm2_core.render) and the
templates; this module only declares the resources. Secret-bearing files are written with
File + InlineTemplate (the content never reaches the agent log) and never with PropertiesFile.
"""
import os
from contextlib import contextmanager

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Directory, Execute, File
from resource_management.core.source import InlineTemplate, StaticFile

from mm2_core import install, keystore

JMX_EXPORTER_RULES = "jmx_exporter_mm2.yaml"   # package/files/, shipped with the alerts


def require_installation(params):
    if params.installation_error:
        raise Fail(params.installation_error)


def render_files(params):
    """Rendering of the MM2 files for this host; Fail with every validation problem."""
    from mm2_core import render, topology
    try:
        return render.render_mm2(params.plain_configurations(), params.kafka_version, params.hostname,
                                 params.mm2_conf_dir, local_kafka=local_kafka(params))
    except topology.ConfigError as e:
        raise Fail("The MirrorMaker 2 configuration is invalid; nothing was written and the previous "
                   "files are kept:\n%s" % e)


def local_kafka(params):
    """This Ambari cluster's own Kafka (the default target in simple mode), if any."""
    from mm2_core import render
    builder = getattr(render, "local_kafka_from_configurations", None)
    if builder is None:
        return None
    return builder(params.plain_configurations(), params.kafka_broker_hosts)


def _read_manifest(path):
    try:
        with open(path) as fh:
            return [line.strip() for line in fh if line.strip()]
    except (IOError, OSError):
        return []


def ensure_directories(params):
    Directory([params.mm2_conf_dir, params.mm2_log_dir, params.mm2_pid_dir],
              owner=params.mm2_user, group=params.user_group, mode=0o755,
              create_parents=True, cd_access="a")


@contextmanager
def private_umask():
    """Ambari's File writes the content before it applies the mode (trunk even through a temp file
    in /tmp), so with the agent's umask a secret-bearing file is briefly readable by others: write
    under umask 077 and let File then set the intended mode."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def write_rendered(params, rendering):
    """Each rendered file goes to a temp name first and is renamed over the old one when all are
    written: MM2 never reads a half-written file and a failed configure leaves the old set."""
    conf = params.mm2_conf_dir
    names = []
    moves = []
    with private_umask():
        for rendered in rendering.files:
            final = os.path.join(conf, rendered.name)
            tmp = os.path.join(conf, ".%s.new" % rendered.name)
            # The text goes in as a template variable: never parsed as Jinja, never logged.
            File(tmp, content=InlineTemplate("{{ rendered_text }}", rendered_text=rendered.text),
                 owner=params.mm2_user, group=params.user_group, mode=rendered.mode)
            moves.append((tmp, final))
            names.append(rendered.name)
    for tmp, final in moves:
        Execute(("mv", "-f", tmp, final), sudo=True)
    # Files rendered last time but not now (e.g. the secrets file after the option was turned
    # off) would keep stale passwords around.
    for old in _read_manifest(params.mm2_manifest_file):
        if old not in names and "/" not in old:
            File(os.path.join(conf, old), action="delete")
    File(params.mm2_manifest_file, content="\n".join(names) + "\n",
         owner=params.mm2_user, group=params.user_group, mode=0o644)
    return names


def _yaml_str(value):
    import json
    return json.dumps(str(value))


def exporter_http_block(params):
    """httpServer section of the exporter config (TLS, Basic auth); holds passwords."""
    lines = ["", "# Added by Ambari from kafka-mm2-env (metrics TLS / authentication).", "httpServer:"]
    if params.mm2_metrics_ssl_enabled:
        # the exporter (0.20.0 .. 1.x) exits the JVM without certificate.alias; it reads the
        # keystore with Java's default type (PKCS12, which also reads JKS)
        try:
            alias = keystore.certificate_alias(params.metrics_keystore, params.metrics_certificate_alias)
        except keystore.KeystoreError as e:
            raise Fail(str(e))
        lines += ["  ssl:", "    keyStore:",
                  "      filename: %s" % _yaml_str(params.metrics_keystore),
                  "      type: %s" % _yaml_str(params.metrics_keystore_type or "JKS"),
                  "      password: %s" % _yaml_str(params.metrics_keystore_password),
                  "    certificate:",
                  "      alias: %s" % _yaml_str(alias)]
    if params.metrics_auth_username:
        lines += ["  authentication:", "    basic:",
                  "      username: %s" % _yaml_str(params.metrics_auth_username),
                  "      password: %s" % _yaml_str(params.metrics_auth_password)]
    return "\n".join(lines) + "\n"


def write_metrics_config(params, basedir):
    if not params.mm2_metrics_enabled:
        File(params.jmx_exporter_config_file, action="delete")
        return
    if not params.metrics_has_secrets:
        File(params.jmx_exporter_config_file, content=StaticFile(JMX_EXPORTER_RULES),
             owner=params.mm2_user, group=params.user_group, mode=0o644)
        return
    with open(os.path.join(basedir, "files", JMX_EXPORTER_RULES)) as fh:
        rules = fh.read()
    with private_umask():
        File(params.jmx_exporter_config_file,
             content=InlineTemplate("{{ exporter_config }}", exporter_config=rules + exporter_http_block(params)),
             owner=params.mm2_user, group=params.user_group, mode=0o600)


def render_templates(params):
    """(log4j text, env text), rendered before anything is written: a template that does not
    render fails CONFIGURE with nothing changed (the validator checks the syntax already)."""
    texts = []
    for source, where in ((params.mm2_log4j_content, "kafka-mm2-log4j"), (params.env_content, "kafka-mm2-env/content")):
        try:
            texts.append(InlineTemplate(source).get_content())
        except Exception as e:  # Jinja2's TemplateSyntaxError / UndefinedError: name the template
            raise Fail("The %s template cannot be rendered (%s: %s); nothing was written and the previous "
                       "files are kept. Fix the template or clear it to use the mpack's default."
                       % (where, type(e).__name__, e))
    return texts


def configure(params, basedir):
    require_installation(params)
    rendering = render_files(params)   # validation first: a bad config writes nothing
    log4j_text, env_text = render_templates(params)
    ensure_directories(params)
    write_rendered(params, rendering)
    # Already rendered: the text goes in as a variable, never parsed as Jinja again.
    File(params.mm2_log4j_file, content=InlineTemplate("{{ rendered_text }}", rendered_text=log4j_text),
         owner=params.mm2_user, group=params.user_group, mode=0o644)
    File(params.mm2_log4j_stale_file, action="delete")
    File(params.mm2_env_file, content=InlineTemplate("{{ rendered_text }}", rendered_text=env_text),
         owner=params.mm2_user, group=params.user_group, mode=0o644)
    write_metrics_config(params, basedir)
    Logger.info("MirrorMaker 2 configured for Kafka %s (%s) from %s" % (
        params.kafka_version, params.kafka_version_origin, params.kafka_home))
    return rendering


def install_kafka(params, tmp_dir):
    """INSTALL: make sure a Kafka with MM2 is on this host (unpacking the tarball if that is the
    source), then report what will run."""
    plan = install.choose(params.kafka_install_source, params.stack_kafka_home, params.kafka_home_setting,
                          params.kafka_tarball_url, installing=True)
    for note in plan.notes:
        Logger.info("Kafka for MirrorMaker 2: %s" % note)
    if plan.source == install.TARBALL:
        Logger.info("Installing Kafka for MirrorMaker 2 from %s into %s" % (plan.tarball_url, plan.kafka_home))
        parent = os.path.dirname(os.path.normpath(plan.kafka_home))
        if not os.path.isdir(parent):
            os.makedirs(parent, 0o755)
        archive = install.fetch(plan.tarball_url, parent if install.is_url(plan.tarball_url) else tmp_dir)
        try:
            final = install.unpack(archive, plan.kafka_home, source_label=plan.tarball_url)
        finally:
            if install.is_url(plan.tarball_url) and os.path.exists(archive):
                os.remove(archive)
        Logger.info("Unpacked %s; %s -> %s" % (plan.tarball_url, plan.kafka_home, final))
    version, origin = install.effective_version(plan.kafka_home, params.kafka_version_override)
    install.check_mm2_version(version)
    Logger.info("MirrorMaker 2 will run from %s (Kafka %s, from %s; source: %s)"
                % (plan.kafka_home, version, origin, plan.source))
    return plan, version
