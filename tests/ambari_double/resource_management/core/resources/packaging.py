"""Package (Ambari core/resources/packaging.py arguments)."""
from resource_management.core.base import Resource, ForcedListArgument, ResourceArgument, BooleanArgument

__all__ = ["Package"]


class Package(Resource):
    action = ForcedListArgument(default="install")
    package_name = ResourceArgument(default=lambda obj: obj.name)
    location = ResourceArgument(default=lambda obj: obj.package_name)
    use_repos = ResourceArgument(default={})
    skip_repos = ResourceArgument(default=[])
    logoutput = ResourceArgument(default=None)
    retry_count = ResourceArgument(default=4)
    retry_sleep = ResourceArgument(default=30)
    retry_on_repo_unavailability = BooleanArgument(default=False)
    retry_on_locked = BooleanArgument(default=True)
    version = ResourceArgument()
    actions = ["install", "upgrade", "remove"]
    build_vars = ForcedListArgument(default=[])
