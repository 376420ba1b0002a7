"""What the Verify Replication command runs (mm2_verify_job.plan), on Python 2.7 and 3:
settings from kafka-mm2-replication, flows and Kafka settings from the rendering, where Spark
runs, keytabs shipped to YARN, and the spark-submit line."""
import json

import pytest

from mm2_core.config import names, schema
from mm2_core.formats import javaprops
from mm2_core.rendering import render
from mm2_verify_job import job, plan

KEYTAB = "/etc/security/keytabs/mm2.service.keytab"
PRINCIPAL = "mm2/_HOST@EXAMPLE.COM"


def rendering(replication=None, custom_clusters=None):
    """The real rendering of a simple-mode active-active setup: primary is Kerberos + TLS (the
    truststore password in the secrets file), backup plain."""
    clusters = {"source.alias": "primary", "source.bootstrap.servers": "a1:9093",
                "source.security.protocol": "SASL_SSL", "source.sasl.mechanism": "GSSAPI",
                "source.ssl.truststore.location": "/etc/pki/a.jks", "source.ssl.truststore.password": "s3cret",
                "target.alias": "backup", "target.bootstrap.servers": "b1:9092"}
    clusters.update(custom_clusters or {})
    configs = {
        names.CLUSTERS: clusters,
        names.REPLICATION: dict({"direction": "active-active", "topics": "orders.*, payments",
                                 "topics.exclude": "orders-tmp", "secrets.config.provider.enabled": "true"},
                                **(replication or {})),
        names.ENV: {"mm2_principal_name": PRINCIPAL, "mm2_keytab": KEYTAB},
    }
    result = render.render_mm2(configs, "3.7.1", "h1.example.com", "/etc/kafka-mm2/conf")
    secrets = javaprops.load_dict(result.file(render.SECRETS_FILE).text)
    return result, secrets


def configurations(**verify):
    return {names.REPLICATION: dict(("verify." + k.replace("_", "."), v) for k, v in verify.items())}


def test_settings_default_to_the_schema():
    settings = plan.verify_settings({})
    assert settings["lookback_minutes"] == int(schema.REPLICATION["verify.lookback.minutes"].default)
    assert settings["pending_window_seconds"] == int(schema.REPLICATION["verify.pending.window.seconds"].default)
    assert (settings["flows"], settings["topics"], settings["spark_mode"]) == ([], "", "auto")
    assert plan.verify_settings(configurations(flows="a->b, c -> d"))["flows"] == ["a->b", "c->d"]


def test_bad_settings_name_the_property():
    with pytest.raises(plan.PlanError) as err:
        plan.verify_settings(configurations(lookback_minutes="0", pending_window_seconds="soon", spark_mode="k8s"))
    properties = [p[1] for p in err.value.problems]
    assert properties == ["verify.lookback.minutes", "verify.pending.window.seconds", "verify.spark.mode"]
    assert all(p[0] == names.REPLICATION for p in err.value.problems)


JAAS = ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
        'keyTab="%s" principal="mm2/h1.example.com@EXAMPLE.COM";' % KEYTAB)


def test_view_takes_flows_and_mm2s_own_client_security():
    flows, clusters = plan.view_from_rendering(*rendering({"replication.policy.separator": "_"}))
    assert flows == [
        {"source": "primary", "target": "backup", "topics": "orders.*, payments", "topics_exclude": "orders-tmp",
         "policy": "prefixed", "separator": "_", "offset_syncs_location": "source"},
        {"source": "backup", "target": "primary", "topics": "orders.*, payments", "topics_exclude": "orders-tmp",
         "policy": "prefixed", "separator": "_", "offset_syncs_location": "source"},
    ]
    # Exactly the security MM2 uses, secrets resolved, no MM2-only settings.
    assert clusters["primary"] == {
        "bootstrap.servers": "a1:9093", "security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI",
        "sasl.kerberos.service.name": "kafka", "sasl.jaas.config": JAAS,
        "ssl.truststore.location": "/etc/pki/a.jks", "ssl.truststore.type": "JKS",
        "ssl.truststore.password": "s3cret", "ssl.endpoint.identification.algorithm": "https"}
    assert clusters["backup"] == {"bootstrap.servers": "b1:9092", "security.protocol": "PLAINTEXT"}


def test_identity_policy_and_its_names_agree_with_the_topology():
    result, secrets = rendering({"direction": "one-way", "replication.policy": "identity"})
    flows, _ = plan.view_from_rendering(result, secrets)
    assert [(f["source"], f["target"], f["policy"]) for f in flows] == [("primary", "backup", "identity")]
    # The job's naming rule is the topology's, for both policies.
    topo = result.topology
    for policy, separator in (("identity", "."), ("prefixed", "."), ("prefixed", "_")):
        topo.settings["replication.policy"], topo.settings["replication.policy.separator"] = policy, separator
        for topic in ("orders", "x.orders"):
            assert job.remote_topic("primary", topic, policy, separator) == \
                topo.mirrored_topic(topo.enabled_flows[0], topic)


def test_job_plan_per_flow_in_the_jobs_own_format():
    flows, clusters = plan.view_from_rendering(*rendering())
    settings = plan.verify_settings(configurations(flows="primary->backup", lookback_minutes="15",
                                                   pending_window_seconds="90"))
    result = plan.job_plan(settings, flows, clusters)
    assert [e["flow"] for e in result["flows"]] == ["primary->backup"]
    entry = result["flows"][0]
    assert (entry["since"], entry["until"], entry["pending_window"], entry["allow_empty"]) == ("-15m", "now", "90s", True)
    assert entry["topics"] == "orders.*, payments" and entry["topics_exclude"] == "orders-tmp"
    assert entry["source"]["options"]["ssl.truststore.password"] == "s3cret"
    # The job accepts exactly this.
    spec = job.normalize_spec(json.loads(json.dumps(entry)), 1714557600000)
    assert (spec["mode"], spec["since_ms"], spec["topics"]) == ("time", 1714557600000 - 900000, ["orders.*", "payments"])
    assert spec["source"]["options"]["sasl.jaas.config"] == JAAS
    # verify.topics narrows every flow; an empty verify.flows takes them all.
    result = plan.job_plan(plan.verify_settings(configurations(topics="payments")), flows, clusters)
    assert [(e["flow"], e["topics"]) for e in result["flows"]] == [("primary->backup", "payments"),
                                                                   ("backup->primary", "payments")]


def test_unknown_flow_is_named_with_the_known_ones():
    flows, clusters = plan.view_from_rendering(*rendering())
    with pytest.raises(plan.PlanError) as err:
        plan.job_plan(plan.verify_settings(configurations(flows="primary->dr")), flows, clusters)
    assert "verify.flows" in str(err.value) and "primary->dr" in str(err.value)
    assert "primary->backup, backup->primary" in str(err.value)


def test_keytabs_go_to_yarn_under_relative_names():
    flows, clusters = plan.view_from_rendering(*rendering())
    result = plan.job_plan(plan.verify_settings({}), flows, clusters)
    shipped = plan.ship_keytabs(result["flows"])
    assert shipped == {"mm2-verify-1.keytab": KEYTAB}  # one file, used by both flows
    forward, backward = result["flows"]  # primary->backup and backup->primary: primary uses Kerberos
    for options in (forward["source"]["options"], backward["target"]["options"]):
        assert 'keyTab="mm2-verify-1.keytab"' in options["sasl.jaas.config"]
    assert "keyTab" not in json.dumps(forward["target"]) + json.dumps(backward["source"])


HOSTS_YARN_SPARK = {"resourcemanager_hosts": ["rm1"], "spark_client_hosts": ["h1"],
                    "spark_jobhistoryserver_hosts": ["h2"]}


def exists_for(*homes):
    paths = set(h + "/bin/spark-submit" for h in homes)
    return lambda path: path in paths


def test_auto_runs_on_yarn_when_the_cluster_has_yarn_spark_and_a_client_here():
    choice = plan.choose_spark("auto", "", HOSTS_YARN_SPARK, "/usr/bigtop", environ={},
                               exists=exists_for("/usr/bigtop/current/spark-client"))
    assert (choice["master"], choice["spark_submit"]) == ("yarn", "/usr/bigtop/current/spark-client/bin/spark-submit")
    assert choice["reason"] == "the cluster has YARN and Spark"


@pytest.mark.parametrize("hosts, homes, pyspark, master, home, reason", [
    ({"spark_client_hosts": ["h1"]}, ["/usr/lib/spark"], None, "local[*]", "/usr/lib/spark", "the cluster has no YARN"),
    ({"resourcemanager_hosts": ["rm"]}, ["/usr/lib/spark"], None, "local[*]", "/usr/lib/spark",
     "the cluster has no Spark"),
    (HOSTS_YARN_SPARK, [], "/py/pyspark", "local[*]", "/py/pyspark", "this host has no Spark client"),
    ({}, ["/opt/spark"], None, "local[*]", "/opt/spark", "the cluster has no YARN"),  # SPARK_HOME
])
def test_auto_falls_back_to_local(hosts, homes, pyspark, master, home, reason):
    exists = exists_for(*(list(homes) + ([pyspark] if pyspark else [])))
    choice = plan.choose_spark("auto", "", hosts, "/usr/hdp", environ={"SPARK_HOME": "/opt/spark"},
                               exists=exists, pyspark_home=lambda: pyspark)
    assert (choice["master"], choice["spark_home"], choice["reason"]) == (master, home, reason)


def test_pip_pyspark_is_looked_for_only_when_no_spark_is_installed():
    asked = []
    plan.choose_spark("auto", "", {}, None, environ={}, exists=exists_for("/usr/lib/spark"),
                      pyspark_home=lambda: asked.append(1))
    assert asked == []


@pytest.mark.parametrize("mode, home_setting, homes, prop", [
    ("yarn", "", [], "verify.spark.mode"),
    ("auto", "", [], "verify.spark.home"),
    ("local", "/opt/missing", ["/usr/lib/spark"], "verify.spark.home"),
])
def test_no_usable_spark_names_the_property(mode, home_setting, homes, prop):
    with pytest.raises(plan.PlanError) as err:
        plan.choose_spark(mode, home_setting, HOSTS_YARN_SPARK, None, environ={}, exists=exists_for(*homes))
    assert err.value.problems[0][:2] == (names.REPLICATION, prop)


def test_forced_modes():
    exists = exists_for("/usr/hdp/current/spark2-client")
    assert plan.choose_spark("yarn", "", {}, "/usr/hdp", environ={}, exists=exists)["master"] == "yarn"
    local = plan.choose_spark("local", "", HOSTS_YARN_SPARK, "/usr/hdp", environ={}, exists=exists)
    assert (local["master"], local["reason"]) == ("local[*]", "forced by verify.spark.mode")


def test_spark_submit_line_has_no_secrets_and_ships_keytabs():
    spark = {"spark_submit": "/s/bin/spark-submit", "master": "yarn"}
    argv = plan.spark_submit_argv(spark, "/pkg/job.py", "/tmp/p/plan.json", "/l/r.json", "/l/p.html", "/l/s.txt",
                                  ["--jars", "/j/k.jar"], {"mm2-verify-1.keytab": KEYTAB})
    assert argv == ["/s/bin/spark-submit", "--master", "yarn", "--name", "mm2-verify",
                    "--conf", "spark.log.level=WARN", "--deploy-mode", "client",
                    "--files", KEYTAB + "#mm2-verify-1.keytab", "--jars", "/j/k.jar", "/pkg/job.py",
                    "--plan", "/tmp/p/plan.json", "--report", "/l/r.json", "--plot", "/l/p.html",
                    "--summary", "/l/s.txt"]
    local = plan.spark_submit_argv({"spark_submit": "s", "master": "local[*]"}, "j", "p", "r", "pl", "su")
    assert local[:3] == ["s", "--master", "local[*]"] and "--deploy-mode" not in local


def test_a_flow_without_topics_exclude_verifies_with_mm2s_default_exclude():
    # An advanced topology that never sets topics.exclude: MM2 applies its default (.*\.replica
    # among them), and so does the Ambari command (the same default as the standalone CLI's).
    configs = {names.CLUSTERS: {"topology.mode": "advanced"}, names.TOPOLOGY: {"content": (
        "clusters:\n  primary:\n    bootstrap.servers: a1:9092\n  backup:\n    bootstrap.servers: b1:9092\n"
        "flows:\n  - source: primary\n    target: backup\n")}}
    result = render.render_mm2(configs, "3.7.1", "h1.example.com", "/etc/kafka-mm2/conf")
    flows, clusters = plan.view_from_rendering(result, {})
    [entry] = plan.job_plan(plan.verify_settings({}), flows, clusters)["flows"]
    spec = job.normalize_spec(entry, 1714557600000)
    assert spec["topics_exclude"] == job.split_patterns(job.MM2_DEFAULT_TOPICS_EXCLUDE)
    wanted = job.topic_matcher(spec["topics"], job.source_excludes(spec["topics_exclude"], "backup", "prefixed", "."))
    assert [t for t in ("orders", "orders.replica", "mm2-offsets.backup.internal") if wanted(t)] == ["orders"]


def test_the_plan_verifies_the_topics_mm2_replicates_for_each_flow():
    # A flow's own topics (YAML), a custom primary->backup.topics.exclude and a YAML config: override
    # on the other flow: the plan takes each flow's topics as MM2 reads them from the rendered file.
    configs = {names.CLUSTERS: {"topology.mode": "advanced"}, names.TOPOLOGY: {"content": (
        "clusters:\n  primary:\n    bootstrap.servers: a1:9092\n  backup:\n    bootstrap.servers: b1:9092\n"
        "flows:\n  - source: primary\n    target: backup\n    topics: orders.*\n"
        "  - source: backup\n    target: primary\n    config:\n      topics: payments\n")},
        names.CUSTOM: {"primary->backup.topics.exclude": "orders-tmp"}}
    result = render.render_mm2(configs, "3.7.1", "h1.example.com", "/etc/kafka-mm2/conf")
    written = javaprops.load_dict(result.file(render.PROPERTIES_FILE).text)
    flows, _ = plan.view_from_rendering(result, {})
    for flow in flows:
        pair = "%s->%s." % (flow["source"], flow["target"])
        assert flow["topics"] == written.get(pair + "topics", written["topics"])
        assert flow["topics_exclude"] == written.get(pair + "topics.exclude", written["topics.exclude"])
    assert [(f["topics"], f["topics_exclude"]) for f in flows] == [
        ("orders.*", "orders-tmp"), ("payments", schema.REPLICATION["topics.exclude"].default)]
