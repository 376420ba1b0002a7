"""What mm2-verify checks before it starts Spark (which takes 10-40 s and answers bad input with
Java stack traces): pyspark is importable, Java is there and new enough, every dump path exists,
holds data files, and is in the format the job will read it as.

Each check answers within a second with a message naming the input and how to fix it.
"""
import importlib.util
import os
import re
import shutil
import subprocess

from mm2_verify_job.spec import BadInput

PARQUET_MAGIC = b"PAR1"
INSTALL_HINT = ("pip install 'kafka-mirrormaker2-mpack-tools[verify]' into the same environment (from a checkout: "
                "pip install '.[verify]'), which brings pyspark and matplotlib; Spark also needs Java 17")


class Missing(Exception):
    """A prerequisite (pyspark, Java) is missing: exit 3 (the job cannot run), not bad input."""


def pyspark_version():
    """The installed pyspark's version, or raise Missing saying how to install it."""
    if importlib.util.find_spec("pyspark") is None:
        raise Missing("mm2-verify runs the comparison with PySpark, which is not installed: " + INSTALL_HINT)
    try:
        from importlib import metadata
        return metadata.version("pyspark")
    except Exception:  # a pyspark without metadata (e.g. SPARK_HOME/python on PYTHONPATH)
        import pyspark
        return getattr(pyspark, "__version__", "")


def java_command(environ=None):
    """(the java executable Spark will start, where it came from), or raise Missing."""
    environ = os.environ if environ is None else environ
    home = environ.get("JAVA_HOME", "")
    if home:
        java = os.path.join(home, "bin", "java")
        if not os.path.isdir(home):
            raise Missing("JAVA_HOME=%s is not a directory: point JAVA_HOME at a JDK 17 (the directory holding "
                          "bin/java, e.g. /usr/lib/jvm/java-17-openjdk-amd64) or unset it to use java on PATH"
                          % home)
        if not (os.path.isfile(java) and os.access(java, os.X_OK)):
            raise Missing("JAVA_HOME=%s has no executable bin/java: point JAVA_HOME at a JDK 17 (the directory "
                          "holding bin/java), or unset it to use java on PATH" % home)
        return java, "JAVA_HOME"
    java = shutil.which("java", path=environ.get("PATH"))
    if not java:
        raise Missing("no Java: Spark needs Java 17 (java on PATH, or JAVA_HOME). Install a JDK 17, e.g. "
                      "apt-get install openjdk-17-jre-headless or dnf install java-17-openjdk-headless")
    return java, "PATH"


def java_major(java):
    """The major version `java -version` reports (8 for 1.8), or None when it cannot tell."""
    try:
        proc = subprocess.run([java, "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        raise Missing("%s -version did not run (%s): point JAVA_HOME at a working JDK 17" % (java, exc))
    match = re.search(r'version "(\d+)(?:\.(\d+))?', proc.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def check_runtime(environ=None):
    """Java first (a wrong JAVA_HOME is the likelier mistake and needs no pyspark to tell), then pyspark,
    then whether that Java is new enough for that pyspark. Returns the java executable."""
    java_command(environ)
    return check_java(pyspark_version(), environ)


def check_java(spark_version, environ=None):
    java, origin = java_command(environ)
    major = java_major(java)
    needed = 17 if spark_version.split(".")[0].isdigit() and int(spark_version.split(".")[0]) >= 4 else 8
    if major is not None and major < needed:
        raise Missing("%s (from %s) is Java %d, but pyspark %s needs Java %d or newer: point JAVA_HOME at a "
                      "JDK %d" % (java, origin, major, spark_version, needed, max(needed, 17)))
    return java


# --- dumps -----------------------------------------------------------------------------------------
def _is_local(path):
    return "://" not in path or path.startswith("file://")


def _data_files(path):
    """The files Spark reads under a dump path (hidden and _metadata/_SUCCESS files skipped)."""
    if os.path.isfile(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found.extend(os.path.join(root, f) for f in sorted(files) if not f.startswith((".", "_")))
    return found


def file_format(path):
    """'parquet', 'json' or None, from the first bytes of one file."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head[:4] == PARQUET_MAGIC:
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] == b"{":
        return "json"
    return None


def check_dump(side, path, given):
    """The format to read ``path`` as (detected, or ``given`` when it matches); BadInput otherwise."""
    flag = "--%s-dump" % side
    if not _is_local(path):
        return given  # hdfs://, s3a://...: Spark checks it
    local = path[len("file://"):] if path.startswith("file://") else path
    if not os.path.exists(local):
        raise BadInput("%s %s: no such file or directory; give the directory (or file) the %s side was dumped to"
                       % (flag, path, side))
    try:
        files = _data_files(local)
    except OSError as exc:
        raise BadInput("%s %s: cannot be listed (%s)" % (flag, path, exc.strerror or exc))
    if not files:
        raise BadInput("%s %s: the directory holds no data files (only hidden or _ files, or nothing); dump the "
                       "%s topics there first, as Parquet or JSON Lines in Spark's Kafka schema" % (flag, path, side))
    formats = {}
    for name in files[:50]:
        try:
            fmt = file_format(name)
        except OSError as exc:
            raise BadInput("%s %s: %s cannot be read (%s)" % (flag, path, name, exc.strerror or exc))
        formats.setdefault(fmt, name)
    if None in formats:
        raise BadInput("%s %s: %s is neither Parquet nor JSON Lines; a dump holds only Parquet files or only JSON "
                       "Lines files (one record in Spark's Kafka schema per line)%s"
                       % (flag, path, formats[None], "" if given else "; or give --%s-dump-format" % side))
    if len(formats) > 1:
        raise BadInput("%s %s: mixes Parquet (%s) and JSON Lines (%s); keep one format per dump"
                       % (flag, path, formats["parquet"], formats["json"]))
    detected = next(iter(formats))
    if given and given != detected:
        raise BadInput("%s %s: the files are %s (e.g. %s) but --%s-dump-format %s was given; give --%s-dump-format "
                       "%s or leave it out (the format is detected)"
                       % (flag, path, "JSON Lines" if detected == "json" else "Parquet", formats[detected],
                          side, given, side, detected))
    return detected


def check_output(flag, path):
    """An output file (--report, --summary, --plot) must be writable before the run, not after it."""
    if not path:
        return
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise BadInput("%s %s: is a directory; give a file name" % (flag, path))
    if not os.path.isdir(directory):
        raise BadInput("%s %s: the directory %s does not exist; create it or give another path" % (flag, path, directory))
    if not os.access(directory, os.W_OK):
        raise BadInput("%s %s: the directory %s is not writable" % (flag, path, directory))
