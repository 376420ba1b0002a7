"""A stand-in Spark installation for the VERIFY_REPLICATION command tests.

Its bin/spark-submit records how it was called (argv, working directory, environment, the plan
file's mode and content, the links in the working directory) and then behaves like the real
job with Spark replaced by canned per-partition counts: it parses the job's command line with
the job's own parser, validates the plan with the job's own rules and writes the report,
summary and plot with the job's own writers.
"""
import json
import os
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "package", "scripts")


def make_spark_home(home, state, behaviour):
    """A SPARK_HOME whose spark-submit runs this module; behaviour: {"exit": n, "counts": {...}}."""
    os.makedirs(os.path.join(home, "bin"))
    os.makedirs(state)
    with open(os.path.join(state, "behaviour.json"), "w") as handle:
        json.dump(behaviour, handle)
    submit = os.path.join(home, "bin", "spark-submit")
    with open(submit, "w") as handle:
        handle.write("#!/bin/bash\nexec %s %s %s \"$0\" \"$@\"\n" % (sys.executable, os.path.abspath(__file__), state))
    os.chmod(submit, 0o755)


def calls(state):
    path = os.path.join(state, "calls.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle]


def _record(state, argv, plan_path):
    st = os.stat(plan_path)
    with open(plan_path) as handle:
        plan = json.load(handle)
    cwd = os.getcwd()
    links = dict((n, os.readlink(os.path.join(cwd, n))) for n in os.listdir(cwd)
                 if os.path.islink(os.path.join(cwd, n)))
    entry = {"argv": argv, "cwd": cwd, "links": links, "plan": plan, "plan_mode": stat.S_IMODE(st.st_mode),
             "env": dict((k, os.environ.get(k)) for k in ("SPARK_HOME", "JAVA_HOME", "PYSPARK_PYTHON",
                                                          "HADOOP_CONF_DIR"))}
    with open(os.path.join(state, "calls.jsonl"), "a") as handle:
        handle.write(json.dumps(entry) + "\n")


def main(state, argv):
    sys.path.insert(0, SCRIPTS)
    from mm2_verify_job import job
    with open(os.path.join(state, "behaviour.json")) as handle:
        behaviour = json.load(handle)
    job_at = max(i for i, a in enumerate(argv) if a.endswith("job.py"))
    args = job.build_parser().parse_args(argv[job_at + 1:])
    _record(state, argv, args.plan)
    if behaviour.get("exit") == job.EXIT_BAD_INPUT:
        sys.stderr.write("mm2-verify: bad input: %s\n" % behaviour["message"])
        return job.EXIT_BAD_INPUT
    specs = job.specs_from_args(args, 1714557600000)
    flows = []
    for spec in specs:
        counts = dict((k, 0) for k in job.COUNT_FIELDS)
        counts.update(behaviour.get("counts", {}))
        entry = {"topic": "orders", "target_topic": job.remote_topic(spec["source_alias"], "orders"),
                 "partition": 0, "target_outside_range": 0}
        entry.update(counts)
        entry["completeness"] = job.completeness(entry)
        entry["status"] = job.status_of(entry, spec["fail_on"])
        offsets = None
        if "offsets" in behaviour:  # canned failover counts for one committed group
            point = {"group": "billing", "topic": "orders", "partition": 0, "target_topic": entry["target_topic"],
                     "committed": 40, "checkpoint_upstream": 40, "checkpoint_downstream": 43, "downstream": 43,
                     "translation_source": "checkpoint", "sync_upstream": None, "reread_at_most": None,
                     "in_range": True}
            offsets = job.offsets_section(spec, [point], {("billing", "orders", 0): behaviour["offsets"]})
        flows.append(job.flow_report(spec, [entry], 1714557600000, 0.5, offsets))
    report = job.build_report(flows)
    sys.stdout.write(job.write_outputs(report, args) + "\n")
    return report["exit_code"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
