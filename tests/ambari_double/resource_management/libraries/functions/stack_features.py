"""check_stack_feature (Ambari semantics): features come from cluster-env/stack_features JSON;
a command without that property makes it raise Fail("Stack features not defined by stack")."""
import json

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger

__all__ = ["check_stack_feature"]


def check_stack_feature(stack_feature, stack_version):
    from resource_management.libraries.functions.default import default
    from resource_management.libraries.functions.version import compare_versions

    stack_name = default("/clusterLevelParams/stack_name", None)
    if stack_name is None:
        Logger.warning("Cannot find the stack name in the command. Stack features cannot be loaded")
        return False
    stack_features_config = default("/configurations/cluster-env/stack_features", None)
    if not stack_version:
        return False
    if not stack_features_config:
        raise Fail("Stack features not defined by stack")
    data = json.loads(stack_features_config)
    if stack_name not in data:
        Logger.warning("Cannot find stack features for the stack named {0}".format(stack_name))
        return False
    for feature in data[stack_name]["stack_features"]:
        if feature["name"] == stack_feature:
            if "min_version" in feature and compare_versions(stack_version, feature["min_version"], format=True) < 0:
                return False
            if "max_version" in feature and compare_versions(stack_version, feature["max_version"], format=True) >= 0:
                return False
            return True
    return False
