"""Provider lookup (Ambari core/providers/__init__.py): resource class name -> provider class."""
from resource_management.core.exceptions import Fail

__all__ = ["Provider", "find_provider"]


class Provider(object):
    def __init__(self, resource):
        self.resource = resource

    def action_nothing(self):
        pass

    def __repr__(self):
        return "%s[%s]" % (self.__class__.__name__, self.resource)


PROVIDERS = {
    "File": "resource_management.core.providers.system.FileProvider",
    "Directory": "resource_management.core.providers.system.DirectoryProvider",
    "Link": "resource_management.core.providers.system.LinkProvider",
    "Execute": "resource_management.core.providers.system.ExecuteProvider",
    "ExecuteScript": "resource_management.core.providers.system.ExecuteScriptProvider",
    "Package": "resource_management.core.providers.packaging.PackageProvider",
}


def find_provider(env, resource, class_path=None):
    if not class_path:
        from resource_management.libraries.providers import PROVIDERS as LIBRARY_PROVIDERS
        class_path = PROVIDERS.get(resource) or LIBRARY_PROVIDERS["default"].get(resource)
    try:
        mod_path, class_name = class_path.rsplit('.', 1)
    except (ValueError, AttributeError):
        raise Fail("Unable to find provider for %s as %s" % (resource, class_path))
    mod = __import__(mod_path, {}, {}, [class_name])
    return getattr(mod, class_name)
