"""What install-mpack / upgrade-mpack / uninstall-mpack do with our tarball, on a server that has
only some of the stacks the mpack lists (fake_setup_mpacks re-implements Ambari's setupMpacks.py;
test_real_setup_mpacks.py runs the real one when Ambari sources are available)."""
import io
import json
import os
import tarfile
import xml.etree.ElementTree as ET

import pytest

import mpack_helpers
from fake_setup_mpacks import FatalException, NamedDict, Server, archive_root_dir
from mpack_helpers import links, make_resources, stack_dirs

SERVICE, VERSION, COMPONENT = "KAFKA_MIRRORMAKER2", "1.0.0", "MIRRORMAKER2_DRIVER"


def installed_names(service_dir):
    """Service, component, command and config names as Ambari would read them from the linked dir."""
    meta = ET.parse(os.path.join(service_dir, "metainfo.xml")).getroot()
    service = meta.find("services/service")
    config = {}
    config_dir = os.path.join(service_dir, "configuration")
    for name in sorted(os.listdir(config_dir)):
        root = ET.parse(os.path.join(config_dir, name)).getroot()
        config[name[:-4]] = set(p.findtext("name") for p in root.findall("property"))
    return {
        "service": service.findtext("name"),
        "components": set(c.findtext("name") for c in service.findall("components/component")),
        "commands": set(c.findtext("name") for c in service.iter("customCommand")),
        "config": config,
    }


@pytest.fixture
def partial_server(tmpdir):
    # BIGTOP 3.2.0 and HDP 3.0 exist; BIGTOP 3.3.0, HDP 3.1 and ODP do not
    resources = make_resources(str(tmpdir), ["BIGTOP/3.2.0", "HDP/3.0"])
    return Server(resources, ambari_version="3.0.0.0", tmp_dir=str(tmpdir.join("tmp")))


def test_archive_root_is_the_single_top_directory(built_mpack, session_repo):
    with io.open(os.path.join(session_repo, "mpack.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    assert archive_root_dir(built_mpack) == "%s-%s" % (meta["name"], meta["version"])


def test_install_links_the_service_into_present_stacks_only(partial_server, built_mpack):
    server = partial_server
    before = stack_dirs(server.resources)
    staging = server.install(built_mpack)

    found = dict((k, v) for k, v in links(server.resources).items() if not k.startswith("dashboards/"))
    common = "common-services/%s/%s" % (SERVICE, VERSION)
    assert found[common] == os.path.realpath(os.path.join(staging, "common-services", SERVICE, VERSION))
    assert found["stacks/BIGTOP/3.2.0/services/" + SERVICE] == \
        os.path.realpath(os.path.join(staging, "stacks", "BIGTOP", SERVICE, VERSION))
    assert sorted(found) == sorted([common, "stacks/BIGTOP/3.2.0/services/" + SERVICE])
    # no stack directory appeared: not BIGTOP/3.3.0, not HDP/3.1, not ODP
    assert stack_dirs(server.resources) == before

    # what the server then loads: the add-on extends the linked common definition
    addon = ET.parse(os.path.join(server.resources, "stacks", "BIGTOP", "3.2.0", "services", SERVICE,
                                  "metainfo.xml")).getroot()
    parent = addon.findtext("services/service/extends")
    assert os.path.isfile(os.path.join(server.resources, parent, "metainfo.xml"))
    assert os.path.isfile(os.path.join(server.resources, parent, "package", "scripts", "mm2_core", "config", "names.py"))


def test_stack_version_without_services_dir_gets_one(tmpdir, built_mpack):
    resources = make_resources(str(tmpdir), ["HDP/3.1"])
    os.makedirs(os.path.join(resources, "stacks", "BIGTOP", "3.3.0"))  # a bare stack version dir
    server = Server(resources, tmp_dir=str(tmpdir.join("tmp")))
    server.install(built_mpack)
    assert os.path.islink(os.path.join(resources, "stacks", "BIGTOP", "3.3.0", "services", SERVICE))
    assert os.path.islink(os.path.join(resources, "stacks", "HDP", "3.1", "services", SERVICE))
    assert not os.path.exists(os.path.join(resources, "stacks", "BIGTOP", "3.2.0"))
    assert not os.path.exists(os.path.join(resources, "stacks", "ODP"))


def test_server_without_any_listed_stack_refuses_and_links_nothing(tmpdir, built_mpack):
    resources = make_resources(str(tmpdir), ["HDP/2.6", "BIGTOP/3.1.0"])
    server = Server(resources, tmp_dir=str(tmpdir.join("tmp")))
    with pytest.raises(FatalException) as info:
        server.install(built_mpack)
    assert "Prerequisites for management pack" in info.value.reason
    assert "Prerequisite failure! Min applicable stack not found" in server.log
    assert links(resources) == {}
    assert not os.path.exists(os.path.join(resources, "mpacks"))


def test_too_old_ambari_is_refused(partial_server, built_mpack):
    partial_server.ambari_version = "2.6.2.2"
    with pytest.raises(FatalException):
        partial_server.install(built_mpack)
    assert any("Min Ambari Version" in line for line in partial_server.log)


def test_installing_the_same_version_twice_needs_force(partial_server, built_mpack):
    partial_server.install(built_mpack)
    with pytest.raises(FatalException) as info:
        partial_server.install(built_mpack)
    assert "already installed" in info.value.reason
    partial_server.install(built_mpack, force=True)
    assert os.path.islink(os.path.join(partial_server.resources, "common-services", SERVICE, VERSION))


def _build_version(repo_copy, out_dir, version):
    build = mpack_helpers.load_build_module()
    mpack_helpers.set_version(repo_copy, version)
    return build.build(out_dir, repo=repo_copy)


def test_upgrade_relinks_to_the_new_version_and_keeps_every_name(partial_server, repo_copy, tmpdir):
    old = _build_version(repo_copy, str(tmpdir.join("old")), "9.0.0.0")
    new = _build_version(repo_copy, str(tmpdir.join("new")), "9.0.1.0")
    server = partial_server
    old_staging = server.install(old)
    common = os.path.join(server.resources, "common-services", SERVICE, VERSION)
    names_before = installed_names(common)

    new_staging = server.upgrade(new)

    assert not os.path.exists(old_staging)
    found = links(server.resources)  # the dashboards link is gone: see the test below
    assert sorted(found) == sorted(["common-services/%s/%s" % (SERVICE, VERSION),
                                    "stacks/BIGTOP/3.2.0/services/" + SERVICE])
    assert all(target.startswith(os.path.realpath(new_staging) + os.sep) for target in found.values())
    names_after = installed_names(common)
    assert names_after["service"] == names_before["service"] == SERVICE
    assert names_before["components"] <= names_after["components"]
    assert names_before["commands"] <= names_after["commands"]
    for config_type, props in names_before["config"].items():
        assert props <= names_after["config"][config_type], config_type


def test_upgrade_needs_an_older_version_installed(partial_server, built_mpack):
    with pytest.raises(FatalException) as info:
        partial_server.upgrade(built_mpack)
    assert "No management packs found that can be upgraded!" in info.value.reason


def test_uninstall_removes_links_and_staging_but_no_stack_content(partial_server, built_mpack):
    server = partial_server
    staging = server.install(built_mpack)
    server.uninstall(Server.read_metadata(staging).name)
    assert links(server.resources) == {}
    assert not os.path.exists(staging)
    # what stays: the empty common-services/<SVC> dir, and the stack's own services
    assert os.listdir(os.path.join(server.resources, "common-services", SERVICE)) == []
    assert os.path.isdir(os.path.join(server.resources, "stacks", "BIGTOP", "3.2.0", "services", "KAFKA"))


def test_upgrade_to_a_version_that_extends_the_old_one_unlinks_the_service(partial_server, repo_copy, tmpdir):
    """Why build.py refuses such versions: uninstalling the old staging dir removes every link whose
    realpath CONTAINS 'mpacks/<name>-9.0.0.1', and that includes the new '<name>-9.0.0.10' links."""
    old = _build_version(repo_copy, str(tmpdir.join("old")), "9.0.0.1")
    new = _build_version(repo_copy, str(tmpdir.join("new")), "9.0.0.10")
    server = partial_server
    server.install(old)
    new_staging = server.upgrade(new)
    assert os.path.isdir(new_staging)
    assert links(server.resources) == {}  # the service vanished from Ambari


def test_missing_metadata_keys_fail_the_way_ambari_does():
    meta = NamedDict({"name": "x", "version": "9.0.0.0"})
    with pytest.raises(AttributeError) as info:
        meta.artifacts
    assert "__getattr__" in str(info.value)


def test_a_tarball_with_two_top_directories_is_malformed(tmpdir):
    tarball = str(tmpdir.join("bad.tar.gz"))
    with tarfile.open(tarball, "w:gz") as tar:
        for name in ("a-1.0/mpack.json", "b-1.0/mpack.json"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    server = Server(make_resources(str(tmpdir), ["BIGTOP/3.2.0"]), tmp_dir=str(tmpdir.join("tmp")))
    with pytest.raises(FatalException) as info:
        server.install(tarball)
    assert info.value.reason == "Malformed management pack. Root directory missing!"


def test_upgrade_drops_the_dashboards_link_until_a_forced_install(partial_server, repo_copy, tmpdir):
    mpack_helpers.ensure_dashboard(repo_copy)
    old = _build_version(repo_copy, str(tmpdir.join("old")), "9.0.0.0")
    new = _build_version(repo_copy, str(tmpdir.join("new")), "9.0.1.0")
    server = partial_server
    link = "dashboards/grafana-dashboards/" + SERVICE
    server.install(old)
    assert link in links(server.resources)
    server.upgrade(new)
    assert link not in links(server.resources)
    staging = server.install(new, force=True)
    assert links(server.resources)[link] == os.path.realpath(
        os.path.join(staging, "common-services", SERVICE, VERSION, "dashboards", "grafana-dashboards"))

