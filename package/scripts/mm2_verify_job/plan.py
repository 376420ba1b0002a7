"""What the Verify Replication command runs, decided from Ambari configurations (pure).

Used by the agent side (package/scripts/verify_replication.py) and by `mm2-verify
--ambari-config`.  Python 2.7 and 3, standard library and mm2_core only.

- flows and cluster client settings come from the rendering of this host's MM2 files
  (mm2_core.rendering.render: simple and advanced topology alike, security exactly as MM2 uses it);
- the verify.* properties of kafka-mm2-replication choose flows, topics and the time range;
- choose_spark decides between YARN and local[*] and finds spark-submit;
- the job plan (a JSON file, mode 0600, since it carries the clusters' passwords) lists one
  entry per flow in the job's own input format (mm2_verify_job.job.normalize_spec).
"""
import os
import re

from mm2_core.config import names, schema
from mm2_core.formats import text as _t   # the module: alert reloads drop mm2_core modules (Python 2 clears
                                 # a dropped module's globals under functions imported from it)

from mm2_verify_job.job import split_patterns

SPARK_HOME_CANDIDATES = ("{stack_root}/current/spark3-client", "{stack_root}/current/spark2-client",
                         "{stack_root}/current/spark-client", "/usr/lib/spark3", "/usr/lib/spark")
YARN_KEYS = ("resourcemanager_hosts",)


class PlanError(Exception):
    """Configuration the operator must fix; problems are (config type, property, message)."""

    def __init__(self, problems):
        self.problems = list(problems)
        Exception.__init__(self, "; ".join("%s/%s: %s" % p for p in self.problems))


def _value(configurations, config_type, name):
    """The configured value (or the schema default), as a stripped string."""
    value = (configurations.get(config_type) or {}).get(name)
    if value is None:
        value = schema.BY_NAME[config_type][name].default
    if isinstance(value, bool):
        value = "true" if value else "false"
    return _t.text(value).strip()   # any text: non-ASCII topics on Python 2, decrypted bytes on Ambari 3


def verify_settings(configurations):
    """The verify.* properties of kafka-mm2-replication, validated."""
    get = lambda name: _value(configurations, names.REPLICATION, name)  # noqa: E731
    problems = []
    settings = {"flows": [f.replace(" ", "") for f in split_patterns(get("verify.flows"))],
                "topics": get("verify.topics"), "spark_mode": get("verify.spark.mode") or "auto",
                "spark_home": get("verify.spark.home"), "spark_submit_args": get("verify.spark.submit.args")}
    for name, key, low in (("verify.lookback.minutes", "lookback_minutes", 1),
                           ("verify.pending.window.seconds", "pending_window_seconds", 0)):
        try:
            settings[key] = int(get(name))
            if settings[key] < low:
                raise ValueError()
        except ValueError:
            problems.append((names.REPLICATION, name, "%r is not a whole number of at least %d" % (get(name), low)))
    if settings["spark_mode"] not in ("auto", "yarn", "local"):
        problems.append((names.REPLICATION, "verify.spark.mode", "use auto, yarn or local"))
    if problems:
        raise PlanError(problems)
    return settings


# ---------------------------------------------------------------- flows and clusters

def view_from_rendering(rendering, secrets=None):
    """(flows, clusters) from the rendering of this host's MM2 files (mm2_core.rendering.render).

    The flows are the enabled ones of the topology with their topics settings and replication
    policy; each cluster's Kafka client settings are exactly the security settings MM2 itself
    uses (kafka_tools.client_properties of the rendered properties, secrets resolved).
    """
    from mm2_core.host import kafka_tools
    from mm2_core.model import resolved
    topo = rendering.topology
    flows = []
    for flow in resolved.resolve(topo).flows:
        topics = flow.setting("topics")
        exclude = flow.setting("topics.exclude")
        location = _t.text(flow.setting("offset-syncs.topic.location") or "").strip()
        flows.append({"source": flow.source, "target": flow.target,
                      "topics": ".*" if topics is None else topics,
                      "topics_exclude": exclude,  # None: MM2's default, as MM2 applies it
                      "policy": flow.policy, "separator": flow.separator,
                      # where the failover check reads the offset syncs (None: a Kafka before 3.0, the source)
                      "offset_syncs_location": location or "source"})
    clusters = {}
    for alias, cluster in topo.clusters.items():
        options = dict(kafka_tools.client_properties(rendering.properties, alias, secrets))
        options["bootstrap.servers"] = cluster.bootstrap
        clusters[alias] = options
    return flows, clusters


KEYTAB_RE = re.compile(r'keyTab="((?:[^"\\]|\\.)*)"')


def ship_keytabs(flows):
    """For YARN: point every JAAS keyTab at a relative name and return {name: absolute path}.

    Executors find the files under those names in their working directory (spark-submit
    --files path#name); the driver runs in a directory where the same names link to them.
    """
    shipped = {}
    by_path = {}
    for flow in flows:
        for side in ("source", "target"):
            options = flow[side].get("options") or {}
            jaas = options.get("sasl.jaas.config")
            match = KEYTAB_RE.search(jaas or "")
            if not match:
                continue
            path = match.group(1).replace('\\"', '"').replace("\\\\", "\\")
            name = by_path.setdefault(path, "mm2-verify-%d.keytab" % (len(by_path) + 1))
            shipped[name] = path
            options["sasl.jaas.config"] = jaas[:match.start(1)] + name + jaas[match.end(1):]
    return shipped


# ---------------------------------------------------------------- the job plan

def job_plan(settings, flows, clusters):
    """{"flows": [job input per flow]} for the Verify Replication command."""
    known = ["%s->%s" % (f["source"], f["target"]) for f in flows]
    unknown = [f for f in settings["flows"] if f not in known]
    if unknown:
        raise PlanError([(names.REPLICATION, "verify.flows", "unknown flow(s) %s; the configured flows are %s"
                          % (", ".join(unknown), ", ".join(known) or "none"))])
    entries = []
    for flow, name in zip(flows, known):
        if settings["flows"] and name not in settings["flows"]:
            continue
        entries.append({
            "flow": name,
            "policy": flow["policy"],
            "separator": flow["separator"],
            "topics": settings["topics"] or flow["topics"],
            "topics_exclude": flow["topics_exclude"],
            "offset_syncs_location": flow.get("offset_syncs_location") or "source",
            "source": {"kind": "kafka", "options": dict(clusters[flow["source"]])},
            "target": {"kind": "kafka", "options": dict(clusters[flow["target"]])},
            "since": "-%dm" % settings["lookback_minutes"],
            "until": "now",
            "pending_window": "%ds" % settings["pending_window_seconds"],
            "allow_empty": True,  # an idle flow in the window is not a failure
        })
    if not entries:
        raise PlanError([(names.REPLICATION, "verify.flows", "no flow to verify: the topology has no enabled flow")])
    return {"flows": entries}


# ---------------------------------------------------------------- where Spark runs

def cluster_has_spark(cluster_host_info):
    return any(k.startswith("spark") and k.endswith("_hosts") and v for k, v in cluster_host_info.items())


def cluster_has_yarn(cluster_host_info):
    return any(cluster_host_info.get(k) for k in YARN_KEYS)


def choose_spark(mode, spark_home_setting, cluster_host_info, stack_root=None, environ=None,
                 exists=os.path.exists, pyspark_home=None):
    """{"spark_submit": path, "master": "yarn" | "local[*]", "reason": text}.

    auto runs on YARN when the cluster has YARN and Spark and this host has a Spark client;
    otherwise local[*] with whatever Spark this host has (a pip pyspark works too).
    pyspark_home: a pip pyspark's directory, or a callable finding it (asked only when needed).
    """
    environ = os.environ if environ is None else environ
    candidates = []
    if spark_home_setting:
        candidates.append(spark_home_setting)
    if environ.get("SPARK_HOME"):
        candidates.append(environ["SPARK_HOME"])
    if stack_root:
        candidates.extend(c.format(stack_root=stack_root) for c in SPARK_HOME_CANDIDATES if "{stack_root}" in c)
    candidates.extend(c for c in SPARK_HOME_CANDIDATES if "{stack_root}" not in c)
    cluster_spark = None
    for home in candidates:
        if exists(os.path.join(home, "bin", "spark-submit")):
            cluster_spark = home
            break
    if spark_home_setting and cluster_spark != spark_home_setting:
        raise PlanError([(names.REPLICATION, "verify.spark.home",
                          "%s has no bin/spark-submit; fix the path or leave it empty" % spark_home_setting)])
    yarn_ok = cluster_has_yarn(cluster_host_info) and cluster_has_spark(cluster_host_info)
    if mode == "yarn" or (mode == "auto" and yarn_ok and cluster_spark):
        if not cluster_spark:
            raise PlanError([(names.REPLICATION, "verify.spark.mode",
                              "yarn needs a Spark client on this host (add the Spark client component "
                              "here or set verify.spark.home)")])
        reason = "forced by verify.spark.mode" if mode == "yarn" else "the cluster has YARN and Spark"
        return {"spark_submit": os.path.join(cluster_spark, "bin", "spark-submit"), "master": "yarn",
                "spark_home": cluster_spark, "reason": reason}
    home = cluster_spark or (pyspark_home() if callable(pyspark_home) else pyspark_home)
    if not home or not exists(os.path.join(home, "bin", "spark-submit")):
        raise PlanError([(names.REPLICATION, "verify.spark.home",
                          "no Spark on this host: install a Spark client (or pip install pyspark for "
                          "python3) or set verify.spark.home")])
    if mode == "local":
        reason = "forced by verify.spark.mode"
    elif not yarn_ok:
        reason = "the cluster has no %s" % ("YARN" if not cluster_has_yarn(cluster_host_info) else "Spark")
    else:
        reason = "this host has no Spark client"
    return {"spark_submit": os.path.join(home, "bin", "spark-submit"), "master": "local[*]",
            "spark_home": home, "reason": reason}


def spark_submit_argv(spark, job_path, plan_path, report, plot, summary, extra_args=(), files=None):
    """The spark-submit command line (no secrets: they are in the plan file)."""
    # spark.log.level (Spark 3.5+, ignored before) keeps the command output to the summary.
    argv = [spark["spark_submit"], "--master", spark["master"], "--name", "mm2-verify",
            "--conf", "spark.log.level=WARN"]
    if spark["master"] == "yarn":
        argv += ["--deploy-mode", "client"]  # the report is written where the command runs
    if files:
        argv += ["--files", ",".join("%s#%s" % (path, name) for name, path in sorted(files.items()))]
    argv += list(extra_args)
    argv += [job_path, "--plan", plan_path, "--report", report, "--plot", plot, "--summary", summary]
    return argv
