"""Official Maven Central artifacts the real-Kafka suites use beside Kafka itself (Python 3 only).

    jmx_exporter_jar("1.0.1")     -> path of io.prometheus.jmx:jmx_prometheus_javaagent:1.0.1 (also 0.20.0)
    spark_kafka_jars()            -> [jars] of org.apache.spark:spark-sql-kafka-0-10_2.13:<pyspark's version> with
                                     its runtime dependencies minus what pyspark already ships (what
                                     spark-submit --packages would add)
    skip_reason(what)             -> None, or why it cannot be had here (for pytest.skip)

Resolved by Maven itself (`mvn dependency:copy-dependencies` on a generated POM, ~/.m2 as its local repository)
into the cache beside the Kafka distributions (dists.cache_root()/../artifacts/<name>), each folder built in a
temporary folder and renamed into place when complete, with a stamp (mm2-artifacts.json) listing its jars.

    python3 tests/realkafka/artifacts.py build            # every artifact set (idempotent); prints the folders
"""
import json
import os
import shutil
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from realkafka import dists   # noqa: E402

STAMP = "mm2-artifacts.json"
JMX_EXPORTER_VERSIONS = ("1.0.1", "0.20.0")
_FAILED = {}


def cache_dir():
    return os.path.join(os.path.dirname(dists.cache_root().rstrip("/")), "artifacts")


def _pom(name, deps):
    body = "".join("    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version>"
                   "</dependency>\n" % d for d in deps)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
            '  <modelVersion>4.0.0</modelVersion>\n  <groupId>mm2-mpack.tests</groupId>\n'
            '  <artifactId>%s</artifactId>\n  <version>1</version>\n  <packaging>pom</packaging>\n'
            '  <dependencies>\n%s  </dependencies>\n</project>\n' % (name, body))


def resolve(name, deps, transitive=True, drop=None):
    """The folder of jars for deps [(group, artifact, version)], built once (complete or absent)."""
    target = os.path.join(cache_dir(), name)
    stamp = os.path.join(target, STAMP)
    if os.path.isfile(stamp):
        return target
    if name in _FAILED:
        raise RuntimeError(_FAILED[name])
    if not shutil.which("mvn"):
        raise RuntimeError("no Maven (mvn) to resolve %s from Maven Central" % name)
    os.makedirs(cache_dir(), exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-%s-" % name, dir=cache_dir())
    try:
        with open(os.path.join(work, "pom.xml"), "w") as fh:
            fh.write(_pom(name, deps))
        jars = os.path.join(work, "jars")
        argv = ["org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies", "-DincludeScope=runtime",
                "-DoutputDirectory=%s" % jars]
        if not transitive:
            argv.append("-DexcludeTransitive=true")
        try:
            dists._mvn(argv, work, os.path.join(work, "mvn.log"))
        except RuntimeError as exc:
            _FAILED[name] = "Maven Central did not serve %s: %s" % (name, str(exc)[-600:])
            raise RuntimeError(_FAILED[name])
        dropped = []
        for jar in sorted(os.listdir(jars)):
            if drop and drop(jar):
                os.remove(os.path.join(jars, jar))
                dropped.append(jar)
        with open(os.path.join(jars, STAMP), "w") as fh:
            json.dump({"asked": ["%s:%s:%s" % d for d in deps], "dropped": dropped,
                       "jars": sorted(j for j in os.listdir(jars) if j.endswith(".jar"))}, fh, indent=1)
        if os.path.exists(target):
            shutil.rmtree(target)
        os.rename(jars, target)
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def jmx_exporter_jar(version="1.0.1"):
    folder = resolve("jmx-exporter-%s" % version, [("io.prometheus.jmx", "jmx_prometheus_javaagent", version)],
                     transitive=False)
    return os.path.join(folder, "jmx_prometheus_javaagent-%s.jar" % version)


def _pyspark():
    try:
        import pyspark
    except ImportError:
        return None
    return pyspark


def spark_kafka_jars():
    """Spark's official Kafka connector for the pyspark installed here, and what --packages would add to it."""
    pyspark = _pyspark()
    if pyspark is None:
        raise RuntimeError("no pyspark")
    version = pyspark.__version__
    shipped = os.path.join(os.path.dirname(os.path.abspath(pyspark.__file__)), "jars")
    present = set()
    for jar in os.listdir(shipped) if os.path.isdir(shipped) else ():
        present.add(_artifact_of(jar))

    folder = resolve("spark-kafka-%s" % version,
                     [("org.apache.spark", "spark-sql-kafka-0-10_2.13", version)],
                     drop=lambda jar: _artifact_of(jar) in present)
    return sorted(os.path.join(folder, j) for j in os.listdir(folder) if j.endswith(".jar"))


def spark_kafka_dir():
    return os.path.dirname(spark_kafka_jars()[0])


def _artifact_of(jar):
    """'kafka-clients-3.9.0.jar' -> 'kafka-clients'."""
    parts = jar[:-4].split("-") if jar.endswith(".jar") else jar.split("-")
    for i, part in enumerate(parts):
        if part[:1].isdigit() and i > 0:
            return "-".join(parts[:i])
    return "-".join(parts)


def skip_reason_jmx(version):
    try:
        jmx_exporter_jar(version)
    except RuntimeError as exc:
        return str(exc)
    return None


def skip_reason(what):
    """None when `what` ("jmx-exporter", "spark-kafka") is available (built if needed), else why not."""
    try:
        if what == "jmx-exporter":
            jmx_exporter_jar()
        elif what == "spark-kafka":
            spark_kafka_jars()
        else:
            raise KeyError(what)
    except RuntimeError as exc:
        return str(exc)
    return None


def main():
    failed = 0
    for label, build in [("jmx-exporter %s" % v, lambda v=v: jmx_exporter_jar(v)) for v in JMX_EXPORTER_VERSIONS] + \
            [("spark-kafka", spark_kafka_jars)]:
        try:
            result = build()
            print("%s: %s" % (label, result if isinstance(result, str) else os.path.dirname(result[0])))
        except RuntimeError as exc:
            failed += 1
            print("%s: %s" % (label, exc), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
