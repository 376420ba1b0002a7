"""Shared helpers: load an example (configurations + render options) and render it for a line."""
import io
import json
import os

from mm2_core.config import local_kafka, problems
from mm2_core.rendering import render

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO, "examples")
GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
CONF_DIR = "/etc/kafka-mm2/conf"


def example_names():
    return sorted(name for name in os.listdir(EXAMPLES_DIR)
                  if os.path.isfile(os.path.join(EXAMPLES_DIR, name, "configurations.json")))


def load_example(name):
    with io.open(os.path.join(EXAMPLES_DIR, name, "configurations.json"), encoding="utf-8") as fh:
        configurations = json.load(fh)
    options = {}
    path = os.path.join(EXAMPLES_DIR, name, "render.json")
    if os.path.exists(path):
        with io.open(path, encoding="utf-8") as fh:
            options = json.load(fh)
    return configurations, options


def local_kafka_for(configurations, options):
    hosts = options.get("kafka_broker_hosts")
    return local_kafka.local_kafka_from(configurations, hosts) if hosts else None


def render_example(name, version):
    """(Rendering, None) or (None, ConfigError)."""
    configurations, options = load_example(name)
    try:
        return render.render_mm2(configurations, version, options.get("host", "mm2-host.example.com"),
                                 CONF_DIR, local_kafka=local_kafka_for(configurations, options)), None
    except problems.ConfigError as exc:
        return None, exc
