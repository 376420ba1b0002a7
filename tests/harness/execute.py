"""Execute mode: run a command script in a subprocess exactly as the agent does.

  [python, script, COMMAND, command-<taskId>.json, BASEDIR, structured-out-<taskId>.json,
   LOG_LEVEL, TMP_DIR]  (+ [PROTOCOL, CA_CERT] when agent_ssl_args=True)

The command JSON is written with mode 0600, stdout/stderr go to files (like the agent's
output-N.txt / errors-N.txt, so a background process left running cannot block the harness),
and the double's ambari-sudo.sh is first on PATH. With MM2_AMBARI_SRC the real library is on
PYTHONPATH instead of the double.
"""
import json
import os
import signal
import subprocess
import sys
import time

from harness import paths
from harness.command import agent_command_name, write_command_file


class ExecutedRun(object):
    def __init__(self, argv, exit_code, stdout, stderr, structured_out, command_file, work_dir, timed_out):
        self.argv = argv
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr
        self.structured_out = structured_out
        self.command_file = command_file
        self.work_dir = work_dir
        self.timed_out = timed_out

    @property
    def output(self):
        """What Ambari shows as the command output: stdout then stderr."""
        return self.stdout + self.stderr

    def __repr__(self):
        return "ExecutedRun(exit_code=%r)\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            self.exit_code, self.stdout, self.stderr)


def script_environment(extra_env=None, post_stop_max_seconds=30, ambari_src=None, python_path=None):
    """Environment of the script process: PATH with the double's ambari-sudo.sh first and
    PYTHONPATH with the Ambari library (double or real) first.

    python_path: the exact PYTHONPATH entries (the agent's own, e.g. paths.agent_library_paths);
    the test process's PYTHONPATH is then not inherited."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([paths.DOUBLE_BIN_DIR, env.get("PATH", "/usr/bin:/bin")])
    if python_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(python_path)
        env.pop("PYTHONHOME", None)
        if post_stop_max_seconds is not None:
            env["MM2_DOUBLE_POST_STOP_MAX_SECONDS"] = str(post_stop_max_seconds)
        env.update(extra_env or {})
        return env
    python_path = paths.library_paths(ambari_src)
    if env.get("PYTHONPATH"):
        # the script runs in another cwd: relative entries must not change meaning
        python_path.extend(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    env["PYTHONPATH"] = os.pathsep.join(python_path)
    if post_stop_max_seconds is not None:
        env["MM2_DOUBLE_POST_STOP_MAX_SECONDS"] = str(post_stop_max_seconds)
    env.update(extra_env or {})
    return env


def _read(path):
    if not os.path.exists(path):
        return ""
    with open(path, "rb") as fp:
        data = fp.read()
    return data.decode("utf-8", "replace")


def run_script(script_path, command_json, work_dir, command=None, basedir=None, python=None,
               log_level="INFO", timeout=300, extra_env=None, agent_ssl_args=False,
               log_out_files=False, post_stop_max_seconds=30, ambari_src=None, python_path=None):
    """Run script_path for command_json the way the agent does; returns an ExecutedRun.

    work_dir: a directory of the test (e.g. tmp_path); data/ and tmp/ are created in it.
    command: the <COMMAND> argument; default: derived from the JSON as the agent derives it.
    basedir: the package dir (default: the script's dir's parent).
    python: interpreter (default: the one running the tests, as the agent uses its own).
    timeout: the harness kills the script's process group after this many seconds and
    reports timed_out=True (the agent's command_timeout does the same).
    post_stop_max_seconds: bound on the double's post_stop wait (None: unbounded like Ambari).
    ambari_src: library for this run: "double", a real Ambari checkout, or None (MM2_AMBARI_SRC
    if set, else the double).
    python_path: exact PYTHONPATH of the script (see script_environment); overrides ambari_src.
    """
    script_path = os.path.abspath(script_path)
    basedir = basedir or os.path.dirname(os.path.dirname(script_path))
    data_dir = os.path.join(work_dir, "data")
    tmp_dir = os.path.join(work_dir, "tmp")
    for d in (data_dir, tmp_dir):
        if not os.path.isdir(d):
            os.makedirs(d)
    task_id = command_json.get("taskId", 1)
    is_status = command_json.get("commandType") == "STATUS_COMMAND"
    json_name = "status_command_%s.json" % task_id if is_status else "command-%s.json" % task_id
    command_file = write_command_file(command_json, os.path.join(data_dir, json_name))
    structured_out_file = os.path.join(data_dir, "structured-out-%s.json" % task_id)
    stdout_file = os.path.join(data_dir, "output-%s.txt" % task_id)
    stderr_file = os.path.join(data_dir, "errors-%s.txt" % task_id)
    command = command or agent_command_name(command_json)
    # Each agent task gets a fresh structured-out file (tasks have distinct ids).
    if os.path.exists(structured_out_file):
        os.unlink(structured_out_file)

    argv = [python or sys.executable, script_path, command, command_file, basedir,
            structured_out_file, log_level, tmp_dir]
    if agent_ssl_args:
        argv += ["PROTOCOL_TLSv1_2", ""]
    if log_out_files:
        argv.append("-o")

    env = script_environment(extra_env, post_stop_max_seconds, ambari_src, python_path)
    timed_out = False
    with open(stdout_file, "wb") as out, open(stderr_file, "wb") as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=work_dir,
                                preexec_fn=os.setsid, close_fds=True)
        deadline = time.time() + timeout
        while proc.poll() is None:
            if time.time() > deadline:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # only the script's own session
                except OSError:
                    pass
                proc.wait()
                break
            time.sleep(0.05)

    structured_out = {}
    if os.path.exists(structured_out_file) and os.path.getsize(structured_out_file) > 0:
        with open(structured_out_file) as fp:
            structured_out = json.load(fp)
    return ExecutedRun(argv, proc.returncode, _read(stdout_file), _read(stderr_file), structured_out,
                       command_file, work_dir, timed_out)
