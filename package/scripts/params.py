"""Parameters of the MirrorMaker 2 driver commands (install, configure, start, stop, service
check, custom commands), read once from the command JSON.

Nothing here raises: a missing Kafka installation or a bad configuration is reported by the
command that needs it (installation_error / the render step), so STATUS-like paths never die
on import.
"""
import os

from resource_management.libraries.functions.default import default
from resource_management.libraries.script.script import Script

from mm2_core.config import names, schema
from mm2_core.config.config_values import parse_bool
from mm2_core.connect import rest_security
from mm2_core.formats.text import text, to_text
from mm2_core.host import install, process
from mm2_core.kafka import versions
from mm2_core.rendering import templates
import status_params

config = Script.get_config()
tmp_dir = Script.get_tmp_dir()
hostname = to_text(config["agentLevelParams"]["hostname"])
stack_name = default("/clusterLevelParams/stack_name", None) or default("/configurations/cluster-env/stack_name", "")


def _env(name):
    return _get(names.ENV, name)


def _get(config_type, name):
    # to_text: Ambari 3 hands decrypted sensitive values over as bytes
    return to_text(default("/configurations/%s/%s" % (config_type, name), schema.BY_NAME[config_type][name].default))


def _template(config_type, name):
    """A content template property, or None when the command lacks it (a partial REST write,
    a property added by a newer mpack before `ambari-server upgrade`) or it is blank: CONFIGURE
    then uses the template this mpack ships (schema content_file), never an empty file."""
    value = to_text(default("/configurations/%s/%s" % (config_type, name), None))
    if value is None or not hasattr(value, "strip") or not value.strip():
        return None
    return value


def as_bool(value):
    return parse_bool(value) is True


def as_int(value, prop):
    try:
        return int(text(value).strip())
    except (ValueError, UnicodeError):
        return int(schema.ENV[prop].default)


def plain_configurations():
    """{type: {name: str}} as Ambari sent them (decrypted, booleans back to 'true'/'false')."""
    result = {}
    configurations = config["configurations"]
    for type_name in list(configurations.keys()):
        section = configurations[type_name]
        values = {}
        for key in list(section.keys()):
            value = section[key]
            if isinstance(value, bool):
                value = "true" if value else "false"
            values[key] = to_text(value)
        result[type_name] = values
    return result


# ---- users, directories, files
mm2_user = _env("mm2_user")
user_group = default("/configurations/cluster-env/user_group", "hadoop")
mm2_log_dir = _env("mm2_log_dir")
mm2_pid_dir = status_params.mm2_pid_dir
mm2_conf_dir = status_params.mm2_conf_dir
mm2_pid_file = status_params.mm2_pid_file
mm2_properties_file = status_params.mm2_properties_file
mm2_env_file = os.path.join(mm2_conf_dir, process.ENV_FILE)
mm2_log_file = os.path.join(mm2_log_dir, process.LOG_FILE)
mm2_out_file = os.path.join(mm2_log_dir, process.OUT_FILE)
mm2_manifest_file = os.path.join(mm2_conf_dir, ".rendered-files")
log4j1_file = os.path.join(mm2_conf_dir, "log4j.properties")
log4j2_file = os.path.join(mm2_conf_dir, "log4j2.yaml")
jmx_exporter_config_file = os.path.join(mm2_conf_dir, "jmx_exporter_mm2.yaml")

# ---- Kafka installation
stack_root = Script.get_stack_root() if stack_name else None
stack_kafka_home = os.path.join(stack_root, "current", "kafka-broker") if stack_root else None
kafka_install_source = _env("kafka_install_source")
kafka_home_setting = (_env("kafka_home") or "").strip()
kafka_tarball_url = (_env("kafka_tarball_url") or "").strip()
kafka_version_override = (_env("kafka_version_override") or "").strip()

installation_error = None
kafka_home = None
kafka_version = None
kafka_version_tuple = None
kafka_version_origin = None
try:
    _plan = install.choose(kafka_install_source, stack_kafka_home, kafka_home_setting, kafka_tarball_url)
    kafka_home = _plan.kafka_home
    kafka_version, kafka_version_origin = install.effective_version(kafka_home, kafka_version_override)
    kafka_version_tuple = install.check_mm2_version(kafka_version)
except install.InstallError as e:
    installation_error = text(e)
mm2_launcher = os.path.join(kafka_home, install.LAUNCHER_REL) if kafka_home else None
uses_log4j2 = bool(kafka_version) and versions.supports(kafka_version, versions.LOG4J2)

# ---- JVM
ambari_java_home = default("/ambariLevelParams/java_home", None)
mm2_java_home = (_env("mm2_java_home") or "").strip() or ambari_java_home
mm2_heap_opts = _env("mm2_heap_opts")
mm2_jvm_opts = _env("mm2_jvm_opts") or ""
mm2_start_timeout = as_int(_env("mm2_start_timeout_seconds"), "mm2_start_timeout_seconds")
mm2_stop_timeout = as_int(_env("mm2_stop_timeout_seconds"), "mm2_stop_timeout_seconds")
mm2_local_kafka_wait = as_int(_env("mm2_local_kafka_wait_seconds"), "mm2_local_kafka_wait_seconds")

# ---- logging: log4j 1 properties up to 3.x, log4j2 YAML from 4.0 (KIP-653)
mm2_log_max_file_size = _get(names.LOG4J, "mm2_log_max_file_size")
mm2_log_max_backup_index = _get(names.LOG4J, "mm2_log_max_backup_index")
log4j1_content = _template(names.LOG4J, "content")
log4j2_content = _template(names.LOG4J, "log4j2_content")
if uses_log4j2:
    mm2_log4j_file, mm2_log4j_stale_file, mm2_log4j_content = log4j2_file, log4j1_file, log4j2_content
    mm2_log4j_property = "log4j2_content"
    mm2_log4j_opts = "-Dlog4j2.configurationFile=" + log4j2_file
else:
    mm2_log4j_file, mm2_log4j_stale_file, mm2_log4j_content = log4j1_file, log4j2_file, log4j1_content
    mm2_log4j_property = "content"
    mm2_log4j_opts = "-Dlog4j.configuration=file:" + log4j1_file

# ---- metrics: the Prometheus JMX exporter agent
mm2_metrics_enabled = as_bool(_env("mm2_metrics_enabled"))
mm2_metrics_port = _env("mm2_metrics_port")
jmx_exporter_jar_setting = (_env("jmx_exporter_jar") or "").strip()
jmx_exporter_jar = install.jmx_agent_jar_path(jmx_exporter_jar_setting, kafka_home_setting or "/opt/kafka-mm2/current")
# metrics never stop MM2: without the jar on this host the driver starts without the agent (START warns, and
# the MirrorMaker 2 Process alert says what is missing until the jar is there and the driver restarted)
jmx_exporter_jar_present = bool(jmx_exporter_jar) and os.path.isfile(jmx_exporter_jar)
mm2_metrics_ssl_enabled = as_bool(_env("mm2_metrics_ssl_enabled")) if "mm2_metrics_ssl_enabled" in schema.ENV else False


def _optional_env(name, fallback=""):
    return _env(name) if name in schema.ENV else fallback


metrics_keystore = (_optional_env("mm2_metrics_ssl_keystore_location") or "").strip()
metrics_keystore_type = _optional_env("mm2_metrics_ssl_keystore_type", "JKS")
metrics_keystore_password = _optional_env("mm2_metrics_ssl_keystore_password")
metrics_certificate_alias = (_optional_env("mm2_metrics_ssl_certificate_alias") or "").strip()
metrics_auth_username = (_optional_env("mm2_metrics_auth_username") or "").strip()
metrics_auth_password = _optional_env("mm2_metrics_auth_password")
metrics_has_secrets = mm2_metrics_ssl_enabled or bool(metrics_auth_username)

# KAFKA_OPTS of the MM2 JVM (mm2-env.sh): the exporter agent serving the alerts' metrics
_kafka_opts = []
if mm2_metrics_enabled and jmx_exporter_jar_present:
    _kafka_opts.append("-javaagent:%s=%s:%s" % (jmx_exporter_jar, templates.metrics_listen(config["configurations"], hostname),
                                                jmx_exporter_config_file))
mm2_kafka_opts = " ".join(_kafka_opts)

# ---- security
security_enabled = as_bool(default("/configurations/cluster-env/security_enabled", False))
mm2_principal = (_env("mm2_principal_name") or "").replace("_HOST", hostname.lower())
mm2_keytab = _env("mm2_keytab")
kinit_path_local = None
if security_enabled:
    from resource_management.libraries.functions import get_kinit_path
    kinit_path_local = get_kinit_path(default("/configurations/kerberos-env/executable_search_paths", None))

# ---- Ambari Metrics (the AMS sender, mm2_ams): the collectors, when the cluster has them
cluster_host_info = dict(default("/clusterHostInfo", {}) or {})
ams_site = dict(default("/configurations/ams-site", {}) or {})   # read only; not a restart dependency

# ---- placement
driver_hosts = sorted(default("/clusterHostInfo/%s_hosts" % names.COMPONENT.lower(), []) or [])
target_clusters_setting = _get(names.DRIVER, "target.clusters")

# ---- the local Kafka (default target in simple mode), for the renderer
kafka_broker_hosts = sorted(default("/clusterHostInfo/kafka_broker_hosts", []) or [])

env_content = _template(names.ENV, "content")

# ---- run mode (connect mode: MM2's connectors on a Kafka Connect worker, see mm2_connect)
mm2_run_mode = (_optional_env("mm2_run_mode", "dedicated") or "dedicated").strip()
connect_rest_port = _get(names.DRIVER, "connect.rest.port")
connect_group_id = (_get(names.DRIVER, "connect.group.id") or "mm2-connect").strip()
live_flow_settings = _get(names.LIVE, "flow.settings") or ""   # kafka-mm2-live: connect mode's live per-flow values
connect_rest_security = rest_security.RestSecurity.from_env(
    dict((p, _optional_env(p)) for p in rest_security.PROPERTIES if p in schema.ENV))
if mm2_run_mode == "connect" and connect_rest_security.tls:   # the worker's JAAS file: Basic auth of its REST API
    mm2_kafka_opts = " ".join(o for o in (mm2_kafka_opts, connect_rest_security.kafka_opt(
        os.path.join(mm2_conf_dir, rest_security.JAAS_FILE))) if o)
mm2_autorestart_enabled = as_bool(_optional_env("mm2_autorestart_enabled", "true"))
mm2_autorestart_max = as_int(_optional_env("mm2_autorestart_max_restarts", "10"), "mm2_autorestart_max_restarts")
mm2_autorestart_backoff_unit = as_int(_optional_env("mm2_autorestart_backoff_unit_seconds", "60"),
                                      "mm2_autorestart_backoff_unit_seconds")
# FLOW_PAUSE / FLOW_RESUME / FLOW_STOP: the flow named in the request's parameters
command_flow = to_text(default("/commandParams/flow", "") or "")
