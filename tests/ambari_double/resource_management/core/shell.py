"""Running commands the way Ambari's core/shell.py does.

A command (string, or tuple/list that gets bash-quoted) runs as
["/bin/bash", "--login", "--noprofile", "-c", command] with an environment made of PATH plus
the given env only. user= wraps it in "ambari-sudo.sh su <user> -l -s /bin/bash -c '...'",
sudo=True in "ambari-sudo.sh ... -H -E ...". Keyword-only calling convention like the real
log_function_call wrapper: everything but the command must be passed by name.
"""
import copy
import logging
import os
import select
import string
import subprocess
import sys
import threading
import time
import traceback
from functools import reduce

from resource_management.core.exceptions import Fail, ExecutionFailed, ExecuteTimeoutException
from resource_management.core.logger import Logger
from resource_management.core.signal_utils import TerminateStrategy, terminate_process
from resource_management.core.utils import _text

__all__ = ["non_blocking_call", "checked_call", "call", "quote_bash_args", "as_user", "as_sudo"]

AMBARI_SUDO_BINARY = "ambari-sudo.sh"
NOT_LOGGED_FOLDER = 'resource_management/core'
EXPORT_PLACEHOLDER = "[RMF_EXPORT_PLACEHOLDER]"
ENV_PLACEHOLDER = "[RMF_ENV_PLACEHOLDER]"
PLACEHOLDERS_TO_STR = {
    EXPORT_PLACEHOLDER: "export {env_str} > /dev/null ; ",
    ENV_PLACEHOLDER: "{env_str}",
}
_STRING_TYPES = (str, _text)


def log_function_call(function):
    def inner(command, **kwargs):
        caller_filename = sys._getframe(1).f_code.co_filename
        quiet = kwargs['quiet'] if 'quiet' in kwargs else None
        is_internal_call = NOT_LOGGED_FOLDER in caller_filename.replace(os.sep, '/')
        if quiet is False or (quiet is None and not is_internal_call):
            command_repr = Logger._get_resource_name_repr(command)
            Logger.info(Logger.get_function_repr("{0}[{1}]".format(function.__name__, command_repr), kwargs))
        if 'logoutput' in function.__code__.co_varnames:
            kwargs['logoutput'] = \
                ('logoutput' in kwargs and kwargs['logoutput'] and Logger.isEnabledFor(logging.INFO)) or \
                ('logoutput' in kwargs and kwargs['logoutput'] is None and Logger.isEnabledFor(logging.DEBUG)) or \
                ('logoutput' not in kwargs and not is_internal_call and Logger.isEnabledFor(logging.DEBUG))
        result = function(command, **kwargs)
        if quiet is False or (quiet is None and not is_internal_call):
            Logger.info("{0} returned {1}".format(function.__name__, result))
        return result
    return inner


def preexec_fn():
    pid = os.getpid()
    os.setpgid(pid, pid)


@log_function_call
def checked_call(command, quiet=False, logoutput=None, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                 cwd=None, env=None, preexec_fn=preexec_fn, user=None, wait_for_finish=True, timeout=None,
                 on_timeout=None, path=None, sudo=False, on_new_line=None, tries=1, try_sleep=0,
                 timeout_kill_strategy=TerminateStrategy.TERMINATE_PARENT, returns=[0]):
    """Run the command; raise ExecutionFailed unless its exit code is in returns. -> (code, out)"""
    return _call_wrapper(command, logoutput=logoutput, throw_on_failure=True, stdout=stdout, stderr=stderr,
                         cwd=cwd, env=env, preexec_fn=preexec_fn, user=user, wait_for_finish=wait_for_finish,
                         on_timeout=on_timeout, timeout=timeout, path=path, sudo=sudo, on_new_line=on_new_line,
                         tries=tries, try_sleep=try_sleep, timeout_kill_strategy=timeout_kill_strategy,
                         returns=returns)


@log_function_call
def call(command, quiet=False, logoutput=None, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
         cwd=None, env=None, preexec_fn=preexec_fn, user=None, wait_for_finish=True, timeout=None,
         on_timeout=None, path=None, sudo=False, on_new_line=None, tries=1, try_sleep=0,
         timeout_kill_strategy=TerminateStrategy.TERMINATE_PARENT, returns=[0]):
    """Run the command whatever its exit code. -> (code, out)"""
    return _call_wrapper(command, logoutput=logoutput, throw_on_failure=False, stdout=stdout, stderr=stderr,
                         cwd=cwd, env=env, preexec_fn=preexec_fn, user=user, wait_for_finish=wait_for_finish,
                         on_timeout=on_timeout, timeout=timeout, path=path, sudo=sudo, on_new_line=on_new_line,
                         tries=tries, try_sleep=try_sleep, timeout_kill_strategy=timeout_kill_strategy,
                         returns=returns)


@log_function_call
def non_blocking_call(command, quiet=False, stdout=None, stderr=None, cwd=None, env=None,
                      preexec_fn=preexec_fn, user=None, timeout=None, path=None, sudo=False):
    return _call_wrapper(command, logoutput=False, throw_on_failure=True, stdout=stdout, stderr=stderr,
                         cwd=cwd, env=env, preexec_fn=preexec_fn, user=user, wait_for_finish=False,
                         on_timeout=None, timeout=timeout, path=path, sudo=sudo, on_new_line=None,
                         tries=1, try_sleep=0)


def _call_wrapper(command, **kwargs):
    tries = kwargs['tries']
    try_sleep = kwargs['try_sleep']
    on_timeout = kwargs['on_timeout']
    result = None
    for i in range(0, tries):
        is_last_try = (i == tries - 1)
        kwargs_copy = kwargs
        if not is_last_try:
            kwargs_copy = copy.copy(kwargs)
            kwargs_copy['throw_on_failure'] = True  # a failed early try must be noticed to retry
        try:
            try:
                result = _call(command, **kwargs_copy)
                break
            except ExecuteTimeoutException as ex:
                if on_timeout:
                    Logger.info("Executing '{0}'. Reason: {1}".format(on_timeout, str(ex)))
                    result = checked_call(on_timeout)
                else:
                    raise
        except Fail as ex:
            if is_last_try:
                raise
            Logger.info("Retrying after {0} seconds. Reason: {1}".format(try_sleep, str(ex)))
            time.sleep(try_sleep)
    return result


def _decode(data):
    if sys.version_info[0] >= 3:
        return data.decode()
    return data


def _call(command, logoutput=None, throw_on_failure=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
          cwd=None, env=None, preexec_fn=preexec_fn, user=None, wait_for_finish=True, timeout=None,
          on_timeout=None, path=None, sudo=False, on_new_line=None, tries=1, try_sleep=0,
          timeout_kill_strategy=TerminateStrategy.TERMINATE_PARENT, returns=[0]):
    command_alias = Logger.format_command_for_output(command)
    if isinstance(command_alias, (list, tuple)):
        command_alias = string_cmd_from_args_list(command_alias)

    env = _add_current_path_to_env(env)
    if path:
        path = os.pathsep.join(path) if isinstance(path, (list, tuple)) else path
        env['PATH'] = os.pathsep.join([env['PATH'], path])

    if sudo and user:
        raise ValueError("Only one from sudo or user argument could be set to True")
    if sudo:
        command = as_sudo(command, env=env)
    elif user:
        command = as_user(command, user, env=env)
    if isinstance(command, (list, tuple)):
        command = string_cmd_from_args_list(command)

    env_str = _get_environment_str(env)
    for placeholder, replacement in PLACEHOLDERS_TO_STR.items():
        command = command.replace(placeholder, replacement.format(env_str=env_str))

    subprocess_command = ["/bin/bash", "--login", "--noprofile", "-c", command]

    # A command left running must not hold our pipes (the agent would wait for it).
    if not wait_for_finish:
        stdout = None
        stderr = None

    files_to_close = []
    if isinstance(stdout, _STRING_TYPES):
        stdout = open(stdout, 'wb')
        files_to_close.append(stdout)
    if isinstance(stderr, _STRING_TYPES):
        stderr = open(stderr, 'wb')
        files_to_close.append(stderr)

    timer = timeout_event = None
    try:
        proc = subprocess.Popen(subprocess_command, stdout=stdout, stderr=stderr, cwd=cwd, env=env,
                                shell=False, close_fds=True, preexec_fn=preexec_fn)
        if timeout:
            timeout_event = threading.Event()
            timer = threading.Timer(timeout, _on_timeout, [proc, timeout_event, timeout_kill_strategy])
            timer.start()
        if not wait_for_finish:
            return proc

        logoutput = logoutput is True and Logger.logger.isEnabledFor(logging.INFO) or \
            logoutput is None and Logger.logger.isEnabledFor(logging.DEBUG)
        read_set = []
        if stdout == subprocess.PIPE:
            read_set.append(proc.stdout)
        if stderr == subprocess.PIPE:
            read_set.append(proc.stderr)
        fd_to_string = {proc.stdout: "", proc.stderr: ""}
        all_output = ""
        while read_set:
            is_running = proc.poll() is None
            ready, _, _ = select.select(read_set, [], [], 1)
            if not is_running and not ready:
                break
            for out_fd in read_set:
                if out_fd in ready:
                    line = os.read(out_fd.fileno(), 1024)
                    if not line:
                        read_set = copy.copy(read_set)
                        read_set.remove(out_fd)
                        out_fd.close()
                        continue
                    text = _decode(line)
                    fd_to_string[out_fd] += text
                    all_output += text
                    if on_new_line:
                        try:
                            on_new_line(line, out_fd == proc.stderr)
                        except Exception:
                            raise Fail("Caused by on_new_line function failed with exception for input "
                                       "argument '{0}':\n{1}".format(line, traceback.format_exc()))
                    if logoutput:
                        sys.stdout.write(text)
                        sys.stdout.flush()
        if not timeout or not timeout_event.is_set():
            proc.wait()
    finally:
        for fp in files_to_close:
            fp.close()

    out = fd_to_string[proc.stdout].strip('\n')
    err = fd_to_string[proc.stderr].strip('\n')
    all_output = all_output.strip('\n')

    if timeout:
        if not timeout_event.is_set():
            timer.cancel()
        else:
            raise ExecuteTimeoutException("Execution of '{0}' was killed due timeout after {1} seconds"
                                          .format(command, timeout))

    code = proc.returncode
    if throw_on_failure and code not in returns:
        err_msg = Logger.filter_text("Execution of '{0}' returned {1}. {2}".format(command_alias, code, all_output))
        raise ExecutionFailed(err_msg, code, out, err)
    if stderr == subprocess.PIPE:
        return code, out, err
    return code, out


def as_sudo(command, env=None, auto_escape=True):
    if isinstance(command, (list, tuple)):
        command = string_cmd_from_args_list(command, auto_escape=auto_escape)
    else:
        # Ambari refuses strings: restricted sudoers cannot run shell syntax.
        raise Fail(Logger.filter_text("String command '{0}' cannot be run as sudo. Please supply the "
                                      "command as a tuple of arguments".format(command)))
    env = _get_environment_str(_add_current_path_to_env(env)) if env else ENV_PLACEHOLDER
    return "{0} {1} -H -E {2}".format(AMBARI_SUDO_BINARY, env, command)


def as_user(command, user, env=None, auto_escape=True):
    if isinstance(command, (list, tuple)):
        command = string_cmd_from_args_list(command, auto_escape=auto_escape)
    export_env = "export {0} ; ".format(_get_environment_str(_add_current_path_to_env(env))) \
        if env else EXPORT_PLACEHOLDER
    return "{0} su {1} -l -s /bin/bash -c {2}".format(AMBARI_SUDO_BINARY, user,
                                                      quote_bash_args(export_env + command))


def quote_bash_args(command):
    if not command:
        return "''"
    if not isinstance(command, _STRING_TYPES):
        raise Fail("Command should be a list of strings, found '{0}' in command list elements".format(str(command)))
    valid = set(string.ascii_letters + string.digits + '@%_-+=:,./')
    for char in command:
        if char not in valid:
            return "'" + command.replace("'", "'\"'\"'") + "'"
    return command


def _add_current_path_to_env(env):
    result = {} if not env else env
    if 'PATH' not in result:
        result['PATH'] = os.environ['PATH']
    if not set(os.environ['PATH'].split(os.pathsep)).issubset(result['PATH'].split(os.pathsep)):
        result['PATH'] = os.pathsep.join([os.environ['PATH'], result['PATH']])
    return result


def _get_environment_str(env):
    return reduce(lambda acc, key: '{0} {1}={2}'.format(acc, key, quote_bash_args(env[key])), env, '')


def string_cmd_from_args_list(command, auto_escape=True):
    if auto_escape:
        return ' '.join(quote_bash_args(x) for x in command)
    return ' '.join(command)


def _on_timeout(proc, timeout_event, terminate_strategy):
    timeout_event.set()
    terminate_process(proc, terminate_strategy)
