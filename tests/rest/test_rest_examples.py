"""The shipped examples work: examples/deploy-dr.yaml deploys (and is what docs/automate.md shows), and the
blueprint + cluster creation template hold a valid MM2 configuration in the shapes Ambari accepts."""
import json
import os
import re

from rest_fake_ambari import FakeAmbari

from mm2_core.advisor import advice
from mm2_core.config import local_kafka, names, schema
from mm2_core.model import parse, placement
from mm2_core.rendering import render
from mm2_ambari.rest import deployfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DR = os.path.join(REPO, "examples", "deploy-dr.yaml")
BLUEPRINT = os.path.join(REPO, "examples", "blueprints", "mm2-dr-blueprint.json")
CLUSTER = os.path.join(REPO, "examples", "blueprints", "mm2-dr-cluster.json")
DR_HOSTS = ["mm2-1.west.example.com", "mm2-2.west.example.com"]


def test_the_automation_page_shows_the_dr_example_verbatim():
    with open(os.path.join(REPO, "docs", "automate.md")) as fh:
        page = fh.read()
    block = re.search(r"```yaml\n(.*?)```", page, re.S).group(1)
    with open(DR) as fh:
        assert block == fh.read()


def test_the_dr_example_deploys_and_redeploys_as_a_no_op(cli):
    server = FakeAmbari(cluster="west", hosts=DR_HOSTS + ["kafka1.west.example.com"]).start()
    try:
        dry = cli("deploy", DR, "--url", server.url, "--dry-run")
        assert dry.code == 0, dry
        assert server.mutating_calls() == []
        assert "warning" not in dry.err
        first = cli("deploy", DR, "--url", server.url)
        assert first.code == 0, first
        assert sorted(hr["host_name"] for hr in server.hostroles() if hr["state"] == "STARTED") == DR_HOSTS
        before = len(server.mutating_calls())
        again = cli("deploy", DR, "--url", server.url)
        assert again.code == 0 and server.mutating_calls()[before:] == []
        # The file's secrets are references: Ambari stores no password for them.
        assert "${file:/etc/kafka-mm2/secrets/dr.properties:east.sasl.password}" in \
            server.desired_properties(names.TOPOLOGY)["content"]
    finally:
        server.stop()


def _single_type_maps(configurations):
    """Ambari: 'Configuration Maps must hold a single configuration type each' -> {type: properties}."""
    merged = {}
    for item in configurations:
        assert isinstance(item, dict) and len(item) == 1
        [(config_type, body)] = item.items()
        assert set(body) <= {"properties", "properties_attributes"}
        merged.setdefault(config_type, {}).update(body.get("properties", {}))
    return merged


def test_blueprint_and_cluster_template_are_consistent_and_valid():
    with open(BLUEPRINT) as fh:
        bp = json.load(fh)
    with open(CLUSTER) as fh:
        template = json.load(fh)
    assert bp["Blueprints"] == {"blueprint_name": template["blueprint"], "stack_name": "BIGTOP",
                                "stack_version": "3.2.0"}
    groups = dict((g["name"], g) for g in bp["host_groups"])
    assert set(groups) == set(g["name"] for g in template["host_groups"])
    for group in template["host_groups"]:
        assert len(group["hosts"]) == int(groups[group["name"]]["cardinality"])
    drivers = [h["fqdn"] for g in template["host_groups"] for h in g["hosts"]
               if {"name": names.COMPONENT} in groups[g["name"]]["components"]]
    brokers = [h["fqdn"] for g in template["host_groups"] for h in g["hosts"]
               if {"name": "KAFKA_BROKER"} in groups[g["name"]]["components"]]
    assert len(drivers) == 2 and len(brokers) == 3
    assert template["config_recommendation_strategy"] in (
        "NEVER_APPLY", "ONLY_STACK_DEFAULTS_APPLY", "ALWAYS_APPLY", "ALWAYS_APPLY_DONT_OVERRIDE_CUSTOM_VALUES")

    blueprint_configs = _single_type_maps(bp["configurations"])
    template_configs = _single_type_maps(template.get("configurations", []))
    # RequiredConfigPropertiesValidator: every require-input property (passwords aside) must be given.
    for ctype in schema.CONFIG_TYPES:
        for prop in ctype.properties:
            if prop.require_input and not prop.is_secret:
                assert prop.name in blueprint_configs.get(ctype.name, {}), (ctype.name, prop.name)
    for config_type, props in list(blueprint_configs.items()) + list(template_configs.items()):
        assert config_type in names.OWN_CONFIG_TYPES
        catalog = schema.BY_NAME[config_type]
        assert not catalog.properties or all(name in catalog for name in props), config_type

    configurations = schema.defaults()
    for source in (blueprint_configs, template_configs):
        for config_type, props in source.items():
            configurations[config_type].update(props)
    local = local_kafka.describe_local_kafka(brokers, {"listeners": "PLAINTEXT://localhost:9092"})
    version = configurations[names.ENV]["kafka_version_override"]
    problems = render.validate(configurations, version, local_kafka=local)
    assert problems == []
    topo = parse.build_topology(configurations, version, local_kafka=local)
    assert topo.clusters["west"].bootstrap == "kafka1.west.example.com:9092,kafka2.west.example.com:9092," \
                                               "kafka3.west.example.com:9092"
    findings = placement.check_placement(topo.aliases, [(f.source, f.target) for f in topo.enabled_flows],
                                         advice.host_targets(drivers, ""), topo.version.key)
    assert findings == []


def test_the_dr_example_topology_matches_what_deploy_stores():
    df = deployfile.load(DR)
    assert df.cluster == "west" and df.hosts == DR_HOSTS and df.stack == ("BIGTOP", "3.2.0")
    assert "deployment:" not in df.topology_text
    assert df.topology_text.count("\n") < open(DR).read().count("\n")
