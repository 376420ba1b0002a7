"""A corpus of bad inputs (tests/core/data/bad_inputs.json): each gives an ERROR that names the
property and says how to fix it, from validate() (advisor, REST tool) and from render_mm2 (agent)."""
import copy
import io
import json
import os

import pytest

from mm2_core.config.problems import ConfigError
from mm2_core.rendering import render

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "bad_inputs.json")
with io.open(DATA, encoding="utf-8") as _fh:
    CORPUS = json.load(_fh)
CASES = CORPUS["cases"]
DEFAULT_VERSION = "3.7.1"


def _configs(case):
    merged = copy.deepcopy(CORPUS["base"])
    for config_type, props in case["configs"].items():
        merged.setdefault(config_type, {}).update(props)
    return merged


def _matching(problems, case):
    config_type, name, fragments = case["expect"]
    return [p for p in problems if p.level == "ERROR" and p.config_type == config_type and p.name == name
            and all(f in p.message for f in fragments)]


def test_the_corpus_is_big_enough():
    assert len(CASES) >= 30
    assert len(set(c["name"] for c in CASES)) == len(CASES)


def test_the_base_configuration_is_valid():
    problems = render.validate(CORPUS["base"], DEFAULT_VERSION)
    assert [p for p in problems if p.level == "ERROR"] == []


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_validate_names_the_property_and_the_fix(case):
    problems = render.validate(_configs(case), case.get("version", DEFAULT_VERSION), case.get("local_kafka"))
    found = _matching(problems, case)
    assert found, "expected %s, got:\n%s" % (case["expect"], "\n".join(str(p) for p in problems))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_render_refuses_with_the_same_message(case):
    with pytest.raises(ConfigError) as info:
        render.render_mm2(_configs(case), case.get("version", DEFAULT_VERSION), "mm2-1.example.com",
                          "/etc/kafka-mm2/conf", local_kafka=case.get("local_kafka"))
    assert _matching(info.value.errors, case)
    # str() lists every error as config_type/name: message, one per line.
    for problem in info.value.errors:
        assert "%s/%s: %s" % (problem.config_type, problem.name, problem.message) in str(info.value)


def _mode(configs):
    return (configs.get("kafka-mm2-clusters") or {}).get("topology.mode", "simple")


SIMPLE_ONLY = set(["kafka-mm2-replication/direction"] +
                  ["kafka-mm2-clusters/%s.%s" % (role, field) for role in ("source", "target")
                   for field in ("alias", "bootstrap.servers", "security.protocol", "sasl.mechanism",
                                 "sasl.kerberos.service.name", "sasl.kerberos.principal", "sasl.kerberos.keytab",
                                 "sasl.username", "sasl.password", "ssl.truststore.location", "ssl.truststore.type",
                                 "ssl.truststore.password", "ssl.keystore.location", "ssl.keystore.type",
                                 "ssl.keystore.password", "ssl.key.password",
                                 "ssl.endpoint.identification.algorithm")])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_problem_names_a_property_of_the_chosen_mode(case):
    """An operator can only fix a property that exists, and that the mode in use reads."""
    from mm2_core.config import schema
    configs = _configs(case)
    for problem in render.validate(configs, case.get("version", DEFAULT_VERSION), case.get("local_kafka")):
        if problem.config_type == "kafka-mm2-custom":
            assert problem.name in configs.get("kafka-mm2-custom", {}), problem
            continue
        owned = schema.BY_NAME.get(problem.config_type)
        assert owned is not None, problem
        assert problem.name in owned or problem.name in configs.get(problem.config_type, {}), problem
        where = "%s/%s" % (problem.config_type, problem.name)
        if _mode(configs) == "advanced":
            assert where not in SIMPLE_ONLY, problem
        elif _mode(configs) == "simple":
            assert where != "kafka-mm2-topology/content", problem


@pytest.mark.parametrize("value,warned", [
    ("${vault}", True), ("${file:/etc/mm2/secrets.properties", True), ("${file:/etc/mm2/s.properties:pw}", False),
    ("${vault:secret/mm2:pw}", False), ("plain-secret", False)])
def test_a_password_that_only_looks_like_a_provider_reference_is_warned(value, warned):
    configs = copy.deepcopy(CORPUS["base"])
    configs.setdefault("kafka-mm2-custom", {})["source.ssl.key.password"] = value
    found = [p for p in render.validate(configs, DEFAULT_VERSION)
             if p.name == "source.ssl.key.password" and "config provider reference" in p.message]
    assert bool(found) == warned, [str(p) for p in found]
    if warned:
        assert found[0].level == "WARN" and "write ${provider:path:key}" in found[0].message
        assert value not in found[0].message   # a password is never echoed
