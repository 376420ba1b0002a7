"""The run specification of mm2-verify (pure: Python 2.7 and 3, no pyspark).

Constants of the contract (exit codes, Spark's Kafka schema, MM2's defaults), time and duration
parsing, MM2's topic naming and selection (replication policies, whole-name filters, the anchored
subscribePattern Spark needs), and normalize_spec: one validated verification from CLI flags or
one entry of a --plan file.
"""
import calendar
import json
import re
import time

from mm2_core.config import config_values as _values
from mm2_core.config import names as _names
from mm2_core.config import schema as _schema
from mm2_core.kafka import replication_policy as _policy


REPORT_VERSION = 1
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_RUNTIME = 0, 1, 2, 3
EXIT_INTERRUPTED = 130   # Ctrl-C, as a shell reports a SIGINT

# Spark's Kafka source schema (KafkaRecordToRowConverter.kafkaSchema(includeHeaders=true)).
KAFKA_COLUMNS = (
    ("key", "binary"),
    ("value", "binary"),
    ("topic", "string"),
    ("partition", "int"),
    ("offset", "bigint"),
    ("timestamp", "timestamp"),
    ("timestampType", "int"),
    ("headers", "array<struct<key:string,value:binary>>"),
)
OPTIONAL_COLUMNS = ("timestampType", "headers")
# A dump may carry the timestamp as epoch milliseconds instead of a timestamp.
ACCEPTED_TYPES = {"timestamp": ("timestamp", "bigint")}

MATCH_FIELDS = ("key", "value", "headers", "timestamp")
FAIL_CHOICES = ("missing", "order", "pending", "duplicates", "extra", "skipped")
DEFAULT_FAIL_ON = ("missing", "order", "skipped")
POLICIES = _policy.POLICIES

# Never verified: MM2's internal topics (DefaultReplicationPolicy.isInternalTopic: Kafka's and
# Connect's internals, mm2-*.internal) and heartbeats, which are compacted and rewritten on both
# sides (MM2 replicates heartbeats whatever its topic filter says).
ALWAYS_EXCLUDED = (r".*[.\-]internal", r"__.*", r"\..*", r"heartbeats")

# MM2's own default topics.exclude (MirrorSourceConfig / DefaultTopicFilter), applied when the
# command line gives no --topics-exclude, exactly as MM2 applies it when the property is unset.
MM2_DEFAULT_TOPICS_EXCLUDE = _schema.BY_NAME[_names.REPLICATION]["topics.exclude"].default

# Kafka consumer settings Spark's Kafka source sets itself and refuses from users.
SPARK_MANAGED_KAFKA_KEYS = ("group.id", "auto.offset.reset", "key.deserializer",
                            "value.deserializer", "enable.auto.commit", "interceptor.classes")

# Data source options Spark must redact from plans and the UI (default is only "(?i)url").
REDACTION_REGEX = r"(?i)url|password|secret|token|jaas|credential"


class BadInput(Exception):
    """Input the operator must fix; the message says what and how."""


# ---------------------------------------------------------------- time and durations

_DURATION_UNITS = {"ms": 1, "s": 1000, "m": 60000, "h": 3600000, "d": 86400000}
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?"
                  r"\s*(Z|[+-]\d{2}:?\d{2})?$")


def parse_duration_ms(text, what="duration"):
    """'90s', '5m', '2h', '1d', '250ms' or a bare number of milliseconds -> int ms."""
    if isinstance(text, int):
        return text
    value = str(text).strip().lower()
    match = re.match(r"^(\d+)\s*(ms|s|m|h|d)?$", value)
    if not match:
        raise BadInput("%s: %r is not a duration; use e.g. 60s, 5m, 2h, 1d or milliseconds" % (what, text))
    return int(match.group(1)) * _DURATION_UNITS[match.group(2) or "ms"]


def format_duration(ms):
    """Shortest exact form: 60000 -> '1m', 1500 -> '1500ms'."""
    for unit in ("d", "h", "m", "s"):
        size = _DURATION_UNITS[unit]
        if ms and ms % size == 0:
            return "%d%s" % (ms // size, unit)
    return "%dms" % ms


def parse_time_ms(text, now_ms, what="time"):
    """now, -30m (relative), epoch milliseconds, or ISO-8601 (UTC unless an offset is given)."""
    value = str(text).strip()
    if value == "now":
        return now_ms
    if value.startswith("-"):
        return now_ms - parse_duration_ms(value[1:], what)
    if re.match(r"^\d{11,}$", value):
        return int(value)
    match = _ISO.match(value)
    if not match:
        raise BadInput("%s: %r is not a time; use now, -30m, epoch milliseconds or "
                       "ISO-8601 like 2024-05-01T10:00:00Z" % (what, text))
    year, month, day, hour, minute, second, frac, zone = match.groups()
    seconds = calendar.timegm((int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                               int(second or 0), 0, 0, 0))
    millis = int((frac or "0").ljust(3, "0")[:3])
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        seconds -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return seconds * 1000 + millis


def format_ms(ms):
    if ms is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


# ---------------------------------------------------------------- topic names

def parse_flow(text):
    """'A->B' -> ('A', 'B')."""
    parts = [p.strip() for p in str(text).split("->")]
    if len(parts) != 2 or not all(re.match(r"^[A-Za-z0-9_\-]+$", p) for p in parts) or parts[0] == parts[1]:
        raise BadInput("--flow '%s': expected SOURCE->TARGET with two different cluster aliases, quoted: "
                       "--flow 'primary->backup' (unquoted, the shell reads > as a redirect)" % (text,))
    return parts[0], parts[1]


def remote_topic(source_alias, topic, policy="prefixed", separator="."):
    """The mirrored name MM2 gives `topic` of cluster `source_alias` on the target (the replication
    policy of mm2_core.kafka.replication_policy, the one the renderer and the alerts use)."""
    return _policy.remote_topic(source_alias, topic, policy, separator)


def upstream_topic(source_alias, target_topic, policy="prefixed", separator="."):
    """Inverse of remote_topic: the source topic a target topic mirrors, or None when no topic of
    `source_alias` is named so on the target."""
    upstream = _policy.upstream_topic(source_alias, target_topic, policy, separator)
    return upstream if _policy.remote_topic(source_alias, upstream, policy, separator) == target_topic else None


# MM2 list syntax (comma-separated Java regexes; a list is taken as is): the core's one reader of it
split_patterns = _values.parse_list


def source_excludes(excludes, target_alias, policy, separator):
    """User excludes + MM2 internals + what MM2 never replicates A->B.

    MirrorSourceConnector.isCycle: under the prefixed policy a topic whose chain of source
    aliases (every prefix segment) contains the target alias would flow back into the target.
    """
    sep = java_quote(separator)
    result = list(excludes) + list(ALWAYS_EXCLUDED) + [r".*" + sep + "heartbeats", r"mm2.*" + sep + "internal"]
    if policy == "prefixed":
        result.append("(?:.*" + sep + ")?" + java_quote(target_alias) + sep + ".*")
    return result


def java_quote(text):
    """Pattern.quote: literal text inside a Java (and Python) regex."""
    return "".join("\\" + c if not c.isalnum() and c != "_" else c for c in text)


def java_topic_pattern(includes, excludes, prefix=""):
    """One Java regex for Spark's subscribePattern.

    Spark's Kafka source keeps a topic when `topicRegex.findFirstIn(topic)` finds the pattern
    anywhere in the name (a substring search), while MM2 matches whole names: the pattern is
    anchored at both ends (^ and \\z), so both select the same topics.
    """
    include = "|".join("(?:%s)" % p for p in includes) or ".*"
    exclude = "|".join("(?:%s)" % p for p in excludes)
    body = ("(?!(?:%s)\\z)" % exclude if exclude else "") + "(?:%s)\\z" % include
    return "^" + java_quote(prefix) + body


def spark_subscribes(pattern, topic):
    """What Spark's Kafka source does with a subscribePattern: a substring search (findFirstIn)."""
    return re.search(pattern.replace("\\z", "\\Z"), topic) is not None


def topic_matcher(includes, excludes):
    """MM2's topic filter: a topic is replicated when one include matches its whole name and no
    exclude does (DefaultTopicFilter joins each list with | and calls matches())."""
    inc = [re.compile("(?:%s)\\Z" % p) for p in (includes or [".*"])]
    exc = [re.compile("(?:%s)\\Z" % p) for p in excludes]

    def matches(topic):
        return any(r.match(topic) for r in inc) and not any(r.match(topic) for r in exc)
    return matches


# ---------------------------------------------------------------- the run specification

def _offsets_value(value, what):
    """Spark's offsets JSON ({"t":{"0":23}}) given as text, @file or a dict -> dict."""
    if value is None or isinstance(value, dict):
        return value
    text = str(value)
    if text.startswith("@"):
        try:
            with open(text[1:]) as handle:
                text = handle.read()
        except (IOError, OSError) as exc:
            raise BadInput("%s: cannot read %s: %s" % (what, text[1:], exc))
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise BadInput("%s: not JSON (%s); expected Spark's format {\"topic\":{\"0\":23,\"1\":-2}}" % (what, exc))
    if not isinstance(parsed, dict) or not all(
            isinstance(v, dict) and all(re.match(r"^\d+$", str(p)) and isinstance(o, int) for p, o in v.items())
            for v in parsed.values()):
        raise BadInput("%s: expected {\"topic\":{\"partition\":offset,...}} with integer offsets "
                       "(-2 earliest, -1 latest)" % what)
    return dict((t, dict((int(p), o) for p, o in v.items())) for t, v in parsed.items())


def _input_spec(side, raw):
    """{'kind': 'kafka', 'options': {...}} or {'kind': 'parquet'|'json', 'path': p}."""
    raw = dict(raw or {})
    kind = raw.get("kind") or ("kafka" if raw.get("options") else None)
    if kind is None and raw.get("path"):
        path = raw["path"]
        kind = "json" if re.search(r"\.(json|jsonl|ndjson)$", path) else "parquet"
    if kind == "kafka":
        options = dict((str(k)[6:] if str(k).startswith("kafka.") else str(k), str(v))
                       for k, v in (raw.get("options") or {}).items())
        if not options.get("bootstrap.servers"):
            raise BadInput("%s: no Kafka bootstrap servers; give --%s-bootstrap host:port or "
                           "--%s-dump PATH" % (side, side, side))
        refused = sorted(k for k in options if k in SPARK_MANAGED_KAFKA_KEYS)
        if refused:
            raise BadInput("%s Kafka option(s) %s are managed by Spark's Kafka source; remove them"
                           % (side, ", ".join(refused)))
        return {"kind": "kafka", "options": options}
    if kind in ("parquet", "json"):
        if not raw.get("path"):
            raise BadInput("%s: a %s dump needs a path" % (side, kind))
        return {"kind": kind, "path": raw["path"]}
    raise BadInput("%s: give a dump (--%s-dump PATH) or Kafka settings (--%s-bootstrap)" % (side, side, side))


def _check_offsets(value):
    value = str(value or "auto").strip().lower()
    if value not in ("auto", "yes", "no"):
        raise BadInput("--check-offsets %r: use auto (when both sides are Kafka), yes or no" % value)
    return value


OFFSET_SYNCS_LOCATIONS = ("source", "target")


def _offset_syncs_location(value):
    """MM2's offset-syncs.topic.location of the flow: where its offset-syncs topic lives (source by default)."""
    value = str(value or "source").strip().lower()
    if value not in OFFSET_SYNCS_LOCATIONS:
        raise BadInput("offset-syncs location %r: use source (MM2's default) or target, as the flow's "
                       "offset-syncs.topic.location says" % value)
    return value


def _given(raw, key, default):
    value = raw.get(key)
    return default if value is None or value == "" else value


def normalize_spec(raw, now_ms):
    """Validate one verification (a dict: CLI flags or one entry of a --plan file)."""
    source_alias, target_alias = parse_flow(raw.get("flow", ""))
    policy = raw.get("policy") or "prefixed"
    if policy not in POLICIES:
        raise BadInput("policy %r: use prefixed (DefaultReplicationPolicy) or identity "
                       "(IdentityReplicationPolicy)" % policy)
    separator = raw.get("separator") or "."
    match_on = split_patterns(raw.get("match_on")) or list(MATCH_FIELDS)
    unknown = [f for f in match_on if f not in MATCH_FIELDS]
    if unknown or not ("key" in match_on or "value" in match_on):
        raise BadInput("match_on %s: choose among %s and keep key or value" % (",".join(match_on), ",".join(MATCH_FIELDS)))
    fail_on = split_patterns(raw.get("fail_on")) or list(DEFAULT_FAIL_ON)
    if [f for f in fail_on if f not in FAIL_CHOICES]:
        raise BadInput("fail_on %s: choose among %s" % (",".join(fail_on), ",".join(FAIL_CHOICES)))
    starting = _offsets_value(raw.get("starting_offsets"), "starting offsets")
    ending = _offsets_value(raw.get("ending_offsets"), "ending offsets")
    since, until = raw.get("since"), raw.get("until")
    if (starting or ending) and (since or until):
        raise BadInput("give either a time range (--since/--until) or an offset range "
                       "(--starting-offsets/--ending-offsets), not both")
    if ending and not starting or starting and not ending:
        raise BadInput("an offset range needs both --starting-offsets and --ending-offsets")
    if starting and sorted(starting) != sorted(ending):
        raise BadInput("starting and ending offsets must name the same topics")
    mode = "offsets" if starting else "time" if (since or until) else "all"
    since_ms = parse_time_ms(since, now_ms, "--since") if since else None
    until_ms = parse_time_ms(until, now_ms, "--until") if until else (now_ms if since else None)
    if since_ms is not None and until_ms is not None and since_ms >= until_ms:
        raise BadInput("--since %s is not before --until %s" % (format_ms(since_ms), format_ms(until_ms)))
    pending_records = int(raw.get("pending_records") or 0)
    if pending_records < 0:
        raise BadInput("--pending-records must be 0 or more")
    return {
        "flow": source_alias + "->" + target_alias,
        "source_alias": source_alias,
        "target_alias": target_alias,
        "policy": policy,
        "separator": separator,
        "topics": split_patterns(raw.get("topics")) or [".*"],
        "topics_exclude": split_patterns(MM2_DEFAULT_TOPICS_EXCLUDE if raw.get("topics_exclude") is None
                                         else raw.get("topics_exclude")),
        "source": _input_spec("source", raw.get("source")),
        "target": _input_spec("target", raw.get("target")),
        "mode": mode,
        "since_ms": since_ms,
        "until_ms": until_ms,
        "starting_offsets": starting,
        "ending_offsets": ending,
        "pending_window_ms": parse_duration_ms(_given(raw, "pending_window", "60s"), "--pending-window"),
        "pending_records": pending_records,
        "target_slack_ms": parse_duration_ms(_given(raw, "target_slack", "5m"), "--target-slack"),
        "match_on": match_on,
        "fail_on": fail_on,
        "allow_empty": bool(raw.get("allow_empty")),
        "check_offsets": _check_offsets(raw.get("check_offsets")),
        "offset_syncs_location": _offset_syncs_location(raw.get("offset_syncs_location")),
    }


def offsets_json(offsets):
    return dict((t, dict((str(p), o) for p, o in v.items())) for t, v in offsets.items())
