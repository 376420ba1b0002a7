"""Helpers for the build tests: load build.py, copy the checkout, inspect a built tarball."""
import io
import json
import os
import shutil
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))

# Files other parts of the project provide. While one of them has not landed yet, copies of the
# checkout get a placeholder so the build machinery itself can be tested; a placeholder is never
# written into the real checkout, and test_repository_validates checks the real thing.
PLACEHOLDERS = {
    "package/scripts/mm2_driver.py": "# placeholder (tests/build): the driver command script\n",
    "package/scripts/service_check.py": "# placeholder (tests/build): the service check script\n",
}

# What build.py reads; nothing else is copied (other parts of the checkout change under our feet).
BUILD_INPUTS = ("build.py", "mpack_build", "mpack.json", "LICENSE", "NOTICE", "common-services", "stacks", "package",
                "tests/build/released-names.json")
_COPY_IGNORE = shutil.ignore_patterns(".*", "__pycache__", "*.pyc", "*.tmp")


def load_build_module():
    """build.py as a module under a name that cannot clash with PyPI's 'build'."""
    name = "mm2_mpack_build"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(REPO_ROOT, "build.py")
    if sys.version_info[0] == 2:  # pragma: no cover - Python 2.7 line
        import imp
        return imp.load_source(name, path)
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def content_files(repo):
    """package/templates/<file> names the schema takes content defaults from."""
    build = load_build_module()
    core = build.Core(repo)
    return sorted(set(p.content_file for t in core.schema.CONFIG_TYPES for p in t.properties if p.content_file))


def copy_checkout(dest):
    """A copy of what the build reads from the checkout, at dest."""
    for rel in BUILD_INPUTS:
        source = os.path.join(REPO_ROOT, *rel.split("/"))
        target = os.path.join(dest, *rel.split("/"))
        if os.path.isdir(source):
            shutil.copytree(source, target, ignore=_COPY_IGNORE)
        elif os.path.isfile(source):
            if not os.path.isdir(os.path.dirname(target)):
                os.makedirs(os.path.dirname(target))
            shutil.copyfile(source, target)
    placeholders = dict(PLACEHOLDERS)
    for name in content_files(dest):
        placeholders["package/templates/" + name] = "# placeholder (tests/build) for %s\n{{ value }}\n" % name
    for rel, text in placeholders.items():
        path = os.path.join(dest, *rel.split("/"))
        if not os.path.exists(path):
            if not os.path.isdir(os.path.dirname(path)):
                os.makedirs(os.path.dirname(path))
            write_text(path, text)
    return dest


def ensure_dashboard(repo):
    """Make the copy ship a Grafana dashboard (install-mpack links dashboards/grafana-dashboards)."""
    folder = os.path.join(repo, "common-services", "KAFKA_MIRRORMAKER2", "1.0.0", "dashboards", "grafana-dashboards")
    if not (os.path.isdir(folder) and os.listdir(folder)):
        write_text(os.path.join(folder, "placeholder-dashboard.json"), '{"title": "placeholder"}\n')


def set_version(repo, version):
    path = os.path.join(repo, "mpack.json")
    with io.open(path, encoding="utf-8") as fh:
        text = fh.read()
    meta = json.loads(text)
    old = '"version": "%s"' % meta["version"]
    assert old in text
    write_text(path, text.replace(old, '"version": "%s"' % version, 1))


def read_text(path):
    with io.open(path, encoding="utf-8") as fh:
        return fh.read()


def write_text(path, text):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with io.open(path, "w", encoding="utf-8") as fh:
        fh.write(text.decode("utf-8") if isinstance(text, bytes) else text)


def replace_in(path, old, new):
    text = read_text(path)
    assert old in text, "%r not in %s" % (old, path)
    write_text(path, text.replace(old, new, 1))


def tar_members(tarball):
    with tarfile.open(tarball, "r:gz") as tar:
        return tar.getmembers()


def problems_text(problems):
    return "\n".join(str(p) for p in problems)


# -- an ambari-server resources tree ------------------------------------------------------------

def make_resources(root, stacks):
    """An ambari-server resources dir holding stacks/<name>/<version> (with a KAFKA service)."""
    resources = os.path.join(root, "resources")
    for stack in stacks:
        services = os.path.join(resources, "stacks", stack, "services", "KAFKA")
        os.makedirs(services)
        write_text(os.path.join(services, "metainfo.xml"), "<metainfo/>")
    return resources


def stack_dirs(resources):
    """Every real (non-link) directory under stacks/."""
    found = set()
    for root, dirs, _ in os.walk(os.path.join(resources, "stacks")):
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                found.add(os.path.relpath(path, resources).replace(os.sep, "/"))
    return found


def links(resources):
    """{link path relative to resources: its target} for every symlink under resources/."""
    found = {}
    for root, dirs, files in os.walk(resources):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                found[os.path.relpath(path, resources).replace(os.sep, "/")] = os.path.realpath(path)
    return found


def released_history(repo=REPO_ROOT):
    """{version: entry} of tests/build/released-names.json (the release history)."""
    with io.open(os.path.join(repo, "tests", "build", "released-names.json"), encoding="utf-8") as fh:
        return json.load(fh)["releases"]


def current_version(repo=REPO_ROOT):
    with io.open(os.path.join(repo, "mpack.json"), encoding="utf-8") as fh:
        return json.load(fh)["version"]


def _key(version):
    return tuple(int(p) for p in version.split("."))


def previous_release(repo=REPO_ROOT):
    """(version, commit) of the highest recorded release below this checkout's version, or None."""
    below = [(_key(v), v, e.get("commit")) for v, e in released_history(repo).items()
             if _key(v) < _key(current_version(repo)) and e.get("commit")]
    return max(below)[1:] if below else None


def build_release_from_git(commit, out_dir, work_dir):
    """The tarball of a recorded release, built by that commit's own build.py from `git archive`.

    Returns (tarball, None), or (None, why) when git or the commit is not available (a shallow clone)."""
    import subprocess
    tree = os.path.join(work_dir, "tree")
    os.makedirs(tree)
    try:
        archive = subprocess.Popen(["git", "-C", REPO_ROOT, "archive", "--format=tar", commit],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        data, err = archive.communicate()
    except OSError as exc:
        return None, "git is not available (%s)" % exc
    if archive.returncode != 0:
        return None, "commit %s is not in this clone (%s): fetch the full history" % (
            commit[:12], err.decode("utf-8", "replace").strip())
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(tree)
    proc = subprocess.Popen([sys.executable, os.path.join(tree, "build.py"), "--out", out_dir], cwd=tree,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.communicate()[0].decode("utf-8", "replace")
    assert proc.returncode == 0, "the build of %s failed:\n%s" % (commit, out)
    found = [name for name in os.listdir(out_dir) if name.endswith(".tar.gz")]
    assert len(found) == 1, found
    return os.path.join(out_dir, found[0]), None
