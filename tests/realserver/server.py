"""A real Ambari 3 server (built from source by build.sh) with the mpack, on 127.0.0.1, for tests.

    home = server.build()                 -> the build's home (lib/, src/) or pytest-skip reason (Skip)
    s = server.AmbariServer(home, workdir)
    s.install_mpack(tarball)              # the server's own setupMpacks.install_mpack (ambari-server install-mpack)
    s.start()                             # java ... org.apache.ambari.server.controller.AmbariServer, waits for the API
    s.get("/api/v1/stacks/...")           # -> (status, parsed JSON)
    s.stop()                              # by pid

Layout of a server (everything under workdir, nothing in /etc or /var):
    conf/      ambari.properties (free ports, H2 file database, every path below), log4j.properties,
               the database password file
    resources/ stacks/BIGTOP (3.2.0, 3.3.0), common-services, stack-hooks, custom actions, scripts,
               the stack advisor entry points: copies from the built sources (install-mpack links into them)
    keys/      the server CA (ca.config, db/), made by the server with openssl at its first start
    db/        the H2 database, created from the sources' Ambari-DDL-H2-CREATE.sql
    bin/       ambari-python-wrap (Python 3.9 with Ambari's library), an ambari-sudo.sh stand-in
    log/ run/ tmp/ web/

`start()` does what `ambari-server start` does (ambari_server_main.server_process_main): the resource
housekeeping through the server's own Python (refresh_stack_hash: the archives agents download), then the JVM.
Why not `ambari-server start` itself: its java command line carries -XX:+UseConcMarkSweepGC, which JDK 17 rejects
("Unrecognized VM option"); the same command is run here without the CMS flags and with the --add-opens
JDK 17 needs for Guice/cglib and EclipseLink. Everything else is the server's own code.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import base64
import contextlib

import testports

try:
    from urllib.request import Request, urlopen
    from urllib.error import HTTPError, URLError
except ImportError:  # pragma: no cover
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(REPO_ROOT), "shared")
AMBARI_VERSION = "3.0.0.0"

# JDK 17: the server's libraries reflect into the JDK (Guice's cglib defineClass, EclipseLink, Jersey 1).
ADD_OPENS = ["java.base/java.lang", "java.base/java.lang.reflect", "java.base/java.util", "java.base/java.io",
             "java.base/java.net", "java.base/java.nio", "java.base/sun.nio.ch", "java.base/java.util.concurrent",
             "java.base/java.text", "java.base/java.security", "java.base/sun.security.x509",
             "java.base/sun.security.util", "java.management/sun.management", "java.naming/com.sun.jndi.ldap"]



def stop_child(proc, timeout):
    """SIGTERM a child we started, SIGKILL it after timeout seconds; nothing when it is gone already."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(30)

class Skip(Exception):
    """The real server cannot run here; str() says why."""


def _os_release():
    """(ID, major VERSION_ID) of this host's /etc/os-release, ("", "") without it."""
    release = {}
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as fh:
            for line in fh:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    release[k] = v.strip('"')
    return release.get("ID", ""), release.get("VERSION_ID", "").split(".")[0]


@contextlib.contextmanager
def started(server_home, workdir, tarball, web=None):
    """A server in workdir with the mpack tarball installed (install_output, mpack_tarball) and running;
    stopped on exit. Skip when it cannot run here. web: a built ambari-web (webui/build_web.sh) the server
    serves as its web app (webapp.dir), as the ambari-server package installs it."""
    s = AmbariServer(server_home, workdir)
    if web:
        shutil.copytree(web, s.dirs["web"], dirs_exist_ok=True)
    s.install_output = s.install_mpack(tarball)
    s.mpack_tarball = tarball
    try:
        s.start()
        yield s
    finally:
        s.stop()


def ambari_python_src():
    """The Ambari 3 checkout with ambari-common (the agent side of the same commit)."""
    return os.environ.get("MM2_AMBARI_SRC_TRUNK") or os.path.join(SHARED, "ambari", "trunk")


def server_python_src():
    return os.environ.get("MM2_AMBARI_SERVER_SRC") or os.path.join(SHARED, "ambari-src", "trunk")


def agent_site():
    """What an Ambari 3 host has beside Ambari's library (python3-distro): tests/run.sh installs
    requirements-agent-py39.txt into .venv-agent39 (as for tests/e2e)."""
    return os.path.join(REPO_ROOT, ".venv-agent39")


def python39():
    if os.environ.get("MM2_PY39"):
        return os.environ["MM2_PY39"]
    env = dict(os.environ, PYENV_VERSION="3.9.18")
    try:
        out = subprocess.run(["pyenv", "which", "python"], env=env, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = out.stdout.strip()
    return path if out.returncode == 0 and os.path.isfile(path) else None


def build(timeout=3600):
    """Run build.sh (reuses a build with unchanged sources); the server home, or Skip."""
    proc = subprocess.run(["bash", os.path.join(HERE, "build.sh")], capture_output=True, text=True, timeout=timeout)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode == 3:
        raise Skip(lines[-1] if lines else "build.sh cannot build here")
    if proc.returncode != 0:
        raise RuntimeError("tests/realserver/build.sh failed (%d):\n%s\n%s" % (proc.returncode, proc.stdout[-4000:],
                                                                            proc.stderr[-4000:]))
    return lines[-1]


free_port = testports.free_port


def _write(path, text, mode=None):
    with open(path, "w") as fh:
        fh.write(text)
    if mode is not None:
        os.chmod(path, mode)


SUDO_STANDIN = """#!/bin/bash
# ambari-sudo.sh as the server's own user: drop sudo options and VAR=value words, run the command
while [ $# -gt 0 ]; do case "$1" in -*|*=*) shift;; *) break;; esac; done
exec "$@"
"""


class AmbariServer(object):
    def __init__(self, home, workdir, java="java", python=None):
        self.home, self.workdir, self.java = home, os.path.abspath(workdir), java
        self.src = os.path.join(home, "src", "ambari-server")
        self.python = python or python39()
        if not self.python:
            raise Skip("Python 3.9 not found (pyenv install 3.9.18 or set MM2_PY39): Ambari 3's Python needs 3.9/3.10")
        self.common_py = os.path.join(ambari_python_src(), "ambari-common", "src", "main", "python")
        if not os.path.isdir(self.common_py):
            raise Skip("no Ambari 3 ambari-common at %s (../shared/ambari/trunk)" % self.common_py)
        self.proc = None
        self.passphrase = base64.b16encode(os.urandom(12)).decode().lower()
        self.port = free_port()
        self.one_way_port = free_port()
        self.two_way_port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.dirs = dict((name, os.path.join(self.workdir, name)) for name in
                         ("conf", "resources", "keys", "db", "bin", "log", "run", "tmp", "web", "cache", "views"))
        self._layout()

    # ---- layout
    def _layout(self):
        d = self.dirs
        for path in d.values():
            if not os.path.isdir(path):
                os.makedirs(path)
        res_src = os.path.join(self.src, "src", "main", "resources")
        res = d["resources"]
        if not os.path.isdir(os.path.join(res, "stacks", "BIGTOP")):
            shutil.copytree(os.path.join(res_src, "stacks", "BIGTOP"), os.path.join(res, "stacks", "BIGTOP"), symlinks=True)
            for name in ("stack_advisor.py", "service_advisor.py", "ambari_configuration.py"):
                shutil.copy(os.path.join(res_src, "stacks", name), os.path.join(res, "stacks", name))
            for name in ("common-services", "stack-hooks", "custom_actions", "custom_action_definitions",
                         "host_scripts", "scripts", "upgrade", "mpacks-v2"):
                shutil.copytree(os.path.join(res_src, name), os.path.join(res, name), symlinks=True)
            for name in ("kerberos.json", "widgets.json", "Ambari-DDL-H2-CREATE.sql"):
                shutil.copy(os.path.join(res_src, name), os.path.join(res, name))
            os.makedirs(os.path.join(res, "extensions"))
            _write(os.path.join(res, "version"), AMBARI_VERSION)
            self._stack_lists_host_os()
        keys = d["keys"]
        if not os.path.isfile(os.path.join(keys, "ca.config")):
            # the packaged ca.config points at /var/lib/ambari-server/keys/db: this server's keys/db instead
            with open(os.path.join(self.src, "conf", "unix", "ca.config")) as fh:
                ca_config = fh.read()
            if "$root_dir/var/lib/ambari-server/keys/db" not in ca_config:
                raise RuntimeError("ca.config changed: its CA database dir is no longer $root_dir/var/lib/ambari-server/keys/db")
            _write(os.path.join(keys, "ca.config"),
                   ca_config.replace("$root_dir/var/lib/ambari-server/keys/db", os.path.join(keys, "db")))
            shutil.copytree(os.path.join(res_src, "db"), os.path.join(keys, "db"))
            os.chmod(keys, 0o700)
        _write(os.path.join(d["bin"], "ambari-sudo.sh"), SUDO_STANDIN, 0o755)
        wrap = os.path.join(d["bin"], "ambari-python-wrap")
        _write(wrap, "#!/bin/bash\nexport PYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH}\nexec %s \"$@\"\n" % (
            os.pathsep.join([self.common_py, os.path.join(self.common_py, "ambari_jinja2"),
                             os.path.join(server_python_src(), "ambari-server", "src", "main", "python"), agent_site()]),
            self.python), 0o755)
        pw = os.path.join(d["conf"], "password.dat")
        _write(pw, "bigdata", 0o600)
        self.db_url = "jdbc:h2:file:%s;ALIAS_COLUMN_NAME=TRUE" % os.path.join(d["db"], "ambari")
        props = {
            "client.api.port": self.port,
            "security.server.one_way_ssl.port": self.one_way_port,
            "security.server.two_way_ssl.port": self.two_way_port,
            "server.persistence.type": "remote",
            "server.jdbc.driver": "org.h2.Driver",
            "server.jdbc.rca.driver": "org.h2.Driver",
            "server.jdbc.url": self.db_url,
            "server.jdbc.rca.url": self.db_url,
            "server.jdbc.user.name": "ambari",
            "server.jdbc.rca.user.name": "ambari",
            "server.jdbc.user.passwd": pw,
            "server.jdbc.rca.user.passwd": pw,
            "server.jdbc.database": "h2",
            "server.jdbc.database_name": "ambari",
            "resources.dir": d["resources"],
            "shared.resources.dir": self._shared_resources(),
            "custom.action.definitions": os.path.join(d["resources"], "custom_action_definitions"),
            "metadata.path": os.path.join(d["resources"], "stacks"),
            "common.services.path": os.path.join(d["resources"], "common-services"),
            "extensions.path": os.path.join(d["resources"], "extensions"),
            "mpacks.staging.path": os.path.join(d["resources"], "mpacks"),
            "mpacks-v2.staging.path": os.path.join(d["resources"], "mpacks-v2"),
            "server.version.file": os.path.join(d["resources"], "version"),
            "webapp.dir": d["web"],
            "views.dir": d["views"],
            "pid.dir": d["run"],
            "recommendations.dir": os.path.join(d["run"], "stack-recommendations"),
            "bootstrap.dir": os.path.join(d["run"], "bootstrap"),
            "stackadvisor.script": os.path.join(d["resources"], "scripts", "stack_advisor.py"),
            "server.tmp.dir": d["tmp"],
            "kerberos.keytab.cache.dir": d["cache"],
            "security.server.keys_dir": keys,
            "ambari.python.wrap": wrap,
            "java.home": os.path.dirname(os.path.dirname(os.path.realpath(shutil.which(self.java) or self.java))),
            "jdk.name": "jdk17",
            "server.os_family": "redhat8",
            "server.os_type": "redhat8",
            "agent.package.install.task.timeout": 1800,
            "server.execution.scheduler.isClustered": "false",
            "server.stages.parallel": "true",
            "views.directory.watcher.disable": "true",
            "server.startup.web.timeout": 120,
            "server.fqdn.service.url": "http://127.0.0.1:1/",
            "ulimit.open.files": 10000,
            "user.inactivity.timeout.default": 0,
            "api.csrfPrevention.enabled": "true",
            # a sys-prepped host (ExecutionCommand host_sys_prepped): the stack hooks add no package
            # repositories and install no packages (before-INSTALL), and skip stack-select (after-INSTALL)
            "packages.pre.installed": "true",
        }
        self.props = props
        _write(os.path.join(d["conf"], "ambari.properties"),
               "".join("%s=%s\n" % (k, v) for k, v in sorted(props.items())))
        log4j = open(os.path.join(self.src, "conf", "unix", "log4j.properties")).read()
        lines = [line for line in log4j.splitlines() if not line.startswith("ambari.log.dir=")]
        _write(os.path.join(d["conf"], "log4j.properties"), "ambari.log.dir=%s\n%s\n" % (d["log"], "\n".join(lines)))
        self.log = os.path.join(d["log"], "ambari-server.log")
        self.out = os.path.join(d["log"], "ambari-server.out")

    def _shared_resources(self):
        """ambari_commons/resources (os_family.json: the OS types agents may register with). Ambari 3 lists
        Debian 10 and 11; a host of a newer major version of a listed distribution (this CI's Debian 12) is
        added to its family in this server's copy, so that its agent can register. Nothing else changes."""
        target = os.path.join(self.workdir, "shared-resources")
        if not os.path.isdir(target):
            shutil.copytree(os.path.join(self.common_py, "ambari_commons", "resources"), target)
            distro, major = _os_release()
            path = os.path.join(target, "os_family.json")
            with open(path) as fh:
                families = json.load(fh)
            for family in families["mapping"].values():
                if distro in family.get("distro", []) and major.isdigit() and int(major) not in family["versions"]:
                    family["versions"].append(int(major))
            with open(path, "w") as fh:
                json.dump(families, fh, indent=2)
        return target

    def host_os_family(self):
        """This host's OS family as the server names it from the agent's report (os_family.json: family name
        + major version, e.g. debian12), or None."""
        distro, major = _os_release()
        with open(os.path.join(self._shared_resources(), "os_family.json")) as fh:
            families = json.load(fh)["mapping"]
        for name, family in sorted(families.items()):
            if distro in family.get("distro", []) and major.isdigit():
                return name + major
        return None

    def _stack_lists_host_os(self):
        """BIGTOP 3.2.0/3.3.0's repoinfo.xml lists redhat7/8/9 and openeuler22 only, so the server cannot build
        an install/start command for a Debian or Ubuntu host ("Operating System matching debian12 could not be
        found"). This server's copy lists this host's family too, with a repository nobody reads (a
        sys-prepped host: packages.pre.installed), as an operator of such a host adds it."""
        family = self.host_os_family()
        if not family:
            return
        for version in ("3.2.0", "3.3.0"):
            path = os.path.join(self.dirs["resources"], "stacks", "BIGTOP", version, "repos", "repoinfo.xml")
            with open(path) as fh:
                text = fh.read()
            if 'family="%s"' % family in text:
                continue
            entry = ('  <os family="%s">\n    <repo>\n      <baseurl>http://127.0.0.1:1/unused</baseurl>\n'
                     '      <repoid>BIGTOP-%s</repoid>\n      <reponame>bigtop</reponame>\n    </repo>\n  </os>\n'
                     % (family, version))
            _write(path, text.replace("</reposinfo>", entry + "</reposinfo>"))

    def h2_jar(self):
        for name in sorted(os.listdir(os.path.join(self.home, "lib"))):
            if name.startswith("h2-") and name.endswith(".jar"):
                return os.path.join(self.home, "lib", name)
        raise RuntimeError("no h2 jar in %s/lib" % self.home)

    H2_TEXT_LENGTH = 4 * 1024 * 1024

    def create_database(self):
        """The sources' H2 DDL into a fresh file database (as `ambari-server setup` runs the DDL of its DB)."""
        if os.path.exists(os.path.join(self.dirs["db"], "ambari.mv.db")) or \
                os.path.exists(os.path.join(self.dirs["db"], "ambari.h2.db")):
            return
        # The H2 DDL caps the JSON columns at VARCHAR(3000) where the Postgres/MySQL DDLs have TEXT: BIGTOP
        # 3.3.0's cluster-env alone is ~26 kB, so a PUT of it fails with H2's "Value too long for column
        # CONFIG_DATA VARCHAR(3000)". This server's copy gives those columns room as the production DDLs do.
        with open(os.path.join(self.dirs["resources"], "Ambari-DDL-H2-CREATE.sql")) as fh:
            ddl = fh.read()
        if "VARCHAR(3000)" not in ddl:
            raise RuntimeError("the H2 DDL no longer has VARCHAR(3000) columns: check tests/realserver/server.py")
        # The same for key_value_store."value" (VARCHAR(20000) in H2, VARCHAR in Postgres): the web UI persists
        # its wizard state there (30 kB for the Add Service wizard with this service), "Value too long" otherwise.
        kv = '"value" VARCHAR(20000),'
        if ddl.count(kv) != 1:
            raise RuntimeError("the H2 DDL's key_value_store.value changed: check tests/realserver/server.py")
        ddl = ddl.replace(kv, '"value" VARCHAR(%d),' % self.H2_TEXT_LENGTH)
        script = os.path.join(self.dirs["db"], "Ambari-DDL-H2-CREATE.sql")
        _write(script, ddl.replace("VARCHAR(3000)", "VARCHAR(%d)" % self.H2_TEXT_LENGTH))
        cmd = [self.java, "-cp", self.h2_jar(), "org.h2.tools.RunScript", "-url", self.db_url,
               "-user", "ambari", "-password", "bigdata", "-script", script]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError("H2 DDL failed: %s %s" % (proc.stdout[-3000:], proc.stderr[-3000:]))

    # ---- the server's Python: install-mpack and friends
    def env(self):
        env = dict((k, v) for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME"))
        env.update(AMBARI_CONF_DIR=self.dirs["conf"], PYTHONDONTWRITEBYTECODE="1",
                   PATH=self.dirs["bin"] + os.pathsep + os.environ.get("PATH", ""),
                   PYTHONPATH=os.pathsep.join([os.path.join(server_python_src(), "ambari-server", "src", "main", "python"),
                                               self.common_py, agent_site()]))
        return env

    MPACK_DRIVER = (
        "import sys\n"
        "from ambari_server import setupMpacks\n"
        "class Options(object):\n"
        "    pass\n"
        "o = Options()\n"
        "o.mpack_path = o.mpack_name = sys.argv[2]\n"
        "o.purge, o.purge_list, o.force = False, None, '--force' in sys.argv[3:]\n"
        "o.verbose, o.silent = True, True\n"
        "getattr(setupMpacks, sys.argv[1])(o)\n")

    def mpack(self, action, arg, *flags):
        """setupMpacks.<action>(options) as `ambari-server install-mpack/upgrade-mpack/uninstall-mpack` calls it."""
        driver = os.path.join(self.workdir, "mpack_driver.py")
        _write(driver, self.MPACK_DRIVER)
        proc = subprocess.run([self.python, driver, action, arg] + list(flags), env=self.env(), cwd=self.workdir,
                              capture_output=True, text=True, timeout=300)
        return proc.returncode, proc.stdout + proc.stderr

    def install_mpack(self, tarball):
        code, out = self.mpack("install_mpack", tarball)
        if code != 0:
            raise RuntimeError("install-mpack failed (%d):\n%s" % (code, out))
        return out

    # ---- the JVM
    def classpath(self):
        return os.pathsep.join([self.dirs["conf"], os.path.join(self.home, "lib", "*")])

    HOUSEKEEPING = (
        "from ambari_server.serverConfiguration import get_ambari_properties\n"
        "from ambari_server.serverUtils import refresh_stack_hash\n"
        "refresh_stack_hash(get_ambari_properties())\n")

    def organize_resources(self):
        """`ambari-server start`'s first step (ambari_server_main: refresh_stack_hash): the server's Python
        hashes and zips stacks/, common-services/, stack-hooks/ ... into the archives agents download."""
        proc = subprocess.run([self.python, "-c", self.HOUSEKEEPING], env=self.env(), cwd=self.workdir,
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError("refresh_stack_hash failed:\n%s%s" % (proc.stdout[-3000:], proc.stderr[-3000:]))
        return proc.stdout

    def start(self, timeout=300):
        self.create_database()
        self.organize_resources()
        # the client compiler only, as the tests' other JVMs (measured 2026-11-28, this server: to a ready API 16.7 ->
        # 10.7 CPU s, 30 stack reads 4.8 -> 3.8, a minute idle 0.5 -> 0.3; a test server lives minutes, not months)
        cmd = [self.java, "-server", "-Xms256m", "-Xmx1536m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-Dsun.zip.disableMemoryMapping=true", "-Djava.net.preferIPv4Stack=true",
               "-Djava.security.auth.login.config=%s" % os.path.join(self.src, "conf", "unix", "krb5JAASLogin.conf"),
               "-Djavax.security.auth.useSubjectCredsOnly=false"]
        cmd += ["--add-opens=%s=ALL-UNNAMED" % m for m in ADD_OPENS]
        cmd += ["-cp", self.classpath(), "org.apache.ambari.server.controller.AmbariServer"]
        env = self.env()
        env["AMBARI_CONF_DIR"] = self.dirs["conf"]
        env["AMBARI_PASSPHRASE"] = self.passphrase  # agents present it to have their certificates signed
        self.started_at = time.time()
        with open(self.out, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.workdir,
                                         start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the Ambari server exited with %s; tail of its log:\n%s" % (
                    self.proc.returncode, self.tail()))
            try:
                status, _ = self.get("/api/v1/clusters", timeout=5)
                if status == 200:
                    self.start_seconds = time.time() - self.started_at
                    return self.start_seconds
            except (URLError, socket.error, ValueError):
                pass
            time.sleep(2)
        raise RuntimeError("the Ambari server did not answer within %ds; tail of its log:\n%s" % (timeout, self.tail()))

    def stop(self, timeout=60):
        stop_child(self.proc, timeout)

    def tail(self, n=60):
        text = ""
        for path in (self.out, self.log):
            if os.path.exists(path):
                with open(path, errors="replace") as fh:
                    text += "==> %s\n%s\n" % (path, "".join(fh.readlines()[-n:]))
        return text

    def log_text(self):
        with open(self.log, errors="replace") as fh:
            return fh.read()

    # ---- REST
    def request(self, method, path, body=None, timeout=60):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Basic " + base64.b64encode(b"admin:admin").decode())
        req.add_header("X-Requested-By", "ambari")
        try:
            with urlopen(req, timeout=timeout) as resp:
                raw = resp.read()
                status = resp.status
        except HTTPError as err:
            raw, status = err.read(), err.code
        text = raw.decode("utf-8", "replace")
        try:
            return status, json.loads(text) if text.strip() else None
        except ValueError:
            return status, text

    def get(self, path, timeout=60):
        return self.request("GET", path, timeout=timeout)

    def repository_version(self, stack, version, os_type="redhat8"):
        """The id of this stack version's repository version, registered first if there is none (an operator
        does this on the wizard's Select Version page). Its repository URL is never used: the service
        installs Kafka from a path, and no agent package manager runs here."""
        path = "/api/v1/stacks/%s/versions/%s/repository_versions" % (stack, version)
        status, body = self.get(path + "?fields=RepositoryVersions/id")
        if status == 200 and body["items"]:
            return body["items"][0]["RepositoryVersions"]["id"]
        status, body = self.request("POST", path, {
            "RepositoryVersions": {"repository_version": version + ".0", "display_name": "%s-%s.0" % (stack, version)},
            "operating_systems": [{"OperatingSystems": {"os_type": os_type, "ambari_managed_repositories": False},
                                   "repositories": [{"Repositories": {"repo_id": "%s-%s" % (stack, version),
                                                                      "repo_name": stack.lower(),
                                                                      "base_url": "http://127.0.0.1:1/unused"}}]}]})
        if status != 201:
            raise RuntimeError("registering a repository version failed: %s %s" % (status, body))
        status, body = self.get(path + "?fields=RepositoryVersions/id")
        return body["items"][0]["RepositoryVersions"]["id"]
