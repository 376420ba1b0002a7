"""mm2-verify: prove that a MirrorMaker 2 flow A->B lost nothing and kept per-key order.

A self-contained PySpark job (this one file is what spark-submit runs):

    spark-submit [--master yarn] job.py --flow A->B --topics 'orders,payments' \
        --source-dump /dumps/A --target-dump /dumps/B --report r.json --plot r.png

It compares every source partition with its mirrored partition (same partition number,
topic renamed by the replication policy) and matches records by content: a fingerprint of
key, value, headers and timestamp (MM2 keeps all four; offsets differ).  Per content it counts
the copies on each side, so the comparison is a multiset match:

    matched     min(source copies, target copies)
    duplicates  target copies beyond the source copies (at-least-once replays)
    extra       target records whose content never occurs in the source range
    missing     source copies with no target copy, outside the pending window
    pending     source copies with no target copy inside the pending window (in flight)
    order       a matched record whose first target copy precedes the first target copy of
                an earlier (in source order) record with the same key

Only per-partition aggregates ever reach the driver.  Exit status: 0 ok, 1 loss or disorder
found (see --fail-on), 2 bad input, 3 the job could not run (Spark or Kafka failure).

Imports on Python 2.7 and 3 without pyspark (the Ambari agent and the off-cluster CLI import
its pure helpers); pyspark is imported only when a comparison runs.
"""
import argparse
import calendar
import json
import os
import re
import sys
import time
import traceback

if __name__ == "__main__" and not __package__:
    # spark-submit runs this file as a script: make its siblings (mm2_core) importable.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

REPORT_VERSION = 1
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_RUNTIME = 0, 1, 2, 3

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
POLICIES = ("prefixed", "identity")

# Never verified: MM2's internal topics (DefaultReplicationPolicy.isInternalTopic: Kafka's and
# Connect's internals, mm2-*.internal) and heartbeats, which are compacted and rewritten on both
# sides (MM2 replicates heartbeats whatever its topic filter says).
ALWAYS_EXCLUDED = (r".*[.\-]internal", r"__.*", r"\..*", r"heartbeats")

# MM2's own default topics.exclude (MirrorSourceConfig / DefaultTopicFilter), applied when the
# command line gives no --topics-exclude, exactly as MM2 applies it when the property is unset.
MM2_DEFAULT_TOPICS_EXCLUDE = r".*[\-\.]internal, .*\.replica, __.*"

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
        raise BadInput("--flow %r: expected SOURCE->TARGET with two different cluster aliases, "
                       "e.g. primary->backup" % (text,))
    return parts[0], parts[1]


def remote_topic(source_alias, topic, policy="prefixed", separator="."):
    """The mirrored name MM2 gives `topic` of cluster `source_alias` on the target.

    prefixed = DefaultReplicationPolicy (alias + separator + topic); identity =
    IdentityReplicationPolicy (unchanged, except heartbeats which stay prefixed).
    """
    if policy == "identity" and not topic.endswith("heartbeats"):
        return topic
    return source_alias + separator + topic


def upstream_topic(source_alias, target_topic, policy="prefixed", separator="."):
    """Inverse of remote_topic: the source topic a target topic mirrors, or None."""
    if policy == "identity" and not target_topic.endswith("heartbeats"):
        return target_topic
    prefix = source_alias + separator
    return target_topic[len(prefix):] if target_topic.startswith(prefix) else None


def split_patterns(text):
    """MM2 list syntax: comma-separated Java regexes (a list is taken as is)."""
    if text is None:
        return []
    items = text if isinstance(text, (list, tuple)) else str(text).split(",")
    return [p.strip() for p in items if p and p.strip()]


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
    }


# ---------------------------------------------------------------- Kafka source options

def spark_version_tuple(version):
    return tuple(int(x) for x in re.findall(r"\d+", version)[:2])


def kafka_read_options(client_options, pattern=None, assign=None, starting=None, ending=None,
                       start_ms=None, end_ms=None, spark_version="3.5.0"):
    """Options for spark.read.format("kafka") (batch).

    client_options are Kafka consumer settings without the kafka. prefix (security included);
    either a subscribePattern or an assignment {topic: [partitions]}; an offset range (Spark
    offsets JSON dicts) or a time range (epoch ms; Spark 3.2+, older Sparks read everything
    and the job filters by timestamp).
    """
    options = dict(("kafka." + k, v) for k, v in client_options.items())
    # Compare what consumers see: aborted transactions (exactly-once MM2 writes transactionally)
    # are neither source records nor mirrored copies.
    options.setdefault("kafka.isolation.level", "read_committed")
    options["includeHeaders"] = "true"
    options["failOnDataLoss"] = "false"  # records aged out mid-read are not replication loss
    if assign:
        options["assign"] = json.dumps(dict((t, sorted(p)) for t, p in assign.items()), sort_keys=True)
    else:
        options["subscribePattern"] = pattern
    if starting is not None:
        options["startingOffsets"] = json.dumps(_offsets_json(starting), sort_keys=True)
        options["endingOffsets"] = json.dumps(_offsets_json(ending), sort_keys=True)
    elif spark_version_tuple(spark_version) >= (3, 2) and (start_ms is not None or end_ms is not None):
        if start_ms is not None:
            options["startingTimestamp"] = str(start_ms)
            options["startingOffsetsByTimestampStrategy"] = "latest"
        if end_ms is not None:
            options["endingTimestamp"] = str(end_ms)
    return options


def _offsets_json(offsets):
    return dict((t, dict((str(p), o) for p, o in v.items())) for t, v in offsets.items())


# ---------------------------------------------------------------- Spark side

def kafka_schema():
    """The StructType Spark's Kafka source produces with includeHeaders=true."""
    from pyspark.sql import types as T
    return T.StructType([
        T.StructField("key", T.BinaryType()),
        T.StructField("value", T.BinaryType()),
        T.StructField("topic", T.StringType()),
        T.StructField("partition", T.IntegerType()),
        T.StructField("offset", T.LongType()),
        T.StructField("timestamp", T.TimestampType()),
        T.StructField("timestampType", T.IntegerType()),
        T.StructField("headers", T.ArrayType(T.StructType([
            T.StructField("key", T.StringType()),
            T.StructField("value", T.BinaryType())]))),
    ])


def schema_problems(fields, where):
    """[message] for columns a dump lacks or types it gets wrong; fields = [(name, simpleString)]."""
    actual = dict(fields)
    problems = []
    for name, expected in KAFKA_COLUMNS:
        if name not in actual:
            if name not in OPTIONAL_COLUMNS:
                problems.append("%s: column %s (%s) is missing" % (where, name, expected))
            continue
        allowed = ACCEPTED_TYPES.get(name, (expected,))
        if actual[name] not in allowed:
            problems.append("%s: column %s is %s, expected %s" % (where, name, actual[name], " or ".join(allowed)))
    return problems


KAFKA_CONNECTOR_ARTIFACT = "org.apache.spark:spark-sql-kafka-0-10_%s:%s"
MAVEN = "maven"


def connector_coordinate(spark_version, scala_version):
    """Spark's Kafka connector built for this Spark: org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0."""
    return KAFKA_CONNECTOR_ARTIFACT % (scala_version, spark_version)


def installed_spark():
    """(spark version, scala binary version) of the pyspark this Python imports, or (None, None)."""
    try:
        import glob
        import os
        import pyspark
    except ImportError:
        return None, None
    version = getattr(pyspark, "__version__", None)
    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "scala-library-*.jar"))
    match = re.search(r"scala-library-(\d+\.\d+)", jars[0]) if jars else None
    scala = match.group(1) if match else ("2.13" if version and version.startswith("4") else "2.12")
    return version, scala


def kafka_connector(value):
    """--kafka-connector: ("jars", [absolute jar paths]) for a directory or a comma-separated list of
    jars, ("packages", coordinate) for a Maven coordinate or "maven" (the connector of this pyspark)."""
    import glob
    import os
    text = (value or "").strip()
    if not text:
        return None
    if text == MAVEN:
        version, scala = installed_spark()
        if not version:
            raise BadInput("--kafka-connector maven: no pyspark here to pick the connector version for; "
                           "give the coordinate (org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0) or a jar directory")
        return "packages", connector_coordinate(version, scala)
    if os.path.isdir(text):
        jars = sorted(glob.glob(os.path.join(os.path.abspath(text), "*.jar")))
        if not jars:
            raise BadInput("--kafka-connector %s: the directory holds no .jar files; it needs spark-sql-kafka-0-10, "
                           "spark-token-provider-kafka, kafka-clients and commons-pool2" % text)
        return "jars", jars
    items = [i.strip() for i in text.split(",") if i.strip()]
    if all(i.endswith(".jar") for i in items):
        absent = [i for i in items if not os.path.isfile(i)]
        if absent:
            raise BadInput("--kafka-connector: no such jar %s" % ", ".join(absent))
        return "jars", [os.path.abspath(i) for i in items]
    if all(len(i.split(":")) == 3 for i in items):
        return "packages", ",".join(items)
    raise BadInput("--kafka-connector %r: give a directory of jars, a comma-separated list of .jar files, a Maven "
                   "coordinate (group:artifact:version) or 'maven' for the connector of the installed pyspark" % value)


def connector_conf(connector):
    """The Spark settings that add the connector to a session this job creates."""
    if not connector:
        return {}
    kind, what = connector
    return {"spark.jars": ",".join(what)} if kind == "jars" else {"spark.jars.packages": what}


def connector_submit_args(connector):
    """The same for a spark-submit command line."""
    if not connector:
        return []
    kind, what = connector
    return ["--jars", ",".join(what)] if kind == "jars" else ["--packages", what]


def build_session(master=None, app_name="mm2-verify", shuffle_partitions=None, connector=None):
    """The session; master only when asked (spark-submit's --master / spark-defaults win)."""
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    builder = builder.config("spark.sql.redaction.options.regex", REDACTION_REGEX).config(
        "spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC")
    if shuffle_partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    for key, value in connector_conf(connector).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")  # the summary, not Spark's INFO chatter, is the output
    return session


CORRUPT_COLUMN = "_mm2_verify_unparsed"


def read_dump(spark, spec, where):
    """The dump as a frame in Spark's Kafka schema; timestamps of a JSON dump as epoch ms.

    JSON Lines may carry the timestamp as ISO-8601 text (what Spark writes) or as a number of
    epoch milliseconds (what most dump tools write); Spark's own JSON reader would take a number
    for seconds, so the column is read as text and converted here.
    """
    F = _functions()
    reader = spark.read
    try:
        if spec["kind"] == "json":
            from pyspark.sql import types as T
            fields = [T.StructField(f.name, T.StringType()) if f.name == "timestamp" else f
                      for f in kafka_schema().fields]
            schema = T.StructType(fields + [T.StructField(CORRUPT_COLUMN, T.StringType())])
            frame = reader.schema(schema).option("mode", "PERMISSIVE").option(
                "columnNameOfCorruptRecord", CORRUPT_COLUMN).json(spec["path"])
            frame = frame.withColumn("timestamp", json_timestamp_ms(F, spark, F.col("timestamp")))
        else:
            frame = reader.parquet(spec["path"])
    except Exception as exc:  # AnalysisException: path missing, not parquet, ...
        raise BadInput("%s dump %s cannot be read as %s: %s" % (where, spec["path"], spec["kind"],
                                                                 java_reason(exc)))
    problems = schema_problems([(f.name, f.dataType.simpleString()) for f in frame.schema.fields
                                if f.name != CORRUPT_COLUMN], "%s dump %s" % (where, spec["path"]))
    if problems:
        raise BadInput("; ".join(problems) + " (dumps use the columns of Spark's Kafka source)")
    check_readable(frame, spec, where)
    return frame


def json_timestamp_ms(F, spark, text):
    """Epoch ms from a JSON timestamp: digits are epoch milliseconds, anything else ISO-8601
    (UTC unless it names an offset); null when it is neither (reported as unreadable)."""
    if spark_version_tuple(spark.version) >= (3, 5):
        parsed = F.expr("try_to_timestamp(`timestamp`)")  # null, not an error, under ANSI mode
    else:
        parsed = F.to_timestamp(text)
    iso_ms = F.round(parsed.cast("double") * 1000).cast("long")
    return F.when(text.rlike("^-?[0-9]{1,18}$"), text.cast("long")).otherwise(iso_ms)


UNREADABLE_SHOWN = 3


def check_readable(frame, spec, where):
    """Exit 2 naming the file and the record when a dump has records the job cannot use:
    a line that is not JSON, or a record without topic, partition, offset or timestamp."""
    F = _functions()
    names = set(f.name for f in frame.schema.fields)
    required = ("topic", "partition", "offset", "timestamp")
    bad = F.lit(False)
    for name in required:
        bad = bad | F.col(name).isNull()
    if CORRUPT_COLUMN in names:
        bad = bad | F.col(CORRUPT_COLUMN).isNotNull()
    record = F.col(CORRUPT_COLUMN) if CORRUPT_COLUMN in names else F.lit(None).cast("string")
    try:
        rows = frame.where(bad).select(F.input_file_name().alias("file"), record.alias("text"),
                                       *required).limit(UNREADABLE_SHOWN).collect()
    except Exception as exc:  # a corrupt Parquet file fails here, when its pages are read
        raise BadInput("%s dump %s cannot be read as %s: %s" % (where, spec["path"], spec["kind"],
                                                                 java_reason(exc)))
    if not rows:
        return
    described = []
    for row in rows:
        if row["text"] is not None:
            what = "not a JSON record: %s" % _clip(row["text"])
        else:
            empty = [n for n in required if row[n] is None]
            what = "record topic=%s partition=%s offset=%s has no %s%s" % (
                row["topic"], row["partition"], row["offset"], "/".join(empty),
                " (use epoch milliseconds or ISO-8601 like 2024-05-01T10:00:00.000Z)" if "timestamp" in empty else "")
        described.append("%s: %s" % (row["file"], what))
    raise BadInput("%s dump %s has unreadable records (fix or remove them):\n  %s"
                   % (where, spec["path"], "\n  ".join(described)))


def _clip(text, limit=120):
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "..."


_JAVA_REASONS = re.compile(r"(is not a Parquet file[^\n]*|Could not read footer[^\n]*|CANNOT_READ_FILE_FOOTER[^\n]*|"
                           r"FAILED_READ_FILE[^\n]*|PATH_NOT_FOUND[^\n]*|Path does not exist[^\n]*|"
                           r"UNABLE_TO_INFER_SCHEMA[^\n]*|Unable to infer schema[^\n]*)")


def java_reason(exc):
    """The sentence of a Spark/py4j error that says what is wrong (and names the file), not
    py4j's "An error occurred while calling o30.parquet"."""
    text = str(exc)
    found = _JAVA_REASONS.findall(text)
    if found:
        return "; ".join(sorted(set(f.strip() for f in found), key=found.index))[:600]
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    for line in lines:
        if not line.startswith(("An error occurred while calling", "at ", "py4j")):
            return line[:600]
    return _first_line(exc)


def read_kafka(spark, options, where):
    try:
        return spark.read.format("kafka").options(**options).load()
    except Exception as exc:
        text = str(exc)
        if "kafka" in text.lower() and ("Failed to find data source" in text or "DATA_SOURCE_NOT_FOUND" in text):
            version, scala = spark.version, installed_spark()[1] or "2.13"
            raise BadInput(
                "%s: Spark's Kafka connector is not on the classpath. Add it with --kafka-connector DIR "
                "(a directory with the spark-sql-kafka-0-10, spark-token-provider-kafka, kafka-clients and "
                "commons-pool2 jars) or --kafka-connector maven (downloads %s); mm2-verify "
                "--print-spark-submit turns the same flag into --jars/--packages. Or verify offline dumps "
                "with --source-dump/--target-dump." % (where, connector_coordinate(version, scala)))
        raise


def _first_line(exc):
    return str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__


def _functions():
    from pyspark.sql import functions as F
    return F


def fingerprint(F, columns):
    """Two hash columns (about 96 independent bits) over the content columns.

    Nulls are hashed as "skip" by Spark, so callers pass null flags next to nullable columns.
    """
    if hasattr(F, "xxhash64"):  # Spark 3.0+
        return F.xxhash64(*columns), F.hash(*columns)
    # Spark 2.x: murmur3 only; salts first so the hashes are independent.
    high = F.hash(F.lit("mm2-verify-a"), *columns).cast("long")
    low = F.hash(F.lit("mm2-verify-b"), *columns).cast("long")
    return F.shiftLeft(high, 32).bitwiseOR(low.bitwiseAND(F.lit(0xFFFFFFFF))), F.hash(F.lit("mm2-verify-c"), *columns)


def narrow(frame, spec, topic_expr):
    """The few columns the comparison needs: topic (source name), partition, offset, ts_ms,
    fp1/fp2 (content fingerprint) and kh (key hash)."""
    F = _functions()
    names = set(f.name for f in frame.schema.fields)
    timestamp_type = dict((f.name, f.dataType.simpleString()) for f in frame.schema.fields)["timestamp"]
    if timestamp_type == "bigint":
        ts_ms = F.col("timestamp")
    else:  # micros as double, rounded to the millisecond Kafka stores
        ts_ms = F.round(F.col("timestamp").cast("double") * 1000).cast("long")
    key, value = F.col("key"), F.col("value")
    # A side without a headers column compares like records without headers.
    headers = F.col("headers") if "headers" in names else F.lit(None).cast(dict(KAFKA_COLUMNS)["headers"])
    parts = []
    if "key" in spec["match_on"]:
        parts += [key, F.isnull(key)]
    if "value" in spec["match_on"]:
        parts += [value, F.isnull(value)]
    if "headers" in spec["match_on"]:
        # Spark's Kafka source gives null for "no headers"; a dump may hold an empty array.
        parts += [F.when(F.size(headers) > 0, headers), F.coalesce(F.when(F.size(headers) > 0, F.size(headers)), F.lit(0))]
    if "timestamp" in spec["match_on"]:
        parts += [ts_ms]
    fp1, fp2 = fingerprint(F, parts)
    kh = fingerprint(F, [key, F.isnull(key)])[0]
    return frame.select(topic_expr.alias("topic"), F.col("partition"), F.col("offset"),
                        ts_ms.alias("ts_ms"), fp1.alias("fp1"), fp2.alias("fp2"), kh.alias("kh"))


def select_source(spark, spec):
    """Narrow source records in the range.  Kafka reads only the flow's topics; for a dump the
    caller picks the topics from the span (one cheap job instead of a separate topic scan)."""
    F = _functions()
    src = spec["source"]
    if src["kind"] == "kafka":
        if spec["mode"] == "offsets":
            assign = dict((t, list(p)) for t, p in spec["starting_offsets"].items())
            options = kafka_read_options(src["options"], assign=assign, starting=spec["starting_offsets"],
                                         ending=spec["ending_offsets"], spark_version=spark.version)
        else:
            options = kafka_read_options(src["options"], pattern=java_topic_pattern(spec["topics"], _excludes(spec)),
                                         start_ms=spec["since_ms"], end_ms=spec["until_ms"],
                                         spark_version=spark.version)
        frame = read_kafka(spark, options, "source")
    else:
        frame = read_dump(spark, src, "source")
    if spec["mode"] == "offsets":
        frame = frame.where(_offset_condition(F, spec["starting_offsets"], spec["ending_offsets"]))
    out = narrow(frame, spec, F.col("topic"))
    if spec["mode"] == "time":
        out = out.where(_time_condition(F, spec))
    return out


def _excludes(spec):
    return source_excludes(spec["topics_exclude"], spec["target_alias"], spec["policy"], spec["separator"])


def wanted_topics(spec):
    """Predicate on source topic names: the flow's topics (or the offset range's)."""
    if spec["mode"] == "offsets":
        return set(spec["starting_offsets"]).__contains__
    return topic_matcher(spec["topics"], _excludes(spec))


def _offset_condition(F, starting, ending):
    """Rows of the listed partitions within [start, end) (-2 earliest / -1 latest = open)."""
    condition = F.lit(False)
    for topic in sorted(starting):
        for partition in sorted(starting[topic]):
            term = (F.col("topic") == topic) & (F.col("partition") == partition)
            start, end = starting[topic][partition], ending[topic].get(partition, -1)
            if start >= 0:
                term = term & (F.col("offset") >= start)
            if end >= 0:
                term = term & (F.col("offset") < end)
            condition = condition | term
    return condition


def _time_condition(F, spec):
    condition = F.lit(True)
    if spec["since_ms"] is not None:
        condition = condition & (F.col("ts_ms") >= spec["since_ms"])
    if spec["until_ms"] is not None:
        condition = condition & (F.col("ts_ms") < spec["until_ms"])
    return condition


def select_target(spark, spec, source_topics, span):
    """Narrow target records of the mirrored topics, renamed back to their source topic."""
    F = _functions()
    tgt = spec["target"]
    prefix = "" if spec["policy"] == "identity" else spec["source_alias"] + spec["separator"]
    if tgt["kind"] == "kafka":
        start_ms = end_ms = None
        if spec["mode"] == "time":
            start_ms = spec["since_ms"] - spec["target_slack_ms"] if spec["since_ms"] is not None else None
            end_ms = spec["until_ms"] + spec["target_slack_ms"] if spec["until_ms"] is not None else None
        elif span and "timestamp" in spec["match_on"]:
            start_ms = min(s["min_ts"] for s in span.values()) - spec["target_slack_ms"]
            end_ms = max(s["max_ts"] for s in span.values()) + spec["target_slack_ms"] + 1
        if spec["mode"] == "offsets":
            assign = dict((remote_topic(spec["source_alias"], t, spec["policy"], spec["separator"]), list(p))
                          for t, p in spec["starting_offsets"].items())
            options = kafka_read_options(tgt["options"], assign=assign, start_ms=start_ms, end_ms=end_ms,
                                         spark_version=spark.version)
        else:
            options = kafka_read_options(tgt["options"], pattern=java_topic_pattern(spec["topics"], _excludes(spec), prefix),
                                         start_ms=start_ms, end_ms=end_ms, spark_version=spark.version)
        frame = read_kafka(spark, options, "target")
    else:
        frame = read_dump(spark, tgt, "target")
        if span:  # one cheap distinct over the topic column
            present = sorted(r[0] for r in frame.select("topic").distinct().collect() if r[0] is not None)
            check_target_topics(spec, sorted(set(t for t, _ in span)), present)
    if source_topics is not None:
        mirrored = [remote_topic(spec["source_alias"], t, spec["policy"], spec["separator"]) for t in source_topics]
        frame = frame.where(F.col("topic").isin(mirrored))
    elif tgt["kind"] != "kafka":  # Kafka source, dump target: keep the dump's mirrors of wanted topics
        wanted = wanted_topics(spec)
        mirrored = []
        for (name,) in frame.select("topic").distinct().collect():
            upstream = upstream_topic(spec["source_alias"], name, spec["policy"], spec["separator"])
            if upstream is not None and wanted(upstream):
                mirrored.append(name)
        frame = frame.where(F.col("topic").isin(mirrored))
    if prefix:
        upstream = F.expr("substring(topic, %d)" % (len(prefix) + 1))
    else:
        upstream = F.col("topic")
    return narrow(frame, spec, upstream)


def compute_span(source):
    """{(topic, partition): {records, min/max offset, min/max ts}} of the source range."""
    F = _functions()
    rows = source.groupBy("topic", "partition").agg(
        F.count(F.lit(1)).alias("records"), F.min("offset").alias("min_offset"),
        F.max("offset").alias("max_offset"), F.min("ts_ms").alias("min_ts"),
        F.max("ts_ms").alias("max_ts")).collect()
    return dict(((r["topic"], r["partition"]), r.asDict()) for r in rows)


def flag_target_range(spark, spec, target, span):
    """Target records with in_range: whether they belong to the compared range.

    Time ranges apply as given.  Otherwise the range of each target partition is the source
    partition's timestamp span: a mirrored copy has its source record's timestamp, so nothing
    outside it can match, and it keeps target records newer than the source read out of "extra".
    Records outside are only counted (target_outside_range).
    """
    F = _functions()
    if spec["mode"] == "time":
        return target.withColumn("in_range", _time_condition(F, spec)).withColumn("edge", F.lit(False))
    if "timestamp" not in spec["match_on"]:  # e.g. LogAppendTime on the target
        return target.withColumn("in_range", F.lit(True)).withColumn("edge", F.lit(False))
    from pyspark.sql import types as T
    schema = T.StructType([T.StructField("topic", T.StringType()), T.StructField("partition", T.IntegerType()),
                           T.StructField("lo", T.LongType()), T.StructField("hi", T.LongType())])
    bounds = spark.createDataFrame([(t, p, s["min_ts"], s["max_ts"]) for (t, p), s in sorted(span.items())], schema)
    # On the span's first and last millisecond the target also holds copies of source records
    # just outside the offset range: unmatched ones there are outside the range, not "extra".
    return target.join(F.broadcast(bounds), ["topic", "partition"], "left").withColumn(
        "in_range", F.coalesce((F.col("ts_ms") >= F.col("lo")) & (F.col("ts_ms") <= F.col("hi")), F.lit(False))
    ).withColumn("edge", F.coalesce((F.col("ts_ms") == F.col("lo")) | (F.col("ts_ms") == F.col("hi")), F.lit(False)))


def tail_flag(spark, spec, source, span, tail_end_ms):
    """Source rows inside the pending window: the last pending_window_ms before the range end
    (timestamp) or the last pending_records offsets of the partition."""
    F = _functions()
    flag = F.lit(False)
    if spec["pending_window_ms"] > 0 and tail_end_ms is not None:
        flag = F.col("ts_ms") >= F.lit(tail_end_ms - spec["pending_window_ms"])
    if spec["pending_records"] > 0 and span:
        from pyspark.sql import types as T
        schema = T.StructType([T.StructField("topic", T.StringType()), T.StructField("partition", T.IntegerType()),
                               T.StructField("tail_from", T.LongType())])
        tails = spark.createDataFrame(
            [(t, p, s["max_offset"] + 1 - spec["pending_records"]) for (t, p), s in span.items()], schema)
        source = source.join(F.broadcast(tails), ["topic", "partition"], "left")
        flag = flag | (F.col("offset") >= F.col("tail_from"))
    return source.withColumn("tail", flag)


ROWS_PER_SHUFFLE_PARTITION = 1000000  # narrow rows (~70 bytes): a task's share stays small


def shuffle_partitions(spark, span):
    """spark.sql.shuffle.partitions when set explicitly, else sized from the source records
    (both sides, ~1M narrow rows per task) but never below the default parallelism.  The
    default 200 costs more in task overhead than it gains on small ranges and small clusters."""
    conf = spark.sparkContext.getConf()
    if conf.contains("spark.sql.shuffle.partitions"):
        return int(conf.get("spark.sql.shuffle.partitions"))
    rows = 2 * sum(s["records"] for s in span.values())
    return max(spark.sparkContext.defaultParallelism, -(-rows // ROWS_PER_SHUFFLE_PARTITION))


def partition_stats(source, target, partitions=None):
    """One row per (topic, partition) with every count.  The only wide dependency on the
    records is one shuffle by (topic, partition, key hash): the content aggregation, the
    per-key order window and the partition's replicated range all run on it (Spark reuses the
    exchange for the small per-partition side); only per-partition rows reach the driver."""
    from pyspark.sql import Window
    F = _functions()
    columns = ["topic", "partition", "kh", "fp1", "fp2", "offset", "tail", "in_range", "edge", "is_src"]
    both = source.withColumn("is_src", F.lit(1)).withColumn("in_range", F.lit(True)).withColumn(
        "edge", F.lit(False)).select(*columns).unionByName(
        target.withColumn("tail", F.lit(False)).withColumn("is_src", F.lit(0)).select(*columns))
    is_src = F.col("is_src") == 1
    is_tgt = (F.col("is_src") == 0) & F.col("in_range")
    by_key = (F.col("topic"), F.col("partition"), F.col("kh"))
    spread = both.repartition(partitions, *by_key) if partitions else both.repartition(*by_key)
    groups = spread.groupBy("topic", "partition", "kh", "fp1", "fp2").agg(
        F.sum("is_src").alias("s"),
        F.sum(F.when(is_tgt, 1).otherwise(0)).alias("t"),
        F.sum(F.when(~is_src & ~F.col("in_range"), 1).otherwise(0)).alias("t_out_seen"),
        F.sum(F.when(is_tgt & F.col("edge"), 1).otherwise(0)).alias("t_edge"),
        F.sum(F.when(is_src & F.col("tail"), 1).otherwise(0)).alias("s_tail"),
        F.min(F.when(is_src, F.col("offset"))).alias("s_first"),
        F.max(F.when(is_src, F.col("offset"))).alias("s_last"),
        F.min(F.when(is_tgt, F.col("offset"))).alias("t_first"),
        F.max(F.when(is_tgt, F.col("offset"))).alias("t_last"))
    # Unmatched target records on the range's edge milliseconds lie outside the range.
    foreign_edge = F.when(F.col("s") == 0, F.col("t_edge")).otherwise(0)
    groups = groups.withColumn("t", F.col("t") - foreign_edge).withColumn("t_out", F.col("t_out_seen") + foreign_edge)
    s, t = F.col("s"), F.col("t")
    # The last source offset of the partition already on the target.  MM2 copies a partition
    # in order, so an unmatched record before it is lost, not in flight.  (A content repeated
    # in the source and only partly copied counts from its first copy: never later than true.)
    groups = groups.withColumn("matched_last", F.when((s > 0) & (t >= s), F.col("s_last")).when(
        (s > 0) & (t > 0), F.col("s_first")))
    replicated = groups.groupBy("topic", "partition").agg(F.max("matched_last").alias("replicated_to"))
    groups = groups.join(F.broadcast(replicated), ["topic", "partition"], "left")
    deficit = F.greatest(s - t, F.lit(0))
    # The unmatched copies are the last `deficit` in source order: in flight only when they lie
    # after the replicated range and inside the pending window (a suffix of the partition).
    beyond = F.col("replicated_to").isNull() | (F.col("s_last") > F.col("replicated_to"))
    pending = F.when(beyond, F.least(deficit, F.col("s_tail"))).otherwise(0)
    matched = (s > 0) & (t > 0)
    earlier = Window.partitionBy("topic", "partition", "kh").orderBy("s_first").rowsBetween(
        Window.unboundedPreceding, -1)
    overtaken = matched & (F.col("t_first") < F.max(F.when(matched, F.col("t_first"))).over(earlier))
    # A dump written twice holds the same offset twice: the same content with fewer distinct
    # offsets than copies (pigeonhole on min/max, exact for the usual two copies).
    repeated = lambda n, lo, hi: (n >= 2) & ((F.col(hi) - F.col(lo) + 1) < n)  # noqa: E731
    per_group = groups.select(
        "topic", "partition", "kh", "s", "t", "t_out", "t_first", "t_last", "replicated_to",
        F.least(s, t).alias("matched"),
        (deficit - pending).alias("missing"),
        pending.alias("pending"),
        F.when(s > 0, F.greatest(t - s, F.lit(0))).otherwise(0).alias("duplicates"),
        F.when(s == 0, t).otherwise(0).alias("extra"),
        F.coalesce(overtaken, F.lit(False)).alias("overtaken"),
        F.when(repeated(s, "s_first", "s_last"), F.col("s_first")).alias("src_repeat"),
        F.when(repeated(t, "t_first", "t_last"), F.col("t_first")).alias("tgt_repeat"))
    return per_group.groupBy("topic", "partition").agg(
        F.sum("s").alias("source_records"),
        F.sum("t").alias("target_records"),
        F.sum("t_out").alias("target_outside_range"),
        F.sum("matched").alias("matched"),
        F.sum("missing").alias("missing"),
        F.sum("pending").alias("pending"),
        F.sum("duplicates").alias("duplicates"),
        F.sum("extra").alias("extra"),
        F.sum(F.col("overtaken").cast("long")).alias("order_violations"),
        F.countDistinct(F.when(F.col("overtaken"), F.col("kh"))).alias("keys_out_of_order"),
        F.min("t_first").alias("target_min_offset"),
        F.max("t_last").alias("target_max_offset"),
        F.max("replicated_to").alias("replicated_to"),
        F.min("src_repeat").alias("source_repeated_offset"),
        F.min("tgt_repeat").alias("target_repeated_offset"))


def verify_flow(spark, spec):
    """Run one flow's comparison; returns its report section (a dict)."""
    F = _functions()
    started = time.time()
    source = select_source(spark, spec)
    cached = []
    if spec["source"]["kind"] == "kafka":  # read Kafka once; dumps are cheaper to re-read
        source = source.persist()
        cached.append(source)
    try:
        span = compute_span(source)
        if spec["source"]["kind"] != "kafka":
            wanted = wanted_topics(spec)
            topics = sorted(set(t for t, _ in span if wanted(t)))
            span = dict((k, v) for k, v in span.items() if k[0] in topics)
            source = source.where(F.col("topic").isin(topics))
        else:
            topics = None
        if not span and not spec["allow_empty"]:
            raise BadInput("nothing to verify: no source records of topics %s (excluding %s) in the range "
                           "for flow %s; check --topics and the range, or pass --allow-empty"
                           % (",".join(spec["topics"]), ",".join(spec["topics_exclude"]) or "-", spec["flow"]))
        check_span_offsets(spec, span)
        if not span and spec["mode"] != "time":
            # Nothing to compare against: the range has no source records and no time bounds,
            # so reading the target would only count records outside it.
            return flow_report(spec, [], None, time.time() - started)
        target = select_target(spark, spec, topics, span)
        if spec["target"]["kind"] == "kafka":
            target = target.persist()
            cached.append(target)
        target = flag_target_range(spark, spec, target, span)
        if spec["mode"] == "time" and spec["until_ms"] is not None:
            tail_end_ms = spec["until_ms"]
        else:
            tail_end_ms = max(s["max_ts"] for s in span.values()) + 1 if span else None
        offsets = None
        if offsets_wanted(spec) and span:
            offsets = check_failover_offsets(spark, spec, span, source, target)
        source = tail_flag(spark, spec, source, span, tail_end_ms)
        rows = partition_stats(source, target, shuffle_partitions(spark, span)).collect()
    finally:
        for frame in cached:
            frame.unpersist()
    check_repeated_offsets(spec, rows)
    if spec["target"]["kind"] == "kafka" and span and not any(
            (r["target_records"] or r["target_outside_range"]) for r in rows):
        check_target_topics(spec, sorted(set(t for t, _ in span)), kafka_topic_names(spark, spec["target"]))
    partitions = merge_partitions(spec, span, rows)
    return flow_report(spec, partitions, tail_end_ms, time.time() - started, offsets)


def check_span_offsets(spec, span):
    """More records than distinct offsets in a source partition: the dump holds some twice."""
    for (topic, partition), stats in sorted(span.items()):
        if stats["records"] > stats["max_offset"] - stats["min_offset"] + 1:
            raise BadInput(
                "source: %s[%d] has %d records for the %d offsets %d..%d: the same offsets are in the input "
                "more than once (a dump directory written twice?). Keep one copy of each record."
                % (topic, partition, stats["records"], stats["max_offset"] - stats["min_offset"] + 1,
                   stats["min_offset"], stats["max_offset"]))


def check_repeated_offsets(spec, rows):
    """The same record at the same offset twice, on either side: the input repeats itself."""
    for row in rows:
        for side, column in (("source", "source_repeated_offset"), ("target", "target_repeated_offset")):
            offset = row[column]
            if offset is not None:
                topic = row["topic"] if side == "source" else remote_topic(
                    spec["source_alias"], row["topic"], spec["policy"], spec["separator"])
                raise BadInput(
                    "%s: offset %d of %s[%d] is in the input more than once (a dump directory written "
                    "twice?). Keep one copy of each record." % (side, offset, topic, row["partition"]))


def kafka_topic_names(spark, input_spec):
    """The topic names of a Kafka cluster through the Kafka client on the driver (None when
    the client is not reachable from Python): only used to explain an empty target."""
    try:
        jvm = spark.sparkContext._jvm
        props = jvm.java.util.Properties()
        for key, value in input_spec["options"].items():
            props.setProperty(key, value)
        props.setProperty("request.timeout.ms", "15000")
        props.setProperty("default.api.timeout.ms", "20000")
        admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
        try:
            return sorted(str(t) for t in admin.listTopics().names().get())
        finally:
            admin.close()
    except Exception:
        return None


def check_target_topics(spec, source_topics, present):
    """Exit 2 when the target has none of the mirrored topics the flow should have made:
    a wrong alias, swapped inputs or a wrong policy, not a total loss.  Names what it looked
    for, what is there, and the likely fix."""
    expected = [remote_topic(spec["source_alias"], t, spec["policy"], spec["separator"]) for t in source_topics]
    if present is not None and set(expected) & set(present):
        return
    if present is None:
        return  # cannot tell a wrong name from an empty topic: the counts speak
    hints = []
    sep = spec["separator"]
    prefix = spec["source_alias"] + sep
    if source_topics and all(t.startswith(prefix) for t in source_topics) and \
            set(t[len(prefix):] for t in source_topics) & set(present):
        hints.append("the source holds the mirrored names and the target the originals: are the source "
                     "and target inputs swapped?")
    aliases = sorted(set(p[:-len(sep + t)] for p in present for t in source_topics
                         if p.endswith(sep + t) and len(p) > len(sep + t)))
    if aliases:
        hints.append("the target mirrors these topics from %s: is the source alias in --flow %s?"
                     % (" or ".join(aliases), " or ".join("'%s->%s'" % (a, spec["target_alias"]) for a in aliases)))
    if spec["policy"] == "prefixed" and set(source_topics) & set(present):
        hints.append("the target has them under their own names: use --policy identity")
    shown = present[:20] + (["..."] if len(present) > 20 else [])
    raise BadInput("flow %s: the target has none of the topics it should mirror: looked for %s "
                   "(policy %s, separator '%s'); the target has %s. %s" % (
                       spec["flow"], ", ".join(expected[:20]) + (", ..." if len(expected) > 20 else ""),
                       spec["policy"], sep, ", ".join(shown) or "no topics",
                       " ".join(hints) or "Check the aliases in --flow, --policy and --separator."))


# ---------------------------------------------------------------- failover offsets (checkpoints)

# MM2's default groups.exclude: consumer groups it never checkpoints.
MM2_DEFAULT_GROUPS_EXCLUDE = (r"console-consumer-.*", r"connect-.*", r"__.*")


def checkpoint_topic_pattern(source_alias, separator):
    """The checkpoints topic of source_alias on the target: A.checkpoints.internal, or with the
    policy separator inside the name (MM2 3.1+, KIP-690)."""
    names = set([source_alias + ".checkpoints.internal",
                 source_alias + separator + "checkpoints" + separator + "internal"])
    return "^(?:%s)\\z" % "|".join(java_quote(n) for n in sorted(names))


def offsets_wanted(spec):
    """Whether this flow checks failover offsets: needs both sides in Kafka."""
    both_kafka = spec["source"]["kind"] == "kafka" and spec["target"]["kind"] == "kafka"
    if spec["check_offsets"] == "yes" and not both_kafka:
        raise BadInput("--check-offsets yes needs both sides in Kafka (the committed offsets and MM2's "
                       "checkpoints live there)")
    return both_kafka and spec["check_offsets"] != "no"


def read_checkpoints(spark, spec):
    """{(group, source topic, partition): (upstream, downstream)}: the last checkpoint per key of
    the flow's checkpoints topic on the target (compacted on that key)."""
    from mm2_core import kafka_tools
    F = _functions()
    options = kafka_read_options(spec["target"]["options"],
                                 pattern=checkpoint_topic_pattern(spec["source_alias"], spec["separator"]),
                                 spark_version=spark.version)
    frame = read_kafka(spark, options, "target checkpoints")
    rows = frame.groupBy("key").agg(F.max(F.struct("offset", "value")).alias("last")).select(
        "key", F.col("last.value").alias("value")).collect()
    result = {}
    for row in rows:
        if row["key"] is None or row["value"] is None:
            continue
        try:
            cp = kafka_tools.decode_checkpoint(bytes(row["key"]), bytes(row["value"]))
        except ValueError:
            continue
        # A checkpoint names the mirrored (target) partition; the report keys on the source topic.
        topic = upstream_topic(spec["source_alias"], cp.topic, spec["policy"], spec["separator"])
        if topic is not None:
            result[(cp.group, topic, cp.partition)] = (cp.upstream, cp.downstream)
    return result


def committed_offsets(spark, options, groups):
    """{(group, topic, partition): committed offset} on a cluster, through the Kafka admin client
    of the connector's kafka-clients (the driver's JVM)."""
    jvm = spark.sparkContext._jvm
    props = jvm.java.util.Properties()
    for key, value in options.items():
        props.setProperty(key, value)
    props.setProperty("default.api.timeout.ms", "30000")
    admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
    try:
        if groups is None:
            groups = [str(g.groupId()) for g in admin.listConsumerGroups().all().get().toArray()]
        result = {}
        for group in groups:
            offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
            for tp in offsets.keySet().toArray():
                meta = offsets.get(tp)
                if meta is not None:
                    result[(group, str(tp.topic()), int(tp.partition()))] = int(meta.offset())
        return result
    finally:
        admin.close()


def offsets_plan(spec, span, checkpoints, committed):
    """[entry] per (group, topic, partition) of the verified topics: the source's committed offset
    and MM2's checkpoint for it (either may be absent)."""
    groups_ok = topic_matcher([".*"], list(MM2_DEFAULT_GROUPS_EXCLUDE))
    verified = set(t for t, _ in span)
    keys = set(k for k in checkpoints if k[1] in verified) | set(
        k for k in committed if k[1] in verified and groups_ok(k[0]))
    entries = []
    for group, topic, partition in sorted(keys):
        upstream, downstream = checkpoints.get((group, topic, partition), (None, None))
        stats = span.get((topic, partition))
        entries.append({"group": group, "topic": topic, "partition": partition,
                        "target_topic": remote_topic(spec["source_alias"], topic, spec["policy"], spec["separator"]),
                        "committed": committed.get((group, topic, partition)),
                        "checkpoint_upstream": upstream, "checkpoint_downstream": downstream,
                        "in_range": bool(stats) and committed.get((group, topic, partition)) is not None and
                        stats["min_offset"] <= committed[(group, topic, partition)] <= stats["max_offset"] + 1})
    return entries


def failover_counts(spark, source, target, entries):
    """{(group, topic, partition): counts}: where a consumer failing over to the target would
    start (the checkpoint's downstream offset D) against where it stopped on the source (the
    committed offset C).  Re-read: records before C with a copy at or after D.  Skipped: records
    at or after C whose every copy lies before D (never seen after failover)."""
    F = _functions()
    from pyspark.sql import types as T
    checked = [e for e in entries if e["in_range"] and e["checkpoint_downstream"] is not None]
    if not checked:
        return {}
    schema = T.StructType([T.StructField("group", T.StringType()), T.StructField("topic", T.StringType()),
                           T.StructField("partition", T.IntegerType()), T.StructField("c", T.LongType()),
                           T.StructField("d", T.LongType())])
    points = spark.createDataFrame([(e["group"], e["topic"], e["partition"], e["committed"],
                                     e["checkpoint_downstream"]) for e in checked], schema)
    wanted = points.select("topic", "partition").distinct()
    src = source.join(F.broadcast(wanted), ["topic", "partition"]).select(
        "topic", "partition", "fp1", "fp2", F.col("offset").alias("s_off"))
    tgt = target.join(F.broadcast(wanted), ["topic", "partition"]).select(
        "topic", "partition", "fp1", "fp2", F.col("offset").alias("t_off"))
    copies = src.join(tgt, ["topic", "partition", "fp1", "fp2"]).groupBy("topic", "partition", "s_off").agg(
        F.max("t_off").alias("t_max"))
    both = copies.join(F.broadcast(points), ["topic", "partition"])
    reread = (F.col("s_off") < F.col("c")) & (F.col("t_max") >= F.col("d"))
    skipped = (F.col("s_off") >= F.col("c")) & (F.col("t_max") < F.col("d"))
    rows = both.groupBy("group", "topic", "partition").agg(
        F.sum(F.when(reread, 1).otherwise(0)).alias("reread"),
        F.sum(F.when(skipped, 1).otherwise(0)).alias("skipped"),
        F.min(F.when(reread, F.col("s_off"))).alias("first_reread"),
        F.min(F.when(skipped, F.col("s_off"))).alias("first_skipped")).collect()
    result = dict(((r["group"], r["topic"], r["partition"]), r.asDict()) for r in rows)
    for e in checked:  # no copy on either side of the points: nothing re-read or skipped
        result.setdefault((e["group"], e["topic"], e["partition"]),
                          {"reread": 0, "skipped": 0, "first_reread": None, "first_skipped": None})
    return result


def offsets_section(spec, entries, counts, error=None):
    """The report's "offsets" part of a flow."""
    groups = []
    for e in entries:
        found = counts.get((e["group"], e["topic"], e["partition"]))
        entry = dict(e)
        if e["checkpoint_downstream"] is None:
            entry.update(status="NO_CHECKPOINT", reread=None, skipped=None)
        elif e["committed"] is None:
            entry.update(status="NO_COMMITTED_OFFSET", reread=None, skipped=None)
        elif not found:
            entry.update(status="OUTSIDE_RANGE", reread=None, skipped=None)
        else:
            entry.update(reread=int(found["reread"]), skipped=int(found["skipped"]),
                         first_reread=found["first_reread"], first_skipped=found["first_skipped"])
            entry["status"] = "SKIPS" if entry["skipped"] else "REREADS" if entry["reread"] else "EXACT"
        entry.pop("in_range", None)
        groups.append(entry)
    return {"checked": error is None, "error": error,
            "checkpoints_topic": checkpoint_topic_pattern(spec["source_alias"], spec["separator"]),
            "groups": groups,
            "reread": sum(g["reread"] or 0 for g in groups),
            "skipped": sum(g["skipped"] or 0 for g in groups)}


def check_failover_offsets(spark, spec, span, source, target):
    """The offsets section of a Kafka-to-Kafka flow (checkpoints vs committed offsets)."""
    try:
        checkpoints = read_checkpoints(spark, spec)
        committed = committed_offsets(spark, spec["source"]["options"], None)
    except BadInput:
        raise
    except Exception as exc:  # the data comparison stands; say why the offsets could not be read
        return offsets_section(spec, [], {}, "could not read checkpoints or committed offsets: %s" % java_reason(exc))
    entries = offsets_plan(spec, span, checkpoints, committed)
    return offsets_section(spec, entries, failover_counts(spark, source, target, entries))


def merge_partitions(spec, span, rows):
    by_key = {}
    for row in rows:
        by_key[(row["topic"], row["partition"])] = row.asDict()
    keys = set(span) | set(by_key)
    result = []
    for topic, partition in sorted(keys):
        stats = dict((k, 0) for k in COUNT_FIELDS)
        stats.update(dict((k, v) for k, v in by_key.get((topic, partition), {}).items()
                          if k in COUNT_FIELDS and v is not None))
        src = span.get((topic, partition))
        entry = {
            "topic": topic,
            "target_topic": remote_topic(spec["source_alias"], topic, spec["policy"], spec["separator"]),
            "partition": partition,
        }
        entry.update(dict((k, int(stats[k])) for k in COUNT_FIELDS))
        entry["target_outside_range"] = int(by_key.get((topic, partition), {}).get("target_outside_range") or 0)
        entry["source_offsets"] = [src["min_offset"], src["max_offset"]] if src else None
        entry["source_timestamps"] = [format_ms(src["min_ts"]), format_ms(src["max_ts"])] if src else None
        target_row = by_key.get((topic, partition), {})
        entry["target_offsets"] = ([target_row.get("target_min_offset"), target_row.get("target_max_offset")]
                                   if target_row.get("target_min_offset") is not None else None)
        # The last source offset already on the target: unmatched records before it are missing.
        entry["replicated_to"] = target_row.get("replicated_to")
        entry["completeness"] = completeness(entry)
        entry["status"] = status_of(entry, spec["fail_on"])
        result.append(entry)
    return result


COUNT_FIELDS = ("source_records", "target_records", "matched", "missing", "pending", "duplicates",
                "extra", "order_violations", "keys_out_of_order")


def completeness(counts):
    """Share of source records found on the target (1.0 for an empty source)."""
    if not counts["source_records"]:
        return 1.0
    return round(float(counts["matched"]) / counts["source_records"], 6)


def failures(counts, fail_on):
    """The checks in fail_on that these counts violate."""
    field = {"missing": "missing", "order": "order_violations", "pending": "pending",
             "duplicates": "duplicates", "extra": "extra", "skipped": "offsets_skipped"}
    return [name for name in fail_on if counts.get(field[name])]


def status_of(counts, fail_on):
    failed = failures(counts, fail_on)
    if failed:
        return "FAILED(" + ",".join(failed) + ")"
    if counts["pending"]:
        return "PENDING"
    return "OK"


def sum_counts(entries):
    totals = dict((k, sum(e[k] for e in entries)) for k in COUNT_FIELDS)
    totals["target_outside_range"] = sum(e["target_outside_range"] for e in entries)
    totals["partitions"] = len(entries)
    totals["completeness"] = completeness(totals)
    return totals


def flow_report(spec, partitions, tail_end_ms, seconds, offsets=None):
    totals = sum_counts(partitions)
    totals["offsets_reread"] = offsets["reread"] if offsets else 0
    totals["offsets_skipped"] = offsets["skipped"] if offsets else 0
    totals["status"] = status_of(totals, spec["fail_on"])
    return {
        "flow": spec["flow"],
        "source_alias": spec["source_alias"],
        "target_alias": spec["target_alias"],
        "policy": spec["policy"],
        "separator": spec["separator"],
        "range": {
            "mode": spec["mode"],
            "since": format_ms(spec["since_ms"]),
            "until": format_ms(spec["until_ms"]),
            "starting_offsets": spec["starting_offsets"] and _offsets_json(spec["starting_offsets"]),
            "ending_offsets": spec["ending_offsets"] and _offsets_json(spec["ending_offsets"]),
        },
        "settings": {
            "topics": spec["topics"],
            "topics_exclude": spec["topics_exclude"],
            "match_on": spec["match_on"],
            "pending_window_ms": spec["pending_window_ms"],
            "pending_records": spec["pending_records"],
            "pending_since": format_ms(tail_end_ms - spec["pending_window_ms"]) if tail_end_ms else None,
            "fail_on": spec["fail_on"],
        },
        "inputs": dict((side, _describe_input(spec[side])) for side in ("source", "target")),
        "totals": totals,
        "partitions": partitions,
        "offsets": offsets,
        "seconds": round(seconds, 3),
    }


def _describe_input(spec):
    """Where data came from, without secrets (only the bootstrap list and the protocol)."""
    if spec["kind"] == "kafka":
        options = spec["options"]
        return {"kind": "kafka", "bootstrap.servers": options.get("bootstrap.servers"),
                "security.protocol": options.get("security.protocol", "PLAINTEXT")}
    return {"kind": spec["kind"], "path": spec["path"]}


def build_report(flows):
    entries = [p for f in flows for p in f["partitions"]]
    totals = sum_counts(entries)
    for key in ("offsets_reread", "offsets_skipped"):
        totals[key] = sum(f["totals"].get(key, 0) for f in flows)
    failed = [f["flow"] for f in flows if f["totals"]["status"].startswith("FAILED")]
    exit_code = EXIT_FAILED if failed else EXIT_OK
    return {
        "report_version": REPORT_VERSION,
        "generated_at": format_ms(int(time.time() * 1000)),
        "status": "FAILED" if failed else "OK",
        "exit_code": exit_code,
        "failed_flows": failed,
        "totals": totals,
        "flows": flows,
    }


# ---------------------------------------------------------------- presentation

TABLE_COLUMNS = (("topic", "topic"), ("target_topic", "target topic"), ("partition", "part"),
                 ("source_records", "source"), ("target_records", "target"), ("matched", "matched"),
                 ("missing", "missing"), ("pending", "pending"), ("duplicates", "dup"),
                 ("extra", "extra"), ("order_violations", "order"), ("completeness", "complete"),
                 ("status", "status"))


def _cell(key, value):
    if key == "completeness":
        return "%.2f%%" % (100.0 * value)
    return "" if value is None else str(value)


def format_offsets(offsets):
    """Failover offsets per consumer group and partition, under the flow's table."""
    if not offsets:
        return []
    if offsets["error"]:
        return ["Failover offsets not checked: %s" % offsets["error"]]
    if not offsets["groups"]:
        return ["Failover offsets: no consumer group has committed offsets or checkpoints on these topics."]
    lines = ["Failover offsets (MM2 checkpoints on the target vs committed offsets on the source):"]
    header = ("group", "topic", "part", "committed", "checkpoint", "target offset", "re-read", "skipped", "status")
    cells = [list(header)]
    for g in offsets["groups"]:
        cells.append([g["group"], g["topic"], str(g["partition"]), _cell("", g["committed"]),
                      _cell("", g["checkpoint_upstream"]), _cell("", g["checkpoint_downstream"]),
                      _cell("", g["reread"]), _cell("", g["skipped"]), g["status"]])
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for n, row in enumerate(cells):
        lines.append("  " + "  ".join(c.rjust(widths[i]) if 2 <= i <= 7 else c.ljust(widths[i])
                                      for i, c in enumerate(row)).rstrip())
    return lines


def format_table(report, max_rows=None):
    """The readable summary: one table per flow, then the verdict."""
    lines = []
    for flow in report["flows"]:
        settings, rng = flow["settings"], flow["range"]
        if rng["mode"] == "time":
            where = "%s .. %s" % (rng["since"] or "beginning", rng["until"])
        elif rng["mode"] == "offsets":
            where = "offsets %s .. %s" % (json.dumps(rng["starting_offsets"], sort_keys=True),
                                          json.dumps(rng["ending_offsets"], sort_keys=True))
        else:
            where = "everything read"
        lines.append("Flow %s (policy %s, separator '%s'), range: %s; pending window %s%s" % (
            flow["flow"], flow["policy"], flow["separator"], where, format_duration(settings["pending_window_ms"]),
            " / last %d offsets" % settings["pending_records"] if settings["pending_records"] else ""))
        rows = flow["partitions"]
        shown = rows if max_rows is None or len(rows) <= max_rows else sorted(
            rows, key=lambda e: (e["status"] == "OK", e["completeness"]))[:max_rows]
        total_row = dict(flow["totals"], topic="TOTAL", target_topic="", partition="")
        cells = [[h for _, h in TABLE_COLUMNS]] + [[_cell(k, e.get(k)) for k, _ in TABLE_COLUMNS]
                                                   for e in shown + [total_row]]
        widths = [max(len(r[i]) for r in cells) for i in range(len(TABLE_COLUMNS))]
        numeric = set(range(2, len(TABLE_COLUMNS) - 1))
        for n, row in enumerate(cells):
            lines.append("  ".join(c.rjust(widths[i]) if i in numeric else c.ljust(widths[i])
                                   for i, c in enumerate(row)).rstrip())
            if n == 0 or n == len(cells) - 2:
                lines.append("  ".join("-" * w for w in widths))
        if len(shown) < len(rows):
            lines.append("(%d of %d partitions shown, problems first; the JSON report has all)" % (len(shown), len(rows)))
        lines.extend(format_offsets(flow.get("offsets")))
        if flow["totals"]["target_outside_range"]:
            lines.append("%d target records lie outside the compared range (not counted)."
                         % flow["totals"]["target_outside_range"])
        lines.append("")
    if report.get("spark"):
        lines.append("Spark %s on %s (%s)" % (report["spark"]["version"], report["spark"]["master"],
                                              report["spark"]["application_id"]))
    totals = report["totals"]
    if report["status"] == "OK":
        verdict = "OK: %d of %d source records verified on the target" % (totals["matched"], totals["source_records"])
        if totals["pending"]:
            verdict += ", %d still in flight (pending)" % totals["pending"]
    else:
        verdict = "FAILED (%s): %d missing, %d out of order, %d pending, %d duplicates, %d extra" % (
            ", ".join(report["failed_flows"]), totals["missing"], totals["order_violations"], totals["pending"],
            totals["duplicates"], totals["extra"])
        if totals.get("offsets_skipped"):
            verdict += ", %d records a failed-over consumer would skip" % totals["offsets_skipped"]
    lines.append(verdict + " (exit %d)" % report["exit_code"])
    return "\n".join(lines)


def _bars(report):
    """[(label, matched, pending, missing) as fractions of the source records] per partition."""
    bars = []
    for flow in report["flows"]:
        for e in flow["partitions"]:
            n = float(e["source_records"]) or 1.0
            label = "%s %s[%d]" % (flow["flow"], e["topic"], e["partition"])
            bars.append((label, e["matched"] / n, e["pending"] / n, e["missing"] / n, e))
    return sorted(bars, key=lambda b: (b[1], b[0]))


def write_plot(report, path, max_bars=60):
    """Completeness per partition: PNG (matplotlib) or self-contained HTML by the extension."""
    bars = _bars(report)
    hidden = max(0, len(bars) - max_bars)
    bars = bars[:max_bars]  # the least complete ones
    title = "Replication completeness per partition (%s)" % report["status"]
    if hidden:
        title += ", %d least complete of %d" % (len(bars), len(bars) + hidden)
    if path.lower().endswith((".html", ".htm")):
        with open(path, "w") as handle:
            handle.write(_html_plot(title, bars))
        return path
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise BadInput("--plot %s: matplotlib is not installed here; install it or use a .html plot" % path)
    labels = [b[0] for b in bars]
    positions = list(range(len(bars)))
    figure, (left, right) = pyplot.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]},
                                            figsize=(12, 1.6 + 0.3 * max(1, len(bars))))
    done = [100 * b[1] for b in bars]
    pend = [100 * b[2] for b in bars]
    miss = [100 * b[3] for b in bars]
    left.barh(positions, done, color="#2e7d32", label="matched")
    left.barh(positions, pend, left=done, color="#f9a825", label="pending")
    left.barh(positions, miss, left=[a + b for a, b in zip(done, pend)], color="#c62828", label="missing")
    # Losses are usually tiny: zoom the axis so a 99.9% bar does not look like 100%.
    lowest = min(done) if done else 100.0
    floor = 0.0 if lowest < 50 else max(0.0, 100 - 2 * (100 - lowest)) if lowest < 100 else 99.0
    left.set_xlim(floor, 100)
    left.set_xlabel("%% of source records (axis from %g%%)" % floor)
    left.set_yticks(positions)
    left.set_yticklabels(labels, fontsize=8)
    left.invert_yaxis()  # least complete on top
    left.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    kinds = (("missing", "#c62828"), ("pending", "#f9a825"), ("duplicates", "#1565c0"),
             ("order_violations", "#6a1b9a"))
    height = 0.8 / len(kinds)
    for n, (kind, color) in enumerate(kinds):
        values = [b[4][kind] for b in bars]
        offsets = [y - 0.4 + height * (n + 0.5) for y in positions]
        right.barh(offsets, values, height=height, color=color, label=kind.replace("_", " "))
        for y, v in zip(offsets, values):
            if v:
                right.text(v, y, " %d" % v, va="center", fontsize=7)
    right.set_xlabel("records")
    right.xaxis.get_major_locator().set_params(integer=True)
    right.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=8, frameon=False)
    figure.suptitle(title, fontsize=10, y=1.0)
    figure.tight_layout()
    figure.savefig(path, dpi=100, bbox_inches="tight")
    pyplot.close(figure)
    return path


def _escape(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def _html_plot(title, bars):
    rows = []
    for label, done, pend, miss, e in bars:
        rows.append(
            '<tr><td>%s</td><td><div class="bar"><span class="m" style="width:%.3f%%"></span>'
            '<span class="p" style="width:%.3f%%"></span><span class="x" style="width:%.3f%%"></span></div></td>'
            '<td>%.2f%%</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>' % (
                _escape(label), 100 * done, 100 * pend, 100 * miss, 100 * done, e["missing"], e["pending"],
                e["duplicates"], e["order_violations"], _escape(e["status"])))
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title><style>"
            "body{font-family:sans-serif;font-size:13px}td{padding:2px 6px}"
            ".bar{width:400px;height:12px;background:#eee;display:flex}.bar span{height:12px}"
            ".m{background:#2e7d32}.p{background:#f9a825}.x{background:#c62828}</style></head><body>"
            "<h3>%s</h3><p>green matched, amber pending, red missing</p><table><tr><th>partition</th>"
            "<th>completeness</th><th></th><th>missing</th><th>pending</th><th>dup</th><th>order</th>"
            "<th>status</th></tr>%s</table></body></html>\n") % (_escape(title), _escape(title), "".join(rows))


# ---------------------------------------------------------------- command line

def build_parser():
    parser = argparse.ArgumentParser(
        prog="mm2-verify", description="Verify that a MirrorMaker 2 flow lost nothing and kept per-key order.",
        epilog="Exit status: 0 ok, 1 loss or disorder found, 2 bad input, 3 the job could not run.")
    what = parser.add_argument_group("what to compare")
    what.add_argument("--flow", help="SOURCE->TARGET cluster aliases, e.g. primary->backup")
    what.add_argument("--policy", choices=POLICIES, default="prefixed",
                      help="replication policy: prefixed (A.topic, default) or identity (same name)")
    what.add_argument("--separator", default=".", help="replication.policy.separator (default '.')")
    what.add_argument("--topics", default=".*", help="comma-separated regexes of source topics (default .*)")
    what.add_argument("--topics-exclude", default=None,
                      help="comma-separated regexes of source topics to skip; as in MM2, giving it replaces "
                           "MM2's default topics.exclude (%s)" % MM2_DEFAULT_TOPICS_EXCLUDE.replace("%", "%%"))
    rng = parser.add_argument_group("range (default: everything in the dumps / in Kafka)")
    rng.add_argument("--since", help="start time: ISO-8601, epoch ms, or relative like -30m")
    rng.add_argument("--until", help="end time (exclusive; default now when --since is given)")
    rng.add_argument("--starting-offsets", help="source offsets JSON {\"t\":{\"0\":23}} or @file")
    rng.add_argument("--ending-offsets", help="source offsets JSON (exclusive) or @file")
    rules = parser.add_argument_group("rules")
    rules.add_argument("--pending-window", default="60s",
                       help="source records this close to the range end that are not on the target yet "
                            "are pending, not missing (default 60s)")
    rules.add_argument("--pending-records", type=int, default=0,
                       help="also count the last N offsets of each source partition as in flight")
    rules.add_argument("--match-on", default=",".join(MATCH_FIELDS),
                       help="content fields that identify a record (default key,value,headers,timestamp)")
    rules.add_argument("--fail-on", default=",".join(DEFAULT_FAIL_ON),
                       help="which findings make the exit status 1: %s (default %s)" % (",".join(FAIL_CHOICES), ",".join(DEFAULT_FAIL_ON)))
    rules.add_argument("--allow-empty", action="store_true", help="an empty source range is OK (exit 0)")
    rules.add_argument("--check-offsets", choices=("auto", "yes", "no"), default="auto",
                       help="check MM2's translated consumer-group offsets (checkpoints) against the source's "
                            "committed offsets: records a failed-over consumer would re-read or skip "
                            "(auto: when both sides are Kafka)")
    inputs = parser.add_argument_group("inputs: a dump (Parquet/JSON in Spark's Kafka schema) or Kafka per side")
    for side in ("source", "target"):
        inputs.add_argument("--%s-dump" % side, help="%s dump path (.json/.jsonl = JSON, else Parquet)" % side)
        inputs.add_argument("--%s-dump-format" % side, choices=("parquet", "json"), help="override the guess")
        inputs.add_argument("--%s-bootstrap" % side, help="%s cluster bootstrap servers (read with Spark's Kafka source)" % side)
        inputs.add_argument("--%s-kafka" % side, action="append", default=[], metavar="KEY=VALUE",
                            help="%s Kafka client setting, e.g. security.protocol=SASL_SSL (repeatable)" % side)
    inputs.add_argument("--kafka-options-file", help="JSON {\"source\":{...},\"target\":{...}} of Kafka client "
                                                     "settings (keep passwords here, mode 0600, not on the command line)")
    inputs.add_argument("--target-slack", default="5m",
                        help="read the target Kafka topics this much wider than the source range (default 5m)")
    inputs.add_argument("--plan", help="JSON file {\"flows\":[{...}]} with several verifications (what the Ambari "
                                       "command writes); replaces the flags above")
    out = parser.add_argument_group("outputs")
    out.add_argument("--report", help="write the JSON report here")
    out.add_argument("--plot", help="write the completeness plot here (.png needs matplotlib, or .html)")
    out.add_argument("--summary", help="also write the summary table to this file")
    out.add_argument("--max-table-rows", type=int, default=200, help="partitions shown per flow (problems first)")
    spark = parser.add_argument_group("spark")
    spark.add_argument("--master", help="Spark master; default: spark-submit's, else spark-defaults, else local[*]")
    spark.add_argument("--shuffle-partitions", type=int, help="spark.sql.shuffle.partitions")
    spark.add_argument("--app-name", default="mm2-verify")
    spark.add_argument("--kafka-connector", metavar="DIR|JARS|COORDINATE|maven",
                       help="add Spark's Kafka connector (needed for --*-bootstrap): a directory of its jars, "
                            "a comma-separated jar list, a Maven coordinate, or 'maven' for the one matching "
                            "this pyspark; --print-spark-submit turns it into --jars/--packages")
    return parser


def parse_args(argv):
    """build_parser().parse_args, letting --since -30m through (argparse takes -30m for a flag)."""
    joined = []
    for arg in argv:
        if joined and joined[-1] in ("--since", "--until") and arg.startswith("-"):
            joined[-1] = joined[-1] + "=" + arg
        else:
            joined.append(arg)
    return build_parser().parse_args(joined)


def _key_values(pairs, flag):
    result = {}
    for pair in pairs:
        if "=" not in pair:
            raise BadInput("%s %r: expected KEY=VALUE" % (flag, pair))
        key, value = pair.split("=", 1)
        result[key.strip()] = value.strip()
    return result


def specs_from_args(args, now_ms):
    """[normalized spec] from the parsed command line (one flow, or the flows of --plan)."""
    if args.plan:
        try:
            with open(args.plan) as handle:
                plan = json.load(handle)
        except (IOError, OSError, ValueError) as exc:
            raise BadInput("--plan %s: %s" % (args.plan, exc))
        flows = plan.get("flows") if isinstance(plan, dict) else None
        if not flows:
            raise BadInput("--plan %s: expected {\"flows\": [{\"flow\": \"A->B\", ...}]}" % args.plan)
        return [normalize_spec(raw, now_ms) for raw in flows]
    if not args.flow:
        raise BadInput("--flow SOURCE->TARGET is required (or --plan FILE)")
    file_options = {}
    if args.kafka_options_file:
        try:
            with open(args.kafka_options_file) as handle:
                file_options = json.load(handle)
        except (IOError, OSError, ValueError) as exc:
            raise BadInput("--kafka-options-file %s: %s" % (args.kafka_options_file, exc))
    raw = {
        "flow": args.flow, "policy": args.policy, "separator": args.separator,
        "topics": args.topics, "topics_exclude": args.topics_exclude,
        "since": args.since, "until": args.until,
        "starting_offsets": args.starting_offsets, "ending_offsets": args.ending_offsets,
        "pending_window": args.pending_window, "pending_records": args.pending_records,
        "target_slack": args.target_slack, "match_on": args.match_on, "fail_on": args.fail_on,
        "allow_empty": args.allow_empty, "check_offsets": args.check_offsets,
    }
    for side in ("source", "target"):
        dump = getattr(args, side + "_dump")
        if dump:
            raw[side] = {"path": dump, "kind": getattr(args, side + "_dump_format")}
        else:
            options = dict(file_options.get(side) or {})
            options.update(_key_values(getattr(args, side + "_kafka"), "--%s-kafka" % side))
            if getattr(args, side + "_bootstrap"):
                options["bootstrap.servers"] = getattr(args, side + "_bootstrap")
            raw[side] = {"kind": "kafka", "options": options} if options else {}
    return [normalize_spec(raw, now_ms)]


def write_outputs(report, args):
    table = format_table(report, args.max_table_rows)
    if args.report:
        with open(args.report, "w") as handle:
            json.dump(report, handle, indent=2, sort_keys=True)
            handle.write("\n")
    if args.summary:
        with open(args.summary, "w") as handle:
            handle.write(table + "\n")
    if args.plot:
        write_plot(report, args.plot)
    return table


def run(argv, spark=None, out=None):
    """Parse, verify every flow, write the outputs; returns (exit code, report or None).

    Pass a SparkSession to reuse it (tests, notebooks); otherwise one is built and stopped.
    """
    out = out or sys.stdout
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return (exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT), None
    own_session = spark is None
    try:
        specs = specs_from_args(args, int(time.time() * 1000))
        connector = kafka_connector(args.kafka_connector)
        if own_session:
            spark = build_session(args.master, args.app_name, args.shuffle_partitions, connector)
        report = build_report([verify_flow(spark, spec) for spec in specs])
        report["spark"] = {"master": spark.sparkContext.master, "version": spark.version,
                           "application_id": spark.sparkContext.applicationId}
        out.write(write_outputs(report, args) + "\n")
        return report["exit_code"], report
    except BadInput as exc:
        sys.stderr.write("mm2-verify: bad input: %s\n" % exc)
        return EXIT_BAD_INPUT, None
    except Exception as exc:  # Spark or Kafka failure: say so, not "records missing"
        traceback.print_exc()
        sys.stderr.write("mm2-verify: the verification could not run: %s\n" % _first_line(exc))
        return EXIT_RUNTIME, None
    finally:
        if own_session and spark is not None:
            spark.stop()


def main(argv=None):
    code, _ = run(sys.argv[1:] if argv is None else argv)
    return code


if __name__ == "__main__":
    sys.exit(main())
