"""Where MM2 comes from: choosing the installation, version detection, Java, tarballs."""
import io
import os
import stat
import tarfile
import threading

import pytest

from mm2_core.host import install

import fakekafka


def make_home(root, version, launcher=True, jar_style="clients"):
    return fakekafka.make_kafka_home(str(root), version, "/nonexistent", launcher=launcher, jar_style=jar_style)


@pytest.mark.parametrize("jar,expected", [
    ("kafka-clients-3.7.1.jar", "3.7.1"),
    ("kafka-clients-2.0.0.3.1.4.0-315.jar", "2.0.0.3.1.4.0-315"),   # HDP build
    ("kafka_2.13-4.0.0.jar", "4.0.0"),
    ("kafka_2.12-2.8.1.jar", "2.8.1"),
])
def test_version_from_jar_names(tmpdir, jar, expected):
    tmpdir.mkdir("libs").join(jar).write("")
    tmpdir.join("libs").join("kafka-clients-9.9.9-sources.jar").write("")
    assert install.detect_version(str(tmpdir)) == expected


def test_no_version_jar(tmpdir):
    tmpdir.mkdir("libs").join("slf4j-api-1.7.36.jar").write("")
    assert install.detect_version(str(tmpdir)) is None
    with pytest.raises(install.InstallError) as e:
        install.effective_version(str(tmpdir), "")
    assert "kafka_version_override" in str(e.value) and "libs/kafka-clients" in str(e.value)
    assert install.effective_version(str(tmpdir), "3.7.1") == ("3.7.1", "kafka-mm2-env/kafka_version_override")
    with pytest.raises(install.InstallError) as e:
        install.effective_version(str(tmpdir), "latest")
    assert "kafka_version_override='latest' is not a Kafka version" in str(e.value)


def test_auto_uses_the_stack_kafka_when_it_has_mm2(tmpdir):
    stack = make_home(tmpdir.join("stack"), "2.8.2")
    plan = install.choose("auto", stack, str(tmpdir.join("opt", "current")), "")
    assert (plan.source, plan.kafka_home) == (install.STACK, stack)


def test_hdp31_stack_kafka_without_mm2_names_the_fix(tmpdir):
    """HDP 3.1: Kafka 2.0 has no connect-mirror-maker.sh and nothing else is configured."""
    stack = make_home(tmpdir.join("usr", "hdp", "current", "kafka-broker"), "2.0.0.3.1.4.0-315", launcher=False)
    with pytest.raises(install.InstallError) as e:
        install.choose("auto", stack, "/opt/kafka-mm2/current", "")
    msg = str(e.value)
    assert "stack Kafka 2.0.0.3.1.4.0-315" in msg and "has no MirrorMaker 2" in msg
    assert "kafka-mm2-env/kafka_home" in msg and "kafka-mm2-env/kafka_tarball_url" in msg
    assert "2.4.0+" in msg

    separate = make_home(tmpdir.join("opt", "kafka_2.12-3.7.1"), "3.7.1")
    plan = install.choose("auto", stack, separate, "")
    assert (plan.source, plan.kafka_home) == (install.PATH, separate)
    assert "has no MirrorMaker 2" in plan.notes[0]

    plan = install.choose("auto", stack, str(tmpdir.join("opt", "current")), "http://repo/kafka_2.12-3.7.1.tgz",
                          installing=True)
    assert plan.source == install.TARBALL and plan.tarball_url.endswith(".tgz")


def test_forced_sources_fail_clearly(tmpdir):
    stack = make_home(tmpdir.join("stack"), "2.8.2")
    with pytest.raises(install.InstallError) as e:
        install.choose("path", stack, str(tmpdir.join("missing")), "")
    assert "kafka_install_source is 'path'" in str(e.value) and "nothing at" in str(e.value)
    with pytest.raises(install.InstallError) as e:
        install.choose("stack", str(tmpdir.join("nostack")), "", "")
    assert "not installed on this host" in str(e.value)
    with pytest.raises(install.InstallError) as e:
        install.choose("tarball", stack, "/opt/kafka-mm2/current", "", installing=True)
    assert "kafka_tarball_url is empty" in str(e.value)
    # after install, a tarball source needs the unpacked home
    with pytest.raises(install.InstallError) as e:
        install.choose("tarball", stack, str(tmpdir.join("none")), "http://x/k.tgz")
    assert "run Install" in str(e.value)
    with pytest.raises(install.InstallError) as e:
        install.choose("rpm", stack, "", "")
    assert "use one of auto, stack, path, tarball" in str(e.value)


def test_old_separate_home_is_not_taken(tmpdir):
    old = make_home(tmpdir.join("old"), "2.3.1", launcher=True)   # a launcher, but a version without MM2
    with pytest.raises(install.InstallError) as e:
        install.choose("path", None, old, "")
    assert "2.3.1" in str(e.value)
    with pytest.raises(install.InstallError) as e:
        install.check_mm2_version("2.3.1")
    assert "needs 2.4.0 or newer" in str(e.value)


@pytest.mark.parametrize("kafka,java,errors,warnings", [
    ("4.0.0", 11, 1, 0),
    ("4.0.0", 17, 0, 0),
    ("3.7.1", 8, 0, 1),      # deprecated
    ("3.7.1", 17, 0, 0),
    ("2.4.1", 17, 0, 1),     # newer than tested
    ("2.8.2", 8, 0, 0),
    ("3.7.1", None, 0, 1),
])
def test_java_fits_kafka(kafka, java, errors, warnings):
    errs, warns = install.check_java(kafka, java, "/usr/jdk")
    assert (len(errs), len(warns)) == (errors, warnings)
    if errs:
        assert "needs Java 17" in errs[0] and "mm2_java_home" in errs[0]


@pytest.mark.parametrize("text,major", [
    ('JAVA_VERSION="17.0.9"\n', 17), ('JAVA_VERSION="1.8.0_392"\n', 8), ('IMPLEMENTOR="x"\n', None)])
def test_java_release_file(text, major):
    assert install.java_major_from_release(text) == major


def test_java_version_output():
    assert install.java_major_from_output('openjdk version "11.0.21" 2023-10-17\n') == 11
    assert install.java_major_from_output('java version "1.8.0_152"\n') == 8


# ---------------------------------------------------------------- tarballs

def tarball(path, members, top="kafka_2.13-3.7.1"):
    """members: list of (name, kind, data/linkname, mode)."""
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, data, mode in members:
            info = tarfile.TarInfo(name)
            info.mode = mode
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif kind == "file":
                raw = data.encode("utf-8")
                info.size = len(raw)
                info.uid = 1234
                tar.addfile(info, io.BytesIO(raw))
            elif kind == "sym":
                info.type = tarfile.SYMTYPE
                info.linkname = data
                tar.addfile(info)
            elif kind == "lnk":
                info.type = tarfile.LNKTYPE
                info.linkname = data
                tar.addfile(info)
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
                tar.addfile(info)
    return path


def kafka_members(top="kafka_2.13-3.7.1", version="3.7.1"):
    return [(top, "dir", None, 0o775),
            (top + "/bin", "dir", None, 0o775),
            (top + "/bin/connect-mirror-maker.sh", "file", "#!/bin/bash\n", 0o4777),
            (top + "/libs", "dir", None, 0o775),
            (top + "/libs/kafka-clients-%s.jar" % version, "file", "", 0o666)]


def test_unpack_is_safe_atomic_and_idempotent(tmpdir):
    archive = tarball(str(tmpdir.join("k.tgz")), kafka_members())
    home = str(tmpdir.join("opt", "kafka-mm2", "current"))
    final = install.unpack(archive, home, source_label="http://repo/k.tgz")
    assert os.path.islink(home) and os.readlink(home) == "kafka_2.13-3.7.1"
    assert install.detect_version(home) == "3.7.1"
    launcher = os.path.join(home, "bin", "connect-mirror-maker.sh")
    mode = stat.S_IMODE(os.stat(launcher).st_mode)
    assert mode == 0o755                                     # no setuid, no world write
    assert stat.S_IMODE(os.stat(os.path.join(final, "libs", "kafka-clients-3.7.1.jar")).st_mode) == 0o644
    if os.geteuid() == 0:
        assert os.stat(launcher).st_uid == 0                 # not the tarball's uid 1234
    assert not [f for f in os.listdir(os.path.dirname(home)) if f.startswith(".")]   # no leftovers

    mtime = os.stat(launcher).st_mtime
    assert install.unpack(archive, home, source_label="http://repo/k.tgz") == final
    assert os.stat(launcher).st_mtime == mtime               # same tarball: kept as it is

    upgrade = tarball(str(tmpdir.join("k2.tgz")), kafka_members("kafka_2.13-3.8.0", "3.8.0"))
    install.unpack(upgrade, home, source_label="http://repo/k2.tgz")
    assert install.detect_version(home) == "3.8.0" and os.path.isdir(final)


@pytest.mark.parametrize("members,reason", [
    ([("kafka/../../etc/cron.d/x", "file", "boom", 0o644)], "'..'"),
    ([("/etc/passwd", "file", "boom", 0o644)], "absolute"),
    ([("kafka", "dir", None, 0o755), ("kafka/evil", "sym", "/etc/shadow", 0o777)], "absolute path"),
    ([("kafka", "dir", None, 0o755), ("kafka/evil", "sym", "../../etc", 0o777)], "outside"),
    ([("kafka", "dir", None, 0o755), ("kafka/evil", "lnk", "other/x", 0o777)], "outside"),
    ([("kafka", "dir", None, 0o755), ("kafka/pipe", "fifo", None, 0o644)], "fifo"),
    ([("a/x", "file", "", 0o644), ("b/y", "file", "", 0o644)], "one top-level directory"),
])
def test_unsafe_tarballs_are_refused_before_anything_is_written(tmpdir, members, reason):
    archive = tarball(str(tmpdir.join("evil.tgz")), members)
    target = tmpdir.mkdir("opt")
    with pytest.raises(install.UnsafeArchive) as e:
        install.unpack(archive, str(target.join("current")))
    assert reason in str(e.value)
    assert target.listdir() == []


def test_tarball_without_mm2_is_refused(tmpdir):
    members = [m for m in kafka_members() if "connect-mirror-maker" not in m[0]]
    archive = tarball(str(tmpdir.join("k.tgz")), members)
    with pytest.raises(install.InstallError) as e:
        install.unpack(archive, str(tmpdir.join("opt", "current")), source_label="k.tgz")
    assert "not a Kafka 2.4.0+ distribution" in str(e.value)
    assert not os.path.exists(str(tmpdir.join("opt", "current")))


def test_a_real_directory_at_kafka_home_is_never_replaced(tmpdir):
    archive = tarball(str(tmpdir.join("k.tgz")), kafka_members())
    home = tmpdir.mkdir("current")
    home.join("keep").write("x")
    with pytest.raises(install.InstallError) as e:
        install.unpack(archive, str(home))
    assert "not a link made by this installer" in str(e.value)
    assert home.join("keep").check()


def test_fetch_local_path_and_http(tmpdir):
    archive = tarball(str(tmpdir.join("k.tgz")), kafka_members())
    assert install.fetch(archive, str(tmpdir)) == archive
    assert install.fetch("file://" + archive, str(tmpdir)) == archive
    with pytest.raises(install.InstallError) as e:
        install.fetch(str(tmpdir.join("missing.tgz")), str(tmpdir))
    assert "does not exist on this host" in str(e.value)

    try:
        from http.server import HTTPServer, SimpleHTTPRequestHandler
    except ImportError:
        from BaseHTTPServer import HTTPServer
        from SimpleHTTPServer import SimpleHTTPRequestHandler

    served = tmpdir.mkdir("served")
    with open(archive, "rb") as src, open(str(served.join("kafka.tgz")), "wb") as dst:
        dst.write(src.read())

    class Handler(SimpleHTTPRequestHandler):
        def translate_path(self, path):
            return str(served.join(path.lstrip("/").split("?")[0]))

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever)
    thread.daemon = True
    thread.start()
    try:
        url = "http://127.0.0.1:%d/kafka.tgz" % server.server_address[1]
        dest = tmpdir.mkdir("dl")
        got = install.fetch(url, str(dest))
        assert got == str(dest.join("kafka.tgz")) and os.path.getsize(got) == os.path.getsize(archive)
        with pytest.raises(install.InstallError) as e:
            install.fetch(url.replace("kafka.tgz", "nope.tgz"), str(dest))
        assert "Cannot download" in str(e.value) and "404" in str(e.value)
        assert dest.listdir() == [dest.join("kafka.tgz")]   # no partial file left
    finally:
        server.shutdown()
        server.server_close()


def test_metrics_jar_location():
    assert install.jmx_agent_jar_path("/usr/share/java/jmx.jar", "/opt/kafka-mm2/current") == "/usr/share/java/jmx.jar"
    assert install.jmx_agent_jar_path("https://repo/jmx_prometheus_javaagent-1.0.1.jar?x=1",
                                      "/opt/kafka-mm2/current") == "/opt/kafka-mm2/lib/jmx_prometheus_javaagent-1.0.1.jar"
