"""The wheel of this checkout, built once per test session and installed with its dependencies into a
fresh virtualenv outside the checkout (as a user's `pip install .`, no [verify] extra): the
`installed_wheel` fixture of tests/conftest.py, used by tests/newcomer and tests/tools/test_wheel.py.
Python 3 only (imported by the fixture, never on Python 2.7). About 20 s on a warm pip cache; the
fixture skips when the package index is unreachable."""
import os
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNREACHABLE = ("No matching distribution", "NewConnectionError")


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


def build_and_install(work, skip):
    """Installed, or skip(reason) when the wheel's dependencies cannot be fetched."""
    wheels = os.path.join(str(work), "dist")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, ROOT],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(work))
    assert build.returncode == 0, build.stdout
    wheel = [os.path.join(wheels, name) for name in os.listdir(wheels) if name.endswith(".whl")]
    assert len(wheel) == 1, wheel
    env_dir = os.path.join(str(work), "venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    install = subprocess.run([os.path.join(env_dir, "bin", "python"), "-m", "pip", "install", "-q", wheel[0]],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(work))
    if install.returncode != 0 and any(marker in install.stdout for marker in UNREACHABLE):
        skip("the wheel's dependencies are not reachable from the package index: %s" % install.stdout[-300:])
    assert install.returncode == 0, install.stdout
    return Installed(env_dir, work)
