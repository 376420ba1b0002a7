"""upgrade-mpack on the real server: a cluster made with the previous release keeps its service, and the
properties this release adds appear in the stack, after `ambari-server upgrade-mpack` and a restart.

The previous release is simulated from this build (its tarball with a lower version in mpack.json and
without one property of kafka-mm2-replication.xml), because no older tarball is kept in the project.
Both go through the server's own setupMpacks (install_mpack, then upgrade_mpack), as the CLI runs them.
"""
import glob
import json
import os
import re
import shutil
import tarfile

import pytest

import server

SERVICE = "KAFKA_MIRRORMAKER2"
SVC = "/api/v1/stacks/BIGTOP/versions/3.3.0/services/" + SERVICE
OLD_VERSION = "0.9.0.0"
CLUSTER = "upgraded"


def _older_tarball(new_tarball, out_dir):
    """(tarball of the 'previous release', the property it lacks)."""
    work = os.path.join(out_dir, "unpacked")
    with tarfile.open(new_tarball) as tar:
        tar.extractall(work)
    root, = glob.glob(os.path.join(work, "*"))
    with open(os.path.join(root, "mpack.json")) as fh:
        meta = json.load(fh)
    meta["version"] = OLD_VERSION
    with open(os.path.join(root, "mpack.json"), "w") as fh:
        json.dump(meta, fh, indent=2)
    xml_path = os.path.join(root, "common-services", SERVICE, "1.0.0", "configuration", "kafka-mm2-replication.xml")
    with open(xml_path) as fh:
        text = fh.read()
    blocks = re.findall(r"\n  <property>.*?</property>", text, re.S)
    dropped = re.search(r"<name>([^<]+)</name>", blocks[-1]).group(1)
    with open(xml_path, "w") as fh:
        fh.write(text.replace(blocks[-1], "", 1))
    old_root = os.path.join(work, "%s-%s" % (meta["name"], OLD_VERSION))
    shutil.move(root, old_root)
    tarball = os.path.join(out_dir, "%s-%s.tar.gz" % (meta["name"], OLD_VERSION))
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(old_root, arcname=os.path.basename(old_root))
    return tarball, dropped


def _property_names(srv):
    status, body = srv.get(SVC + "/configurations?StackConfigurations/type=kafka-mm2-replication.xml"
                                 "&fields=StackConfigurations/property_name")
    assert status == 200, body
    return set(i["StackConfigurations"]["property_name"] for i in body["items"])


@pytest.fixture(scope="module")
def upgraded(server_home, built_mpack, tmp_path_factory):
    old_tarball, dropped = _older_tarball(built_mpack, str(tmp_path_factory.mktemp("older")))
    try:
        srv = server.AmbariServer(server_home, str(tmp_path_factory.mktemp("upgrade-server")))
    except server.Skip as why:
        pytest.skip(str(why))
    srv.install_mpack(old_tarball)
    try:
        srv.start()
        before = _property_names(srv)
        status, body = srv.request("POST", "/api/v1/clusters/" + CLUSTER, {"Clusters": {"version": "BIGTOP-3.3.0"}})
        assert status == 201, body
        status, body = srv.request("POST", "/api/v1/clusters/%s/services" % CLUSTER, [{"ServiceInfo": {
            "service_name": SERVICE, "desired_repository_version_id": srv.repository_version("BIGTOP", "3.3.0")}}])
        assert status == 201, body
        srv.stop()
        code, out = srv.mpack("upgrade_mpack", built_mpack)
        assert code == 0, out
        srv.start()
        yield srv, before, dropped
    finally:
        srv.stop()


def test_the_previous_release_lacked_the_property(upgraded):
    srv, before, dropped = upgraded
    assert dropped not in before


def test_new_properties_appear_after_upgrade(upgraded):
    srv, before, dropped = upgraded
    after = _property_names(srv)
    assert after - before == {dropped}


def test_only_the_new_release_stays_staged(upgraded, built_mpack):
    srv, _, _ = upgraded
    staged = [s for s in os.listdir(os.path.join(srv.dirs["resources"], "mpacks")) if s.startswith("kafka-mirrormaker2-mpack-")]
    assert staged == [os.path.basename(built_mpack)[:-len(".tar.gz")]]


def test_the_cluster_keeps_its_service_and_alerts(upgraded):
    srv, _, _ = upgraded
    status, body = srv.get("/api/v1/clusters/%s/services/%s" % (CLUSTER, SERVICE))
    assert status == 200, body
    status, body = srv.get("/api/v1/clusters/%s/alert_definitions?AlertDefinition/service_name=%s" % (CLUSTER, SERVICE))
    assert status == 200 and len(body["items"]) == 6, body
