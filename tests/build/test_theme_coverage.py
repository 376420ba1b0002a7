"""Every property is on a tab of the theme, or says why not: a new property cannot slip past the UI."""
import json
import os

import mpack_helpers
from mpack_helpers import replace_in

SERVICE_DIR = "common-services/KAFKA_MIRRORMAKER2/1.0.0"


def _theme_refs(repo):
    with open(os.path.join(repo, SERVICE_DIR, "themes", "theme.json")) as fh:
        conf = json.load(fh)["configuration"]
    widgets = set(w["config"] for w in conf["widgets"])
    return set(p["config"] for p in conf["placement"]["configs"] if p["config"] in widgets)


def test_every_property_is_on_a_tab_or_says_why_not(build_module):
    core = build_module.Core(mpack_helpers.REPO_ROOT)
    placed = _theme_refs(mpack_helpers.REPO_ROOT)
    missing, contradictory = [], []
    for ctype in core.schema.CONFIG_TYPES:
        for prop in ctype.properties:
            ref = "%s/%s" % (ctype.name, prop.name)
            if ref not in placed and not prop.not_in_theme:
                missing.append(ref)
            if ref in placed and prop.not_in_theme:
                contradictory.append(ref)
    assert missing == [] and contradictory == []
    # the property 1.0.0.0 shipped without a place in the UI
    assert "kafka-mm2-env/mm2_metrics_ssl_certificate_alias" in placed


def test_the_reasons_are_sentences_not_flags(build_module):
    core = build_module.Core(mpack_helpers.REPO_ROOT)
    reasons = [p.not_in_theme for t in core.schema.CONFIG_TYPES for p in t.properties if p.not_in_theme]
    assert reasons and all(len(r.split()) >= 6 for r in reasons)


def test_a_new_property_without_a_theme_place_fails_the_build(repo_copy, build_module):
    replace_in(os.path.join(repo_copy, "package/scripts/mm2_core/config/schema.py"),
               'Property("tasks.max",', 'Property("tasks.extra", "1", "Extra", "An added property.", '
               'value_type="int", overridable=False),\n    Property("tasks.max",')
    problems = [str(p) for p in build_module.validate(repo_copy)]
    assert any(p.startswith("package/scripts/mm2_core/config/schema.py:") and
               "kafka-mm2-replication/tasks.extra: on no tab of %s/themes/theme.json" % SERVICE_DIR in p
               for p in problems), "\n".join(problems)


def test_a_placed_property_that_claims_not_to_be_is_a_problem(repo_copy, build_module):
    replace_in(os.path.join(repo_copy, "package/scripts/mm2_core/config/schema.py"),
               'kafka_key="tasks.max", scope=FLOW),', 'kafka_key="tasks.max", scope=FLOW, '
               'not_in_theme="a reason given by mistake here"),')
    problems = [str(p) for p in build_module.validate(repo_copy)]
    assert any("kafka-mm2-replication/tasks.max: placed in the theme but not_in_theme says" in p
               for p in problems), "\n".join(problems)
