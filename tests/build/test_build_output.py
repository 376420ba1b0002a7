"""The tarball build.py writes: one top directory, reproducible bytes, only what Ambari needs."""
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tarfile

import mpack_helpers
from mpack_helpers import tar_members


def _identity(repo):
    with io.open(os.path.join(repo, "mpack.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    return meta["name"], meta["version"]


def test_building_twice_gives_the_same_bytes(session_repo, tmpdir, build_module):
    first = build_module.build(str(tmpdir.join("a")), repo=session_repo)
    second = build_module.build(str(tmpdir.join("b")), repo=session_repo)
    assert build_module.sha256_of(first) == build_module.sha256_of(second)
    with io.open(first + ".sha256", encoding="utf-8") as fh:
        assert fh.read() == u"%s  %s\n" % (build_module.sha256_of(first), os.path.basename(first))


def test_tarball_is_named_and_rooted_by_mpack_json(session_repo, built_mpack):
    name, version = _identity(session_repo)
    top = "%s-%s" % (name, version)
    assert os.path.basename(built_mpack) == top + ".tar.gz"
    names = [m.name for m in tar_members(built_mpack)]
    assert names[0] == top
    assert all(n == top or n.startswith(top + "/") for n in names)
    # install-mpack finds the root as a string prefix of all member names
    assert os.path.commonprefix(names) == top
    assert top + "/mpack.json" in names


def test_entries_are_sorted_with_fixed_owner_time_and_modes(built_mpack):
    members = tar_members(built_mpack)
    names = [m.name for m in members]
    assert names == sorted(names, key=lambda n: n.split("/"))
    for member in members:
        assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "root", "root"), member.name
        assert member.mtime == 1577836800, member.name
        if member.isdir():
            assert member.mode == 0o755, member.name
        else:
            assert member.isfile(), member.name
            assert member.mode in (0o644, 0o755), member.name


def test_gzip_header_has_no_name_and_no_time(built_mpack):
    with open(built_mpack, "rb") as fh:
        header = fh.read(10)
    assert header[:2] == b"\x1f\x8b"
    flags = bytearray(header)[3]
    assert not flags & 0x08, "FNAME set: the gzip header would carry the build machine's file name"
    assert header[4:8] == b"\x00\x00\x00\x00", "gzip mtime must be 0"


def test_layout_is_the_installed_service(session_repo, built_mpack, build_module):
    core = build_module.Core(session_repo)
    names = core.names
    top = [m.name for m in tar_members(built_mpack)][0]
    files = set(m.name[len(top) + 1:] for m in tar_members(built_mpack) if m.isfile())
    service = "common-services/%s/%s" % (names.SERVICE, names.SERVICE_VERSION)
    for rel in ("metainfo.xml", "kerberos.json", "role_command_order.json", "themes/theme.json",
                "package/scripts/mm2_core/config/names.py", "package/scripts/mm2_core/config/schema.py"):
        assert "%s/%s" % (service, rel) in files
    for config_type in names.OWN_CONFIG_TYPES:
        assert "%s/configuration/%s.xml" % (service, config_type) in files
    for stack in ("HDP", "BIGTOP", "ODP"):
        assert "stacks/%s/%s/%s/metainfo.xml" % (stack, names.SERVICE, names.SERVICE_VERSION) in files
    # nothing else at the top (Ambari treats every entry under common-services/<SVC>/ as a version);
    # LICENSE and NOTICE travel with the distribution (Apache License 2.0, section 4)
    # release-history.json: the earlier releases' defaults, for `mm2-ambari upgrade`
    assert set(f.split("/")[0] for f in files) == set(["mpack.json", "LICENSE", "NOTICE", "release-history.json",
                                                      "common-services", "stacks"])
    assert set(f.split("/")[2] for f in files if f.startswith("common-services/")) == set([names.SERVICE_VERSION])


def test_caches_tests_and_editor_files_stay_out(repo_copy, tmpdir, build_module):
    junk = ["package/scripts/__pycache__/mm2_driver.cpython-311.pyc", "package/scripts/old.pyc",
            "package/scripts/mm2_core/config/names.py~", "package/scripts/.names.py.swp", "package/.DS_Store",
            "package/tests/test_x.py", "common-services/KAFKA_MIRRORMAKER2/1.0.0/themes/#theme.json#",
            "stacks/HDP/KAFKA_MIRRORMAKER2/1.0.0/.hash", "package/templates/x.orig"]
    for rel in junk:
        mpack_helpers.write_text(os.path.join(repo_copy, *rel.split("/")), "junk")
    tarball = build_module.build(str(tmpdir.join("dist")), repo=repo_copy)
    names = [m.name for m in tar_members(tarball)]
    for rel in junk:
        assert not any(n.endswith(rel) for n in names), rel
    assert not any("__pycache__" in n or n.endswith(".pyc") or "/tests/" in n for n in names)


def test_executable_bit_is_kept_and_normalised(repo_copy, tmpdir, build_module):
    script = os.path.join(repo_copy, "package", "files", "helper.sh")
    mpack_helpers.write_text(script, "#!/bin/sh\necho hi\n")
    os.chmod(script, 0o700)
    plain = os.path.join(repo_copy, "package", "files", "plain.txt")
    mpack_helpers.write_text(plain, "x\n")
    os.chmod(plain, 0o600)
    tarball = build_module.build(str(tmpdir.join("dist")), repo=repo_copy)
    modes = dict((m.name.split("/", 1)[1], m.mode) for m in tar_members(tarball) if "/" in m.name)
    service = "common-services/KAFKA_MIRRORMAKER2/1.0.0"
    assert modes[service + "/package/files/helper.sh"] == 0o755
    assert modes[service + "/package/files/plain.txt"] == 0o644


def test_the_version_is_written_once(repo_copy, tmpdir, build_module):
    mpack_helpers.set_version(repo_copy, "1.2.3.4")
    tarball = build_module.build(str(tmpdir.join("dist")), repo=repo_copy)
    name, _ = _identity(repo_copy)
    assert os.path.basename(tarball) == "%s-1.2.3.4.tar.gz" % name
    with tarfile.open(tarball, "r:gz") as tar:
        meta = json.loads(tar.extractfile("%s-1.2.3.4/mpack.json" % name).read().decode("utf-8"))
    assert meta["version"] == "1.2.3.4"


def test_command_line_prints_the_ambari_commands_and_checksum(repo_copy, tmpdir):
    out_dir = str(tmpdir.join("out"))
    env = dict((k, v) for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME"))
    proc = subprocess.Popen([sys.executable if sys.version_info[0] == 3 else "python3",
                             os.path.join(repo_copy, "build.py"), "--out", out_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo_copy, env=env)
    out, err = proc.communicate()
    out = out.decode("utf-8")
    assert proc.returncode == 0, err.decode("utf-8")
    name, version = _identity(repo_copy)
    tarball = os.path.join(out_dir, "%s-%s.tar.gz" % (name, version))
    assert "ambari-server install-mpack --mpack=%s" % tarball in out
    assert "ambari-server upgrade-mpack --mpack=%s" % tarball in out
    assert "mm2-ambari upgrade --mpack=<this tarball>" in out
    assert "ambari-server uninstall-mpack --mpack-name=%s" % name in out
    digest = re.search(r"sha256 ([0-9a-f]{64})", out).group(1)
    assert digest == mpack_helpers.load_build_module().sha256_of(tarball)


def test_build_refuses_to_write_anything_when_invalid(repo_copy, tmpdir, build_module):
    mpack_helpers.replace_in(os.path.join(repo_copy, "mpack.json"), '"artifacts"', '"artefacts"')
    out_dir = str(tmpdir.join("dist"))
    try:
        build_module.build(out_dir, repo=repo_copy)
    except build_module.BuildError:
        pass
    else:
        raise AssertionError("build() accepted an mpack.json without artifacts")
    assert not os.path.exists(out_dir) or not os.listdir(out_dir)


def test_gzip_stream_round_trips(built_mpack):
    # a plain gzip reader sees one member whose content is a tar archive
    with gzip.open(built_mpack, "rb") as fh:
        data = fh.read()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        assert tar.getnames()
