"""Script: the base class of command scripts (Ambari libraries/script/script.py semantics).

execute() parses the agent's argv
  <COMMAND> <JSON_CONFIG> <BASEDIR> <STROUTPUT> <LOGGING_LEVEL> <TMP_DIR> [PROTOCOL] [CA_CERT] [-o]
loads the command JSON into a ConfigDictionary, picks getattr(self, command.lower()) (or fails
with "Script '<argv0>' has no method '<cmd>'") and runs pre_<cmd>, <cmd>, post_<cmd> inside an
Environment(basedir, tmp_dir). ComponentIsNotRunning / ClientComponentHasNoStatus exit with 1.

After start/install/restart the version is reported as Ambari does when the stack has the
rolling_upgrade feature (cluster-env/stack_features; missing -> Fail) and the component is not
in cluster-env/stack_packages' stack-select map (an mpack service is not): nothing reported.
Not reproduced (and so not available to agent code under test): versions of stack-select
packages, repository handling, trunk-only accessors (get_execution_command,
get_module_configs, ...), Windows paths.
"""
import inspect
import json
import logging
import os
import re
import sys
import time
import traceback
from optparse import OptionParser

from resource_management import _double
from resource_management.core import sudo
from resource_management.core.environment import Environment
from resource_management.core.exceptions import Fail, ClientComponentHasNoStatus, ComponentIsNotRunning
from resource_management.core.logger import Logger
from resource_management.core.utils import _text
from resource_management.core.resources.packaging import Package
from resource_management.libraries.script.config_dictionary import ConfigDictionary

__all__ = ["Script"]

USAGE = """Usage: {0} <COMMAND> <JSON_CONFIG> <BASEDIR> <STROUTPUT> <LOGGING_LEVEL> <TMP_DIR> [PROTOCOL]

<COMMAND> command type (INSTALL/CONFIGURE/START/STOP/SERVICE_CHECK...)
<JSON_CONFIG> path to command json file. Ex: /var/lib/ambari-agent/data/command-2.json
<BASEDIR> path to service metadata dir. Ex: /var/lib/ambari-agent/cache/common-services/HDFS/2.1.0.2.0/package
<STROUTPUT> path to file with structured command output (file will be created). Ex:/tmp/my.txt
<LOGGING_LEVEL> log level for stdout. Ex:DEBUG,INFO
<TMP_DIR> temporary directory for executable scripts. Ex: /var/lib/ambari-agent/tmp
[PROTOCOL] optional protocol to use during https connections. Ex: see python ssl.PROTOCOL_<PROTO> variables, default PROTOCOL_TLSv1_2
"""

STACK_VERSION_PLACEHOLDER = "${stack_version}"
COUNT_OF_LAST_LINES_OF_OUT_FILES_LOGGED = 100
OUT_FILES_MASK = "*.out"


def _arg_names(method):
    if hasattr(inspect, "getfullargspec"):
        return inspect.getfullargspec(method).args
    return inspect.getargspec(method).args


class Script(object):
    instance = None
    config = None
    structuredOut = {}
    command_data_file = ""
    basedir = ""
    stroutfile = ""
    logging_level = ""
    tmp_dir = ""
    force_https_protocol = "PROTOCOL_TLSv1_2"
    ca_cert_file_path = None

    def __init__(self):
        self.available_packages_in_repos = []
        if Script.instance is not None:
            raise Fail("An instantiation already exists! Use, get_instance() method.")

    @staticmethod
    def get_instance():
        if Script.instance is None:
            Script.instance = Script()
        return Script.instance

    # ---- structured output -------------------------------------------------------------
    def load_structured_out(self):
        Script.structuredOut = {}
        if os.path.exists(self.stroutfile) and os.path.getsize(self.stroutfile) > 0:
            with open(self.stroutfile, 'r') as fp:
                try:
                    Script.structuredOut = json.load(fp)
                except Exception:
                    Logger.logger.exception('Unable to read structured output from ' + self.stroutfile)
        for key in ("version", "securityIssuesFound", "securityStateErrorInfo"):
            Script.structuredOut.pop(key, None)

    def put_structured_out(self, sout):
        Script.structuredOut.update(sout)
        try:
            with open(self.stroutfile, 'w') as fp:
                json.dump(Script.structuredOut, fp)
        except IOError:
            Script.structuredOut.update({"errMsg": "Unable to write to " + self.stroutfile})

    # ---- entry point ---------------------------------------------------------------------
    def execute(self):
        parser = OptionParser()
        parser.add_option("-o", "--out-files-logging", dest="log_out_files", action="store_true",
                          help="use this option to enable outputting *.out files of the service pre-start")
        (self.options, args) = parser.parse_args()
        self.log_out_files = self.options.log_out_files

        if len(args) < 6:
            print("Script expects at least 6 arguments")
            print(USAGE.format(os.path.basename(sys.argv[0])))
            sys.exit(1)

        self.command_name = str.lower(sys.argv[1])
        self.command_data_file = sys.argv[2]
        self.basedir = sys.argv[3]
        self.stroutfile = sys.argv[4]
        self.load_structured_out()
        self.logging_level = sys.argv[5]
        Script.tmp_dir = sys.argv[6]
        if len(sys.argv) >= 8:
            Script.force_https_protocol = sys.argv[7]
        if len(sys.argv) >= 9:
            Script.ca_cert_file_path = sys.argv[8]

        Logger.initialize_logger(__name__, logging_level=self.logging_level)

        # status reuses the structured output file: reset it so stale output is not reported.
        if self.command_name == "status":
            Script.structuredOut = {}
            self.put_structured_out({})

        try:
            with open(self.command_data_file) as f:
                Script.config = ConfigDictionary(json.load(f))
        except IOError:
            Logger.logger.exception("Can not read json file with command parameters: ")
            sys.exit(1)

        try:
            method = self.choose_method_to_execute(self.command_name)
            with Environment(self.basedir, tmp_dir=Script.tmp_dir) as env:
                env.config.download_path = Script.tmp_dir
                self.execute_prefix_function(self.command_name, 'pre', env)
                method(env)
                self.execute_prefix_function(self.command_name, 'post', env)
        except (ComponentIsNotRunning, ClientComponentHasNoStatus):
            traceback.print_exc()
            sys.exit(1)
        except Fail as ex:
            ex.pre_raise()
            raise
        finally:
            try:
                if self.should_expose_component_version(self.command_name):
                    self.save_component_version_to_structured_out(self.command_name)
            except Exception:
                Logger.exception("Reporting component version failed")

    def should_expose_component_version(self, command_name):
        """True for start/install/restart when the stack has the rolling_upgrade feature."""
        from resource_management.libraries.functions.default import default
        from resource_management.libraries.functions.stack_features import check_stack_feature
        from resource_management.libraries.functions.version import format_stack_version
        stack_version = format_stack_version(str(default("/clusterLevelParams/stack_version", "")))
        if stack_version and check_stack_feature("rolling_upgrade", stack_version):
            if command_name.lower() == "get_version":
                return True
            return command_name.lower() in ("start", "install", "restart")
        return False

    def save_component_version_to_structured_out(self, command_name):
        """Only the path an mpack service takes: not in stack-select -> no version reported."""
        from resource_management.libraries.functions import stack_select
        stack_name = Script.get_stack_name()
        package_name = stack_select.get_package_name()
        if package_name and stack_name:
            raise Fail("test double: reporting stack-select versions is not supported")

    def get_version(self, env):
        pass

    def execute_prefix_function(self, command_name, afix, env):
        method_name = "{0}_{1}".format(afix, command_name)
        if method_name not in dir(self):
            Logger.logger.debug("Action afix '{0}' not present".format(method_name))
            return
        Logger.logger.debug("Execute action afix: {0}".format(method_name))
        getattr(self, method_name)(env)

    def choose_method_to_execute(self, command_name):
        if command_name not in dir(self):
            raise Fail("Script '{0}' has no method '{1}'".format(sys.argv[0], command_name))
        return getattr(self, command_name)

    def is_hook(self):
        return False

    # ---- hooks around commands -----------------------------------------------------------
    def get_log_folder(self):
        return ""

    def get_user(self):
        return ""

    def get_pid_files(self):
        return []

    def pre_start(self, env=None):
        """With -o, show the tail of *.out files of get_log_folder() before starting."""
        if getattr(self, "log_out_files", False):
            log_folder = self.get_log_folder()
            user = self.get_user()
            if log_folder == "":
                Logger.logger.warning("Log folder for current script is not defined")
                return
            if user == "":
                Logger.logger.warning("User for current script is not defined")
                return
            from resource_management.libraries.functions.show_logs import show_logs
            show_logs(log_folder, user, lines_count=COUNT_OF_LAST_LINES_OF_OUT_FILES_LOGGED, mask=OUT_FILES_MASK)

    def post_start(self, env=None):
        """Every get_pid_files() file must exist after start (only a warning when there are none)."""
        pid_files = self.get_pid_files()
        if pid_files == []:
            Logger.logger.warning("Pid files for current script are not defined")
            return
        pids = []
        for pid_file in pid_files:
            if not sudo.path_exists(pid_file):
                raise Fail("Pid file {0} doesn't exist after starting of the component.".format(pid_file))
            pids.append(sudo.read_file(pid_file).strip())
        if _double.is_trunk():
            shown = ', '.join([x.decode('utf-8') for x in pids])
        else:
            shown = ', '.join(pids)
        Logger.info("Component has started with pid(s): {0}".format(shown))

    def post_stop(self, env):
        """Calls status() until it raises ComponentIsNotRunning. Ambari waits forever; the double
        stops after MM2_DOUBLE_POST_STOP_MAX_SECONDS when the harness sets it (and fails)."""
        status_method = getattr(self, 'status')
        bound = _double.post_stop_bound()
        started = time.time()
        counter = 0
        while True:
            try:
                if counter % 100 == 0:
                    Logger.logger.info("Waiting for actual component stop")
                status_method(env)
                if bound is not None and time.time() - started > bound:
                    raise Fail("test double: status() still reports the component running %s s after "
                               "stop (real Ambari would wait forever)" % bound)
                time.sleep(0.1)
                counter += 1
            except ComponentIsNotRunning:
                Logger.logger.debug("'status' reports ComponentIsNotRunning")
                return
            except ClientComponentHasNoStatus:
                Logger.logger.debug("Client component has no status")
                return

    # ---- configuration accessors ---------------------------------------------------------
    @staticmethod
    def get_config():
        return Script.config

    @staticmethod
    def get_tmp_dir():
        return Script.tmp_dir

    @staticmethod
    def get_force_https_protocol_name():
        return Script.force_https_protocol

    @staticmethod
    def get_ca_cert_file_path():
        return Script.ca_cert_file_path

    @staticmethod
    def get_stack_name():
        from resource_management.libraries.functions.default import default
        stack_name = default("/clusterLevelParams/stack_name", None)
        if stack_name is None:
            stack_name = default("/configurations/cluster-env/stack_name", "HDP")
        return stack_name

    @staticmethod
    def get_stack_root():
        from resource_management.libraries.functions.default import default
        stack_name = Script.get_stack_name()
        stack_root_json = default("/configurations/cluster-env/stack_root", None)
        if stack_root_json is None:
            return "/usr/{0}".format(stack_name.lower())
        stack_root = json.loads(stack_root_json)
        if stack_name not in stack_root:
            Logger.warning("Cannot determine stack root for stack named {0}".format(stack_name))
            return "/usr/{0}".format(stack_name.lower())
        return stack_root[stack_name]

    @staticmethod
    def get_stack_version():
        """clusterLevelParams/stack_version normalised to #.#.# (None when absent or empty)."""
        from resource_management.libraries.functions.version import format_stack_version
        config = Script.get_config()
        if 'clusterLevelParams' not in config or 'stack_version' not in config['clusterLevelParams']:
            return None
        stack_version = str(config['clusterLevelParams']['stack_version'])
        if not stack_version:
            return None
        return format_stack_version(stack_version)

    @staticmethod
    def get_component_from_role(role_directory_map, default_role):
        from resource_management.libraries.functions.default import default
        command_role = default("/role", default_role)
        if command_role in role_directory_map:
            return role_directory_map[command_role]
        return role_directory_map[default_role]

    # ---- default commands ----------------------------------------------------------------
    def install(self, env):
        self.install_packages(env)

    def install_packages(self, env):
        """One Package resource per commandParams/package_list entry (skipped on sys-prepped hosts)."""
        config = self.get_config()
        if 'host_sys_prepped' in config['ambariLevelParams']:
            if config['ambariLevelParams']['host_sys_prepped'] is True:
                Logger.info("Node has all packages pre-installed. Skipping.")
                return
        try:
            package_list_str = config['commandParams']['package_list']
            retry_on_unavailability = bool(config['ambariLevelParams']['agent_stack_retry_on_unavailability'])
            retry_count = int(config['ambariLevelParams']['agent_stack_retry_count'])
            if isinstance(package_list_str, (str, _text)) and len(package_list_str) > 0:
                for package in json.loads(package_list_str):
                    if self.check_package_condition(package):
                        name = self.format_package_name(package['name'])
                        Package(name, retry_on_repo_unavailability=retry_on_unavailability,
                                retry_count=retry_count)
        except KeyError:
            # Ambari prints the KeyError and installs nothing (e.g. agent_stack_retry_* missing).
            traceback.print_exc()

    def check_package_condition(self, package):
        if not package['condition']:
            return True
        raise Fail("test double: package conditions ('%s' for %s) are not supported"
                   % (package['condition'], package['name']))

    def format_package_name(self, name):
        if STACK_VERSION_PLACEHOLDER not in name:
            return name
        raise Fail("test double: %s in package names is not supported (%s)" % (STACK_VERSION_PLACEHOLDER, name))

    @staticmethod
    def fail_with_error(message):
        print("Error: " + message)
        sys.stderr.write("Error: " + message)
        sys.exit(1)

    def start(self, env, upgrade_type=None):
        self.fail_with_error("start method isn't implemented")

    def stop(self, env, upgrade_type=None):
        self.fail_with_error("stop method isn't implemented")

    def configure(self, env, upgrade_type=None, config_dir=None):
        self.fail_with_error('configure method isn\'t implemented')

    def restart(self, env):
        """stop; one status() that must raise ComponentIsNotRunning; pre_start; start; post_start.
        CLIENT components (roleParams/component_category) run install instead."""
        config = self.get_config()
        component_category = None
        try:
            component_category = config['roleParams']['component_category']
        except KeyError:
            pass
        if component_category and component_category.strip().lower() == 'client':
            self.install(env)
            return
        if "upgrade_type" in _arg_names(self.stop):
            self.stop(env, upgrade_type=None)
        else:
            self.stop(env)
        try:
            self.status(env)
            raise Fail("Stop command finished but process keep running.")
        except ComponentIsNotRunning:
            pass
        except ClientComponentHasNoStatus:
            pass
        self.pre_start(env)
        if "upgrade_type" in _arg_names(self.start):
            self.start(env, upgrade_type=None)
        else:
            self.start(env)
        self.post_start(env)
        # Ambari reports the version here too, outside any try: a Fail fails the restart.
        if self.should_expose_component_version("restart"):
            self.save_component_version_to_structured_out("restart")
