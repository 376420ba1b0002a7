"""Package provider of the double: tests never install OS packages.

Installing only logs (as Ambari logs the resource) and, when MM2_DOUBLE_PACKAGE_LOG names a
file, appends "<action> <name>" to it so an execute-mode test can assert what would be installed.
"""
import os

from resource_management.core.providers import Provider
from resource_management.core.logger import Logger


class PackageProvider(Provider):
    def _record(self, action):
        Logger.info("Package (test double): %s %s" % (action, self.resource.package_name))
        log = os.environ.get("MM2_DOUBLE_PACKAGE_LOG")
        if log:
            with open(log, "a") as fp:
                fp.write("%s %s\n" % (action, self.resource.package_name))

    def action_install(self):
        self._record("install")

    def action_upgrade(self):
        self._record("upgrade")

    def action_remove(self):
        self._record("remove")
