"""One wheel, built from this checkout and installed with its dependencies into a fresh virtualenv
outside the checkout, for the whole session: the commands run exactly as a newcomer runs them after
`pip install .` (no pyspark: the [verify] extra is not installed). About 20 s on a warm pip cache;
skipped when the package index is unreachable.
"""
import os
import subprocess
import sys
import venv

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))


class Installed(object):
    def __init__(self, env_dir, work):
        self.env_dir, self.work = str(env_dir), str(work)

    def bin(self, tool):
        return os.path.join(self.env_dir, "bin", tool)

    def run(self, tool, args, env=None, cwd=None, timeout=120):
        """(exit code, stdout, stderr) of a console script, with a clean environment like a new shell."""
        base = {"PATH": os.path.join(self.env_dir, "bin") + os.pathsep + os.environ.get("PATH", ""),
                "HOME": self.work, "LANG": "C.UTF-8", "NETRC": os.path.join(self.work, "no-netrc")}
        if os.environ.get("JAVA_HOME"):
            base["JAVA_HOME"] = os.environ["JAVA_HOME"]
        base.update(env or {})
        proc = subprocess.run([self.bin(tool)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, cwd=cwd or self.work, env=base, timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    work = tmp_path_factory.mktemp("newcomer")
    wheels = work / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), ROOT],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(work))
    assert build.returncode == 0, build.stdout
    wheel = [str(p) for p in wheels.iterdir() if p.name.endswith(".whl")]
    assert len(wheel) == 1
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True).create(str(env_dir))
    install = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", wheel[0]],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(work))
    if install.returncode != 0 and ("No matching distribution" in install.stdout or "NewConnectionError" in install.stdout):
        pytest.skip("the wheel's dependencies are not reachable from the package index: %s" % install.stdout[-300:])
    assert install.returncode == 0, install.stdout
    return Installed(env_dir, work)
