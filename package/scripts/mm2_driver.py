"""Ambari command script of the MIRRORMAKER2_DRIVER component (KAFKA_MIRRORMAKER2 service).

Commands: INSTALL, CONFIGURE, START, STOP, STATUS (RESTART is Ambari's stop + start) and the
custom commands REPLICATION_STATUS, EXPORT_TRANSLATED_OFFSETS, VERIFY_REPLICATION, CUTOVER_CHECK,
FAILOVER_GROUPS, DRILL, FLOW_SEED, FLOW_PAUSE, FLOW_RESUME, FLOW_STOP (connect mode) and reload_configs (RECONFIGURE,
"Refresh configs").
Runs on the Ambari 2.7 agent (Python 2.7) and the Ambari 3 agent (Python 3).
"""
import functools
import os

from resource_management.core.exceptions import ComponentIsNotRunning, Fail
from resource_management.core.logger import Logger
from resource_management.libraries.script.script import Script


def reports_fail(command):
    """What reaches the operator is Ambari's Fail with a readable message, never another
    exception: the core's InstallError / ConfigError and OS errors (a file, a user) say what is
    wrong and where. On Python 2 the message must be UTF-8 bytes: Python prints a unicode
    exception message with non-ASCII text as "<exception str() failed>"."""
    @functools.wraps(command)
    def run(self, env, *args, **kwargs):
        from mm2_core.formats.text import native, text
        try:
            return command(self, env, *args, **kwargs)
        except (ComponentIsNotRunning, KeyboardInterrupt, SystemExit):
            raise
        except Fail as e:
            message = e.args[0] if e.args else u""
            if getattr(e, "refused", False):   # mm2_agent.Refused: one "Error: ..." line, exit 1, no traceback
                Script.fail_with_error(native(text(message)))
            if native(message) == message:
                raise
            readable = Fail(native(message), print_cause=e.print_cause)
            readable.cause_traceback = e.cause_traceback
        except Exception as e:
            readable = Fail(native(text(e) if _is_core_error(e) else u"%s: %s" % (e.__class__.__name__, text(e))))
        raise readable
    return run


def _is_core_error(e):
    from mm2_core.config import problems
    from mm2_core.host import install
    return isinstance(e, (install.InstallError, problems.ConfigError))


class MirrorMaker2Driver(Script):

    @reports_fail
    def install(self, env):
        import params
        import mm2_setup
        env.set_params(params)
        self.install_packages(env)
        import mm2_service
        plan, version = mm2_setup.install_kafka(params, Script.get_tmp_dir())
        mm2_service.check_java(params, version)
        self._install_metrics_agent(params)

    def _install_metrics_agent(self, params):
        from mm2_core.formats.text import text
        from mm2_core.host import install
        setting = params.jmx_exporter_jar_setting
        if not params.mm2_metrics_enabled:
            return
        if install.is_url(setting):
            target_dir = os.path.dirname(params.jmx_exporter_jar)
            if not os.path.isdir(target_dir):
                os.makedirs(target_dir, 0o755)
            path = install.fetch(setting, target_dir)
            os.chmod(path, 0o644)
            Logger.info("JMX exporter agent downloaded from %s to %s" % (setting, path))
        elif not setting or not os.path.isfile(params.jmx_exporter_jar):
            Logger.warning(u"Metrics are on, but MirrorMaker 2 will start without them: %s"
                           % install.missing_agent_fix(text(params.jmx_exporter_jar)))

    @reports_fail
    def configure(self, env, upgrade_type=None, config_dir=None):
        import params
        import mm2_setup
        env.set_params(params)
        return mm2_setup.configure(params, env.config.basedir)

    @reports_fail
    def start(self, env, upgrade_type=None):
        import params
        import mm2_service
        env.set_params(params)
        rendering = self.configure(env)
        mm2_service.check_placement(params, rendering)
        mm2_service.check_java(params)
        mm2_service.check_metrics_agent(params)
        if not mm2_service.running(params):
            mm2_service.wait_for_local_kafka(params, rendering)
            import mm2_commands
            mm2_commands.ensure_check_topics(params, rendering)
        mm2_service.start(params, rendering)

    @reports_fail
    def stop(self, env, upgrade_type=None):
        import params
        import mm2_service
        env.set_params(params)
        mm2_service.stop(params)

    @reports_fail
    def status(self, env):
        import status_params
        import mm2_service
        env.set_params(status_params)
        mm2_service.status(status_params)

    def get_pid_files(self):
        import status_params
        return [status_params.mm2_pid_file]

    def get_log_folder(self):
        import params
        return params.mm2_log_dir

    def get_user(self):
        import params
        return params.mm2_user

    # ---- custom commands (Service Actions / host component menu)
    @reports_fail
    def replication_status(self, env):
        import params
        import mm2_commands
        env.set_params(params)
        mm2_commands.replication_status(self, params)

    @reports_fail
    def export_translated_offsets(self, env):
        import params
        import mm2_export
        env.set_params(params)
        mm2_export.export_translated_offsets(self, params)

    # ---- connect mode: per-flow control and live configuration changes
    @reports_fail
    def flow_pause(self, env):
        self._flow(env, "pause")

    @reports_fail
    def flow_resume(self, env):
        self._flow(env, "resume")

    @reports_fail
    def flow_stop(self, env):
        self._flow(env, "stop")

    def _flow(self, env, action):
        import params
        import mm2_connect
        env.set_params(params)
        import mm2_agent
        mm2_agent.require_installation(params)
        mm2_connect.flow_command(self, params, action)

    @reports_fail
    def reconfigure(self, env):
        """RECONFIGURE ("Refresh configs" in Ambari): always our reload_configs, which compares the worker file
        before and after rendering (Script.reconfigure would render first through save_configs)."""
        self.reload_configs(env)

    @reports_fail
    def reload_configs(self, env):
        """"Refresh configs" (RECONFIGURE with reconfigureAction=reload_configs, see the properties' supported
        refresh commands): connect mode applies connector changes live; otherwise the driver restarts."""
        import params
        import mm2_setup
        env.set_params(params)

        def restart():
            self.stop(env)
            self.start(env)
        result = mm2_setup.reload_configs(params, env.config.basedir, restart)
        if isinstance(result, dict):
            self.put_structured_out({"reload_configs": result})

    @reports_fail
    def apply_live_changes(self, env):
        """APPLY_LIVE_CHANGES (connect mode): kafka-mm2-live and any other connector-level change go to the
        running worker without a restart; refused, naming why, when only a restart can apply the change."""
        import params
        import mm2_connect
        import mm2_setup
        env.set_params(params)
        if not mm2_connect.enabled(params):
            from mm2_agent import Refused
            raise Refused("Apply live flow changes works in connect mode (kafka-mm2-env/mm2_run_mode=connect): a dedicated "
                       "driver reads its flows only at start; restart the drivers instead")

        def refuse():
            raise Fail("The Kafka Connect worker's own settings changed (a cluster's connection, or the worker "
                       "config): only a restart applies them; Ambari marks the drivers Restart Required")
        result = mm2_setup.reload_configs(params, env.config.basedir, refuse)
        if isinstance(result, dict):
            self.put_structured_out({"reload_configs": result})

    @reports_fail
    def verify_replication(self, env):
        import verify_replication  # owned by the verification job; imported only when used
        verify_replication.run(self, env)

    @reports_fail
    def cutover_check(self, env):
        import params
        import mm2_cutover
        env.set_params(params)
        mm2_cutover.cutover_check(self, params)

    @reports_fail
    def failover_groups(self, env):
        import params
        import mm2_cutover
        env.set_params(params)
        mm2_cutover.failover_groups(self, params)

    @reports_fail
    def drill(self, env):
        import params
        import mm2_cutover
        env.set_params(params)
        mm2_cutover.drill(self, params)

    @reports_fail
    def flow_seed(self, env):
        import params
        import mm2_flow_seed
        env.set_params(params)
        mm2_flow_seed.flow_seed(self, params)


if __name__ == "__main__":
    MirrorMaker2Driver().execute()
