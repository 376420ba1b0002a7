"""Collects the call signatures and resource arguments of whichever Ambari library is importable.

Run as a script it prints them as JSON; test_signatures.py compares the double's (collected in a
subprocess) with real Ambari's (collected in-process when MM2_AMBARI_SRC is set).
"""
import inspect
import json
import sys

RESOURCES = [
    ("resource_management.core.resources.system", ["File", "Directory", "Link", "Execute", "ExecuteScript"]),
    ("resource_management.core.resources.packaging", ["Package"]),
    ("resource_management.libraries.resources.properties_file", ["PropertiesFile"]),
]

FUNCTIONS = [
    ("resource_management.core.shell", ["call", "checked_call", "non_blocking_call", "quote_bash_args", "as_user",
                                        "as_sudo"]),
    ("resource_management.core.sudo", ["read_file", "path_exists", "path_isfile", "path_isdir", "path_lexists",
                                       "kill", "chmod", "chown", "makedirs", "makedir", "unlink", "listdir", "stat",
                                       "rmtree", "symlink", "readlink", "copy", "chmod_extended"]),
    ("resource_management.libraries.functions.format", ["format"]),
    ("resource_management.libraries.functions.default", ["default", "default_string"]),
    ("resource_management.libraries.functions.check_process_status", ["check_process_status"]),
    ("resource_management.libraries.functions.get_kinit_path", ["get_kinit_path"]),
    ("resource_management.libraries.functions.find_executable", ["find_executable"]),
    ("resource_management.libraries.functions.show_logs", ["show_logs"]),
    ("resource_management.libraries.functions.get_bare_principal", ["get_bare_principal"]),
    ("resource_management.libraries.functions.version", ["format_stack_version", "compare_versions"]),
    ("resource_management.libraries.functions.stack_features", ["check_stack_feature"]),
    ("resource_management.core.global_lock", ["get_lock"]),
]

METHODS = [
    ("resource_management.core.source", "Template", ["__init__", "get_content"]),
    ("resource_management.core.source", "InlineTemplate", ["__init__"]),
    ("resource_management.core.source", "StaticFile", ["__init__", "get_content"]),
    ("resource_management.core.source", "DownloadSource", ["__init__", "get_content"]),
    ("resource_management.core.environment", "Environment", ["__init__", "set_params", "run"]),
    ("resource_management.core.exceptions", "Fail", ["__init__"]),
    ("resource_management.core.exceptions", "ExecutionFailed", ["__init__"]),
    ("resource_management.core.logger", "Logger", ["info", "error", "warning", "debug", "exception",
                                                    "info_resource", "filter_text", "initialize_logger"]),
    ("resource_management.libraries.script.script", "Script", [
        "execute", "get_config", "get_tmp_dir", "get_stack_name", "get_stack_root", "get_stack_version",
        "put_structured_out", "install_packages", "install", "start", "stop", "configure", "restart",
        "pre_start", "post_start", "post_stop", "get_pid_files", "get_log_folder", "get_user",
        "fail_with_error", "get_instance", "choose_method_to_execute", "load_structured_out",
        "get_component_from_role"]),
]


def _unwrap(function):
    # shell.call & co. are wrapped by log_function_call(inner(command, **kwargs)); compare the
    # wrapped function's parameters.
    if getattr(function, "__closure__", None) and function.__name__ == "inner":
        for cell in function.__closure__:
            if inspect.isfunction(cell.cell_contents):
                return cell.cell_contents
    return function


def _default_repr(value):
    if callable(value):
        return "<callable>"
    return repr(value).lstrip("u")


def signature(function):
    function = _unwrap(function)
    if hasattr(inspect, "getfullargspec"):
        spec = inspect.getfullargspec(function)
        varkw = spec.varkw
    else:
        spec = inspect.getargspec(function)
        varkw = spec.keywords
    defaults = list(spec.defaults or [])
    args = list(spec.args)
    shown = []
    for index, name in enumerate(args):
        offset = index - (len(args) - len(defaults))
        shown.append(name if offset < 0 else "%s=%s" % (name, _default_repr(defaults[offset])))
    if spec.varargs:
        shown.append("*" + spec.varargs)
    if varkw:
        shown.append("**" + varkw)
    return shown


def collect():
    import importlib
    result = {"resources": {}, "functions": {}}
    for module_name, names in RESOURCES:
        module = importlib.import_module(module_name)
        for name in names:
            cls = getattr(module, name)
            result["resources"][name] = dict(
                (arg, _default_repr(obj.default)) for arg, obj in cls._arguments.items())
    for module_name, names in FUNCTIONS:
        module = importlib.import_module(module_name)
        for name in names:
            result["functions"]["%s.%s" % (module_name, name)] = signature(getattr(module, name))
    for module_name, cls_name, names in METHODS:
        cls = getattr(importlib.import_module(module_name), cls_name)
        for name in names:
            member = inspect.getattr_static(cls, name) if hasattr(inspect, "getattr_static") else cls.__dict__.get(name)
            function = getattr(cls, name)
            if isinstance(member, (staticmethod, classmethod)):
                function = member.__func__
            function = getattr(function, "__func__", function)
            result["functions"]["%s.%s.%s" % (module_name, cls_name, name)] = signature(function)
    return result


if __name__ == "__main__":
    json.dump(collect(), sys.stdout, indent=1, sort_keys=True)
