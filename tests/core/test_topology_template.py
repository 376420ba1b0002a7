"""The default text of kafka-mm2-topology/content: commented out, and valid once uncommented."""
import io
import os

import pytest

from mm2_core.config import schema
from mm2_core.kafka import versions
from mm2_core.rendering import render

TEMPLATE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "package", "templates", schema.TOPOLOGY["content"].content_file)
LOCAL = {"hosts": ["k1.example.com", "k2.example.com", "k3.example.com"], "port": 6667}


def _template():
    with io.open(TEMPLATE, encoding="utf-8") as fh:
        return fh.read()


def _uncommented():
    lines = _template().splitlines()
    start = lines.index("# clusters:")
    return "\n".join(line[2:] for line in lines[start:]) + "\n"


def _configs(text):
    return {"kafka-mm2-clusters": {"topology.mode": "advanced"}, "kafka-mm2-topology": {"content": text}}


def test_unedited_template_in_advanced_mode_says_what_to_do():
    problems = render.validate(_configs(_template()), "3.7.1")
    assert [str(p) for p in problems] == [
        "kafka-mm2-topology/content: has only comments, but kafka-mm2-clusters/topology.mode is advanced: "
        "uncomment the example (remove the leading '# ') and describe your clusters and flows, or switch "
        "topology.mode to simple"]


@pytest.mark.parametrize("line,version", versions.SUPPORTED_LINES)
def test_uncommented_example_is_valid_from_2_7(line, version):
    problems = render.validate(_configs(_uncommented()), version, LOCAL)
    errors = [p for p in problems if p.level == "ERROR"]
    if versions.supports(version, versions.OFFSET_SYNC):
        assert errors == []
        rendering = render.render_mm2(_configs(_uncommented()), version, "h", "/etc/kafka-mm2/conf", LOCAL)
        assert rendering.topology.aliases == ["east", "west", "central"]
        assert rendering.target_clusters == []  # the example sets no target.clusters
    else:
        assert [str(p) for p in errors] == [
            "kafka-mm2-topology/content: flows[0] (east->central).sync.group.offsets.enabled: consumer offset "
            "sync needs Kafka 2.7 or newer, this MM2 is %s" % version]
