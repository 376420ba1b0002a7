"""Helpers to drive the advisor the way Ambari does, and to read its answers."""
import re

from mm2_core.config import names
from source_loader import load_source  # noqa: F401 (re-exported for the tests)


def first_matching_attribute(module, service_name):
    """What stack_advisor.instantiateServiceAdvisor picks: the first non-dunder attribute in dir()
    order that matches '<SERVICE>.*?ServiceAdvisor' case-insensitively."""
    pattern = re.compile("%s.*?ServiceAdvisor" % service_name, re.IGNORECASE)
    for attribute in dir(module):
        if not attribute.startswith("__") and pattern.match(attribute):
            return attribute
    return None


def pick_advisor_class(advisor_path):
    module = load_source("service_advisor_impl", advisor_path)
    return getattr(module, first_matching_attribute(module, names.SERVICE) or names.ADVISOR_CLASS)


def recommended(stack_advisor, services, hosts):
    """{config type: {property: value}} recommended for the blueprint (default config group)."""
    result = stack_advisor.recommendConfigurations(services, hosts)
    configurations = result["recommendations"]["blueprint"]["configurations"]
    return dict((t, dict(c.get("properties", {}))) for t, c in configurations.items())


def validation_items(stack_advisor, services, hosts, own_only=True):
    items = stack_advisor.validateConfigurations(services, hosts)["items"]
    if own_only:
        items = [i for i in items if i.get("config-type") in names.OWN_CONFIG_TYPES]
    return items


def layout_items(stack_advisor, services, hosts):
    items = stack_advisor.validateComponentLayout(services, hosts)["items"]
    return [i for i in items if i.get("component-name") == names.COMPONENT]


def find(items, config_name=None, level=None, text=None, config_type=None):
    """Items matching all given criteria (text: a substring of the message, case-insensitive)."""
    found = []
    for item in items:
        if config_name is not None and item.get("config-name") != config_name:
            continue
        if config_type is not None and item.get("config-type") != config_type:
            continue
        if level is not None and item.get("level") != level:
            continue
        if text is not None and text.lower() not in item.get("message", "").lower():
            continue
        found.append(item)
    return found
