"""Official Apache Kafka distributions for tests, assembled from Maven Central (Python 3 only).

An official Kafka of a version is its release's own ``bin/`` and ``config/`` (../shared/kafka-bin/<scripts>) plus
``libs/`` resolved from Maven Central by Maven itself (a small generated POM, ``mvn dependency:copy-dependencies``,
runtime scope). Distributions are cached outside the project (``$MM2_KAFKA_DIST_CACHE``, else
``$MM2_CACHE/kafka``, else ``~/.cache/mm2-mpack/kafka``), one folder per version, built in a temporary folder and
renamed into place only when complete (an interrupted build leaves nothing half-written; the next call starts over).
``<dist>/mm2-dist.json`` is the stamp: what was asked, what Maven resolved (every jar), and the script source.

    python3 tests/realkafka/dists.py list                 # the versions this knows, and which are built
    python3 tests/realkafka/dists.py build 2.8.2 3.9      # build (idempotent): prints each Kafka home
    python3 tests/realkafka/dists.py home 3.9             # the Kafka home of a built version (exit 1 if not built)
    python3 tests/realkafka/dists.py versions             # resolved versions of every built one (markdown)

Where the Maven Central this machine reaches does not serve a version's jars, the table says which release of the
line is used instead and why (``served_instead``); nothing is mixed across releases.

Adaptation of the 4.0 HEAD scripts (../shared/kafka-bin/4.0-head is 4.0.0-SNAPSHOT of 2024-10-25, still log4j 1):
4.x releases ship log4j2 only (KIP-653; no log4j 1 on the class path), so for 4.x this writes log4j2 YAML configs
(``config/log4j2.yaml``, ``connect-log4j2.yaml``, ``tools-log4j2.yaml``, same appenders and files as the log4j 1
ones) and points the four places that name a log4j 1 file at them: ``bin/kafka-run-class.sh`` (tools default),
``bin/kafka-server-start.sh``, ``bin/connect-mirror-maker.sh``, ``bin/connect-distributed.sh`` and
``bin/connect-standalone.sh``. Nothing else in the scripts changes.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED_DIR = os.environ.get("MM2_SHARED_DIR") or os.path.join(os.path.dirname(REPO_ROOT), "shared")
KAFKA_BIN = os.path.join(SHARED_DIR, "kafka-bin")
CACHE_ENV = "MM2_KAFKA_DIST_CACHE"
STAMP = "mm2-dist.json"
STAMP_FORMAT = 2
MVN_TIMEOUT = 1800

_LOG4J1_2X = [("log4j", "log4j", "1.2.17")]
_RELOAD4J = [("ch.qos.reload4j", "reload4j", "1.2.25"), ("org.slf4j", "slf4j-reload4j", "1.7.36")]
_LOG4J2 = [("org.apache.logging.log4j", a, "2.24.3")
           for a in ("log4j-api", "log4j-core", "log4j-slf4j-impl", "log4j-1.2-api")]


class Dist(object):
    """One version of the matrix: the release whose jars are used, its scripts, its logging binding."""

    def __init__(self, name, release, scripts, logging, zookeeper_only=False, served_instead=None,
                 mirror_source=None):
        self.name = name                  # what tests ask for (MM2_TEST_KAFKA_VERSION)
        self.release = release            # the Kafka release whose jars make libs/
        self.scripts = scripts            # ../shared/kafka-bin/<scripts>
        self.logging = logging            # [(group, artifact, version)] the distribution ships for logging
        self.zookeeper_only = zookeeper_only
        self.served_instead = served_instead   # why release differs from the name's patch, if it does
        self.mirror_source = mirror_source     # why connect-mirror is built from the release source

    @property
    def line(self):
        return ".".join(self.release.split(".")[:2])

    @property
    def log4j2(self):
        return int(self.release.split(".")[0]) >= 4

    def artifacts(self):
        major, minor = (int(x) for x in self.release.split(".")[:2])
        # connect-basic-auth-extension: in every release tarball since 2.0 (connect mode's HTTPS + Basic auth REST)
        arts = ["kafka_2.13", "kafka-clients", "connect-api", "connect-runtime", "connect-json", "connect-transforms",
                "kafka-tools", "connect-basic-auth-extension"]
        if not self.mirror_source:
            arts += ["connect-mirror", "connect-mirror-client"]
        if major >= 3:
            arts += ["kafka-storage", "kafka-server-common", "kafka-metadata", "kafka-raft"]
        if (major, minor) >= (3, 9):
            arts += ["kafka-server"]
        return [("org.apache.kafka", a, self.release) for a in arts]

    def slf4j_binding(self):
        """2.x: slf4j-log4j12 of the slf4j the release uses (read from its kafka_2.13 POM by Maven)."""
        return self.logging


# Every Kafka line operators run (issue 21). "3.9" and "4.0" / "4" are the newest patch / release Maven Central
# serves completely on this network (checked 2026-11-26: connect-mirror is absent for 2.4.x, 3.2.3, 4.0.1, 4.4.0;
# connect-basic-auth-extension for 3.9.2).
DISTS = dict((d.name, d) for d in [
    Dist("2.4.1", "2.4.1", "2.4.1", _LOG4J1_2X + [("org.slf4j", "slf4j-log4j12", "1.7.28")], zookeeper_only=True,
         mirror_source="Maven Central serves no connect-mirror / connect-mirror-client 2.4.x"),
    Dist("2.8.2", "2.8.2", "2.8.2", _LOG4J1_2X + [("org.slf4j", "slf4j-log4j12", "1.7.30")], zookeeper_only=True),
    Dist("3.2.3", "3.2.0", "3.2.3", _RELOAD4J,
         served_instead="Maven Central serves no connect-mirror 3.2.3 (nor 3.2.1/3.2.2); 3.2.0 is HDInsight 5.1's "
                        "release, and bin/ of 3.2.0 and 3.2.3 differ only in bin/windows"),
    Dist("3.4.1", "3.4.1", "3.4.1", _RELOAD4J),
    Dist("3.6.2", "3.6.2", "3.6.2", _RELOAD4J),
    Dist("3.9", "3.9.1", "3.9.0", _RELOAD4J,
         served_instead="Maven Central serves no connect-basic-auth-extension 3.9.2 (the rest of 3.9.2 is served)"),
    Dist("4.0", "4.0.2", "4.0-head", _LOG4J2),
    Dist("4", "4.3.1", "4.0-head", _LOG4J2,
         served_instead="4.4.0 is the newest kafka_2.13, but Maven Central serves no connect-mirror 4.4.0"),
])
ALIASES = {"3.2.0": "3.2.3", "3.9.1": "3.9", "3.9.2": "3.9", "4.0.2": "4.0", "4.3.1": "4", "4.x": "4", "newest": "4", "2.4": "2.4.1",
           "2.8": "2.8.2", "3.2": "3.2.3", "3.4": "3.4.1", "3.6": "3.6.2"}
DEFAULT = "3.9"


def dist(name):
    name = ALIASES.get(name, name)
    if name not in DISTS:
        raise KeyError("unknown Kafka version %r: one of %s" % (name, ", ".join(sorted(DISTS))))
    return DISTS[name]


def cache_root():
    if os.environ.get(CACHE_ENV):
        return os.environ[CACHE_ENV]
    if os.environ.get("MM2_CACHE"):
        return os.path.join(os.environ["MM2_CACHE"], "kafka")
    return os.path.join(os.path.expanduser("~"), ".cache", "mm2-mpack", "kafka")


def home_of(name):
    return os.path.join(cache_root(), dist(name).release)


def built(name):
    """The stamp of a complete build of this version, or None."""
    try:
        with open(os.path.join(home_of(name), STAMP)) as fh:
            stamp = json.load(fh)
    except (IOError, ValueError):
        return None
    if stamp.get("format") != STAMP_FORMAT:
        return None
    # a build from before an artifact joined the list (connect-basic-auth-extension did) is rebuilt
    wanted = set(a for _, a, _ in dist(name).artifacts())
    return stamp if wanted <= set(stamp.get("jars", {})) else None


def skip_reason(name):
    """None when the version can be built here (or is built), else why not."""
    if built(name):
        return None
    d = dist(name)
    if not os.path.isdir(os.path.join(KAFKA_BIN, d.scripts, "bin")):
        return "no Kafka %s scripts at %s" % (d.scripts, os.path.join(KAFKA_BIN, d.scripts))
    if not shutil.which("mvn"):
        return "no Maven (mvn) to resolve Kafka %s's jars from Maven Central" % d.release
    if d.mirror_source and not mirror_source_dir():
        return "Kafka %s: %s, and no apache/kafka git clone (MM2_KAFKA_GIT) to build it from the release source" % (
            d.release, d.mirror_source)
    return None


def mirror_source_dir():
    """An apache/kafka git directory with the release tags (to build a connect-mirror Maven Central lacks)."""
    candidate = os.environ.get("MM2_KAFKA_GIT")
    return candidate if candidate and os.path.isdir(candidate) else None


# ---------------------------------------------------------------------------------------------------------------

def pom(d):
    deps = "".join(
        "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n"
        % a for a in d.artifacts() + d.slf4j_binding())
    return """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>mm2-mpack.tests</groupId>
  <artifactId>kafka-dist-%s</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
%s  </dependencies>
</project>
""" % (d.release, deps)


def _mvn(argv, cwd, log):
    with open(log, "a") as out:
        proc = subprocess.Popen(["mvn", "-B", "-e"] + argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            code = proc.wait(timeout=MVN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            raise RuntimeError("mvn did not finish within %ss (log: %s)" % (MVN_TIMEOUT, log))
    if code != 0:
        with open(log) as fh:
            tail = fh.read()[-3000:]
        raise RuntimeError("mvn %s failed (%s); log %s:\n%s" % (argv[-1], code, log, tail))


def _resolve_libs(d, work, log):
    with open(os.path.join(work, "pom.xml"), "w") as fh:
        fh.write(pom(d))
    libs = os.path.join(work, "libs")
    _mvn(["org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies", "-DincludeScope=runtime",
          "-DoutputDirectory=%s" % libs], work, log)
    return libs


def _build_mirror_from_source(d, work, libs, log):
    """connect-mirror and connect-mirror-client of the release, compiled from the release tag's source (javac
    --release 8 against the release's own jars); only for a release Maven Central lacks them for."""
    git = mirror_source_dir()
    src = os.path.join(work, "mirror-src")
    os.makedirs(src)
    for module, jar in (("connect/mirror-client", "connect-mirror-client"), ("connect/mirror", "connect-mirror")):
        tree = os.path.join(src, jar)
        os.makedirs(tree)
        archive = subprocess.run(["git", "--git-dir", git, "archive", d.release, module + "/src/main"],
                                 capture_output=True, timeout=300)
        if archive.returncode != 0:
            raise RuntimeError("git archive %s %s failed: %s" % (d.release, module, archive.stderr[-500:]))
        subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True, timeout=120)
        sources = []
        for base, _, files in os.walk(os.path.join(tree, module, "src", "main", "java")):
            sources += [os.path.join(base, f) for f in files if f.endswith(".java")]
        classes = os.path.join(tree, "classes")
        os.makedirs(classes)
        cp = ":".join(os.path.join(libs, f) for f in sorted(os.listdir(libs)))
        javac = subprocess.run(["javac", "-nowarn", "--release", "8", "-encoding", "UTF-8", "-cp", cp, "-d", classes]
                               + sources, capture_output=True, text=True, timeout=600)
        if javac.returncode != 0:
            raise RuntimeError("javac of %s %s failed: %s" % (module, d.release, javac.stderr[-2000:]))
        resources = os.path.join(tree, module, "src", "main", "resources")
        if os.path.isdir(resources):
            shutil.copytree(resources, classes, dirs_exist_ok=True)
        target = os.path.join(libs, "%s-%s.jar" % (jar, d.release))
        subprocess.run(["jar", "cf", target, "-C", classes, "."], check=True, timeout=120)
        with open(log, "a") as fh:
            fh.write("built %s from %s:%s (%d sources)\n" % (os.path.basename(target), d.release, module, len(sources)))
    shutil.rmtree(src)


_LOG4J2_YAML = """Configuration:
  Properties:
    Property:
      - name: "kafka.logs.dir"
        value: "."
      - name: "logPattern"
        value: "[%%d] %%p %%m (%%c)%%n"
  Appenders:
    Console:
      name: STDOUT
      target: %(console)s
      PatternLayout:
        pattern: "${logPattern}"
%(files)s
  Loggers:
    Root:
      level: %(root)s
      AppenderRef:
%(refs)s
%(loggers)s"""


def _log4j2_config(files, root="INFO", loggers="", console="SYSTEM_OUT"):
    """A log4j2 YAML: the console plus daily-rolled files [(appender name, file name)] under kafka.logs.dir."""
    blocks = []
    if files:
        blocks.append("    RollingFile:")
        for name, fname in files:
            blocks.append('      - name: %s\n        fileName: "${sys:kafka.logs.dir}/%s"\n'
                          '        filePattern: "${sys:kafka.logs.dir}/%s.%%d{yyyy-MM-dd-HH}"\n'
                          '        PatternLayout:\n          pattern: "${logPattern}"\n'
                          '        TimeBasedTriggeringPolicy:\n          modulate: true\n          interval: 1'
                          % (name, fname, fname))
    refs = "        - ref: STDOUT\n" + "".join("        - ref: %s\n" % n for n, _ in files[:1])
    return _LOG4J2_YAML % {"files": "\n".join(blocks), "root": root, "refs": refs.rstrip("\n"),
                           "loggers": loggers, "console": console}


def _adapt_for_log4j2(home):
    """4.x: log4j2 configs and the script lines that name them (see the module docstring)."""
    conf = os.path.join(home, "config")
    with open(os.path.join(conf, "log4j2.yaml"), "w") as fh:
        fh.write(_log4j2_config([("kafkaAppender", "server.log")]))
    with open(os.path.join(conf, "connect-log4j2.yaml"), "w") as fh:
        fh.write(_log4j2_config([("connectAppender", "connect.log")]))
    with open(os.path.join(conf, "tools-log4j2.yaml"), "w") as fh:
        fh.write(_log4j2_config([], root="WARN", console="SYSTEM_ERR"))   # tools print records on stdout
    edits = {
        "kafka-server-start.sh": ("-Dlog4j.configuration=file:$base_dir/../config/log4j.properties",
                                  "-Dlog4j2.configurationFile=$base_dir/../config/log4j2.yaml"),
        "connect-mirror-maker.sh": ("-Dlog4j.configuration=file:$base_dir/../config/connect-log4j.properties",
                                    "-Dlog4j2.configurationFile=$base_dir/../config/connect-log4j2.yaml"),
        "connect-distributed.sh": ("-Dlog4j.configuration=file:$base_dir/../config/connect-log4j.properties",
                                   "-Dlog4j2.configurationFile=$base_dir/../config/connect-log4j2.yaml"),
        "connect-standalone.sh": ("-Dlog4j.configuration=file:$base_dir/../config/connect-log4j.properties",
                                  "-Dlog4j2.configurationFile=$base_dir/../config/connect-log4j2.yaml"),
    }
    for script, (old, new) in edits.items():
        _replace(os.path.join(home, "bin", script), old, new)
    run_class = os.path.join(home, "bin", "kafka-run-class.sh")
    _replace(run_class, 'LOG4J_DIR="$base_dir/config/tools-log4j.properties"',
             'LOG4J_DIR="$base_dir/config/tools-log4j2.yaml"')
    _replace(run_class, 'KAFKA_LOG4J_OPTS="-Dlog4j.configuration=file:${LOG4J_DIR}"',
             'KAFKA_LOG4J_OPTS="-Dlog4j2.configurationFile=${LOG4J_DIR}"')


def _replace(path, old, new):
    with open(path) as fh:
        text = fh.read()
    if old not in text:
        raise RuntimeError("cannot adapt %s for log4j2: %r not found" % (path, old))
    with open(path, "w") as fh:
        fh.write(text.replace(old, new))


def _jar_versions(libs):
    """{artifact: version} of every jar in libs (file names as Maven copies them: <artifact>-<version>.jar)."""
    out = {}
    for name in sorted(os.listdir(libs)):
        if not name.endswith(".jar"):
            continue
        base = name[:-4]
        cuts = [m.start() for m in re.finditer(r"-\d", base)]
        # the version starts at the first "-<digit>" unless letters follow before the next one
        # (log4j-1.2-api-2.24.3: artifact log4j-1.2-api; zstd-jni-1.4.9-1: version 1.4.9-1)
        cut = None
        for i, pos in enumerate(cuts):
            segment = base[pos + 1:cuts[i + 1]] if i + 1 < len(cuts) else ""
            if i + 1 < len(cuts) and re.search(r"-[A-Za-z]", segment):
                continue
            cut = pos
            break
        if cut is None:
            out[base] = ""
        else:
            out[base[:cut]] = base[cut + 1:]
    return out


def build(name, log=sys.stderr):
    """The Kafka home of the version, built if missing (idempotent; complete or absent)."""
    d = dist(name)
    home = home_of(name)
    if built(name):
        return home
    reason = skip_reason(name)
    if reason:
        raise RuntimeError(reason)
    root = cache_root()
    os.makedirs(root, exist_ok=True)
    started = time.time()
    work = tempfile.mkdtemp(prefix=".build-%s-" % d.release, dir=root)
    mvn_log = os.path.join(work, "mvn.log")
    try:
        libs = _resolve_libs(d, work, mvn_log)
        if d.mirror_source:
            _build_mirror_from_source(d, work, libs, mvn_log)
        staged = os.path.join(work, "kafka")
        os.makedirs(staged)
        shutil.copytree(os.path.join(KAFKA_BIN, d.scripts, "bin"), os.path.join(staged, "bin"), symlinks=True)
        shutil.copytree(os.path.join(KAFKA_BIN, d.scripts, "config"), os.path.join(staged, "config"), symlinks=True)
        shutil.move(libs, os.path.join(staged, "libs"))
        if d.log4j2:
            _adapt_for_log4j2(staged)
        jars = _jar_versions(os.path.join(staged, "libs"))
        if jars.get("kafka-clients") != d.release:
            raise RuntimeError("Maven resolved kafka-clients %s for Kafka %s" % (jars.get("kafka-clients"), d.release))
        stamp = {"format": STAMP_FORMAT, "name": d.name, "release": d.release, "scripts": d.scripts,
                 "scripts_source": _read(os.path.join(KAFKA_BIN, d.scripts, "SOURCE")).strip(),
                 "served_instead": d.served_instead, "mirror_from_source": d.mirror_source,
                 "log4j2_adapted": d.log4j2, "jars": jars, "build_seconds": round(time.time() - started, 1)}
        with open(os.path.join(staged, STAMP), "w") as fh:
            json.dump(stamp, fh, indent=1, sort_keys=True)
        if os.path.exists(home):     # an older, unstamped or other-format folder
            shutil.rmtree(home)
        os.rename(staged, home)
        log.write("Kafka %s built at %s in %.0fs (%d jars)\n" % (d.release, home, time.time() - started, len(jars)))
        return home
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _read(path):
    try:
        with open(path) as fh:
            return fh.read()
    except IOError:
        return ""


KEY_JARS = ("kafka-clients", "kafka_2.13", "connect-mirror", "connect-runtime", "kafka-tools", "zookeeper",
            "scala-library", "jackson-databind", "slf4j-api", "log4j", "reload4j", "slf4j-log4j12", "slf4j-reload4j",
            "log4j-core", "log4j-slf4j-impl")


def versions_markdown():
    rows = ["| asked | release | scripts | " + " | ".join(KEY_JARS) + " | jars | note |",
            "|" + "---|" * (len(KEY_JARS) + 5)]
    for name in sorted(DISTS, key=lambda n: [int(x) for x in DISTS[n].release.split(".")]):
        stamp = built(name)
        if not stamp:
            rows.append("| %s | (not built) |" % name)
            continue
        jars = _jar_versions(os.path.join(home_of(name), "libs"))
        note = "; ".join(x for x in (stamp.get("served_instead"), stamp.get("mirror_from_source") and
                                     "connect-mirror built from the %s source: %s" % (
                                         stamp["release"], stamp["mirror_from_source"]),
                                     stamp.get("log4j2_adapted") and "4.0-head scripts adapted for log4j2") if x)
        rows.append("| %s | %s | %s | %s | %d | %s |" % (name, stamp["release"], stamp["scripts"],
                                                         " | ".join(jars.get(j, "-") for j in KEY_JARS),
                                                         len(jars), note))
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    b = sub.add_parser("build")
    b.add_argument("versions", nargs="*", help="default: every version")
    h = sub.add_parser("home")
    h.add_argument("version")
    sub.add_parser("versions")
    args = parser.parse_args(argv)
    if args.cmd == "list":
        for name in sorted(DISTS, key=lambda n: [int(x) for x in DISTS[n].release.split(".")]):
            d = DISTS[name]
            print("%-6s release %-6s scripts %-9s %s" % (name, d.release, d.scripts,
                                                          "built" if built(name) else skip_reason(name) or "buildable"))
        return 0
    if args.cmd == "home":
        if not built(args.version):
            print("Kafka %s is not built (python3 %s build %s)" % (args.version, __file__, args.version),
                  file=sys.stderr)
            return 1
        print(home_of(args.version))
        return 0
    if args.cmd == "versions":
        sys.stdout.write(versions_markdown())
        return 0
    failed = 0
    for name in args.versions or sorted(DISTS):
        try:
            print(build(name))
        except (RuntimeError, KeyError) as exc:
            failed += 1
            print("Kafka %s: %s" % (name, exc), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
