"""A real Ambari 3 agent (../shared/ambari/trunk, Python 3.9) registered with a server.AmbariServer.

    a = RealAgent(srv, workdir); a.start(); a.wait_registered(); ...; a.stop()

Everything lives under workdir (ini, data prefix, cache, keys, logs, pid file); the agent is a child process
stopped by its pid. It connects to the server's one-way (certificate signing) and two-way (STOMP over TLS)
ports on 127.0.0.1 and registers this host under its fully qualified name (socket.getfqdn(), as the agent
does without a hostname script).
"""
import contextlib
import os
import socket
import subprocess
import time

import server as srvmod


@contextlib.contextmanager
def registered(server, workdir, private_mounts):
    """A real agent in workdir registered with server (its registration in .registration); stopped on exit."""
    a = RealAgent(server, workdir, private_mounts=private_mounts)
    a.start()
    try:
        a.registration = a.wait_registered()
        yield a
    finally:
        a.stop()


class RealAgent(object):
    def __init__(self, srv, workdir, private_mounts=False):
        self.srv = srv
        self.private_mounts = private_mounts
        self.workdir = os.path.abspath(workdir)
        self.hostname = socket.getfqdn()
        self.dirs = dict((n, os.path.join(self.workdir, n)) for n in
                         ("conf", "data", "cache", "keys", "log", "run", "tmp"))
        for path in self.dirs.values():
            if not os.path.isdir(path):
                os.makedirs(path)
        self.agent_src = os.path.join(srvmod.ambari_python_src(), "ambari-agent", "src", "main", "python")
        with open(os.path.join(self.dirs["data"], "version"), "w") as fh:
            fh.write(srvmod.AMBARI_VERSION)
        ini = """[server]
hostname=127.0.0.1
url_port={one_way}
secured_url_port={two_way}
connect_retry_delay=2
max_reconnect_retry_delay=5

[agent]
logdir={log}
piddir={run}
prefix={data}
tmp_dir={tmp}
cache_dir={cache}
ping_port={ping}
loglevel=INFO
data_cleanup_interval=0
parallel_execution=0
tolerate_download_failures=true
run_as_user=root
command_file_retention_policy=keep

[security]
keysdir={keys}
server_crt=ca.crt
passphrase_env_var_name=AMBARI_PASSPHRASE
ssl_verify_cert=0
force_https_protocol=PROTOCOL_TLSv1_2

[network]
use_system_proxy_settings=false

[services]
pidLookupPath={run}

[heartbeat]
state_interval_seconds=60
dirs={data}
log_lines_count=300
idle_interval_min=1
idle_interval_max=10

[logging]
syslog_enabled=0

[python]
custom_actions_dir={cache}/custom_actions
""".format(one_way=srv.one_way_port, two_way=srv.two_way_port, ping=srvmod.free_port(), **self.dirs)
        with open(os.path.join(self.dirs["conf"], "ambari-agent.ini"), "w") as fh:
            fh.write(ini)
        self.proc = None

    def env(self):
        env = dict((k, v) for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME"))
        common = self.srv.common_py
        env.update(AMBARI_AGENT_CONF_DIR=self.dirs["conf"], AMBARI_AGENT_LOG_DIR=self.dirs["log"],
                   AMBARI_PID_DIR=self.dirs["run"], AMBARI_PASSPHRASE=self.srv.passphrase,
                   PATH=self.srv.dirs["bin"] + os.pathsep + os.environ.get("PATH", ""),
                   PYTHONPATH=os.pathsep.join([self.agent_src, common, os.path.join(common, "ambari_jinja2"),
                                               srvmod.agent_site()]))
        return env

    # What the stack hooks (before-ANY/INSTALL/START, after-INSTALL) and service scripts could write outside
    # the agent's own directories: with private_mounts the agent and everything it starts see these as overlays
    # whose writes land in workdir/overlay/<dir> (a private mount namespace, `unshare -m`), never on the host.
    OVERLAID = ("/etc", "/usr", "/var", "/opt", "/srv")
    PACKAGE_TMP = "/var/lib/ambari-agent/tmp"
    # The trunk agent's AmbariConfig derives these directories once, in its constructor, from the cache_dir of
    # its built-in defaults (os.sep + "tmp"), before the ini is read: whatever the ini's cache_dir says, it keeps
    # its cluster caches (metadata, topology, configurations, alert definitions) in /tmp/cluster_cache and looks
    # for alert scripts under /tmp/stacks, /tmp/common-services, /tmp/extensions and /tmp/host_scripts, while it
    # downloads the scripts into the ini's cache_dir. So every SCRIPT alert was UNKNOWN ("Unable to find ... as an
    # absolute path or part of /tmp/stacks or /tmp/host_scripts"), and every agent on the machine shared one
    # /tmp/cluster_cache. With private_mounts each of them is this agent's <cache>/<name>, bound over
    # /tmp/<name> in its mount namespace (the empty mount point is the only thing made on the host).
    DEFAULT_CACHE_DIR = "/tmp"
    DERIVED_CACHE_DIRS = ("cluster_cache", "alerts", "stacks", "common-services", "extensions", "host_scripts")

    def argv(self):
        main = [self.srv.python, os.path.join(self.agent_src, "ambari_agent", "main.py"), "start"]
        if not self.private_mounts:
            return main
        script = ["set -e"]
        for path in self.OVERLAID:
            if not os.path.isdir(path) or os.path.islink(path):
                continue
            upper = os.path.join(self.workdir, "overlay", path.strip("/"), "upper")
            work = os.path.join(self.workdir, "overlay", path.strip("/"), "work")
            os.makedirs(upper, exist_ok=True)
            os.makedirs(work, exist_ok=True)
            script.append("mount -t overlay overlay -o lowerdir=%s,upperdir=%s,workdir=%s %s" % (path, upper, work, path))
        # what the ambari-agent package creates: the agent passes this fixed dir (AGENT_TMP_DIR) to every
        # script as its tmp dir
        script.append("mkdir -p %s" % self.PACKAGE_TMP)
        for name in self.DERIVED_CACHE_DIRS:
            own = os.path.join(self.dirs["cache"], name)
            os.makedirs(own, exist_ok=True)
            point = os.path.join(self.DEFAULT_CACHE_DIR, name)
            script.append("mkdir -p %s" % point)
            script.append("mount --bind %s %s" % (own, point))
        script.append('exec "$@"')
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c", "\n".join(script), "agent"] + main

    @staticmethod
    def private_mounts_problem():
        """None when this process may run the agent in a private mount namespace with overlays, else why."""
        if os.geteuid() != 0:
            return "not root (a private mount namespace with overlays needs root)"
        try:
            proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                                   "mount -t tmpfs none /mnt"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return "unshare failed: %s" % exc
        return None if proc.returncode == 0 else "unshare --mount failed: %s" % proc.stderr.strip()

    def written_outside(self):
        """Paths the agent's commands wrote under the overlaid host dirs (relative to /): what the hooks and
        scripts would have changed on a real host."""
        found = []
        for path in self.OVERLAID:
            upper = os.path.join(self.workdir, "overlay", path.strip("/"), "upper")
            for root, dirs, files in os.walk(upper):
                for name in dirs + files:
                    found.append(os.path.join(path, os.path.relpath(os.path.join(root, name), upper)))
        return sorted(found)

    def start(self):
        out = open(os.path.join(self.dirs["log"], "ambari-agent.stdout"), "ab")
        self.proc = subprocess.Popen(self.argv(),
                                     env=self.env(), cwd=self.workdir, stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        out.close()

    def wait_registered(self, timeout=240):
        deadline = time.time() + timeout
        status, body = None, None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the agent exited with %s:\n%s" % (self.proc.returncode, self.tail()))
            status, body = self.srv.get("/api/v1/hosts/%s?fields=Hosts/host_status,Hosts/os_type" % self.hostname)
            # the host resource can answer before the registration's host info is stored (os_type still '': seen
            # under CI load, 2026-11-27): registered means the server has what the agent reported
            if status == 200 and body["Hosts"].get("os_type"):
                return body["Hosts"]
            time.sleep(2)
        raise RuntimeError("the agent did not register within %ds (last answer: %s %s):\n%s"
                           % (timeout, status, body, self.tail()))

    def restart(self, timeout=240):
        """Stop and start the agent; returns when the server sees it registered and heartbeating again."""
        before = self.srv.get("/api/v1/hosts/%s?fields=Hosts/last_registration_time" % self.hostname)[1]
        self.stop()
        pid_file = os.path.join(self.dirs["run"], "ambari-agent.pid")
        if os.path.exists(pid_file):  # left by the stopped agent: a new one refuses to start beside it
            os.remove(pid_file)
        self.start()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the agent exited with %s:\n%s" % (self.proc.returncode, self.tail()))
            status, body = self.srv.get("/api/v1/hosts/%s?fields=Hosts/last_registration_time,Hosts/host_status"
                                        % self.hostname)
            if status == 200 and body["Hosts"]["last_registration_time"] != before["Hosts"]["last_registration_time"] \
                    and body["Hosts"]["host_status"] == "HEALTHY":
                return body["Hosts"]
            time.sleep(2)
        raise RuntimeError("the agent did not register again within %ds:\n%s" % (timeout, self.tail()))

    def stop(self, timeout=30):
        srvmod.stop_child(self.proc, timeout)

    def tail(self, n=40):
        text = ""
        for name in ("ambari-agent.log", "ambari-agent.stdout"):
            path = os.path.join(self.dirs["log"], name)
            if os.path.exists(path):
                with open(path, errors="replace") as fh:
                    text += "==> %s\n%s" % (path, "".join(fh.readlines()[-n:]))
        return text
