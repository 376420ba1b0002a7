"""`pip install .` as a user does it (a built wheel, not an editable install) ships what
`mm2-ambari render` needs: the command, run from a fresh virtualenv outside the checkout, writes
the properties, the secrets file, mm2-env.sh and the log4j file.

The wheel is built and installed with its dependencies (requests, PyYAML, Jinja2, tqdm) from the
configured package index once per session (tests/wheel_install.py), shared with tests/newcomer.
"""
import os
import pathlib
import subprocess

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))
EXAMPLE = os.path.join(ROOT, "examples", "active-active-dc", "configurations.json")


@pytest.fixture(scope="module")
def installed(installed_wheel, tmp_path_factory):
    """(the virtualenv with the wheel, a work directory of this module): the wheel is built and installed
    once per session (tests/conftest.py installed_wheel, shared with tests/newcomer)."""
    return pathlib.Path(installed_wheel.env_dir), tmp_path_factory.mktemp("wheel-work")


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
                                     "import mm2_core, mm2_ambari.offline.render_cmd as r; print(mm2_core.__file__); "
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


def test_the_wheel_names_no_homepage_it_does_not_have(installed):
    """No public home exists yet: no Home-page or Project-URL (pyproject.toml says why), never an invented one."""
    env_dir, work = installed
    out = subprocess.check_output([str(env_dir / "bin" / "python"), "-c",
                                   "from importlib import metadata as m; d = m.distribution("
                                   "'kafka-mirrormaker2-mpack-tools'); print(d.metadata.get('Home-page')); "
                                   "print(d.metadata.get_all('Project-URL'))"], cwd=str(work), universal_newlines=True)
    assert out.split() == ["None", "None"]
