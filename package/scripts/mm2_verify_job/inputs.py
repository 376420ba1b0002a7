"""Reading the inputs: Spark's Kafka source options, Kafka connector, session, and dumps.

Dumps are validated here (schema, unreadable records, corrupt files: exit 2 naming the file and
the record). pyspark is imported only inside the functions that need it.
"""
import json
import re

from mm2_verify_job.spec import (
    ACCEPTED_TYPES, BadInput, KAFKA_COLUMNS, OPTIONAL_COLUMNS, REDACTION_REGEX, offsets_json)


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
        options["startingOffsets"] = json.dumps(offsets_json(starting), sort_keys=True)
        options["endingOffsets"] = json.dumps(offsets_json(ending), sort_keys=True)
    elif spark_version_tuple(spark_version) >= (3, 2) and (start_ms is not None or end_ms is not None):
        if start_ms is not None:
            options["startingTimestamp"] = str(start_ms)
            options["startingOffsetsByTimestampStrategy"] = "latest"
        if end_ms is not None:
            options["endingTimestamp"] = str(end_ms)
    return options


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


def build_session(master=None, app_name="mm2-verify", shuffle_partitions=None, connector=None, ui=True):
    """The session; master only when asked (spark-submit's --master / spark-defaults win)."""
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(app_name)
    if not ui:
        builder = builder.config("spark.ui.enabled", "false")
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
    F = spark_functions()
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
    F = spark_functions()
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
    return first_line(exc)


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


def first_line(exc):
    return str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__


def spark_functions():
    """pyspark.sql.functions, imported when a job runs (the planner and the tests without Spark never import it)."""
    from pyspark.sql import functions as F
    return F
