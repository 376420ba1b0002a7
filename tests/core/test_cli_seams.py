# py3-only: src/mm2_ambari is Python 3 code; Python 2.7's ast cannot read it
"""The layout of the off-cluster tool `src/mm2_ambari`: rooms, no import circle, no reach into another module's
underscore names (as tests/core/test_module_seams.py holds the core).

Read from the source (ast), so an import inside a function counts too. Modules are named by their path under
mm2_ambari ("rest.ops", "dr.plan"); a room is a subpackage ("rest").
"""
import ast
import os
import re

import pytest

from import_graph import cycles

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PACKAGE = os.path.join(REPO, "src", "mm2_ambari")
MAX_LINES = 800
# The only modules outside a room, and why.
TOP_LEVEL = {
    "cli": "the entry point: pyproject's console script mm2-ambari and `python -m mm2_ambari.cli`",
    "version": "the tools' version, read by mm2-verify too; it finds mpack.json from its own place",
}


def _modules():
    """{"rest.ops": path}, packages included under their own name ("rest" for rest/__init__.py)."""
    found = {}
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        package = os.path.relpath(folder, PACKAGE).replace(os.sep, ".")
        package = "" if package == "." else package
        for name in files:
            if name.endswith(".py"):
                module = package if name == "__init__.py" else (package + "." if package else "") + name[:-3]
                found[module] = os.path.join(folder, name)
    return found


def _tree(path):
    with open(path) as fh:
        return ast.parse(fh.read(), path)


def _relative(name):
    """"mm2_ambari.rest.ops" -> "rest.ops"; None outside mm2_ambari."""
    if name == "mm2_ambari":
        return ""
    return name[len("mm2_ambari."):] if name.startswith("mm2_ambari.") else None


def _imports(tree, modules):
    """(imported modules, {local name: module}, [(module, underscore name)] taken by `from m import _x`)."""
    found, bound, private = set(), {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _relative(node.module or "") is not None:
            base = _relative(node.module)
            for alias in node.names:
                full = (base + "." if base else "") + alias.name
                if full in modules:   # "from mm2_ambari.rest import ops" names a module
                    found.add(full)
                    bound[alias.asname or alias.name] = full
                else:
                    found.add(base)
                    if alias.name.startswith("_"):
                        private.append((base, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = _relative(alias.name)
                if name:
                    found.add(name)
                    if alias.asname:
                        bound[alias.asname] = name
    return found, bound, private


def _graph():
    modules = _modules()
    return dict((m, (_imports(_tree(path), modules)[0] & set(modules)) - {m, ""}) for m, path in modules.items())


def _room(module):
    return module.split(".", 1)[0] if "." in module else None


def test_no_module_imports_itself_back():
    assert cycles(_graph()) == []


def test_the_rooms_depend_one_way():
    """Room A importing room B and B importing A is a circle too, even when no two modules close one."""
    rooms = {}
    for module, deps in _graph().items():
        if _room(module):
            rooms.setdefault(_room(module), set()).update(
                _room(d) for d in deps if _room(d) and _room(d) != _room(module))
    assert cycles(rooms) == []


def test_no_module_calls_another_modules_underscore_names():
    modules = _modules()
    reaches = []
    for module, path in sorted(modules.items()):
        tree = _tree(path)
        _, bound, private = _imports(tree, modules)
        reaches.extend("%s: from mm2_ambari.%s import %s" % (module, base, name) for base, name in private)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                reaches.append("%s: %s.%s" % (module, bound[node.value.id], node.attr))
    assert reaches == [], "make the name public in the module it belongs to, or move the code there"


def test_every_module_sits_in_a_room_and_stays_readable():
    modules = _modules()
    assert sorted(m for m in modules if m and "." not in m and m not in TOP_LEVEL
                  and not os.path.basename(modules[m]) == "__init__.py") == []
    long = []
    for module, path in sorted(modules.items()):
        with open(path) as fh:
            lines = sum(1 for _ in fh)
        if lines > MAX_LINES:
            long.append((module, lines))
    assert long == [], "split these modules along their seams (at most %d lines)" % MAX_LINES


def test_every_room_says_what_it_holds_and_ships_in_the_wheel():
    with open(os.path.join(REPO, "pyproject.toml")) as fh:
        listed = set(re.findall(r'"(mm2_ambari(?:\.[a-z_0-9]+)*)"', fh.read()))
    rooms = sorted(m for m, p in _modules().items() if m and os.path.basename(p) == "__init__.py")
    assert rooms, "no room found under %s" % PACKAGE
    assert [r for r in rooms if "mm2_ambari." + r not in listed] == [], "add them to pyproject's packages"
    assert [r for r in rooms if not ast.get_docstring(_tree(_modules()[r]))] == []


def _python_files():
    for top in ("src", "tests", "benchmarks"):
        for folder, dirs, files in os.walk(os.path.join(REPO, top)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", ".venv", "node_modules")]
            for name in files:
                if name.endswith(".py"):
                    yield os.path.join(folder, name)


def _defines(module_path, name):
    for node in _tree(module_path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id == name
                                                for t in node.targets for n in ast.walk(t)):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


def test_every_import_of_mm2_ambari_names_what_exists():
    """src, tests and benchmarks: a module moved to a room leaves no import of its old place behind (an import
    inside a function would only fail when it runs)."""
    modules = _modules()
    stale = []
    for path in _python_files():
        with open(path, "rb") as fh:
            if b"mm2_ambari" not in fh.read():
                continue
        tree = _tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and _relative(node.module or "") is not None:
                base = _relative(node.module)
                for alias in node.names:
                    full = (base + "." if base else "") + alias.name
                    if full not in modules and not (base in modules and _defines(modules[base], alias.name)):
                        stale.append("%s:%d: from %s import %s" % (os.path.relpath(path, REPO), node.lineno,
                                                                   node.module, alias.name))
            elif isinstance(node, ast.Import):
                stale.extend("%s:%d: import %s" % (os.path.relpath(path, REPO), node.lineno, a.name)
                             for a in node.names if _relative(a.name) and _relative(a.name) not in modules)
    assert stale == []


def test_the_cli_registers_every_room_that_has_commands():
    from mm2_ambari import cli
    import importlib
    registered = set()
    for module_name, function in cli.SUBCOMMANDS:
        assert callable(getattr(importlib.import_module(module_name), function)), (module_name, function)
        registered.add(_relative(module_name))
    with_register = set(m for m, p in _modules().items()
                        if any(isinstance(n, ast.FunctionDef) and n.name.startswith("register")
                               for n in _tree(p).body))
    assert with_register - registered - {"rest.host_cmds"} == set()   # remove-host: registered by rest.commands


def _unresolved(paths):
    """The dotted mm2_ambari paths ("rest.deployfile.check_limits") that name neither a module nor a module and a
    name it defines."""
    modules = _modules()
    wrong = []
    for path in sorted(set(paths)):
        parts = path.strip(".").split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in modules:
                rest = parts[cut:]
                if rest and not _defines(modules[module], rest[0]) and module + "." + rest[0] not in modules:
                    wrong.append("mm2_ambari." + ".".join(parts))
                break
        else:
            if parts[0] != "templates":   # mm2_ambari.templates: the wheel's copy of package/templates
                wrong.append("mm2_ambari." + ".".join(parts))
    return wrong


DOCS = sorted(["README.md", "CHANGELOG.md", "tests/README.md", "benchmarks/README.md"]
              + ["docs/" + n for n in os.listdir(os.path.join(REPO, "docs")) if n.endswith(".md")])


@pytest.mark.parametrize("doc", DOCS)
def test_docs_name_modules_that_exist(doc):
    """A dotted mm2_ambari path in the docs (`mm2_ambari.rest.deployfile.check_limits`) names a module, or a
    module and a name it defines."""
    path = os.path.join(REPO, doc)
    if not os.path.isfile(path):
        pytest.skip("no %s in this checkout" % doc)
    with open(path) as fh:
        text = fh.read()
    if doc == "CHANGELOG.md":   # only Unreleased: a released section tells its history with the names of its time
        text = text.split("\n## Unreleased", 1)[-1].split("\n## ", 1)[0]
    assert _unresolved(re.findall(r"\bmm2_ambari((?:\.[A-Za-z_][A-Za-z_0-9]*)+)", text)) == []


def test_dotted_paths_in_strings_name_modules_that_exist():
    """mock.patch("mm2_ambari.rest.ops.create"), `python -m mm2_ambari.cli`, importlib names: a string of the code
    and the tests naming a dotted mm2_ambari path names what exists."""
    found = []
    for path in _python_files():
        with open(path, "rb") as fh:
            if b"mm2_ambari." not in fh.read():
                continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.extend(re.findall(r"(?<![\w/.])mm2_ambari((?:\.[A-Za-z_][A-Za-z_0-9]*)+)", node.value))
    assert found, "no dotted mm2_ambari path in a string: the scan reads nothing"
    assert _unresolved(found) == []
