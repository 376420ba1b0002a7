"""START / STOP / STATUS of the MirrorMaker 2 driver process.

Thin Ambari adapter over mm2_core.host.process: the decisions (is this pid our MM2, is it up, how
to stop it) are pure and tested; this module declares the Execute/File resources and turns
outcomes into log lines and Fail.
"""
import os

from resource_management.core.exceptions import ComponentIsNotRunning, Fail
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Execute, File

import mm2_agent
from mm2_core.formats.text import decode_output, native, text
from mm2_core.host import install, process
from mm2_core.model import placement
from mm2_core.connect import connect_mode

TAIL_LINES = 60


def show_log_tail(params, log_offset=0):
    """The end of MM2's own output and log in the command output (what went wrong at start)."""
    shown = False
    for path in (params.mm2_out_file, params.mm2_log_file):
        lines = process.tail_lines(path, TAIL_LINES)
        if path == params.mm2_log_file and log_offset and process.file_size(path) >= log_offset:
            # only what this start wrote
            with open(path, "rb") as fh:
                fh.seek(log_offset)
                lines = decode_output(fh.read()).splitlines()[-TAIL_LINES:]
        if lines:
            shown = True
            Logger.error(u"==> %s (last %d lines) <==\n%s" % (text(path), len(lines), u"\n".join(lines)))
    if not shown:
        Logger.error(u"MirrorMaker 2 wrote nothing to %s or %s" % (text(params.mm2_out_file),
                                                                   text(params.mm2_log_file)))


def java_major(java_home):
    """Major version of the JDK at java_home: from its release file, else `java -version`."""
    try:
        with open(os.path.join(java_home, "release")) as fh:
            major = install.java_major_from_release(fh.read())
        if major:
            return major
    except (IOError, OSError):
        pass
    java = os.path.join(java_home, "bin", "java")
    if not os.path.isfile(java):
        return None
    try:
        result = process.run_bounded([java, "-version"], 60)
    except OSError:
        return None
    return install.java_major_from_output(result.err + result.out) if result.code == 0 else None


def check_java(params, kafka_version=None):
    if not params.mm2_java_home:
        raise Fail("No Java for MirrorMaker 2: set kafka-mm2-env/mm2_java_home (Ambari sent no java_home)")
    errors, warnings = install.check_java(kafka_version or params.kafka_version, java_major(params.mm2_java_home),
                                          params.mm2_java_home)
    for w in warnings:
        Logger.warning(w)
    if errors:
        raise Fail(u"\n".join(text(e) for e in errors))


def check_metrics_agent(params):
    """Metrics never stop MM2: without the exporter jar on this host START runs MM2 without the agent (params
    leaves -javaagent out) and says so; the MirrorMaker 2 Process alert warns until the jar is there."""
    if not params.mm2_metrics_enabled or params.jmx_exporter_jar_present:
        return
    Logger.warning(u"MirrorMaker 2 starts without metrics (kafka-mm2-env/mm2_metrics_enabled is on): the MirrorMaker 2 "
                   u"Process alert is WARNING and the replication alerts UNKNOWN until the driver runs with the "
                   u"exporter agent. %s" % install.missing_agent_fix(text(params.jmx_exporter_jar)))


def served_targets(params):
    """--clusters of this host: kafka-mm2-driver/target.clusters (its config group); empty means
    no --clusters, so MM2 runs every herder, the heartbeat emitters into the sources included."""
    return placement.parse_targets(params.target_clusters_setting)


def check_placement(params, rendering):
    """What this host can decide about --clusters and several drivers (the advisor sees more)."""
    from mm2_core.model import resolved
    topo = rendering.topology
    flows = [(f.source, f.target) for f in topo.enabled_flows]
    import mm2_connect
    if mm2_connect.enabled(params):
        # this host knows only its own target.clusters: other hosts count as serving every target
        mine = served_targets(params)
        hosts = dict((h, mine if h == params.hostname else []) for h in (params.driver_hosts or [params.hostname]))
        errors = [m for _, _, level, m in connect_mode.placement_problems(flows, hosts)
                  if level == "ERROR" and (params.hostname in m or not mine)]
        if errors:
            raise Fail(u"\n".join(text(e) for e in errors))
        return
    heartbeats = resolved.resolve(topo).emits_heartbeats
    findings = placement.local_findings(params.hostname, params.driver_hosts, served_targets(params),
                                        topo.aliases, flows, params.kafka_version_tuple, heartbeats)
    errors = [f.message for f in findings if f.level == placement.ERROR]
    for f in findings:
        if f.level != placement.ERROR:
            Logger.warning(f.message)
    for warning in getattr(rendering, "warnings", None) or []:
        Logger.warning(text(warning))
    if errors:
        raise Fail(u"\n".join(text(e) for e in errors))


def wait_for_local_kafka(params, rendering):
    """Before a START: the local Kafka clusters this host's flows use must have a broker up (bounded)."""
    from mm2_core.host import broker_wait
    clusters = broker_wait.local_clusters_in_use(rendering.topology, served_targets(params))
    limit = params.mm2_local_kafka_wait
    for alias, bootstrap in clusters:
        if limit <= 0:
            return
        first = broker_wait.wait_for_any_broker(bootstrap, 0)
        if first.ok:
            continue
        Logger.info(u"Waiting up to %d s for this cluster's Kafka (%s: %s) to accept connections "
                    u"(kafka-mm2-env/mm2_local_kafka_wait_seconds)" % (limit, text(alias), text(bootstrap)))
        outcome = broker_wait.wait_for_any_broker(bootstrap, limit)
        if not outcome.ok:
            raise Fail(u"This cluster's Kafka brokers for %s (%s) did not accept a connection within %d s "
                       u"(last: %s): start Kafka first, or raise kafka-mm2-env/mm2_local_kafka_wait_seconds"
                       % (text(alias), text(bootstrap), limit, text(outcome.detail)))
        Logger.info(u"Kafka broker %s of %s answers after %.0f s" % (text(outcome.detail), text(alias),
                                                                   outcome.waited))


def running(params):
    return process.check_status(params.mm2_pid_file, params.mm2_properties_file).running


def start(params, rendering):
    action, pid, current = process.plan_start(params.mm2_pid_file, params.mm2_properties_file)
    if action == process.ALREADY_RUNNING:
        Logger.info("MirrorMaker 2 is already running (pid %d); not starting another one" % pid)
        import mm2_ams
        mm2_ams.start_sender(params, mm2_agent.kill)
        return pid
    if action == process.ADOPT:
        # running without (or with a wrong) pid file, e.g. the file was deleted by hand: adopt it
        Logger.warning("MirrorMaker 2 with %s is already running as pid %d without a valid pid file (%s); "
                       "recording it instead of starting another one"
                       % (params.mm2_properties_file, pid, current.detail))
        File(native(params.mm2_pid_file), content="%d\n" % pid, owner=native(params.mm2_user),
             group=native(params.user_group), mode=0o644)
        return pid
    if current.state != process.NO_PID_FILE:
        Logger.info("Removing stale pid file: %s" % current.detail)
        File(native(params.mm2_pid_file), action="delete")

    import mm2_connect
    connect = mm2_connect.enabled(params)
    targets = served_targets(params)
    if connect:
        command, rest_url = mm2_connect.launch_command(params), rendering.connect_plan.rest_url
        markers = (connect_mode.STARTED_MARKER, connect_mode.INITIALIZING_MARKER)
    else:
        command = process.launch_command(params.mm2_env_file, params.mm2_launcher, params.mm2_properties_file,
                                         targets, params.mm2_out_file, params.mm2_pid_file)
        rest_url = rendering.rest_listener if rendering.internal_rest else None
        markers = (process.STARTED_MARKER, process.INITIALIZING_MARKER)
    log_offset = process.file_size(params.mm2_log_file)
    mm2_agent.kinit(params)
    try:
        Execute(native(command), user=native(params.mm2_user))
        outcome = process.wait_started(params.mm2_pid_file, params.mm2_properties_file, params.mm2_start_timeout,
                                       log_path=params.mm2_log_file, log_offset=log_offset, rest_url=rest_url,
                                       markers=markers)
        if outcome.ok:
            Logger.info("%s%s" % (outcome.detail, " (serving %s)" % ", ".join(targets) if targets else ""))
            if connect:
                mm2_connect.wait_rest(params)
                mm2_connect.apply_connectors(params, rendering.connect_plan)
                mm2_connect.start_healer(params)
            import mm2_ams
            mm2_ams.start_sender(params, mm2_agent.kill)   # never raises: MM2 runs whether or not AMS gets its metrics
            return outcome.pid
        try:
            show_log_tail(params, log_offset)
        except Exception as e:   # the log tail is a courtesy: never let it skip the clean-up
            Logger.error(u"Cannot show MirrorMaker 2's output: %s" % text(e))
        raise Fail(u"MirrorMaker 2 failed to start: %s. Its output is above; the full log is %s"
                   % (text(outcome.detail), text(params.mm2_log_file)))
    except BaseException:
        # whatever went wrong after the launch: a half-started MM2 would be reported as running
        # by STATUS while START failed, so stop what this START launched and drop its pid file
        undo_start(params)
        raise


def undo_start(params):
    """Stop our MM2 (pid file or stray with our properties file) and remove the pid file; never raises."""
    try:
        import mm2_connect
        mm2_connect.stop_healer(params, mm2_agent.kill)
    except Exception as e:
        Logger.error(u"Could not stop the healer this START launched: %s" % text(e))
    try:
        import mm2_ams
        mm2_ams.stop_sender(params, mm2_agent.kill)
    except Exception as e:
        Logger.error(u"Could not stop the AMS sender this START launched: %s" % text(e))
    try:
        pids, _ = process.pids_to_stop(params.mm2_pid_file, params.mm2_properties_file)
        for pid in pids:
            outcome = process.stop_process(pid, params.mm2_properties_file, params.mm2_stop_timeout,
                                           kill=mm2_agent.kill)
            Logger.info(u"Stopped what this START launched: %s" % text(outcome.detail))
    except Exception as e:
        Logger.error(u"Could not stop the MirrorMaker 2 this START launched: %s" % text(e))
    try:
        File(native(params.mm2_pid_file), action="delete")
    except Exception as e:
        Logger.error(u"Could not remove %s: %s" % (text(params.mm2_pid_file), text(e)))


def stop(params):
    mm2_agent.check_names_for_this_agent(params)
    import mm2_connect
    # in either mode: a healer left from connect mode never outlives STOP
    mm2_connect.stop_healer(params, mm2_agent.kill)
    import mm2_ams
    mm2_ams.stop_sender(params, mm2_agent.kill)
    pids, current = process.pids_to_stop(params.mm2_pid_file, params.mm2_properties_file)
    if not current.running:
        Logger.info(u"MirrorMaker 2 is not running according to its pid file: %s" % text(current.detail))
    failures = []
    for pid in pids:
        Logger.info("Stopping MirrorMaker 2 (pid %d): SIGTERM, then SIGKILL after %ss"
                    % (pid, params.mm2_stop_timeout))
        outcome = process.stop_process(pid, params.mm2_properties_file, params.mm2_stop_timeout, kill=mm2_agent.kill)
        (Logger.info if outcome.ok else Logger.error)(outcome.detail)
        if not outcome.ok:
            failures.append(outcome.detail)
    if failures:
        raise Fail("; ".join(failures))
    File(native(params.mm2_pid_file), action="delete")


def status(status_params):
    current = process.check_status(status_params.mm2_pid_file, status_params.mm2_properties_file)
    if not current.running:
        Logger.info(u"MirrorMaker 2 is not running: %s" % text(current.detail))
        raise ComponentIsNotRunning()
