"""Assembling the installed layout: what install-mpack unpacks, with each file's origin in the checkout."""

import io
import os
import re
import shutil

from .configuration_xml import generate_configuration_xml, template_problems
from .core import Core
from .paths import REPO, SCHEMA_REL
from .problems import BuildError, Problem, Invalid
from .released_names import write_release_history
from .sources import read_mpack_identity

EXCLUDED_DIRS = frozenset(["__pycache__", ".git", ".pytest_cache", ".hypothesis", "tests", "test"])
_EXCLUDED_FILE = re.compile(r"^[.#]|(\.py[co]|~|\.sw[a-p]|\.orig|\.rej|\.bak|\.tmp)$")


def _excluded(name, is_dir):
    if is_dir:
        return name in EXCLUDED_DIRS or name.startswith(".")
    return bool(_EXCLUDED_FILE.search(name))


def makedirs(path):
    if not os.path.isdir(path):
        os.makedirs(path)


def _copy_tree(src, dst, dst_rel, origin, src_rel):
    """Copy src into dst without caches, tests, dotfiles or editor files; record origins."""
    for dirpath, dirnames, filenames in os.walk(src, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not _excluded(d, True))
        rel_dir = os.path.relpath(dirpath, src)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        target_dir = os.path.join(dst, rel_dir) if rel_dir else dst
        makedirs(target_dir)
        for name in sorted(filenames):
            if _excluded(name, False):
                continue
            source = os.path.join(dirpath, name)
            if not os.path.isfile(source):
                continue
            target = os.path.join(target_dir, name)
            shutil.copyfile(source, target)
            executable = os.stat(source).st_mode & 0o111
            os.chmod(target, 0o755 if executable else 0o644)
            sub = (rel_dir + "/" + name) if rel_dir else name
            origin[dst_rel + "/" + sub] = src_rel + "/" + sub


class Layout(object):
    """An assembled mpack: root dir, the origin of each file, and the checkout's core."""

    def __init__(self, root, origin, core):
        self.root = root
        self.origin = origin  # assembled rel path -> repo rel path (or "generated:<type>")
        self.core = core

    def path(self, rel):
        return os.path.join(self.root, *rel.split("/"))

    def source_of(self, rel):
        return self.origin.get(rel, rel)


def assemble(staging_dir, repo=REPO, core=None):
    """Write the mpack layout to <staging_dir>/<name>-<version>/ and return that path.

    mpack.json, common-services/ (+ package/ copied in, + configuration/ generated from the
    schema) and stacks/. Raises BuildError when the tree cannot be assembled.
    """
    return assemble_layout(staging_dir, repo, core).root


def assemble_layout(staging_dir, repo, core=None):
    try:
        name, version = read_mpack_identity(repo)
        core = core or Core(repo)
    except Invalid as e:
        raise BuildError([e.problem])
    # only what makes assembly impossible blocks it here; validate() reports every other problem
    problems = template_problems(core)
    service_dir = core.service_dir
    for generated in ("configuration", "package"):
        rel = "%s/%s" % (service_dir, generated)
        if os.path.exists(os.path.join(repo, *rel.split("/"))):
            problems.append(Problem(rel, 1, "%s/ is put together by build.py (%s); remove it from the "
                                    "checkout" % (generated, "generated from " + SCHEMA_REL
                                                  if generated == "configuration" else "copied from package/")))
    if problems:
        raise BuildError(problems)

    root = os.path.join(staging_dir, "%s-%s" % (name, version))
    if os.path.exists(root):
        shutil.rmtree(root)
    makedirs(root)
    origin = {}
    shutil.copyfile(os.path.join(repo, "mpack.json"), os.path.join(root, "mpack.json"))
    os.chmod(os.path.join(root, "mpack.json"), 0o644)
    origin["mpack.json"] = "mpack.json"
    for legal in ("LICENSE", "NOTICE"):  # an Apache-licensed distribution carries both (License, section 4)
        if os.path.isfile(os.path.join(repo, legal)):
            shutil.copyfile(os.path.join(repo, legal), os.path.join(root, legal))
            os.chmod(os.path.join(root, legal), 0o644)
            origin[legal] = legal
    for top in ("common-services", "stacks"):
        if os.path.isdir(os.path.join(repo, top)):
            _copy_tree(os.path.join(repo, top), os.path.join(root, top), top, origin, top)
    write_release_history(repo, root, version, origin)
    service_abs = os.path.join(root, *service_dir.split("/"))
    _copy_tree(os.path.join(repo, "package"), os.path.join(service_abs, "package"),
               service_dir + "/package", origin, "package")
    config_dir = os.path.join(service_abs, "configuration")
    makedirs(config_dir)
    for ctype in core.schema.CONFIG_TYPES:
        rel = "%s/configuration/%s.xml" % (service_dir, ctype.name)
        with io.open(os.path.join(config_dir, ctype.name + ".xml"), "w", encoding="utf-8") as fh:
            fh.write(generate_configuration_xml(repo, ctype))
        os.chmod(os.path.join(config_dir, ctype.name + ".xml"), 0o644)
        origin[rel] = "generated:" + ctype.name
    return Layout(root, origin, core)
