#!/usr/bin/env python3
"""Validate and assemble the MirrorMaker 2 management pack.

    python3 build.py                   validate, then write dist/<name>-<version>.tar.gz and .sha256
    python3 build.py --check           validate only
    python3 build.py --record-release  add this version's names to tests/build/released-names.json

Every problem is reported as ``file:line: message`` and nothing is built while any remain.

Importable on Python 2.7 and 3 so tests can reuse the pieces:
    validate(repo) -> [Problem]
    assemble(staging_dir, repo) -> <staging_dir>/<name>-<version>   (the layout install-mpack unpacks)
    build(out_dir, repo) -> path of the tarball   (raises BuildError)

The checks live in the package mpack_build/ next to this file, one module per concern (read
mpack_build/__init__.py for the map); this file only wires them together and is the command line.
"""
import io
import json
import os
import shutil
import sys
import tempfile

# mpack_build/ sits next to this file; tests load this file by path under another module name.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from mpack_build.checker import Checker  # noqa: E402
from mpack_build.compile_check import compile_problems, find_python27, find_python3  # noqa: E402,F401
from mpack_build.configuration_xml import generate_configuration_xml  # noqa: E402,F401
from mpack_build.core import Core  # noqa: E402
from mpack_build.layout import Layout, assemble_layout, makedirs, assemble  # noqa: E402,F401
from mpack_build.sources import read_mpack_identity  # noqa: E402
from mpack_build.paths import RELEASED_NAMES_REL, REPO  # noqa: E402
from mpack_build.problems import BuildError, Problem, Invalid, unicode_text  # noqa: E402,F401
from mpack_build.released_names import current_names, release_problem  # noqa: E402
from mpack_build.sources import load_json  # noqa: E402
from mpack_build.tarball import sha256_of, write_tarball  # noqa: E402


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

def _validate_layout(layout):
    problems = Checker(layout).run()
    # Looked up here, in this module, so a caller (a test) can replace the interpreter finders.
    problems.extend(compile_problems(layout, find_python27(), find_python3()))
    return problems


def validate(repo=REPO):
    """All problems of a checkout, as Problem objects ('file:line: message')."""
    staging = tempfile.mkdtemp(prefix="mm2-mpack-validate-")
    try:
        try:
            layout = assemble_layout(staging, repo)
        except BuildError as e:
            return e.problems
        except Invalid as e:
            return [e.problem]
        return _validate_layout(layout)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def build(out_dir=None, repo=REPO):
    """Validate the checkout and write <out_dir>/<name>-<version>.tar.gz (+ .sha256); return its path."""
    out_dir = out_dir or os.path.join(repo, "dist")
    staging = tempfile.mkdtemp(prefix="mm2-mpack-build-")
    try:
        try:
            layout = assemble_layout(staging, repo)
        except Invalid as e:
            raise BuildError([e.problem])
        problems = _validate_layout(layout)
        if problems:
            raise BuildError(problems)
        makedirs(out_dir)
        out_path = os.path.join(out_dir, os.path.basename(layout.root) + ".tar.gz")
        write_tarball(layout.root, out_path)
        with io.open(out_path + ".sha256", "w", encoding="utf-8") as fh:
            fh.write(u"%s  %s\n" % (sha256_of(out_path), os.path.basename(out_path)))
        return out_path
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def record_release(repo=REPO):
    """Add the current version's names to the released-names file (run when tagging a release).

    Refuses (BuildError) a version that is recorded already or not higher than the last recorded
    one: upgrade-mpack only upgrades to a strictly higher version, so each release needs a new one."""
    staging = tempfile.mkdtemp(prefix="mm2-mpack-names-")
    try:
        layout = assemble_layout(staging, repo)
        _, version = read_mpack_identity(repo)
        path = os.path.join(repo, RELEASED_NAMES_REL)
        data = {"releases": {}}
        if os.path.isfile(path):
            data = load_json(path, RELEASED_NAMES_REL).obj
        why_not = release_problem(version, data.setdefault("releases", {}))
        if why_not:
            raise BuildError([Problem("mpack.json", 1, why_not)])
        problems = _validate_layout(layout)
        if problems:
            raise BuildError(problems)
        data["releases"][version] = current_names(layout)
        commit = _git_head(repo)
        if commit:
            data["releases"][version]["commit"] = commit
        with io.open(path, "w", encoding="utf-8") as fh:
            fh.write(unicode_text(json.dumps(data, indent=2, sort_keys=True)) + u"\n")
        return version
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def generate_alerts(repo):
    """Write alerts.json and the alert scripts from package/scripts/mm2_core/alerts/registry.py, and the metrics
    files from its metric list (the build checks they match them); returns the paths written, relative to the
    checkout."""
    core = Core(repo)
    registry = core.alerts
    files = [(core.service_dir + "/alerts.json", registry.alerts_json_text())]
    files += [(core.service_dir + "/" + rel, text) for rel, text in registry.metric_files()]
    files += [("package/alerts/" + kind.stub, registry.stub_text(kind.kind)) for kind in registry.KINDS]
    for rel, text in files:
        with io.open(os.path.join(repo, *rel.split("/")), "w", encoding="utf-8") as fh:
            fh.write(unicode_text(text))
    return [rel for rel, _ in files]


def _git_head(repo):
    """The commit a release is recorded at (tests rebuild the previous release from it), or None."""
    import subprocess
    try:
        proc = subprocess.Popen(["git", "-C", repo, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        out = proc.communicate()[0].decode("ascii", "replace").strip()
    except OSError:
        return None
    return out if proc.returncode == 0 and len(out) == 40 else None


def install_commands(tarball, name):
    path = os.path.abspath(tarball)
    return [
        "ambari-server install-mpack --mpack=%s --verbose" % path,
        "ambari-server upgrade-mpack --mpack=%s --verbose" % path,
        "ambari-server uninstall-mpack --mpack-name=%s --verbose" % name,
    ]


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description="Validate and build the MirrorMaker 2 mpack.")
    parser.add_argument("--out", help="output directory (default: dist/ of the checkout)")
    parser.add_argument("--check", action="store_true", help="validate only, build nothing")
    parser.add_argument("--record-release", action="store_true",
                        help="record this version's names in %s" % RELEASED_NAMES_REL)
    parser.add_argument("--generate-alerts", action="store_true",
                        help="write alerts.json and package/alerts/alert_mm2_*.py from the alert registry, and "
                             "metrics.json, widgets.json, telemetry.json and the Grafana dashboard from the "
                             "metric list (mm2_core/alerts/service_metrics.py)")
    args = parser.parse_args(argv)
    try:
        if args.generate_alerts:
            for rel in generate_alerts(REPO):
                print("Wrote %s" % rel)
            return 0
        if args.record_release:
            version = record_release(REPO)
            print("Recorded the names of %s in %s" % (version, RELEASED_NAMES_REL))
            return 0
        if args.check:
            problems = validate(REPO)
            if problems:
                raise BuildError(problems)
            print("OK: no problems found")
            return 0
        tarball = build(args.out, REPO)
    except BuildError as e:
        for problem in e.problems:
            sys.stderr.write("%s\n" % problem)
        sys.stderr.write("%d problem(s); nothing was built or recorded.\n" % len(e.problems))
        return 1
    name, version = read_mpack_identity(REPO)
    install, upgrade, uninstall = install_commands(tarball, name)
    lines = [
        "Built %s" % os.path.relpath(tarball),
        "sha256 %s" % sha256_of(tarball),
        "",
        "Install (then restart ambari-server and use Add Service):",
        "  " + install,
        "Upgrade an installed older version (then restart ambari-server, and bring each cluster to it:",
        "mm2-ambari upgrade --mpack=<this tarball>; see docs/install-and-upgrade.md):",
        "  " + upgrade,
        "Uninstall (delete the %s service from every cluster first):" % Core(REPO).names.SERVICE,
        "  " + uninstall,
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
