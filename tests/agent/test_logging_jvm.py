"""The shipped logging templates, loaded by the real logging libraries in a real JVM: log4j 1.2
(the syntax Kafka 2.4-3.x reads through reload4j) and log4j2 YAML (Kafka 4.x). Extra local
confidence: skipped unless Java 11+ and the Debian/Ubuntu jars are there
(apt-get install liblog4j1.2-java liblog4j2-java libjackson2-dataformat-yaml libjackson2-databind-java libyaml-snake-java)."""
import io
import os
import subprocess

import harness
import pytest
from jinja2 import Template

JARS = "/usr/share/java"
LOG4J1 = [os.path.join(JARS, "log4j-1.2.jar")]
LOG4J2 = [os.path.join(JARS, j) for j in ("log4j-api.jar", "log4j-core.jar", "jackson-core.jar",
                                          "jackson-databind.jar", "jackson-annotations.jar",
                                          "jackson-dataformat-yaml.jar", "snakeyaml.jar")]

PROBES = {
    "1": """public class LogProbe {
  public static void main(String[] a) {
    org.apache.log4j.Logger.getLogger("org.apache.kafka.connect.mirror.MirrorMaker").info("Kafka MirrorMaker started");
    org.apache.log4j.Logger.getLogger("org.reflections.Reflections").info("noise");
    org.apache.log4j.Logger.getLogger("org.apache.kafka.connect.runtime.Worker").error("a failure");
  }
}""",
    "2": """public class LogProbe {
  public static void main(String[] a) {
    org.apache.logging.log4j.LogManager.getLogger("org.apache.kafka.connect.mirror.MirrorMaker").info("Kafka MirrorMaker started");
    org.apache.logging.log4j.LogManager.getLogger("org.reflections.Reflections").info("noise");
    org.apache.logging.log4j.LogManager.getLogger("org.apache.kafka.connect.runtime.Worker").error("a failure");
  }
}""",
}


def java_version():
    try:
        out = subprocess.Popen(["java", "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).communicate()[0]
    except OSError:
        return 0
    import re
    m = re.search(r'version "(\d+)', out.decode("utf-8", "replace"))
    return int(m.group(1)) if m else 0


@pytest.fixture
def _jvm_with_log4j():
    """Checked when the test runs, not at import: collecting this module starts no JVM (the double stages'
    JVM guard, tests/cost_report.py)."""
    if java_version() < 11 or not all(os.path.exists(j) for j in LOG4J1 + LOG4J2):
        pytest.skip("needs Java 11+ and the log4j 1.2 / log4j2 / jackson-yaml jars in /usr/share/java")


needs_jvm = pytest.mark.usefixtures("_jvm_with_log4j")


def render(name):
    with io.open(os.path.join(harness.TEMPLATES_DIR, name), encoding="utf-8") as fh:
        return Template(fh.read()).render(mm2_log_max_file_size="1", mm2_log_max_backup_index="3")


@needs_jvm
@pytest.mark.parametrize("line,template,flag,jars", [
    ("1", "log4j.properties.j2", "-Dlog4j.configuration=file:%s", LOG4J1),
    ("2", "log4j2.yaml.j2", "-Dlog4j2.configurationFile=%s", LOG4J2),
])
def test_template_loads_in_a_real_jvm(tmpdir, line, template, flag, jars):
    conf = tmpdir.join(template[:-3])
    conf.write(render(template))
    probe = tmpdir.join("LogProbe.java")
    probe.write(PROBES[line])
    logs = tmpdir.mkdir("logs")
    p = subprocess.Popen(["java", "-cp", ":".join(jars), "-Dkafka.logs.dir=%s" % logs, flag % conf, str(probe)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    assert p.returncode == 0, err
    log = logs.join("mirrormaker.log").read()
    assert "INFO Kafka MirrorMaker started (org.apache.kafka.connect.mirror.MirrorMaker" in log
    assert "ERROR a failure" in log and "noise" not in log
    # only errors reach mirrormaker.out (the JVM's stderr)
    assert "a failure" in err.decode("utf-8") and "Kafka MirrorMaker started" not in err.decode("utf-8")
    assert "WARN" not in err.decode("utf-8") and "ERROR StatusLogger" not in err.decode("utf-8")
