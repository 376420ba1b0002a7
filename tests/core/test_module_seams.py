"""The core's dependency direction: configurations -> Topology -> properties, no import cycles.

Read from the source (ast), so a late import inside a function counts too.
"""
import ast
import os

import pytest

CORE = os.path.join(os.path.dirname(__file__), "..", "..", "package", "scripts", "mm2_core")


def _imports(module):
    with open(os.path.join(CORE, module + ".py")) as fh:
        tree = ast.parse(fh.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "mm2_core":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("mm2_core."):
                found.add(node.module.split(".", 1)[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mm2_core."):
                    found.add(alias.name.split(".", 1)[1])
    return found


def _graph():
    modules = [name[:-3] for name in os.listdir(CORE) if name.endswith(".py") and name != "__init__.py"]
    return dict((m, _imports(m) & set(modules)) for m in modules)


def _reaches(graph, start, goal):
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for nxt in graph.get(node, ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def test_no_module_of_the_core_imports_itself_back():
    graph = _graph()
    cycles = sorted(m for m in graph if _reaches(graph, m, m))
    assert cycles == []


@pytest.mark.parametrize("lower,upper", [
    ("model", "render"), ("model", "topology"), ("model", "advice"), ("model", "validator"),
    ("parse", "render"), ("parse", "topology"), ("validator", "render"), ("render", "topology"),
    ("render", "advice"), ("advice", "render"), ("advice", "topology"), ("local_kafka", "advice"),
])
def test_dependencies_point_one_way(lower, upper):
    assert not _reaches(_graph(), lower, upper), "%s must not depend on %s" % (lower, upper)


def test_the_renderer_reads_the_model_not_raw_configurations():
    with open(os.path.join(CORE, "render.py")) as fh:
        tree = ast.parse(fh.read())
    readers = [node.func.attr for node in ast.walk(tree)
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("get", "configs") and isinstance(node.func.value, ast.Name)
               and node.func.value.id in ("config_values", "topo_mod", "topology")]
    assert readers == []
