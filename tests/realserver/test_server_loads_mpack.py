"""A real Ambari 3 server, built from ../shared/ambari-src, loads the mpack installed by its own install-mpack.

What an operator does: `ambari-server install-mpack --mpack=<tarball>` (the server's setupMpacks.py), then starts
the server, and the stack API shows the service. Every expectation is read from the built tarball itself (its
configuration/*.xml, themes/, quicklinks/, kerberos.json, alerts.json, metainfo.xml), never written here.
"""
import glob
import json
import os
import re
import tarfile
import xml.etree.ElementTree as ET

import pytest

from mm2_core.config import names

STACK = "/api/v1/stacks/BIGTOP/versions/3.3.0"
SERVICE = "KAFKA_MIRRORMAKER2"
SVC = STACK + "/services/" + SERVICE


@pytest.fixture(scope="module")
def mpack_dir(built_mpack, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("unpacked"))
    with tarfile.open(built_mpack) as tar:
        tar.extractall(out)
    root, = glob.glob(os.path.join(out, "*"))
    return os.path.join(root, "common-services", SERVICE, "1.0.0")


def _ok(result):
    status, body = result
    assert status == 200, "HTTP %s: %s" % (status, body)
    return body


def test_install_mpack_went_through_the_servers_own_code(ambari):
    with open(os.path.join(ambari.dirs["resources"], "mpacks", "mpacks_replay.log")) as fh:
        replay = fh.read()
    assert "'mpack_command': 'install-mpack'" in replay and os.path.basename(ambari.mpack_tarball) in replay
    link = os.path.join(ambari.dirs["resources"], "stacks", "BIGTOP", "3.3.0", "services", SERVICE)
    assert os.path.islink(link), "install-mpack did not link the service into BIGTOP 3.3.0"


def test_server_reports_no_stack_error(ambari):
    body = _ok(ambari.get(STACK + "?fields=Versions/stack-errors"))
    assert body["Versions"].get("stack-errors", []) == []
    # what the stack loader logs about a service it rejects or half-reads (ERROR/WARN lines of the stack
    # classes, or any line naming the service at those levels)
    loader = re.compile(r"(StackManager|StackModule|ServiceModule|StackDirectory|ServiceDirectory|ServiceInfo|"
                        r"AmbariMetaInfo|ThemeModule|QuickLinksConfigurationModule|ConfigurationModule|"
                        r"KerberosDescriptor|AlertDefinitionFactory|%s)" % SERVICE)
    problems = [line for line in ambari.log_text().splitlines()
                if (" ERROR " in line or " WARN " in line) and loader.search(line)]
    assert problems == []


def test_service_lists_every_config_type_of_the_mpack(ambari, mpack_dir):
    expected = sorted(os.path.basename(p)[:-len(".xml")] for p in glob.glob(os.path.join(mpack_dir, "configuration", "*.xml")))
    body = _ok(ambari.get(SVC + "?fields=StackServices/config_types"))
    listed = sorted(t for t in body["StackServices"]["config_types"] if t.startswith("kafka-mm2"))
    assert listed == expected
    # every property of every type arrives, with its attributes
    for config_type in expected:
        names = [p.findtext("name") for p in ET.parse(os.path.join(mpack_dir, "configuration", config_type + ".xml")).getroot().findall("property")]
        conf = _ok(ambari.get(SVC + "/configurations?StackConfigurations/type=%s.xml&fields=StackConfigurations/property_name" % config_type))
        got = sorted(item["StackConfigurations"]["property_name"] for item in conf["items"])
        assert got == sorted(names), config_type


def test_components_and_custom_commands_match_metainfo(ambari, mpack_dir):
    """custom_commands lists what the Actions menus offer: every command but the hidden ones (a flow, groups or
    offsets the web UI cannot give), which the server still accepts over REST (AmbariCustomCommandExecutionHelper
    checks a command against every custom command of the component, hidden or not)."""
    root = ET.parse(os.path.join(mpack_dir, "metainfo.xml")).getroot()
    expected = {}
    for comp in root.iter("component"):
        expected[comp.findtext("name")] = sorted(c.findtext("name") for c in comp.iter("customCommand")
                                                 if (c.findtext("hidden") or "").strip() != "true")
    assert expected[names.COMPONENT] == sorted(set(names.CUSTOM_COMMANDS) - set(names.MENU_HIDDEN_COMMANDS))
    body = _ok(ambari.get(SVC + "/components?fields=StackServiceComponents/custom_commands"))
    got = dict((item["StackServiceComponents"]["component_name"], sorted(item["StackServiceComponents"]["custom_commands"]))
               for item in body["items"])
    assert got == expected


def test_theme_is_served(ambari, mpack_dir):
    with open(os.path.join(mpack_dir, "themes", "theme.json")) as fh:
        theme = json.load(fh)
    body = _ok(ambari.get(SVC + "/themes?fields=*"))
    assert [item["ThemeInfo"]["file_name"] for item in body["items"]] == ["theme.json"]
    served = body["items"][0]["ThemeInfo"]["theme_data"]
    conf = served["Theme"]["configuration"]

    def tabs(layouts):
        return [(tab["name"], [(sec["name"], sorted(sub["name"] for sub in sec.get("subsections", [])))
                               for sec in tab["layout"]["sections"]])
                for layout in layouts for tab in layout["tabs"]]

    def placed(placement):
        return sorted((c["config"], c.get("subsection-name", "")) for c in placement["configs"])

    assert tabs(conf["layouts"]) == tabs(theme["configuration"]["layouts"])
    assert placed(conf["placement"]) == placed(theme["configuration"]["placement"])
    assert sorted(w["config"] for w in conf["widgets"]) == sorted(w["config"] for w in theme["configuration"]["widgets"])


def test_quicklinks_are_served(ambari, mpack_dir):
    with open(os.path.join(mpack_dir, "quicklinks", "quicklinks.json")) as fh:
        quicklinks = json.load(fh)
    body = _ok(ambari.get(SVC + "/quicklinks?fields=*"))
    assert [item["QuickLinkInfo"]["file_name"] for item in body["items"]] == ["quicklinks.json"]
    served = body["items"][0]["QuickLinkInfo"]["quicklink_data"]["QuickLinksConfiguration"]["configuration"]
    assert sorted(l["name"] for l in served["links"]) == sorted(l["name"] for l in quicklinks["configuration"]["links"])


def test_kerberos_descriptor_is_served(ambari, mpack_dir):
    with open(os.path.join(mpack_dir, "kerberos.json")) as fh:
        kerberos = json.load(fh)
    served = _ok(ambari.get(SVC + "/artifacts/kerberos_descriptor"))["artifact_data"]
    ours, = [s for s in kerberos["services"] if s["name"] == SERVICE]
    assert served["name"] == SERVICE
    assert sorted(i["name"] for i in served.get("identities", [])) == sorted(i["name"] for i in ours.get("identities", []))
    assert sorted(c["name"] for c in served["components"]) == sorted(c["name"] for c in ours["components"])
    for comp in ours["components"]:
        got, = [c for c in served["components"] if c["name"] == comp["name"]]
        assert sorted(i["name"] for i in got.get("identities", [])) == sorted(i["name"] for i in comp.get("identities", []))


def test_alert_definitions_are_scheduled_for_a_cluster_with_the_service(ambari_cluster, mpack_dir):
    ambari, cluster = ambari_cluster
    with open(os.path.join(mpack_dir, "alerts.json")) as fh:
        alerts = json.load(fh)
    expected = sorted(d["name"] for defs in alerts[SERVICE].values() for d in defs)
    body = _ok(ambari.get("/api/v1/clusters/%s/alert_definitions?AlertDefinition/service_name=%s&fields=*" % (cluster, SERVICE)))
    got = sorted(item["AlertDefinition"]["name"] for item in body["items"])
    assert got == expected
    assert len(got) == 7
    assert set(item["AlertDefinition"]["source"]["type"] for item in body["items"]) == {"SCRIPT"}
