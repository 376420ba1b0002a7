"""`pip install .` as a user does it (a built wheel, not an editable install) ships what
`mm2-ambari render` needs: the command, run from a fresh virtualenv outside the checkout, writes
the properties, the secrets file, mm2-env.sh and the log4j file.

Builds the wheel and installs it with its dependencies (requests, PyYAML, Jinja2, tqdm) from the
configured package index; about 20 s on a warm pip cache.
"""
import os
import subprocess
import sys
import venv

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))
EXAMPLE = os.path.join(ROOT, "examples", "active-active-dc", "configurations.json")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    wheels = work / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), ROOT],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(work))
    assert build.returncode == 0, build.stdout
    wheel = [str(p) for p in wheels.iterdir() if p.name.endswith(".whl")]
    assert len(wheel) == 1
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True).create(str(env_dir))
    python = str(env_dir / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "-q", wheel[0]], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True, cwd=str(work))
    if install.returncode != 0 and "No matching distribution" in install.stdout:
        pytest.skip("the wheel's dependencies are not reachable from the package index: %s" % install.stdout[-300:])
    assert install.returncode == 0, install.stdout
    return env_dir, work


def test_render_from_the_wheel_writes_all_four_files(installed):
    env_dir, work = installed
    out = work / "out"
    run = subprocess.run([str(env_dir / "bin" / "mm2-ambari"), "render", "--configs", EXAMPLE, "--kafka-version",
                          "3.7.1", "--out", str(out), "--host", "mm2-1.example.com", "--java-home", "/usr/jdk"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, cwd=str(work),
                         env={"PATH": os.environ.get("PATH", ""), "HOME": str(work)})
    assert run.returncode == 0, run.stderr
    written = sorted(p.name for p in out.iterdir())
    assert written == ["connect-mirror-maker.properties", "log4j.properties", "mm2-env.sh", "mm2-secrets.properties"]
    assert "export JAVA_HOME='/usr/jdk'" in (out / "mm2-env.sh").read_text()
    assert oct((out / "mm2-secrets.properties").stat().st_mode & 0o777) == oct(0o600)


def test_the_wheel_runs_its_own_code_not_the_checkout(installed):
    env_dir, work = installed
    where = subprocess.check_output([str(env_dir / "bin" / "python"), "-c",
                                     "import mm2_core, mm2_ambari.render_cmd as r; print(mm2_core.__file__); "
                                     "print(r.TEMPLATES_DIR)"], cwd=str(work), universal_newlines=True).split()
    assert all(path.startswith(str(env_dir)) for path in where), where


def test_the_wheel_carries_its_license_and_metadata(installed):
    env_dir, work = installed
    out = subprocess.check_output([str(env_dir / "bin" / "python"), "-c",
                                   "from importlib import metadata as m; d = m.distribution("
                                   "'kafka-mirrormaker2-mpack-tools'); print(d.metadata['License']); "
                                   "print('\\n'.join(d.metadata.get_all('Classifier'))); "
                                   "print([f.name for f in d.files if f.name in ('LICENSE', 'NOTICE')])"],
                                  cwd=str(work), universal_newlines=True)
    assert out.splitlines()[0] == "Apache-2.0"
    assert "License :: OSI Approved :: Apache Software License" in out
    assert "['LICENSE', 'NOTICE']" in out
