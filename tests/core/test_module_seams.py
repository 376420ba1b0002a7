"""The core's layout and dependency direction: configurations -> Topology -> properties, no import cycles.

Read from the source (ast), so a late import inside a function counts too. Modules are named by
their path under mm2_core ("model.parse", "rendering.render").
"""
import ast
import os

import pytest

from import_graph import cycles, reaches

CORE = os.path.join(os.path.dirname(__file__), "..", "..", "package", "scripts", "mm2_core")
MAX_LINES = 800


def _modules():
    found = {}
    for folder, _, files in os.walk(CORE):
        package = os.path.relpath(folder, CORE).replace(os.sep, ".")
        for name in files:
            if name.endswith(".py") and name != "__init__.py":
                found[(package + "." if package != "." else "") + name[:-3]] = os.path.join(folder, name)
    return found


def _imports(path):
    with open(path) as fh:
        tree = ast.parse(fh.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mm2_core"):
            package = node.module[len("mm2_core."):] if node.module != "mm2_core" else ""
            for alias in node.names:  # "from mm2_core.model import parse" names a module
                found.add((package + "." if package else "") + alias.name)
            found.add(package)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mm2_core."):
                    found.add(alias.name[len("mm2_core."):])
    return found


def _graph():
    modules = _modules()
    return dict((m, _imports(path) & set(modules)) for m, path in modules.items())


def test_no_module_of_the_core_imports_itself_back():
    graph = _graph()
    assert cycles(graph) == []


def test_every_module_sits_in_a_subpackage_and_stays_readable():
    modules = _modules()
    assert sorted(m for m in modules if "." not in m) == []
    long = sorted((m, sum(1 for _ in open(path))) for m, path in modules.items()
                  if sum(1 for _ in open(path)) > MAX_LINES)
    assert long == [], "split these modules along their seams (at most %d lines)" % MAX_LINES


def test_every_import_of_the_core_names_a_module_that_exists():
    modules = _modules()
    packages = set(m.rsplit(".", 1)[0] for m in modules)
    for module, path in modules.items():
        with open(path) as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mm2_core."):
                name = node.module[len("mm2_core."):]
                assert name in modules or name in packages, "%s imports mm2_core.%s" % (module, name)


@pytest.mark.parametrize("lower,upper", [
    ("model.topology", "rendering.render"), ("model.topology", "advisor.advice"),
    ("model.topology", "model.validator"), ("model.parse", "rendering.render"),
    ("model.validator", "rendering.render"), ("rendering.render", "advisor.advice"),
    ("advisor.advice", "rendering.render"), ("config.local_kafka", "advisor.advice"),
    ("config.schema", "model.topology"), ("kafka.versions", "model.topology"),
    ("alerts.alert_runner", "rendering.render"), ("formats.text", "config.names"),
])
def test_dependencies_point_one_way(lower, upper):
    graph = _graph()
    assert lower in graph and upper in graph
    assert not reaches(graph, lower, upper), "%s must not depend on %s" % (lower, upper)


def test_the_renderer_reads_the_model_not_raw_configurations():
    with open(_modules()["rendering.render"]) as fh:
        tree = ast.parse(fh.read())
    readers = [node.func.attr for node in ast.walk(tree)
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("get", "configs") and isinstance(node.func.value, ast.Name)
               and node.func.value.id in ("config_values", "topo_mod", "topology")]
    assert readers == []
