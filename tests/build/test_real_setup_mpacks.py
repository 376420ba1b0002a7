"""Ambari's own setupMpacks.py (install-mpack, upgrade-mpack, uninstall-mpack) on our tarball.

Runs with MM2_AMBARI_SRC=<Ambari checkout> (tests/run.sh: trunk with Python 3.9 plus `distro`,
release-2.7.8 with Python 2.7); the line is recognised from its setupMpacks.py and the command
runs with the interpreter of the test run.

Nothing of Ambari is copied or changed: each command runs in a child process with the Ambari
sources on PYTHONPATH, AMBARI_CONF_DIR pointing at an ambari.properties that moves every server
location into a temporary tree, and an ambari-sudo.sh stand-in on PATH that runs the command
(as Ambari's own script does when it already runs as root). The same scenarios then run against
fake_setup_mpacks, and both must leave the same links and directories behind.
"""
import io
import os
import subprocess
import sys

import pytest

import mpack_helpers
from fake_setup_mpacks import Server
from mpack_helpers import links, make_resources, stack_dirs

SERVICE, VERSION = "KAFKA_MIRRORMAKER2", "1.0.0"
AMBARI_VERSION = {"2.7.8": "2.7.8.0.0", "trunk": "3.0.0.0"}

DRIVER = '''
import sys
from ambari_server import setupMpacks


class Options(object):
    pass


options = Options()
options.mpack_path = options.mpack_name = sys.argv[2]
options.purge, options.purge_list, options.force = False, None, sys.argv[3:] == ["--force"]
options.verbose, options.silent = True, True
getattr(setupMpacks, sys.argv[1])(options)
'''

SUDO_STANDIN = '''#!/bin/bash
# ambari-sudo.sh as root: drop sudo options and VAR=value words, run the command
while [ $# -gt 0 ]; do case "$1" in -*|*=*) shift;; *) break;; esac; done
exec "$@"
'''


def _line_of_tree(src):
    with io.open(os.path.join(src, "ambari-server", "src", "main", "python", "ambari_server", "setupMpacks.py"),
                 encoding="utf-8") as fh:
        return "2.7.8" if "iteritems" in fh.read() else "trunk"


def _sources():
    """{line: checkout} of the Ambari in MM2_AMBARI_SRC (the run's interpreter fits that line)."""
    single = os.environ.get("MM2_AMBARI_SRC")
    if single and os.path.isdir(single):
        return {_line_of_tree(single): single}
    return {}


def _clean_env(**extra):
    """The environment for another interpreter: without this test run's PYTHONPATH/PYTHONHOME."""
    env = dict((k, v) for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME"))
    env.update(extra)
    return env


def _line_params():
    """One case: the line of MM2_AMBARI_SRC, run with this interpreter (tests/run.sh picks
    Python 2.7 for release-2.7.8 and Python 3.9 with `distro` for trunk)."""
    sources = _sources()
    if not sources:
        return [pytest.param(None, None, None, marks=pytest.mark.skip(
            reason="needs MM2_AMBARI_SRC (a real Ambari checkout; tests/run.sh runs it on both lines)"))]
    (line, src), = sources.items()
    return [pytest.param(line, src, sys.executable)]


class RealServer(object):
    """A temporary ambari-server tree driven by the real setupMpacks.py."""

    def __init__(self, root, line, src, python, stacks):
        self.root = root
        self.resources = make_resources(root, stacks)
        self.src, self.python = src, python
        conf, bin_dir = os.path.join(root, "conf"), os.path.join(root, "bin")
        for folder in (conf, bin_dir, os.path.join(root, "run"), os.path.join(root, "log")):
            os.makedirs(folder)
        props = {
            "resources.dir": self.resources,
            "metadata.path": os.path.join(self.resources, "stacks"),
            "common.services.path": os.path.join(self.resources, "common-services"),
            "extensions.path": os.path.join(self.resources, "extensions"),
            "mpacks.staging.path": os.path.join(self.resources, "mpacks"),
            "server.tmp.dir": os.path.join(root, "tmp"),
            "server.version.file": os.path.join(root, "version"),
            "pid.dir": os.path.join(root, "run"),
        }
        mpack_helpers.write_text(os.path.join(conf, "ambari.properties"),
                                 "".join("%s=%s\n" % item for item in sorted(props.items())))
        mpack_helpers.write_text(os.path.join(conf, "log4j.properties"), "ambari.log.dir=%s\n" % os.path.join(root, "log"))
        mpack_helpers.write_text(os.path.join(root, "version"), AMBARI_VERSION[line] + "\n")
        sudo = os.path.join(bin_dir, "ambari-sudo.sh")
        mpack_helpers.write_text(sudo, SUDO_STANDIN)
        os.chmod(sudo, 0o755)
        self.driver = os.path.join(root, "driver.py")
        mpack_helpers.write_text(self.driver, DRIVER)
        python_dirs = [os.path.join(src, "ambari-server", "src", "main", "python"),
                       os.path.join(src, "ambari-common", "src", "main", "python")]
        self.env = _clean_env(AMBARI_CONF_DIR=conf, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
                              PYTHONPATH=os.pathsep.join(python_dirs), PYTHONDONTWRITEBYTECODE="1")

    def run(self, action, arg, *flags):
        proc = subprocess.Popen([self.python, self.driver, action, arg] + list(flags), env=self.env, cwd=self.root,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.communicate()[0].decode("utf-8", "replace")
        return proc.returncode, out

    def ok(self, action, arg, *flags):
        code, out = self.run(action, arg, *flags)
        assert code == 0, "%s %s failed:\n%s" % (action, arg, out)
        return out


def _relative(found, resources):
    base = os.path.realpath(resources) + os.sep
    return dict((link, target[len(base):] if target.startswith(base) else target) for link, target in found.items())


@pytest.fixture(scope="module")
def tarballs(tmpdir_factory):
    repo = mpack_helpers.copy_checkout(str(tmpdir_factory.mktemp("real").join("repo")))
    mpack_helpers.ensure_dashboard(repo)
    build = mpack_helpers.load_build_module()
    out = {}
    for version in ("9.0.0.0", "9.0.1.0", "9.0.0.1", "9.0.0.10"):
        mpack_helpers.set_version(repo, version)
        out[version] = build.build(str(tmpdir_factory.mktemp("dist-" + version)), repo=repo)
    return out


@pytest.mark.parametrize("line,src,python", _line_params())
def test_install_upgrade_uninstall_with_ambaris_own_code(line, src, python, tarballs, tmpdir):
    stacks = ["BIGTOP/3.2.0", "HDP/3.0"]  # BIGTOP 3.3.0, HDP 3.1 and ODP are not on this server
    real = RealServer(str(tmpdir.join("real")), line, src, python, stacks)
    fake = Server(make_resources(str(tmpdir.join("fake")), stacks), AMBARI_VERSION[line],
                  tmp_dir=str(tmpdir.join("fake-tmp")))
    before = stack_dirs(real.resources)

    real.ok("install_mpack", tarballs["9.0.0.0"])
    fake.install(tarballs["9.0.0.0"])
    installed = _relative(links(real.resources), real.resources)
    service_links = {
        "common-services/%s/%s" % (SERVICE, VERSION):
            "mpacks/kafka-mirrormaker2-mpack-9.0.0.0/common-services/%s/%s" % (SERVICE, VERSION),
        "stacks/BIGTOP/3.2.0/services/%s" % SERVICE:
            "mpacks/kafka-mirrormaker2-mpack-9.0.0.0/stacks/BIGTOP/%s/%s" % (SERVICE, VERSION),
    }
    assert dict((k, v) for k, v in installed.items() if not k.startswith("dashboards/")) == service_links
    assert stack_dirs(real.resources) == before, "install-mpack created a stack directory"
    assert installed == _relative(links(fake.resources), fake.resources)

    real.ok("upgrade_mpack", tarballs["9.0.1.0"])
    fake.upgrade(tarballs["9.0.1.0"])
    upgraded = _relative(links(real.resources), real.resources)
    assert upgraded == dict((k, v.replace("-9.0.0.0/", "-9.0.1.0/")) for k, v in service_links.items())
    assert not os.path.exists(os.path.join(real.resources, "mpacks", "kafka-mirrormaker2-mpack-9.0.0.0"))
    assert upgraded == _relative(links(fake.resources), fake.resources)
    assert stack_dirs(real.resources) == stack_dirs(fake.resources) == before

    real.ok("uninstall_mpack", "kafka-mirrormaker2-mpack")
    fake.uninstall("kafka-mirrormaker2-mpack")
    assert links(real.resources) == {} == links(fake.resources)
    assert not os.path.exists(os.path.join(real.resources, "mpacks", "kafka-mirrormaker2-mpack-9.0.1.0"))


@pytest.mark.parametrize("line,src,python", _line_params())
def test_bigtop_3_4_0_stack_gets_the_service(line, src, python, tarballs, tmpdir):
    """Ambari trunk's BIGTOP 3.4.0 stack (AMBARI-26552): install-mpack links the service into it, alone or
    beside 3.3.0, and nowhere else."""
    real = RealServer(str(tmpdir), line, src, python, ["BIGTOP/3.3.0", "BIGTOP/3.4.0"])
    before = stack_dirs(real.resources)
    real.ok("install_mpack", tarballs["9.0.0.0"])
    installed = _relative(links(real.resources), real.resources)
    assert dict((k, v) for k, v in installed.items() if k.startswith("stacks/")) == dict(
        ("stacks/BIGTOP/%s/services/%s" % (v, SERVICE),
         "mpacks/kafka-mirrormaker2-mpack-9.0.0.0/stacks/BIGTOP/%s/%s" % (SERVICE, VERSION))
        for v in ("3.3.0", "3.4.0"))
    assert stack_dirs(real.resources) == before
    only = RealServer(str(tmpdir.join("only")), line, src, python, ["BIGTOP/3.4.0"])
    only.ok("install_mpack", tarballs["9.0.0.0"])
    assert [k for k in _relative(links(only.resources), only.resources) if k.startswith("stacks/")] == \
        ["stacks/BIGTOP/3.4.0/services/%s" % SERVICE]


@pytest.mark.parametrize("line,src,python", _line_params())
def test_server_without_a_listed_stack_refuses_the_mpack(line, src, python, tarballs, tmpdir):
    real = RealServer(str(tmpdir), line, src, python, ["HDP/2.6"])
    code, out = real.run("install_mpack", tarballs["9.0.0.0"])
    assert code != 0
    assert "Prerequisite failure! Min applicable stack not found" in out
    assert links(real.resources) == {}


@pytest.mark.parametrize("line,src,python", _line_params())
def test_upgrade_to_a_version_extending_the_old_one_unlinks_the_service(line, src, python, tarballs, tmpdir):
    """The hazard build.py's released-names check guards against, shown on Ambari's own code."""
    real = RealServer(str(tmpdir), line, src, python, ["BIGTOP/3.2.0"])
    real.ok("install_mpack", tarballs["9.0.0.1"])
    assert links(real.resources)
    real.ok("upgrade_mpack", tarballs["9.0.0.10"])
    assert os.path.isdir(os.path.join(real.resources, "mpacks", "kafka-mirrormaker2-mpack-9.0.0.10"))
    assert links(real.resources) == {}


@pytest.mark.parametrize("line,src,python", _line_params())
def test_upgrade_drops_the_dashboards_link_and_a_forced_install_restores_it(line, src, python, tarballs, tmpdir):
    """upgrade-mpack keeps the old dashboards link ("Grafana dashboards already exist") and then removes
    it with the old version; installing the new tarball again with --force links it back."""
    real = RealServer(str(tmpdir), line, src, python, ["BIGTOP/3.2.0"])
    link = "dashboards/grafana-dashboards/" + SERVICE
    real.ok("install_mpack", tarballs["9.0.0.0"])
    assert link in links(real.resources)
    out = real.ok("upgrade_mpack", tarballs["9.0.1.0"])
    assert "Grafana dashboards already exist for service %s" % SERVICE in out
    assert link not in links(real.resources)
    real.ok("install_mpack", tarballs["9.0.1.0"], "--force")
    assert _relative(links(real.resources), real.resources)[link] == \
        "mpacks/kafka-mirrormaker2-mpack-9.0.1.0/common-services/%s/%s/dashboards/grafana-dashboards" % (SERVICE, VERSION)



@pytest.fixture(scope="module")
def release_upgrade(tmpdir_factory, build_module):
    """(previous release's tarball, this checkout's tarball): the previous release is rebuilt from the
    commit tests/build/released-names.json records for it, by that commit's own build.py."""
    previous = mpack_helpers.previous_release()
    if previous is None:
        pytest.skip("tests/build/released-names.json records no release below %s with its commit"
                    % mpack_helpers.current_version())
    version, commit = previous
    old, why = mpack_helpers.build_release_from_git(commit, str(tmpdir_factory.mktemp("dist-previous")),
                                                    str(tmpdir_factory.mktemp("previous")))
    if old is None:
        pytest.skip("cannot rebuild release %s: %s" % (version, why))
    new = build_module.build(str(tmpdir_factory.mktemp("dist-current")), repo=mpack_helpers.REPO_ROOT)
    return version, old, mpack_helpers.current_version(), new


@pytest.mark.parametrize("line,src,python", _line_params())
def test_upgrade_mpack_from_the_previous_release(line, src, python, release_upgrade, tmpdir):
    """What an operator runs: install-mpack of the last release, then upgrade-mpack to this one."""
    old_version, old, new_version, new = release_upgrade
    stacks = ["BIGTOP/3.2.0", "BIGTOP/3.3.0", "HDP/3.1"]
    real = RealServer(str(tmpdir.join("real")), line, src, python, stacks)
    fake = Server(make_resources(str(tmpdir.join("fake")), stacks), AMBARI_VERSION[line],
                  tmp_dir=str(tmpdir.join("fake-tmp")))
    real.ok("install_mpack", old)
    fake.install(old)
    before = dict((k, v) for k, v in _relative(links(real.resources), real.resources).items()
                  if not k.startswith("dashboards/"))
    assert sorted(before) == sorted(["common-services/%s/%s" % (SERVICE, VERSION)] +
                                    ["stacks/%s/services/%s" % (s, SERVICE) for s in stacks])

    out = real.ok("upgrade_mpack", new)
    fake.upgrade(new)
    assert "No management packs found that can be upgraded" not in out
    after = _relative(links(real.resources), real.resources)
    # every service link moved to the new version; none is lost
    assert dict((k, v) for k, v in after.items() if not k.startswith("dashboards/")) == dict(
        (k, v.replace("-%s/" % old_version, "-%s/" % new_version)) for k, v in before.items())
    assert not os.path.exists(os.path.join(real.resources, "mpacks", "kafka-mirrormaker2-mpack-" + old_version))
    assert os.path.isdir(os.path.join(real.resources, "mpacks", "kafka-mirrormaker2-mpack-" + new_version))
    assert after == _relative(links(fake.resources), fake.resources)

    # the same tarball again is refused: a rebuild needs a higher version
    code, out = real.run("upgrade_mpack", new)
    assert code != 0 and "No management packs found that can be upgraded!" in out
