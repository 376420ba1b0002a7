"""Where MM2 comes from on a host: the stack's Kafka, a separate Kafka home, or a tarball.

Pure stdlib, Python 2.7 and 3: choosing the installation, detecting its Kafka version from
its jars, checking the Java version, and unpacking a Kafka tarball safely and atomically.
"""
import os
import re
import shutil
import stat
import tarfile
import tempfile
import time

from mm2_core.config import names
from mm2_core.kafka import versions

LAUNCHER_REL = os.path.join("bin", "connect-mirror-maker.sh")
MIN_MM2_VERSION = versions.MIN_VERSION.key
TARBALL_MARKER = ".mm2-tarball-source"   # in an unpacked home: where it came from

AUTO, STACK, PATH, TARBALL = "auto", "stack", "path", "tarball"
SOURCES = (AUTO, STACK, PATH, TARBALL)

_P_SOURCE = names.ENV + "/kafka_install_source"
_P_HOME = names.ENV + "/kafka_home"
_P_URL = names.ENV + "/kafka_tarball_url"
_P_OVERRIDE = names.ENV + "/kafka_version_override"
_EXAMPLE_URL = "http://repo.example.com/kafka/kafka_2.12-3.7.1.tgz"

# libs/kafka-clients-3.7.1.jar, libs/kafka_2.13-3.7.1.jar; vendors append their build
# (HDP: kafka-clients-2.0.0.3.1.0.0-78.jar), so only the first three numbers count.
_CLIENTS_JAR = re.compile(r"^kafka-clients-(\d+\.\d+\.\d+[^/]*?)\.jar$")
_CORE_JAR = re.compile(r"^kafka_\d+\.\d+-(\d+\.\d+\.\d+[^/]*?)\.jar$")
_NOT_MAIN = ("-sources", "-javadoc", "-test", "-tests", "-scaladoc")


class InstallError(Exception):
    """A problem the operator must fix; str() says what is missing and how to provide it."""


def version_tuple(text):
    """(major, minor, patch) from '3.7.1', '2.0.0.3.1.0.0-78', '4.0.0-SNAPSHOT'; None if none."""
    try:
        return versions.KafkaVersion.parse(text).key
    except ValueError:
        return None


def version_str(vt):
    return ".".join(str(x) for x in vt)


def detect_version(kafka_home):
    """Kafka version string found in kafka_home/libs, or None."""
    libs = os.path.join(kafka_home, "libs")
    try:
        jars = sorted(os.listdir(libs))
    except OSError:
        return None
    for pattern in (_CLIENTS_JAR, _CORE_JAR):
        for jar in jars:
            m = pattern.match(jar)
            if m and not any(s in m.group(1) for s in _NOT_MAIN):
                return m.group(1)
    return None


class KafkaHome(object):
    """What is at a path: a launcher, a version."""

    def __init__(self, path):
        self.path = path
        self.exists = bool(path) and os.path.isdir(path)
        self.launcher = os.path.join(path, LAUNCHER_REL) if path else None
        self.has_launcher = bool(path) and os.path.isfile(self.launcher)
        self.version = detect_version(path) if self.exists else None
        self.version_tuple = version_tuple(self.version)

    @property
    def has_mm2(self):
        return self.has_launcher and (self.version_tuple is None or self.version_tuple >= MIN_MM2_VERSION)

    def describe(self):
        if not self.exists:
            return "nothing at %s" % self.path
        version = self.version or "of unknown version (no libs/kafka-clients-*.jar)"
        if not self.has_launcher:
            return "Kafka %s at %s has no %s" % (version, self.path, LAUNCHER_REL)
        return "Kafka %s at %s" % (version, self.path)


class Plan(object):
    """The installation chosen: kafka_home to run from, and how it got (or gets) there."""

    def __init__(self, source, kafka_home, tarball_url=None, notes=()):
        self.source = source
        self.kafka_home = kafka_home
        self.tarball_url = tarball_url
        self.notes = list(notes)

    @property
    def launcher(self):
        return os.path.join(self.kafka_home, LAUNCHER_REL)

    def __repr__(self):
        return "Plan(%r, %r, %r)" % (self.source, self.kafka_home, self.tarball_url)


def _stack_problem(stack):
    if stack is None:
        return "this stack has no Kafka of its own"
    if not stack.exists:
        return "the stack's Kafka is not installed on this host (%s)" % stack.path
    if stack.has_launcher and not stack.has_mm2:
        return ("stack Kafka is %s, which has no MirrorMaker 2 (needs Kafka %s or newer)"
                % (stack.version, version_str(MIN_MM2_VERSION)))
    if not stack.has_launcher:
        return ("stack Kafka%s at %s has no MirrorMaker 2 (no %s; MirrorMaker 2 needs Kafka %s or newer)"
                % (" " + stack.version if stack.version else "", stack.path, LAUNCHER_REL,
                   version_str(MIN_MM2_VERSION)))
    return None


def _how_to_fix():
    return ("set %s to a Kafka %s+ distribution on this host, or %s to a Kafka %s+ tarball "
            "(http(s) URL or local path, e.g. %s) so install unpacks it there"
            % (_P_HOME, version_str(MIN_MM2_VERSION), _P_URL, version_str(MIN_MM2_VERSION), _EXAMPLE_URL))


def choose(source, stack_home, kafka_home, tarball_url, installing=False):
    """Pick the installation per kafka-mm2-env/kafka_install_source.

    stack_home: the stack Kafka's home on this host (None when the stack has none).
    installing: at install time a tarball is still to be unpacked; later the unpacked
    kafka_home must be there. Raises InstallError with what is missing and how to fix it.
    """
    source = (source or AUTO).strip().lower()
    if source not in SOURCES:
        raise InstallError("%s is %r: use one of %s" % (_P_SOURCE, source, ", ".join(SOURCES)))
    tarball_url = (tarball_url or "").strip()
    stack = KafkaHome(stack_home) if stack_home else None
    separate = KafkaHome(kafka_home) if kafka_home else None

    if source == STACK:
        problem = _stack_problem(stack)
        if problem:
            raise InstallError("%s is 'stack' but %s: install the stack's Kafka on this host, or "
                               "set %s to 'auto' and %s" % (_P_SOURCE, problem, _P_SOURCE, _how_to_fix()))
        return Plan(STACK, stack.path)
    if source == PATH:
        if not kafka_home:
            raise InstallError("%s is 'path' but %s is empty: %s" % (_P_SOURCE, _P_HOME, _how_to_fix()))
        if not separate.has_mm2:
            raise InstallError("%s is 'path' but %s=%s holds %s: point it at a Kafka %s+ "
                               "distribution (with %s)" % (
                                   _P_SOURCE, _P_HOME, kafka_home, separate.describe(),
                                   version_str(MIN_MM2_VERSION), LAUNCHER_REL))
        return Plan(PATH, separate.path)
    if source == TARBALL:
        return _tarball_plan(separate, kafka_home, tarball_url, installing, [])

    # auto: the stack's Kafka when it has MM2, then the separate home, then the tarball.
    notes = []
    problem = _stack_problem(stack)
    if problem is None:
        return Plan(STACK, stack.path)
    notes.append(problem)
    if separate is not None and separate.has_mm2:
        return Plan(PATH, separate.path, notes=notes)
    if tarball_url:
        return _tarball_plan(separate, kafka_home, tarball_url, installing, notes)
    found = [problem]
    if kafka_home:
        found.append("%s=%s: %s" % (_P_HOME, kafka_home, separate.describe()))
    found.append("%s is empty" % _P_URL)
    raise InstallError("No Kafka with MirrorMaker 2 for this host: %s. To fix: %s."
                       % ("; ".join(found), _how_to_fix()))


def _tarball_plan(separate, kafka_home, tarball_url, installing, notes):
    if not kafka_home:
        raise InstallError("%s is empty: it names where the tarball is unpacked (e.g. "
                           "/opt/kafka-mm2/current)" % _P_HOME)
    if not tarball_url:
        raise InstallError("%s is 'tarball' but %s is empty: %s" % (_P_SOURCE, _P_URL, _how_to_fix()))
    if not installing and not separate.has_mm2:
        raise InstallError("The Kafka tarball %s is not unpacked at %s=%s (%s): run Install "
                           "(Reinstall) for MirrorMaker 2 on this host" % (
                               tarball_url, _P_HOME, kafka_home, separate.describe()))
    return Plan(TARBALL, kafka_home, tarball_url, notes)


def effective_version(kafka_home, override):
    """(version string, how it was found); InstallError when neither is there."""
    override = (override or "").strip()
    if override:
        if version_tuple(override) is None:
            raise InstallError("%s=%r is not a Kafka version: use e.g. 3.7.1, or leave it empty to "
                               "detect the version from %s/libs" % (_P_OVERRIDE, override, kafka_home))
        return override, "%s" % _P_OVERRIDE
    found = detect_version(kafka_home)
    if not found:
        raise InstallError("Cannot tell the Kafka version of %s: no libs/kafka-clients-<version>.jar "
                           "or libs/kafka_<scala>-<version>.jar. Set %s (e.g. 3.7.1)"
                           % (kafka_home, _P_OVERRIDE))
    return found, "%s/libs" % kafka_home


def check_mm2_version(version):
    vt = version_tuple(version)
    if vt is None or vt < MIN_MM2_VERSION:
        raise InstallError("Kafka %s has no MirrorMaker 2 (needs %s or newer): %s"
                           % (version, version_str(MIN_MM2_VERSION), _how_to_fix()))
    return vt


# ---------------------------------------------------------------- Java

def java_major_from_release(text):
    """Major Java version from $JAVA_HOME/release (JAVA_VERSION="17.0.9" / "1.8.0_392")."""
    m = re.search(r'^JAVA_VERSION="?([0-9._]+)', text or "", re.M)
    return _java_major(m.group(1)) if m else None


def java_major_from_output(text):
    """Major Java version from `java -version` output (stderr)."""
    m = re.search(r'version "([0-9._]+)', text or "")
    return _java_major(m.group(1)) if m else None


def _java_major(version):
    parts = re.split(r"[._]", version)
    try:
        major = int(parts[0])
        if major == 1 and len(parts) > 1:
            major = int(parts[1])  # 1.8.0 -> 8
    except ValueError:
        return None
    return major


def java_requirement(kafka_vt):
    """(minimum, newest known to work) Java major for a Kafka line."""
    return versions.java_range(kafka_vt)


def check_java(kafka_version, java_major, java_home):
    """(errors, warnings) for running MM2 of kafka_version on that Java."""
    vt = version_tuple(kafka_version)
    minimum, newest = java_requirement(vt)
    where = "%s (%s/mm2_java_home, or Ambari's java_home when empty)" % (java_home, names.ENV)
    if java_major is None:
        return [], ["Could not determine the Java version of %s; Kafka %s needs Java %d+"
                    % (where, kafka_version, minimum)]
    if java_major < minimum:
        return ["Kafka %s needs Java %d or newer, but %s is Java %d: install a JDK %d and set "
                "%s/mm2_java_home to it" % (kafka_version, minimum, where, java_major, minimum,
                                            names.ENV)], []
    warnings = []
    if newest is not None and java_major > newest:
        warnings.append("Kafka %s is known to work up to Java %d; %s is Java %d"
                        % (kafka_version, newest, where, java_major))
    if java_major == 8 and versions.supports(vt, versions.JAVA8_DEPRECATED):
        warnings.append("Kafka %s deprecates Java 8 (removed in 4.0); prefer Java 11 or 17" % kafka_version)
    return [], warnings


# ---------------------------------------------------------------- tarball

class UnsafeArchive(InstallError):
    pass


def is_url(value):
    return bool(re.match(r"^https?://", (value or "").strip(), re.I))


def fetch(url_or_path, dest_dir, timeout=120, urlopen=None):
    """Local path of the artifact: a plain path (or file://) is used in place, an http(s) URL
    is downloaded into dest_dir (to a temp name, renamed when complete)."""
    value = url_or_path.strip()
    if value.lower().startswith("file://"):
        value = value[len("file://"):]
    if not is_url(value):
        if not os.path.isfile(value):
            raise InstallError("%s does not exist on this host" % value)
        return value
    if urlopen is None:
        try:
            from urllib.request import urlopen
        except ImportError:  # Python 2.7
            from urllib2 import urlopen
    name = os.path.basename(value.split("?", 1)[0].rstrip("/")) or "download"
    target = os.path.join(dest_dir, name)
    fd, tmp = tempfile.mkstemp(prefix=".download-", dir=dest_dir)
    try:
        try:
            response = urlopen(value, timeout=timeout)
        except Exception as e:  # URLError, HTTPError, socket errors: all mean "could not get it"
            raise InstallError("Cannot download %s: %s" % (value, e))
        try:
            with os.fdopen(fd, "wb") as out:
                fd = None
                while True:
                    chunk = response.read(1024 * 1024)
                    if not chunk:
                        break
                    out.write(chunk)
        finally:
            response.close()
        os.chmod(tmp, 0o644)
        os.rename(tmp, target)
        tmp = None
    finally:
        if fd is not None:
            os.close(fd)
        if tmp and os.path.exists(tmp):
            os.remove(tmp)
    return target


def _inside(root, path):
    root = os.path.normpath(root)
    path = os.path.normpath(path)
    return path == root or path.startswith(root + os.sep)


def check_members(members):
    """The single top-level directory of a tarball whose members are all safe to extract.

    Refused: absolute names, '..', links pointing outside the top directory, devices and
    fifos, several top-level entries (Kafka tarballs have one: kafka_<scala>-<version>/).
    """
    tops = set()
    for m in members:
        name = m.name
        if "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            raise UnsafeArchive("unsafe absolute member name %r" % name)
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if not parts:
            continue
        if ".." in parts:
            raise UnsafeArchive("member %r escapes the archive with '..'" % name)
        if not (m.isdir() or m.isfile() or m.issym() or m.islnk()):
            raise UnsafeArchive("member %r is a device, fifo or other special file" % name)
        if m.issym() or m.islnk():
            link = m.linkname
            if link.startswith("/"):
                raise UnsafeArchive("link %r points to the absolute path %r" % (name, link))
            base = "/".join(parts[:-1]) if m.issym() else ""
            resolved = os.path.normpath(os.path.join("/x", base, link))
            if not _inside("/x/" + parts[0], resolved):
                raise UnsafeArchive("link %r points outside the archive (%r)" % (name, link))
        tops.add(parts[0])
    if len(tops) != 1:
        raise UnsafeArchive("expected one top-level directory, found %s" % (sorted(tops) or "none"))
    top = tops.pop()
    if top in (".", ".."):
        raise UnsafeArchive("bad top-level directory %r" % top)
    return top


def _normalize_tree(root, uid, gid):
    """Root-owned (when we are root), readable by everyone, writable by the owner only."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [dirpath] + [os.path.join(dirpath, f) for f in filenames]:
            st = os.lstat(name)
            if stat.S_ISLNK(st.st_mode):
                if uid is not None:
                    os.lchown(name, uid, gid)
                continue
            if stat.S_ISDIR(st.st_mode) or st.st_mode & 0o111:
                mode = 0o755
            else:
                mode = 0o644
            if uid is not None:
                os.chown(name, uid, gid)
            os.chmod(name, mode)


def unpack(archive, kafka_home, source_label=None, now=time.time):
    """Unpack a Kafka tarball beside kafka_home and point kafka_home (a symlink) at it.

    <parent of kafka_home>/<top dir of the tarball> receives the files, extracted into a temp
    directory first and renamed into place when complete; kafka_home is then switched with an
    atomic symlink rename. Re-running with the same tarball keeps what is there. Returns the
    versioned directory.
    """
    kafka_home = os.path.normpath(kafka_home)
    parent = os.path.dirname(kafka_home)
    if os.path.exists(kafka_home) and not os.path.islink(kafka_home):
        raise InstallError("%s=%s exists and is not a link made by this installer: remove it, or "
                           "point %s at another path for the tarball" % (_P_HOME, kafka_home, _P_HOME))
    if not os.path.isdir(parent):
        os.makedirs(parent, 0o755)
    try:
        tar = tarfile.open(archive, "r:*")
    except (tarfile.TarError, IOError, OSError) as e:
        raise InstallError("%s is not a readable tar archive: %s" % (archive, e))
    label = source_label or archive
    with_root = os.geteuid() == 0
    try:
        members = tar.getmembers()
        top = check_members(members)
        final = os.path.join(parent, top)
        if os.path.normpath(final) == kafka_home:
            raise InstallError("%s=%s would be replaced by the tarball's own directory %s: use a "
                               "different name such as %s/current" % (_P_HOME, kafka_home, top, parent))
        marker = os.path.join(final, TARBALL_MARKER)
        if not (os.path.isfile(marker) and _read(marker) == label
                and os.path.isfile(os.path.join(final, LAUNCHER_REL))):
            staging = tempfile.mkdtemp(prefix=".unpack-", dir=parent)
            try:
                for m in members:
                    if m.isdev() or m.isfifo():
                        continue
                    m.mode &= 0o777   # never setuid/setgid
                    tar.extract(m, staging)
                unpacked = os.path.join(staging, top)
                if not os.path.isfile(os.path.join(unpacked, LAUNCHER_REL)):
                    raise InstallError("%s has no %s/%s: it is not a Kafka %s+ distribution"
                                       % (label, top, LAUNCHER_REL, version_str(MIN_MM2_VERSION)))
                with open(os.path.join(unpacked, TARBALL_MARKER), "w") as fh:
                    fh.write(label)
                _normalize_tree(unpacked, 0 if with_root else None, 0 if with_root else None)
                if os.path.lexists(final):
                    os.rename(final, "%s.replaced-%d" % (final, int(now())))
                os.rename(unpacked, final)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    finally:
        tar.close()
    link_tmp = "%s.tmp-%d" % (kafka_home, os.getpid())
    if os.path.lexists(link_tmp):
        os.remove(link_tmp)
    os.symlink(top, link_tmp)
    os.rename(link_tmp, kafka_home)
    return final


def _read(path):
    with open(path) as fh:
        return fh.read()


def jmx_agent_jar_path(setting, kafka_home):
    """Where the JMX exporter agent jar is on the host: the setting itself when it is a path,
    <parent of kafka_home>/lib/<name> when it is a URL that install downloads."""
    setting = (setting or "").strip()
    if not is_url(setting):
        return setting[len("file://"):] if setting.lower().startswith("file://") else setting
    name = os.path.basename(setting.split("?", 1)[0].rstrip("/")) or "jmx_prometheus_javaagent.jar"
    return os.path.join(os.path.dirname(os.path.normpath(kafka_home)), "lib", name)


# the exporter agent the metrics need, as the operator gets it (neither the stacks nor the mpack ship it)
AGENT_JAR = ("jmx_prometheus_javaagent-<version>.jar (Maven io.prometheus.jmx:jmx_prometheus_javaagent, 0.20.0 "
             "or 1.x)")


def missing_agent_fix(jar):
    """What the operator does when the JMX exporter agent jar is not on a driver host: the one text
    START, INSTALL and the MirrorMaker 2 Process alert give."""
    return ("The JMX exporter agent jar %s is not on this host (neither the stack nor the mpack ships it): put "
            "%s there, or set kafka-mm2-env/jmx_exporter_jar to its path or to an http(s) URL and run Install on "
            "the MirrorMaker 2 Driver; then restart the driver. Or turn kafka-mm2-env/mm2_metrics_enabled off"
            % (jar or "(not set)", AGENT_JAR))
