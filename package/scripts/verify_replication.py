"""VERIFY_REPLICATION: prove with the mm2-verify Spark job that the flows lost nothing.

The job (mm2_verify_job/job.py, shipped in this package) runs through spark-submit as the MM2
user: on YARN when the cluster has YARN and Spark and this host a Spark client, otherwise
local[*] (kafka-mm2-replication/verify.spark.mode).  Custom commands take no parameters from
the UI, so flows, topics and the time range come from the verify.* properties (a caller may name the flows:
commandParams/flow, as mm2-ambari failover and failback do).  The clusters'
Kafka settings are those MM2 itself uses (the rendering of this host's files); they reach the
job in a 0600 plan file in a private directory, never on a command line or in the log.

The summary table is printed in the command output, the totals go to the structured output,
and the JSON report, table and HTML plot stay under <mm2_log_dir>/verify/<UTC time>/.
The command fails when records are missing or out of order.
"""
import json
import os
import shlex
import shutil
import tempfile
import time

from resource_management.core import shell
from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Directory, Execute
from resource_management.libraries.functions.default import default

from mm2_core.formats.text import native, text, to_text
from mm2_core.host import process
from mm2_verify_job import plan

JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mm2_verify_job", "job.py")
PYSPARK_PROBE = "import os, sys, pyspark; print(os.path.dirname(pyspark.__file__)); print(sys.executable)"
HADOOP_CONF_DIR = "/etc/hadoop/conf"
RESULT_KEY = "verify_replication"


def find_pyspark(environ=None):
    """(SPARK_HOME, python) of a pip-installed pyspark a python3 on this host imports, or (None, None)."""
    environ = os.environ if environ is None else environ
    for python in [environ.get("PYSPARK_PYTHON"), "python3", "/usr/bin/python3"]:
        if not python:
            continue
        try:
            code, out = shell.call([python, "-c", PYSPARK_PROBE], timeout=60, quiet=True)
        except Exception:  # not installed, timed out: try the next one
            continue
        lines = [l.strip() for l in (out or "").splitlines() if l.strip()]
        if code == 0 and len(lines) >= 2:
            return lines[-2], lines[-1]
    return None, None


def _secrets(rendering):
    """{key: value} of the rendered secrets file (FileConfigProvider mode), else {}."""
    from mm2_core.formats import javaprops
    from mm2_core.rendering import render as mm2_render
    secrets_file = rendering.file(mm2_render.SECRETS_FILE)
    return javaprops.load_dict(secrets_file.text) if secrets_file is not None else {}


def _private_dir(params):
    """A 0700 directory owned by the MM2 user for the plan (it holds passwords)."""
    import grp
    import pwd
    base = params.tmp_dir if params.tmp_dir and os.path.isdir(params.tmp_dir) else None
    path = tempfile.mkdtemp(prefix="mm2-verify-", dir=base)
    os.chmod(path, 0o700)
    try:
        uid = pwd.getpwnam(params.mm2_user).pw_uid
    except KeyError:
        raise Fail("User %s (kafka-mm2-env/mm2_user) does not exist on this host" % params.mm2_user)
    try:
        gid = grp.getgrnam(params.user_group).gr_gid
    except KeyError:
        gid = pwd.getpwnam(params.mm2_user).pw_gid
    os.chown(path, uid, gid)
    return path, uid, gid


def _write_private(path, content, uid, gid):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(to_text(content).encode("utf-8"))
    os.chown(path, uid, gid)


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def prepare(params):
    """(job plan, spark choice, pyspark python) for this host, or Fail naming what to fix."""
    import mm2_agent
    rendering = mm2_agent.render(params)
    try:
        settings = plan.verify_settings(params.plain_configurations())
        flows, clusters = plan.view_from_rendering(rendering, _secrets(rendering))
        settings["flows"] = command_flows(flows) or settings["flows"]
        job_plan = plan.job_plan(settings, flows, clusters)
        found = {}

        def pyspark_home():
            found["home"], found["python"] = find_pyspark()
            return found["home"]
        spark = plan.choose_spark(settings["spark_mode"], settings["spark_home"],
                                  dict(default("/clusterHostInfo", {}) or {}), params.stack_root,
                                  pyspark_home=pyspark_home)
    except plan.PlanError as e:
        raise Fail(u"Verify Replication cannot run: %s" % text(e))
    # su -l drops the agent's environment: pass the Python that runs the job's driver explicitly.
    # A pip-installed pyspark (a package directory as SPARK_HOME) needs the Python it belongs to.
    python = os.environ.get("PYSPARK_PYTHON")
    if not python and os.path.isfile(os.path.join(spark["spark_home"], "__init__.py")):
        if "home" not in found:
            found["home"], found["python"] = find_pyspark()
        python = found["python"] if found["home"] == spark["spark_home"] else None
    return job_plan, settings, spark, python


def command_flows(flows):
    """The flows a caller named (commandParams/flow: 'A->B' or 'A->B,B->A'; mm2-ambari failover and failback pass
    the flows they act on), or [] for the verify.flows property's choice. Flows not enabled here are refused."""
    asked = [f.replace(" ", "") for f in text(to_text(default("/commandParams/flow", "") or "")).split(",")
             if f.strip()]
    known = ["%s->%s" % (f["source"], f["target"]) for f in flows]
    unknown = [f for f in asked if f not in known]
    if unknown:
        raise Fail(u"Verify Replication: flow %s (command parameter flow) is not enabled here; the enabled flows are "
                   u"%s" % (", ".join(unknown), ", ".join(known) or "none"))
    return asked


def spark_environment(params, spark, python):
    environment = {"SPARK_HOME": spark["spark_home"]}
    java_home = params.ambari_java_home or params.mm2_java_home
    if java_home:
        environment["JAVA_HOME"] = java_home
    if spark["master"] == "yarn" and not os.environ.get("HADOOP_CONF_DIR") and os.path.isdir(HADOOP_CONF_DIR):
        environment["HADOOP_CONF_DIR"] = HADOOP_CONF_DIR
    if python:
        environment["PYSPARK_PYTHON"] = python
    return environment


def run(script, env):
    import params
    env.set_params(params)
    job_plan, settings, spark, python = prepare(params)
    names = ", ".join(f["flow"] for f in job_plan["flows"])
    Logger.info("Verifying %s over the last %d minutes with Spark %s (%s)" % (
        names, settings["lookback_minutes"], spark["master"], spark["reason"]))

    out_dir = os.path.join(params.mm2_log_dir, "verify", time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    Directory(native(out_dir), owner=native(params.mm2_user), group=native(params.user_group), mode=0o755,
              create_parents=True)
    report, summary, plot = (os.path.join(out_dir, n) for n in ("report.json", "summary.txt", "completeness.html"))

    work_dir, uid, gid = _private_dir(params)
    try:
        # On YARN, executors get the keytabs through --files; the driver, started in work_dir,
        # finds them under the same relative names.
        files = plan.ship_keytabs(job_plan["flows"]) if spark["master"] == "yarn" else {}
        for name, path in files.items():
            os.symlink(path, os.path.join(work_dir, name))
        plan_file = os.path.join(work_dir, "plan.json")
        _write_private(plan_file, json.dumps(job_plan, sort_keys=True), uid, gid)
        import mm2_agent
        mm2_agent.kinit(params)
        argv = plan.spark_submit_argv(spark, JOB, plan_file, report, plot, summary,
                                      shlex.split(settings["spark_submit_args"]), files)
        # su -l starts in the user's home: change to work_dir inside the command.
        command = "cd %s && exec %s" % (process.quote(work_dir), " ".join(process.quote(a) for a in argv))
        Execute(native(command), user=native(params.mm2_user), environment=spark_environment(params, spark, python),
                logoutput=True, returns=[0, 1])
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)

    report_text = _read(report)
    if report_text is None:
        raise Fail("The verification job wrote no report (%s); see its output above" % report)
    result = json.loads(report_text)
    # The job printed the summary table above (logoutput); say where the files are.
    Logger.info("Verification report, summary table and completeness plot: %s" % out_dir)
    script.put_structured_out({RESULT_KEY: {
        "status": result["status"],
        "exit_code": result["exit_code"],
        "totals": result["totals"],
        "flows": dict((f["flow"], f["totals"]) for f in result["flows"]),
        "report": report,
        "plot": plot,
        "spark_master": spark["master"],
    }})
    if result["status"] != "OK":
        totals = result["totals"]
        raise Fail("Replication verification FAILED for %s: %d missing, %d out of order, %d records a "
                   "failed-over consumer would skip (%d pending, %d duplicates, %d extra); report: %s" % (
                       ", ".join(result["failed_flows"]), totals["missing"], totals["order_violations"],
                       totals.get("offsets_skipped", 0), totals["pending"], totals["duplicates"], totals["extra"],
                       report))
