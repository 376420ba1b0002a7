"""Load a Python file as a module the way Ambari's stack advisor does (imp.load_module), with
importlib where imp is gone. Imports nothing of the project: the fresh-interpreter runner records
where mm2_core is first imported from, so this module must not import it."""
import sys


def load_source(module_name, path):
    """imp.load_module where it exists (Ambari's own loader), importlib otherwise."""
    try:
        import imp
    except ImportError:
        imp = None
    if imp is not None:
        with open(path, "rb") as fp:
            return imp.load_module(module_name, fp, path, (".py", "rb", imp.PY_SOURCE))
    import importlib.util
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
