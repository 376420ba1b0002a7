"""CONFIGURE for the MirrorMaker 2 driver: directories and every file the process reads.

Thin Ambari adapter: the files' content comes from the pure core (mm2_core.rendering.render) and the
templates; this module only declares the resources. Secret-bearing files are written with
File + InlineTemplate (the content never reaches the agent log) and never with PropertiesFile.
"""
import io
import os
from contextlib import contextmanager

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Directory, Execute, File
from resource_management.core.source import InlineTemplate, Template

import mm2_agent
from mm2_core.formats import keystore
from mm2_core.formats.text import native, text
from mm2_core.host import install

JMX_EXPORTER_RULES = "jmx_exporter_mm2.yaml"   # package/files/, shipped with the alerts


def _read_manifest(path):
    try:
        with io.open(path, encoding="utf-8") as fh:
            return [line.strip() for line in fh if line.strip()]
    except (IOError, OSError, ValueError):
        return []


def ensure_directories(params):
    # native(): Ambari 2.7 (Python 2) cannot even log a resource whose name or user is non-ASCII unicode
    Directory([native(params.mm2_conf_dir), native(params.mm2_log_dir), native(params.mm2_pid_dir)],
              owner=native(params.mm2_user), group=native(params.user_group), mode=0o755,
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


def render_template(params, content, config_type, name):
    """A content template rendered in memory with the params: the property's text, or the
    template this mpack ships when the command lacks it. Fail names the property."""
    from mm2_core.config import schema
    prop = "%s/%s" % (config_type, name)
    try:
        if content is None:
            shipped = schema.BY_NAME[config_type][name].content_file
            Logger.warning("%s is missing or empty in this command (a partial configuration write, or a property "
                           "of a newer mpack before `ambari-server upgrade`): using the template this mpack ships, "
                           "templates/%s" % (prop, shipped))
            return text(Template(shipped).get_content())
        return text(InlineTemplate(content).get_content())
    except Fail:
        raise
    except Exception as e:
        raise Fail(u"%s cannot be rendered (%s: %s): fix the template; nothing was written and the previous "
                   u"files are kept" % (prop, e.__class__.__name__, text(e)))


def _yaml_str(value):
    import json
    return json.dumps(text(value), ensure_ascii=False)  # YAML double quotes: JSON escapes, UTF-8 as is


def exporter_http_block(params):
    """httpServer section of the exporter config (TLS, Basic auth); holds passwords."""
    lines = ["", "# Added by Ambari from kafka-mm2-env (metrics TLS / authentication).", "httpServer:"]
    if params.mm2_metrics_ssl_enabled:
        # the exporter (0.20.0 .. 1.x) exits the JVM without certificate.alias; it reads the
        # keystore with Java's default type (PKCS12, which also reads JKS)
        try:
            alias = keystore.certificate_alias(params.metrics_keystore, params.metrics_certificate_alias)
        except keystore.KeystoreError as e:
            raise Fail(text(e))
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


def exporter_config(params, basedir):
    """(text, mode) of the JMX exporter config, None when metrics are off."""
    if not params.mm2_metrics_enabled:
        return None
    with io.open(os.path.join(basedir, "files", JMX_EXPORTER_RULES), encoding="utf-8") as fh:
        rules = fh.read()
    if not params.metrics_has_secrets:
        return rules, 0o644
    return rules + exporter_http_block(params), 0o600


def planned_files(params, rendering, basedir):
    """Every file CONFIGURE writes, rendered in memory: [(path, text, mode)], and the files it
    removes. Any problem raises Fail before a single file is touched."""
    from mm2_core.config import names
    files = [(os.path.join(params.mm2_conf_dir, r.name), text(r.text), r.mode) for r in rendering.files]
    files.append((params.mm2_log4j_file,
                  render_template(params, params.mm2_log4j_content, names.LOG4J, params.mm2_log4j_property), 0o644))
    files.append((params.mm2_env_file, render_template(params, params.env_content, names.ENV, "content"), 0o644))
    removed = [params.mm2_log4j_stale_file]
    exporter = exporter_config(params, basedir)
    if exporter is None:
        removed.append(params.jmx_exporter_config_file)
    else:
        files.append((params.jmx_exporter_config_file, exporter[0], exporter[1]))
    names_now = [r.name for r in rendering.files]
    # Files rendered last time but not now (e.g. the secrets file after the option was turned
    # off) would keep stale passwords around.
    removed += [os.path.join(params.mm2_conf_dir, old) for old in _read_manifest(params.mm2_manifest_file)
                if old not in names_now and "/" not in old]
    files.append((params.mm2_manifest_file, u"\n".join(names_now) + u"\n", 0o644))
    return files, removed


def _temp_name(path):
    return os.path.join(os.path.dirname(path), ".%s.new" % os.path.basename(path))


def write_files(params, files, removed):
    """Each file goes to a temp name first and is renamed over the old one when all are written:
    MM2 never reads a half-written file and a failed write leaves the old set."""
    written = []
    try:
        with private_umask():
            for path, content, mode in files:
                tmp = _temp_name(path)
                # The text goes in as a template variable: never parsed as Jinja, never logged.
                File(native(tmp), content=InlineTemplate("{{ rendered_text }}", rendered_text=content),
                     owner=native(params.mm2_user), group=native(params.user_group), mode=mode, encoding="utf-8")
                written.append(tmp)
    except Exception as e:
        for tmp in written + [_temp_name(files[len(written)][0])]:
            File(native(tmp), action="delete")
        raise Fail(u"Writing %s failed (%s: %s); the previous files are kept"
                   % (text(files[len(written)][0]), e.__class__.__name__, text(e)))
    for path, _, _ in files:
        Execute(("mv", "-f", native(_temp_name(path)), native(path)), sudo=True)
    for path in removed:
        File(native(path), action="delete")
    return [path for path, _, _ in files]


def configure(params, basedir):
    mm2_agent.require_installation(params)
    rendering = mm2_agent.render_files(params)   # validation first: a bad config writes nothing
    import mm2_connect
    from mm2_core.connect import live
    refused = live.dedicated_problem(params.mm2_run_mode, getattr(params, "live_flow_settings", ""))
    if refused:
        raise Fail(u"%s; nothing was written and the previous files are kept" % text(refused))
    if mm2_connect.enabled(params):
        from mm2_core.config import problems as core_problems
        try:
            mm2_connect.add_files(params, rendering)
        except core_problems.ConfigError as e:
            raise Fail(u"The MirrorMaker 2 configuration cannot run in connect mode; nothing was written and the "
                       u"previous files are kept:\n%s" % text(e))
    files, removed = planned_files(params, rendering, basedir)
    ensure_directories(params)
    write_files(params, files, removed)
    Logger.info("MirrorMaker 2 configured for Kafka %s (%s) from %s" % (
        params.kafka_version, params.kafka_version_origin, params.kafka_home))
    return rendering


def reload_configs(params, basedir, restart):
    """Refresh configs (RECONFIGURE reload_configs): connector changes go live; a changed worker file restarts."""
    import mm2_connect
    import mm2_service
    from mm2_core.connect import connect_rest
    before = _read(mm2_connect.worker_file(params))
    rendering = configure(params, basedir)
    if not mm2_service.running(params):
        Logger.info("MirrorMaker 2 is not running on this host: the files are rendered; START applies them")
        return {"created": [], "updated": [], "deleted": [], "unchanged": [], "running": False}
    if not mm2_connect.enabled(params):
        Logger.info("Dedicated mode reads its configuration only at start: restarting MirrorMaker 2")
        return restart()
    after = _read(mm2_connect.worker_file(params))
    if before != after:
        Logger.info("The Connect worker's own settings changed (%s): restarting the worker"
                    % mm2_connect.worker_file(params))
        return restart()
    try:
        result = mm2_connect.apply_connectors(params, rendering.connect_plan)
    except connect_rest.ConnectError as e:
        raise Fail(u"Cannot apply the connector changes to this driver's Kafka Connect worker: %s" % text(e))
    Logger.info(u"Applied without a restart: %d created, %d updated, %d deleted, %d unchanged" % (
        len(result["created"]), len(result["updated"]), len(result["deleted"]), len(result["unchanged"])))
    return result


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (IOError, OSError):
        return None


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
