"""The verification job's pure rules, on Python 2.7 and 3 (no Spark): names, ranges, Kafka
source options, input validation, status and the summary table."""
import json

import pytest

from mm2_verify_job import job

NOW = 1714557600000  # 2024-05-01T10:00:00Z


def spec(**overrides):
    raw = {"flow": "primary->backup", "source": {"path": "/dumps/a"}, "target": {"path": "/dumps/b"}}
    raw.update(overrides)
    return job.normalize_spec(raw, NOW)


@pytest.mark.parametrize("text, expected", [
    ("now", NOW),
    ("-30m", NOW - 30 * 60000),
    ("-2h", NOW - 7200000),
    ("1714557600123", 1714557600123),
    ("2024-05-01T10:00:00Z", NOW),
    ("2024-05-01T10:00:00.5Z", NOW + 500),
    ("2024-05-01 12:00:00+02:00", NOW),
    ("2024-05-01T05:30:00-04:30", NOW),
    ("2024-05-01", NOW - 10 * 3600000),
])
def test_times(text, expected):
    assert job.parse_time_ms(text, NOW) == expected


@pytest.mark.parametrize("text", ["yesterday", "2024-13", "10:00", "-5x"])
def test_bad_time_names_the_flag_and_the_accepted_forms(text):
    with pytest.raises(job.BadInput) as err:
        job.parse_time_ms(text, NOW, "--since")
    message = str(err.value)
    assert "--since" in message and ("ISO-8601" in message or "duration" in message)


def test_relative_times_pass_the_command_line():
    args = job.parse_args(["--flow", "a->b", "--since", "-30m", "--until", "-5m", "--topics", "t"])
    assert (args.since, args.until, args.topics) == ("-30m", "-5m", "t")


def test_durations_round_trip():
    assert [job.parse_duration_ms(t) for t in ("60s", "5m", "250ms", "1d", "0", 42)] == \
           [60000, 300000, 250, 86400000, 0, 42]
    assert [job.format_duration(ms) for ms in (60000, 300000, 250, 86400000, 1500)] == \
           ["1m", "5m", "250ms", "1d", "1500ms"]


def test_format_ms_is_utc_iso():
    assert job.format_ms(NOW + 7) == "2024-05-01T10:00:00.007Z" and job.format_ms(None) is None


@pytest.mark.parametrize("policy, separator, topic, remote", [
    ("prefixed", ".", "orders", "primary.orders"),
    ("prefixed", "_", "orders", "primary_orders"),
    ("prefixed", ".", "other.orders", "primary.other.orders"),   # multi-hop
    ("identity", ".", "orders", "orders"),
    ("identity", ".", "heartbeats", "primary.heartbeats"),       # IdentityReplicationPolicy keeps these prefixed
])
def test_remote_names_follow_the_replication_policy(policy, separator, topic, remote):
    assert job.remote_topic("primary", topic, policy, separator) == remote
    assert job.upstream_topic("primary", remote, policy, separator) == topic


def test_upstream_of_a_foreign_topic_is_none():
    assert job.upstream_topic("primary", "other.orders") is None


def test_flow_syntax():
    assert job.parse_flow(" primary -> backup ") == ("primary", "backup")
    for bad in ("primary", "a->a", "a->b->c", "a.b->c"):
        with pytest.raises(job.BadInput) as err:
            job.parse_flow(bad)
        assert "SOURCE->TARGET" in str(err.value)


LOOK_ALIKES = ("orders", "orders-eu", "legacy-orders", "orders.replica", "pay", "payments", "prepay",
               "tmp-orders", "heartbeats", "x.heartbeats", "mm2-offsets.a.internal", "mm2-configs.backup.internal",
               "primary.checkpoints.internal", "__consumer_offsets", ".hidden", "backup.orders",
               "other.backup.orders", "orders.backup", "orders.internal", "orders-internal")


def test_topic_selection_matches_mm2_semantics():
    excludes = job.source_excludes(["tmp.*"], "backup", "prefixed", ".")
    wanted = job.topic_matcher(["orders.*", "pay"], excludes)
    # orders.replica and orders.backup: only MM2's default exclude (not given here) drops the first;
    # other.backup.orders would cycle back into backup (MirrorSourceConnector.isCycle).
    assert [t for t in LOOK_ALIKES if wanted(t)] == ["orders", "orders-eu", "orders.replica", "pay", "orders.backup"]


def test_mm2_default_topics_exclude_applies_when_none_is_given():
    assert spec()["topics_exclude"] == [".*[\\-\\.]internal", ".*\\.replica", "__.*"]
    assert spec(topics_exclude="")["topics_exclude"] == []  # given empty: MM2 excludes nothing more
    assert job.build_parser().parse_args([]).topics_exclude is None
    wanted = job.topic_matcher([".*"], job.source_excludes(spec()["topics_exclude"], "backup", "prefixed", "."))
    assert [t for t in LOOK_ALIKES if wanted(t)] == [
        "orders", "orders-eu", "legacy-orders", "pay", "payments", "prepay", "tmp-orders", "orders.backup"]


@pytest.mark.parametrize("includes, excludes, prefix", [
    (["orders.*", "pay"], ["tmp.*"], ""),
    (["orders"], [], ""),
    ([".*"], [".*[\\-\\.]internal", ".*\\.replica", "__.*"], ""),
    (["orders.*", "pay"], ["tmp.*"], "primary."),
    (["orders"], [], "a_b."),
])
def test_subscribe_pattern_selects_on_sparks_substring_search_what_mm2_replicates(includes, excludes, prefix):
    # Spark keeps a topic when topicRegex.findFirstIn(topic) finds the pattern anywhere in it;
    # the anchored pattern must select exactly the whole-name matches of MM2's filter.
    excl = job.source_excludes(excludes, "backup", "prefixed", ".")
    pattern = job.java_topic_pattern(includes, excl, prefix)
    wanted = job.topic_matcher(includes, excl)
    names = list(LOOK_ALIKES) + [prefix + t for t in LOOK_ALIKES] + ["x" + prefix + t for t in LOOK_ALIKES]
    expected = [n for n in names if n.startswith(prefix) and wanted(n[len(prefix):])]
    assert [n for n in names if job.spark_subscribes(pattern, n)] == expected
    # The unanchored form (what the job used to send) matches look-alikes: the bug this prevents.
    assert job.spark_subscribes("(?:orders)", "legacy-orders")


def test_kafka_options_time_range_and_security_pass_through():
    options = job.kafka_read_options({"bootstrap.servers": "a1:9093", "security.protocol": "SASL_SSL",
                                      "sasl.jaas.config": "x required;"}, pattern="orders",
                                     start_ms=1000, end_ms=2000, spark_version="3.5.1")
    assert options == {
        "kafka.bootstrap.servers": "a1:9093", "kafka.security.protocol": "SASL_SSL",
        "kafka.sasl.jaas.config": "x required;", "kafka.isolation.level": "read_committed",
        "includeHeaders": "true", "failOnDataLoss": "false",
        "subscribePattern": "orders", "startingTimestamp": "1000", "endingTimestamp": "2000",
        "startingOffsetsByTimestampStrategy": "latest"}


def test_kafka_options_offsets_assign_exact_partitions():
    options = job.kafka_read_options({"bootstrap.servers": "a1:9092"}, assign={"t": [1, 0]},
                                     starting={"t": {0: 5, 1: -2}}, ending={"t": {0: 9, 1: -1}})
    assert json.loads(options["assign"]) == {"t": [0, 1]}
    assert json.loads(options["startingOffsets"]) == {"t": {"0": 5, "1": -2}}
    assert json.loads(options["endingOffsets"]) == {"t": {"0": 9, "1": -1}}
    assert "subscribePattern" not in options


def test_isolation_level_can_be_overridden():
    options = job.kafka_read_options({"bootstrap.servers": "a", "isolation.level": "read_uncommitted"}, pattern="t")
    assert options["kafka.isolation.level"] == "read_uncommitted"


def test_old_spark_reads_everything_and_the_job_filters_by_time():
    options = job.kafka_read_options({"bootstrap.servers": "a"}, pattern="t", start_ms=1, end_ms=2,
                                     spark_version="3.1.3")
    assert "startingTimestamp" not in options and "endingTimestamp" not in options


def test_spec_defaults_and_modes():
    s = spec()
    assert (s["mode"], s["policy"], s["separator"], s["topics"], s["match_on"], s["fail_on"]) == \
           ("all", "prefixed", ".", [".*"], ["key", "value", "headers", "timestamp"], ["missing", "order", "skipped"])
    assert s["check_offsets"] == "auto" and s["topics_exclude"] == [".*[\\-\\.]internal", ".*\\.replica", "__.*"]
    assert s["pending_window_ms"] == 60000 and s["target_slack_ms"] == 300000
    assert s["source"] == {"kind": "parquet", "path": "/dumps/a"}
    timed = spec(since="-30m")
    assert (timed["mode"], timed["since_ms"], timed["until_ms"]) == ("time", NOW - 1800000, NOW)
    assert spec(source={"path": "/d/x.jsonl"})["source"]["kind"] == "json"
    ranged = spec(starting_offsets='{"t":{"0":1}}', ending_offsets={"t": {"0": 5}})
    assert ranged["mode"] == "offsets" and ranged["starting_offsets"] == {"t": {0: 1}}


@pytest.mark.parametrize("overrides, message", [
    ({"policy": "custom"}, "use prefixed"),
    ({"since": "-1h", "starting_offsets": '{"t":{"0":1}}', "ending_offsets": '{"t":{"0":2}}'}, "not both"),
    ({"starting_offsets": '{"t":{"0":1}}'}, "needs both"),
    ({"starting_offsets": '{"t":{"0":1}}', "ending_offsets": '{"u":{"0":2}}'}, "same topics"),
    ({"starting_offsets": '{"t":{"x":1}}', "ending_offsets": '{"t":{"0":2}}'}, "integer offsets"),
    ({"starting_offsets": "{nope", "ending_offsets": "{}"}, "not JSON"),
    ({"since": "-10m", "until": "-20m"}, "is not before"),
    ({"match_on": "headers,timestamp"}, "keep key or value"),
    ({"fail_on": "missing,typos"}, "choose among"),
    ({"pending_records": -1}, "0 or more"),
    ({"source": {}}, "give a dump"),
    ({"target": {"kind": "kafka", "options": {"security.protocol": "SSL"}}}, "no Kafka bootstrap"),
    ({"target": {"options": {"bootstrap.servers": "b:1", "group.id": "g"}}}, "managed by Spark"),
])
def test_bad_specs_say_what_to_fix(overrides, message):
    with pytest.raises(job.BadInput) as err:
        spec(**overrides)
    assert message in str(err.value)


def test_offsets_from_a_missing_file():
    with pytest.raises(job.BadInput) as err:
        spec(starting_offsets="@/nonexistent/start.json", ending_offsets="{}")
    assert "/nonexistent/start.json" in str(err.value)


def test_schema_problems_name_the_column():
    good = list(job.KAFKA_COLUMNS)
    assert job.schema_problems(good, "dump") == []
    assert job.schema_problems([c for c in good if c[0] not in ("headers", "timestampType")], "dump") == []
    assert job.schema_problems([("timestamp", "bigint") if c[0] == "timestamp" else c for c in good], "d") == []
    bad = [("partition", "string") if c[0] == "partition" else c for c in good if c[0] != "key"]
    assert job.schema_problems(bad, "source dump /x") == [
        "source dump /x: column key (binary) is missing",
        "source dump /x: column partition is string, expected int"]


def counts(**values):
    base = dict((k, 0) for k in job.COUNT_FIELDS)
    base.update(values)
    return base


def test_status_and_completeness():
    assert job.status_of(counts(source_records=10, matched=10), ["missing", "order"]) == "OK"
    assert job.status_of(counts(pending=2), ["missing", "order"]) == "PENDING"
    assert job.status_of(counts(missing=1, order_violations=2), ["missing", "order"]) == "FAILED(missing,order)"
    assert job.status_of(counts(duplicates=3, extra=1), ["missing", "order"]) == "OK"
    assert job.status_of(counts(duplicates=3), ["duplicates"]) == "FAILED(duplicates)"
    assert job.completeness(counts(source_records=3, matched=2)) == 0.666667
    assert job.completeness(counts()) == 1.0


def flow_section(partitions, fail_on=("missing", "order")):
    s = spec(fail_on=",".join(fail_on), pending_window="30s")
    entries = []
    for topic, partition, values in partitions:
        entry = {"topic": topic, "target_topic": "primary." + topic, "partition": partition,
                 "target_outside_range": 0}
        entry.update(counts(**values))
        entry["completeness"] = job.completeness(entry)
        entry["status"] = job.status_of(entry, s["fail_on"])
        entries.append(entry)
    return job.flow_report(s, entries, NOW, 1.5)


def test_report_and_table():
    flow = flow_section([("orders", 0, dict(source_records=100, target_records=99, matched=97, missing=2,
                                            pending=1, duplicates=0, order_violations=1, keys_out_of_order=1)),
                         ("orders", 1, dict(source_records=50, target_records=52, matched=50, duplicates=2))])
    report = job.build_report([flow])
    assert report["status"] == "FAILED" and report["exit_code"] == job.EXIT_FAILED
    assert report["failed_flows"] == ["primary->backup"]
    assert report["totals"]["missing"] == 2 and report["totals"]["partitions"] == 2
    assert report["totals"]["completeness"] == round(147 / 150.0, 6)
    json.dumps(report)  # serialisable as is
    table = job.format_table(report)
    lines = table.splitlines()
    assert lines[0].startswith("Flow primary->backup (policy prefixed, separator '.'), range: everything read; "
                               "pending window 30s")
    assert lines[1].split() == ["topic", "target", "topic", "part", "source", "target", "matched", "missing",
                                "pending", "dup", "extra", "order", "complete", "status"]
    assert lines[3].split() == ["orders", "primary.orders", "0", "100", "99", "97", "2", "1", "0", "0", "1",
                                "97.00%", "FAILED(missing,order)"]
    assert lines[6].split()[:3] == ["TOTAL", "150", "151"]
    assert lines[-1] == "FAILED (primary->backup): 2 missing, 1 out of order, 1 pending, 2 duplicates, 0 extra (exit 1)"


def test_table_shows_problems_first_when_capped():
    rows = [("t", p, dict(source_records=10, matched=10)) for p in range(5)]
    rows.append(("t", 5, dict(source_records=10, matched=9, missing=1)))
    table = job.format_table(job.build_report([flow_section(rows)]), max_rows=2)
    assert "(2 of 6 partitions shown, problems first" in table
    assert "FAILED(missing)" in table.splitlines()[3]


def test_html_plot_without_matplotlib(tmp_path):
    report = job.build_report([flow_section([("orders", 0, dict(source_records=4, matched=3, missing=1))])])
    path = str(tmp_path / "plot.html")
    job.write_plot(report, path)
    with open(path) as handle:
        html = handle.read()
    assert "primary-&gt;backup orders[0]" in html and "width:75.000%" in html and "width:25.000%" in html


@pytest.mark.parametrize("argv,message", [
    (["--max-table-rows", "-1"], "--max-table-rows -1: must be 0 or more (0: each flow's totals only)"),
    (["--shuffle-partitions", "0"], "--shuffle-partitions 0: must be 1 or more, or leave it out"),
])
def test_numbers_are_checked_before_spark_naming_the_flag(argv, message, capsys):
    # issue 33: a number that cannot work is refused before any Spark session, exit 2
    code, report = job.run(["--flow", "primary->backup", "--source-dump", "/dumps/a", "--target-dump", "/dumps/b"]
                           + argv)
    assert (code, report) == (job.EXIT_BAD_INPUT, None)
    assert "mm2-verify: bad input: " + message in capsys.readouterr().err
