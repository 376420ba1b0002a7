"""The fake Ambari of tests/rest against the real server, on the stack endpoints mm2-ambari reads.

mm2-ambari plans configurations from GET .../services/KAFKA_MIRRORMAKER2/configurations (defaults and which
properties are passwords: configplan.StackDefaults) and reads the stack's Kafka version from
GET .../services/KAFKA (config_apply). The fake serves both from the schema; here the same requests go to
both servers and what the CLI takes from the answers must be equal, so the fake cannot drift from the server.
"""
import json
import os
import sys

import pytest

REST_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rest")
if REST_DIR not in sys.path:
    sys.path.insert(0, REST_DIR)

from rest_fake_ambari import FakeAmbari  # noqa: E402
from mm2_ambari.transport.ambari_state import StackDefaults  # noqa: E402

try:
    from urllib.request import Request, urlopen
except ImportError:  # pragma: no cover
    pass

STACK = ("BIGTOP", "3.3.0")
SVC_CONFIGS = "/api/v1/stacks/%s/versions/%s/services/KAFKA_MIRRORMAKER2/configurations?fields=StackConfigurations/*" % STACK
KAFKA = "/api/v1/stacks/%s/versions/%s/services/KAFKA?fields=StackServices/service_version" % STACK


@pytest.fixture(scope="module")
def real_kafka_version(ambari):
    status, body = ambari.get(KAFKA)
    assert status == 200, body
    return body["StackServices"]["service_version"]


@pytest.fixture(scope="module")
def fake(real_kafka_version):
    server = FakeAmbari(stack=STACK, stack_kafka_version=real_kafka_version).start()
    try:
        yield server
    finally:
        server.stop()


def _get_fake(fake, path):
    from rest_helpers import ADMIN
    import base64
    req = Request(fake.url + path)
    req.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % ADMIN).encode()).decode())
    with urlopen(req, timeout=30) as resp:
        return json.loads(resp.read().decode())


def _by_property(body):
    out = {}
    for item in body["items"]:
        c = item["StackConfigurations"]
        out[(c["type"], c["property_name"])] = (
            "" if c.get("property_value") is None else str(c["property_value"]),
            sorted(c.get("property_type") or []),
            (c.get("property_value_attributes") or {}).get("type"))
    return out


def test_stack_defaults_the_cli_plans_with_are_the_same(ambari, fake):
    status, real = ambari.get(SVC_CONFIGS)
    assert status == 200, real
    mine = _get_fake(fake, SVC_CONFIGS)
    real_defaults, fake_defaults = StackDefaults.from_response(real), StackDefaults.from_response(mine)
    assert fake_defaults.properties == real_defaults.properties
    assert fake_defaults.password_names == real_defaults.password_names


def test_stack_configuration_items_agree_property_by_property(ambari, fake):
    status, real = ambari.get(SVC_CONFIGS)
    real_items, fake_items = _by_property(real), _by_property(_get_fake(fake, SVC_CONFIGS))
    assert sorted(fake_items) == sorted(real_items)
    differing = dict((key, (fake_items[key], real_items[key])) for key in real_items if fake_items[key] != real_items[key])
    assert differing == {}


def test_stack_kafka_version_answer_has_the_same_shape(ambari, fake, real_kafka_version):
    assert _get_fake(fake, KAFKA)["StackServices"]["service_version"] == real_kafka_version
