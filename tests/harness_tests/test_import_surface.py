"""The import surface agent code may rely on exists (in the double and, with MM2_AMBARI_SRC,
in real Ambari) under the same module paths and names."""
import importlib

import pytest

from conftest import ambari_line, double_only

SURFACE = {
    "resource_management": ["Script", "Execute", "File", "Directory", "Link", "Template", "InlineTemplate",
                            "StaticFile", "PropertiesFile", "format", "default", "check_process_status",
                            "Fail", "ComponentIsNotRunning", "ClientComponentHasNoStatus", "ExecutionFailed",
                            "Environment", "Logger", "Package", "get_kinit_path", "checked_call", "call"],
    "resource_management.libraries.script.script": ["Script"],
    "resource_management.libraries.script.config_dictionary": ["ConfigDictionary", "UnknownConfiguration"],
    "resource_management.core.resources.system": ["Execute", "File", "Directory", "Link", "ExecuteScript"],
    "resource_management.core.resources.packaging": ["Package"],
    "resource_management.core.source": ["Template", "InlineTemplate", "StaticFile", "DownloadSource"],
    "resource_management.core.exceptions": ["Fail", "ExecutionFailed", "ComponentIsNotRunning",
                                            "ClientComponentHasNoStatus", "ExecuteTimeoutException",
                                            "InvalidArgument"],
    "resource_management.core.logger": ["Logger"],
    "resource_management.core.environment": ["Environment"],
    "resource_management.core.shell": ["call", "checked_call", "quote_bash_args", "as_user", "as_sudo"],
    "resource_management.core.sudo": ["read_file", "create_file", "path_exists", "path_isfile", "path_isdir",
                                      "kill", "chmod", "chown", "makedirs", "unlink", "stat", "listdir"],
    "resource_management.core.global_lock": ["get_lock", "LOCK_TYPE_KERBEROS"],
    "resource_management.core.signal_utils": ["TerminateStrategy"],
    "resource_management.libraries.resources.properties_file": ["PropertiesFile"],
    "resource_management.libraries.functions": ["format", "default", "get_kinit_path", "check_process_status",
                                                "is_empty", "format_stack_version", "compare_versions"],
    "resource_management.libraries.functions.format": ["format"],
    "resource_management.libraries.functions.default": ["default"],
    "resource_management.libraries.functions.check_process_status": ["check_process_status"],
    "resource_management.libraries.functions.get_kinit_path": ["get_kinit_path"],
    "resource_management.libraries.functions.show_logs": ["show_logs"],
    "resource_management.libraries.functions.stack_features": ["check_stack_feature"],
    "resource_management.libraries.functions.version": ["format_stack_version", "compare_versions"],
    "resource_management.libraries.functions.get_bare_principal": ["get_bare_principal"],
    "ambari_commons": ["OSCheck", "OSConst"],
    "ambari_commons.os_check": ["OSCheck"],
}

SCRIPT_METHODS = ["execute", "get_config", "get_tmp_dir", "get_stack_name", "get_stack_root", "get_stack_version",
                  "put_structured_out", "install_packages", "restart", "pre_start", "post_start", "post_stop",
                  "get_pid_files", "fail_with_error", "get_instance"]


@pytest.mark.parametrize("module", sorted(SURFACE))
def test_module_exports(module):
    mod = importlib.import_module(module)
    missing = [name for name in SURFACE[module] if not hasattr(mod, name)]
    assert not missing


def test_script_methods():
    from resource_management.libraries.script.script import Script
    assert not [m for m in SCRIPT_METHODS if not hasattr(Script, m)]


@double_only
def test_trunk_only_script_api_is_absent_so_agent_code_stays_27_compatible():
    from resource_management.libraries.script.script import Script
    for name in ("get_execution_command", "get_module_configs", "get_cluster_settings", "get_stack_settings"):
        assert not hasattr(Script, name)


def test_small_functions_agree():
    from resource_management.libraries.functions.get_bare_principal import get_bare_principal
    from resource_management.libraries.functions.version import format_stack_version, compare_versions
    assert [get_bare_principal(p) for p in ("mm2/h1.example.com@EXAMPLE.COM", "mm2@EXAMPLE.COM", "mm2", "")] == \
        ["mm2", "mm2", "mm2", None]
    padded = ["3.1.0", "2.6.0"] if ambari_line() == "3" else ["3.1.0.0", "2.6.0.0"]
    assert [format_stack_version(v) for v in ("3.1", "2.2.0.1-885", "HDP-2.6", "GlusterFS", "")] == \
        [padded[0], "2.2.0.1", padded[1], "", ""]
    assert (compare_versions("3.2.0", "3.10", format=True), compare_versions("2.2", "2.2.0.0")) == (-1, 0)
