"""The process alert: is MirrorMaker 2 running on this host, and how fast does its metrics endpoint answer.
Its run is alert_runner.AlertRun (registry: AlertKind.module)."""
from mm2_core.alerts import evaluation
from mm2_core.alerts import alert_fetch as fetcher
from mm2_core.alerts import metrics as m
from mm2_core.alerts.evaluation import CRITICAL, OK, WARNING, Result


def before_fetch(run):
    """CRITICAL when MM2 is not running here (the endpoint is not read then)."""
    run.proc = run.process_info()
    if run.proc.running is False:
        return Result(CRITICAL, ["MirrorMaker 2 is not running on %s: %s" % (run.host, run.proc.detail)])
    return None


def fetch_failed(run):
    """The endpoint refused while MM2 runs without the exporter agent (START leaves it out while the jar is
    missing): MM2 replicates, only its metrics are missing, so a WARNING that says what to provide."""
    proc = run.proc
    if run.fetched.kind == fetcher.REFUSED and proc is not None and proc.running and not proc.agent:
        return Result(WARNING, [run.without_agent()])
    return None


def metrics_disabled(run):
    proc = run.proc
    what = "running as pid %s" % proc.pid if proc.running else "status unknown (%s)" % proc.detail
    return Result(OK, ["MirrorMaker 2 is %s; its metrics endpoint is disabled "
                       "(kafka-mm2-env/mm2_metrics_enabled=false), so the replication alerts "
                       "cannot run" % what])


def run(run):
    return evaluate_process(run.snap, run.fetched, run.thresholds, run.proc, run.host)


def evaluate_process(snap, fetched, thresholds, proc, host):
    """The endpoint's answer time against the thresholds; WARNING without a herder or with JMX scrape errors."""
    elapsed = fetched.elapsed
    pairs = sorted("%s->%s" % k for k in evaluation.herders(snap) if k[0] and k[1])
    version = evaluation.kafka_version(snap)
    who = "MirrorMaker 2 (pid %s)" % proc.pid if proc is not None and proc.pid else "MirrorMaker 2"
    state = thresholds.state(elapsed)
    line = "%s metrics endpoint answered in %s s %s" % (who, evaluation.fmt_number(elapsed),
                                                          thresholds.against(elapsed))
    if pairs:
        line += "; herders %s; Kafka %s" % (", ".join(pairs), version or "?")
    else:
        state = evaluation.worst([state, WARNING])
        line += ("; but it exports no MirrorMaker 2 herder (%s): MM2 is still starting or the exporter does not "
                 "use the mpack's jmx_exporter_mm2.yaml" % m.HERDER_UP)
    if snap.value(m.SCRAPE_ERROR, 0.0) == 1.0:
        state = evaluation.worst([state, WARNING])
        line += "; the exporter reports JMX scrape errors (jmx_scrape_error=1)"
    duration = snap.value(m.SCRAPE_DURATION)
    if duration is not None:
        line += "; JMX scrape took %s s" % evaluation.fmt_number(duration)
    return Result(state, [line])
