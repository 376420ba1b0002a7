"""The AMS sender beside MM2 (Ambari adapter over mm2_ams_sender.py and mm2_core.alerts.ams_sender).

START launches it, in either run mode, once MM2 runs, when the cluster has Ambari Metrics (a host in
clusterHostInfo/metrics_collector_hosts) and MM2 serves its metrics (kafka-mm2-env/mm2_metrics_enabled). It is a
process of its own (not a thread of the alerts nor of MM2's JVM): the agent's alert runs keep their own
deadlines, and MM2 never waits on a collector. START never fails because of it: a sender that cannot be
launched is logged and MM2 runs on. STOP stops it by its pid file (checked against its command line); it also
ends by itself when the MM2 process it watches is gone.
"""
import os
import sys

from resource_management.core.logger import Logger
from resource_management.core.resources.system import Execute, File

from mm2_core.alerts import alert_config, ams_sender
from mm2_core.formats import javaprops
from mm2_core.formats.text import native, text
from mm2_core.host import process

SENDER_SCRIPT = "mm2_ams_sender.py"
PID_FILE = "mm2-ams-sender.pid"
LOG_FILE = "mm2-ams-sender.log"
CREDENTIALS_FILE = "mm2-ams-exporter.credentials"   # the exporter's Basic auth for the sender: 0600, not argv


def paths(params):
    return os.path.join(params.mm2_pid_dir, PID_FILE), os.path.join(params.mm2_log_dir, LOG_FILE)


def collectors(params):
    """The collectors' POST URLs ([] without Ambari Metrics)."""
    return ams_sender.collector_urls(params.cluster_host_info, params.ams_site)


def running(pid_file):
    """The sender's pid when its pid file names a live mm2_ams_sender.py, else None."""
    pid, _ = process.read_pid_file(pid_file)
    if pid is None or not process.is_alive(pid):
        return None
    argv = process.read_cmdline(pid) or []
    return pid if any(os.path.basename(a) == SENDER_SCRIPT for a in argv) else None


def _watched(pid):
    argv = process.read_cmdline(pid) or []
    return argv[argv.index("--pid") + 1] if "--pid" in argv[:-1] else None


def command_args(params, endpoint, urls, mm2_pid, credentials_file=None):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), SENDER_SCRIPT)
    args = [sys.executable, script, "--exporter-url", endpoint.local_url(params.hostname),
            "--hostname", params.hostname, "--pid", str(mm2_pid)]
    for url in urls:
        args += ["--collector", url]
    if endpoint.https and endpoint.ca_file:
        args += ["--exporter-ca-file", endpoint.ca_file]
    if endpoint.https and not endpoint.verify:   # kafka-mm2-env/mm2_metrics_ssl_verify=false, as the alerts read it
        args += ["--exporter-no-verify"]
    if credentials_file:
        args += ["--exporter-credentials-file", credentials_file]
    return args


def start_sender(params, kill):
    """Launch the sender if it is due; never raises (MM2's START does not depend on it)."""
    try:
        _start(params, kill)
    except Exception as e:
        Logger.error(u"MirrorMaker 2 runs, but its metrics will not reach Ambari Metrics: the AMS sender did not "
                     u"start: %s" % text(e))


def _start(params, kill):
    pid_file, log_file = paths(params)
    urls = collectors(params)
    if not urls:
        Logger.info("No Ambari Metrics collector in this cluster (clusterHostInfo/metrics_collector_hosts): "
                    "MirrorMaker 2's metrics are not sent to Ambari Metrics")
        stop_sender(params, kill)
        return
    try:
        endpoint = alert_config.endpoint(params.config["configurations"])
    except ValueError as e:
        Logger.warning(u"No AMS sender: %s" % text(e))
        return
    if not endpoint.enabled:
        Logger.info("kafka-mm2-env/mm2_metrics_enabled is false: no exporter, so no AMS sender")
        stop_sender(params, kill)
        return
    mm2_pid, _ = process.read_pid_file(params.mm2_pid_file)
    current = running(pid_file)
    if current and _watched(current) == str(mm2_pid):
        Logger.info("The AMS sender is already running (pid %d)" % current)
        return
    stop_sender(params, kill)   # one watching an MM2 that is gone (kill -9, then a recovery START)
    credentials = None
    if endpoint.username:
        credentials = os.path.join(params.mm2_conf_dir, CREDENTIALS_FILE)
        File(native(credentials), content=javaprops.dumps([(endpoint.username, endpoint.password)]),
             owner=native(params.mm2_user), group=native(params.user_group), mode=0o600)
    args = command_args(params, endpoint, urls, mm2_pid, credentials)
    command = "nohup %s >> %s 2>&1 < /dev/null & echo $! > %s" % (
        " ".join(process.quote(a) for a in args), process.quote(log_file), process.quote(pid_file))
    Execute(native(command), user=native(params.mm2_user))
    Logger.info(u"AMS sender launched: this host's MirrorMaker 2 metrics go to %s once a minute; log %s"
                % (", ".join(urls), log_file))


def stop_sender(params, kill):
    """Stop the sender named by the pid file (SIGTERM; it ends within a second) and remove the file."""
    pid_file, _ = paths(params)
    pid = running(pid_file)
    if pid:
        try:
            kill(pid, 15)
        except OSError:
            pass
        if process.is_alive(pid) and running(pid_file) == pid:
            import time
            deadline = time.time() + 5
            while process.is_alive(pid) and time.time() < deadline:
                time.sleep(0.2)
            if process.is_alive(pid) and running(pid_file) == pid:
                kill(pid, 9)
        Logger.info("AMS sender (pid %d) stopped" % pid)
    if os.path.exists(pid_file):
        File(native(pid_file), action="delete")
