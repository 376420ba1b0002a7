"""The part of Ambari's stack_select the version reporting after start/install/restart uses.

get_package_name() looks the command's service/component up in cluster-env/stack_packages
("stack-select" section). A service that is not listed (like an mpack service) gets None,
which makes Ambari skip version reporting. Listed components are beyond the double (Fail).
Missing stack_packages: trunk logs an error and returns None, 2.7.8 raises Fail.
"""
import json

from resource_management import _double
from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

PACKAGE_SCOPE_STACK_SELECT = "STACK-SELECT-PACKAGE"


def get_package_name(default_package=None):
    from resource_management.libraries.script.script import Script
    from resource_management.libraries.functions.default import default
    config = Script.get_config()
    if 'role' not in config or 'serviceName' not in config:
        raise Fail("Both the role and the service name must be included in the command in order to determine "
                   "which packages to use with the stack-select tool")
    service_name, component_name = config['serviceName'].upper(), config['role'].upper()
    stack_name = default("/clusterLevelParams/stack_name", None)
    if stack_name is None:
        raise Fail("The stack name is not present in the command. Packages for stack-select tool cannot be loaded.")
    stack_packages_config = default("/configurations/cluster-env/stack_packages", None)
    if stack_packages_config is None:
        if _double.is_trunk():
            Logger.error("Temporary disable: The stack packages are not defined on the command. "
                         "Unable to load packages for the stack-select tool")
            return default_package
        raise Fail("The stack packages are not defined on the command. Unable to load packages for the "
                   "stack-select tool")
    data = json.loads(stack_packages_config)
    if stack_name not in data:
        raise Fail("Cannot find stack-select packages for the {0} stack".format(stack_name))
    if "stack-select" not in data[stack_name]:
        raise Fail("There are no stack-select packages defined for this command for the {0} stack".format(stack_name))
    data = data[stack_name]["stack-select"]
    for name in (service_name, component_name):
        if name not in data:
            Logger.info("Skipping stack-select on {0} because it does not exist in the stack-select package "
                        "structure.".format(name))
            return default_package
        data = data[name]
    raise Fail("test double: stack-select packages (%s/%s) are not supported" % (service_name, component_name))
