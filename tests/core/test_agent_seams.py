"""What the agent runs and what builds it, read from the source (ast): no import circle and no use of another
module's underscore names.

Covered: every module under package/scripts (the command scripts at the top level, mm2_core, mm2_verify_job) and
mpack_build with build.py, its entry point. An import inside a function is an import: a circle that only holds
because one side imports late is still a circle. A name that starts with an underscore is its module's own: another
module that needs it needs a public function in the right home (tests may still reach into a module; they are not
covered). src/mm2_ambari is not covered here (its own test holds it).
"""
import ast
import os

import pytest

from import_graph import circles

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(REPO, "package", "scripts")

# A module kept under its old name for code outside these trees while that code moves: old name -> new module.
# None now (mm2_core.host.cutover went once src/mm2_ambari/dr imported mm2_core.dr.cutover).
ALIASES = {}


def _tree(root, packages, files=()):
    """{module name: path} of the top-level .py files of root (or only `files`) and of the packages under it."""
    found = {}
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.endswith(".py") and (not files or name in files):
            found[name[:-3]] = path
    for package in packages:
        for folder, dirs, names in os.walk(os.path.join(root, package)):
            dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
            dotted = os.path.relpath(folder, root).replace(os.sep, ".")
            for name in names:
                if name.endswith(".py"):
                    found[dotted if name == "__init__.py" else dotted + "." + name[:-3]] = os.path.join(folder, name)
    return found


def trees():
    """(label, {module: path}) of each import namespace: what the agent puts on sys.path, and the build's."""
    return [("package/scripts", _tree(SCRIPTS, ("mm2_core", "mm2_verify_job"))),
            ("mpack_build", _tree(REPO, ("mpack_build",), files=("build.py",)))]


def _parse(path):
    with open(path, "rb") as fh:
        return ast.parse(fh.read(), path)


def _absolute(module, node):
    """The module an ImportFrom names, relative imports resolved against `module`."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    base = ".".join(package[:len(package) - node.level])
    return base + ("." + node.module if node.module else "") if base else (node.module or "")


def bindings(module, tree, modules):
    """{local name: module it is bound to} for every import in the file that names a module of the tree."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in modules:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            for alias in node.names:
                if source + "." + alias.name in modules:
                    bound[alias.asname or alias.name] = source + "." + alias.name
    return bound


def imports(module, tree, modules):
    """The modules of the tree this module imports, anywhere in the file (functions included)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            parts = source.split(".")
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            found.update(source + "." + alias.name for alias in node.names)
    return set(m for m in found if m in modules and m != module and not module.startswith(m + "."))


def graph(modules):
    return dict((m, imports(m, _parse(path), modules)) for m, path in modules.items())


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _string(node):
    """The text of a string literal node, else None (ast.Str on Python 2, ast.Constant from 3.8)."""
    if hasattr(ast, "Constant") and isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not hasattr(ast, "Constant") and isinstance(node, ast.Str):
        return node.s
    return None


def _dotted(node):
    """'a.b.c' of a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def private_uses(module, tree, modules):
    """['module:line: other._name'] for each use of another module's underscore name: module._name, getattr(module,
    '_name'), from module import _name."""
    bound = bindings(module, tree, modules)
    found = []

    def owner(expression):
        dotted = _dotted(expression)
        if dotted is None:
            return None
        head = dotted.split(".")[0]
        if head not in bound:
            return None
        name = bound[head] + dotted[len(head):]
        return name if name in modules else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            target = owner(node.value)
            if target and target != module:
                found.append("%s:%d: %s.%s" % (module, node.lineno, target, node.attr))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and len(node.args) >= 2 and _private(_string(node.args[1]) or ""):
            target = owner(node.args[0])
            if target and target != module:
                found.append("%s:%d: %s.%s" % (module, node.lineno, target, _string(node.args[1])))
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source in modules and source != module:
                found.extend("%s:%d: %s.%s" % (module, node.lineno, source, alias.name) for alias in node.names
                             if _private(alias.name) and source + "." + alias.name not in modules)
    return found


TREES = [label for label, _ in trees()]


@pytest.mark.parametrize("label,modules", trees(), ids=TREES)
def test_no_import_circle(label, modules):
    assert circles(graph(modules)) == [], (
        "%s: modules that import each other (late imports count): move what both need into a module below them"
        % label)


@pytest.mark.parametrize("label,modules", trees(), ids=TREES)
def test_no_module_uses_another_modules_underscore_names(label, modules):
    found = []
    for module, path in sorted(modules.items()):
        found.extend(private_uses(module, _parse(path), modules))
    assert found == [], "%s: make these public in the module that owns them (or in a shared one)" % label


def test_the_checks_see_what_they_look_for():
    """The readers above on a small tree: a late import closes a circle; a private name is seen through an alias,
    a getattr and a from-import, never for a module's own names or a dunder."""
    modules = {"a": "", "b": "", "pkg": "", "pkg.c": "", "pkg.d": ""}
    sources = {
        "a": "import b\nfrom pkg import c as cc\ncc._x()\ngetattr(b, '_y')\nb.__name__\n_z = 1\n",
        "b": "def f():\n    import a\n",
        "pkg.c": "from . import d\nfrom .d import _w, e\n",
        "pkg.d": "from pkg import c\n",
    }
    trees_ = dict((m, ast.parse(sources.get(m, ""))) for m in modules)
    edges = dict((m, imports(m, trees_[m], modules)) for m in modules)
    assert circles(edges) == [["a", "b"], ["pkg.c", "pkg.d"]]
    uses = sorted(u for m in modules for u in private_uses(m, trees_[m], modules))
    assert uses == ["a:3: pkg.c._x", "a:4: b._y", "pkg.c:2: pkg.d._w"]


def test_star_imports_only_for_a_listed_alias():
    """A module either defines its names or is a listed alias of the module that now does; nothing of the tree
    imports an alias (only the code outside it that has yet to move)."""
    for label, modules in trees():
        for module, path in sorted(modules.items()):
            stars = [n for n in ast.walk(_parse(path)) if isinstance(n, ast.ImportFrom)
                     and any(a.name == "*" for a in n.names) and _absolute(module, n) in modules]
            if module in ALIASES:
                assert [_absolute(module, n) for n in stars] == [ALIASES[module]], module
            else:
                assert stars == [], "%s re-exports %s" % (module, [_absolute(module, n) for n in stars])
        users = sorted(m for m, deps in graph(modules).items() if set(deps) & set(ALIASES) and m not in ALIASES)
        assert users == [], "%s: import %s instead" % (label, ", ".join(ALIASES[a] for a in ALIASES))
    for old in ALIASES:
        assert old in dict(trees()[0][1]), "%s is gone: drop it from ALIASES" % old
