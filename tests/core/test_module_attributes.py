"""Every `module.NAME` the service scripts and the CLI read from one of the project's own modules exists there.
Constants move when code is reorganised (version gates went to mm2_core.kafka.versions); a caller left behind
fails only when its command runs, as CUTOVER_CHECK did on real Kafka with an AttributeError."""
import ast
import importlib
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TREES = [os.path.join(ROOT, "package", "scripts")] + (
    [os.path.join(ROOT, "src")] if sys.version_info[0] >= 3 else [])   # src/ is the off-cluster Python 3 code
OWN = ("mm2_",)


def _own_modules(tree):
    """{local name: module} for the imports of the project's own modules in one file."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(OWN) and not node.level:
            for alias in node.names:
                try:
                    found[alias.asname or alias.name] = importlib.import_module(node.module + "." + alias.name)
                except ImportError:
                    pass    # a name, not a module: the import itself would fail at load
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(OWN):
                    try:
                        if alias.asname:
                            found[alias.asname] = importlib.import_module(alias.name)
                        else:
                            found[alias.name.split(".")[0]] = importlib.import_module(alias.name.split(".")[0])
                    except ImportError:
                        pass    # an on-cluster-only module (Ambari's libraries missing here)
    return found


def test_every_attribute_read_from_an_own_module_exists():
    missing = []
    for top in TREES:
        for folder, _dirs, files in os.walk(top):
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(folder, name)
                with io.open(path, encoding="utf-8") as fh:
                    tree = ast.parse(fh.read())
                modules = _own_modules(tree)
                for node in ast.walk(tree):
                    if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                            and isinstance(node.value, ast.Name) and node.value.id in modules
                            and not hasattr(modules[node.value.id], node.attr)):
                        missing.append("%s:%d: %s.%s" % (os.path.relpath(path, ROOT), node.lineno, node.value.id,
                                                          node.attr))
    assert missing == [], "names read from project modules that do not define them:\n" + "\n".join(missing)
