"""Live flow settings (kafka-mm2-live/flow.settings): per-flow values a running connect-mode driver applies
without a restart, in a config type Ambari never flags "Restart Required" for.

Why a type of its own: both Ambari server lines (2.7.8 and trunk) decide "Restart Required" per config
TYPE. A save of a type listed in the service's <configuration-dependencies> sets the host component's
restart_required flag (ConfigHelper.checkStaleConfigsStatusForHostComponent), whatever property changed, and
only a START or RESTART clears it (HeartbeatProcessor). A property's <supported-refresh-commands> does not
lift the flag: it only picks the reconfigureAction of a RECONFIGURE request (HostRoles/reload_configs). So
the settings that are live in connect mode live in a type left out of <configuration-dependencies>
(names.NO_RESTART_CONFIG_TYPES), and the restart-needing ones stay where they are.

Format: one line per setting, MirrorMaker 2's own per-flow syntax

    SOURCE->TARGET.topics = orders.*, payments
    # a comment

A line overrides that flow's value of kafka-mm2-replication / the topology (MM2's precedence of
"A->B.key" over "key"). Connect mode only: a dedicated driver reads its flows once at start, and Ambari
would not flag the restart a change here needs, so dedicated mode refuses a non-empty value.
Pure (stdlib only, Python 2.7 and 3).
"""
import re

from mm2_core.config import names
from mm2_core.config.problems import ERROR, Problem
from mm2_core.formats import javaregex
from mm2_core.kafka import versions

PROPERTY = "flow.settings"

# The settings a running flow takes live: Connect restarts only that flow's connectors on a config PUT.
# kafka-mm2-replication names; the version's Kafka key comes from versions.renamed_key.
PATTERN_SETTINGS = ("topics", "topics.exclude", "groups", "groups.exclude")
LIVE_SETTINGS = PATTERN_SETTINGS + (
    "sync.group.offsets.enabled", "sync.group.offsets.interval.seconds", "emit.checkpoints.interval.seconds",
    "refresh.topics.interval.seconds", "refresh.groups.interval.seconds", "sync.topic.configs.enabled",
    "tasks.max")

_LINE = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*->\s*([A-Za-z0-9_.-]+?)\.([a-z][a-z0-9_.-]*)\s*[=:]\s*(.*?)\s*$")


def _problem(message):
    return Problem(names.LIVE, PROPERTY, message)


def _did_you_mean(word, choices):
    import difflib
    close = difflib.get_close_matches(word, choices, 1, 0.6)
    return " (did you mean %s?)" % close[0] if close else ""


def parse(text_value, topology):
    """([(flow name, Kafka key, value)], [Problem]) of the live settings, checked against the topology's flows
    and the Kafka version (the key it has there, its type). The one validator of kafka-mm2-live/flow.settings:
    validate, render, configure --dry-run, the service advisor and the agent all call it, so each says the same
    words. Each problem names the line, the flow, the setting and the fix."""
    entries, problems = [], []
    version = topology.version
    flows = dict((f.name, f) for f in topology.flows)
    example = sorted(flows)[0] if flows else "A->B"
    seen = {}
    for number, line in enumerate((text_value or "").splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("!"):
            continue
        where = "line %d (%s)" % (number, stripped)
        match = _LINE.match(line)
        if not match:
            problems.append(_problem("%s: not a setting line; write SOURCE->TARGET.setting = value, e.g. "
                                     "%s.topics = orders.*" % (where, example)))
            continue
        source, target, name, value = match.groups()
        flow = "%s->%s" % (source, target)
        if flow not in flows:
            problems.append(_problem("%s: no flow %s in this topology%s; flows: %s. Fix the flow name or remove "
                                     "the line" % (where, flow, _did_you_mean(flow, sorted(flows)),
                                                   ", ".join(sorted(flows)) or "none")))
            continue
        if not flows[flow].enabled:
            problems.append(_problem("%s: flow %s is disabled; enable it (kafka-mm2-replication or the topology) "
                                     "or remove the line" % (where, flow)))
            continue
        if name not in LIVE_SETTINGS:
            problems.append(_problem("%s: %s is not a live flow setting%s: it cannot change while flow %s runs; "
                                     "live: %s. Set it in kafka-mm2-replication or the topology (a driver restart) "
                                     "and remove the line" % (where, name, _did_you_mean(name, LIVE_SETTINGS), flow,
                                                              ", ".join(LIVE_SETTINGS))))
            continue
        key = versions.renamed_key(version, name)
        if key is None or not versions.connector_key_defined(version, key, True):
            problems.append(_problem("%s: Kafka %s has no %s (flow %s); remove the line" % (
                where, version, name, flow)))
            continue
        if (flow, key) in seen:
            problems.append(_problem("%s: %s of flow %s is already set on line %d; keep one of the two lines" % (
                where, name, flow, seen[(flow, key)])))
            continue
        seen[(flow, key)] = number
        if name in PATTERN_SETTINGS:
            if name in ("topics", "groups") and not javaregex.split_list(value):
                problems.append(_problem("%s: %s of flow %s is empty: nothing would be %s; use .* for all, or "
                                         "pause the flow" % (where, name, flow,
                                                             "replicated" if name == "topics" else "checkpointed")))
                continue
            error = javaregex.pattern_list_error(value)
            if error:
                problems.append(_problem("%s: %s of flow %s: %s; fix the pattern (comma-separated Java regexes)" % (
                    where, name, flow, error)))
                continue
        else:
            found = versions.value_problem(version, key, value)
            if found:
                level, message = found
                problems.append(Problem(names.LIVE, PROPERTY, "%s: %s of flow %s: %s; fix the value or remove the "
                                        "line" % (where, name, flow, message), level))
                if level == ERROR:
                    continue
        entries.append((flow, key, value))
    return entries, problems


def overlay(properties, entries):
    """The dedicated rendering's properties [(key, value)] with the live entries as "A->B.key" lines (a line
    already there is replaced in place, a new one appended): what connect_mode.plan computes the connectors
    from, so a live value takes MM2's own per-flow precedence."""
    wanted = dict(("%s.%s" % (flow, key), value) for flow, key, value in entries)
    out = []
    for key, value in properties:
        if key in wanted:
            out.append((key, wanted.pop(key)))
        else:
            out.append((key, value))
    for flow, key, value in entries:
        full = "%s.%s" % (flow, key)
        if full in wanted:
            out.append((full, wanted.pop(full)))
    return out


def dedicated_problem(run_mode, text_value):
    """The refusal of live settings in dedicated mode (None when empty or in connect mode)."""
    if run_mode == "connect" or not any(
            line.strip() and not line.strip().startswith(("#", "!")) for line in (text_value or "").splitlines()):
        return None
    return _problem("live flow settings apply only in connect mode (kafka-mm2-env/mm2_run_mode=connect): a "
                    "dedicated driver reads its flows once at start, and Ambari does not flag the restart a change "
                    "of this type would need; move the lines into kafka-mm2-replication or the topology, or empty it")


def config_problems(configurations, topology):
    """[Problem] of connect mode's own settings in a {type: {name: value}} map, for the advisor (the agent checks
    the same at CONFIGURE): live flow settings (refused in dedicated mode) and the REST listener's protection."""
    from mm2_core.connect.rest_security import RestSecurity
    configurations = configurations or {}
    env = configurations.get(names.ENV) or {}
    run_mode = str(env.get("mm2_run_mode") or "dedicated").strip()
    text_value = (configurations.get(names.LIVE) or {}).get(PROPERTY) or ""
    refused = dedicated_problem(run_mode, text_value)
    if refused:
        return [refused]
    if run_mode != "connect":
        return []
    return parse(text_value, topology)[1] + RestSecurity.from_env(env).problems(topology.version)
