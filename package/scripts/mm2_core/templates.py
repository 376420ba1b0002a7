"""The env (mm2-env.sh) and logging templates: the variables they use, computed as the agent's
params.py does. Pure, stdlib only; the agent renders them with Ambari's InlineTemplate, the
off-cluster render command with Jinja2."""
import os

from mm2_core import install, names, process, versions
from mm2_core.config_values import get, parse_bool, text


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
            opts.append("-javaagent:%s=%s:%s" % (jar, text(get(configurations, names.ENV, "mm2_metrics_port")),
                                                 os.path.join(conf_dir, "jmx_exporter_mm2.yaml")))
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
