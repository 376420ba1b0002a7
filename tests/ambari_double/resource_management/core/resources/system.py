"""File, Directory, Link, Execute, ExecuteScript (Ambari core/resources/system.py arguments)."""
import subprocess

from resource_management.core.signal_utils import TerminateStrategy
from resource_management.core.base import Resource, ForcedListArgument, ResourceArgument, BooleanArgument

__all__ = ["File", "Directory", "Link", "Execute", "ExecuteScript"]


class File(Resource):
    action = ForcedListArgument(default="create")
    path = ResourceArgument(default=lambda obj: obj.name)
    backup = ResourceArgument()
    mode = ResourceArgument()
    owner = ResourceArgument()
    group = ResourceArgument()
    content = ResourceArgument()
    replace = ResourceArgument(default=True)
    encoding = ResourceArgument()
    cd_access = ResourceArgument()

    actions = Resource.actions + ["create", "delete"]


class Directory(Resource):
    action = ForcedListArgument(default="create")
    path = ResourceArgument(default=lambda obj: obj.name)
    mode = ResourceArgument()
    owner = ResourceArgument()
    group = ResourceArgument()
    follow = BooleanArgument(default=True)
    create_parents = BooleanArgument(default=False)
    cd_access = ResourceArgument()
    recursive_ownership = BooleanArgument(default=False)
    recursive_mode_flags = ResourceArgument(default=None)
    safemode_folders = ForcedListArgument(default=["/", "/bin", "/sbin", "/etc", "/dev", "/proc", "/var",
                                                   "/usr", "/home", "/boot", "/lib", "/opt", "/mnt",
                                                   "/media", "/srv", "/root", "/sys"])
    recursion_follow_links = BooleanArgument(default=False)

    actions = Resource.actions + ["create", "delete"]


class Link(Resource):
    action = ForcedListArgument(default="create")
    path = ResourceArgument(default=lambda obj: obj.name)
    to = ResourceArgument(required=True)
    hard = BooleanArgument(default=False)

    actions = Resource.actions + ["create", "delete"]


class Execute(Resource):
    action = ForcedListArgument(default="run")
    command = ResourceArgument(default=lambda obj: obj.name)
    creates = ResourceArgument()
    cwd = ResourceArgument()
    environment = ResourceArgument(default={})
    user = ResourceArgument()
    returns = ForcedListArgument(default=0)
    tries = ResourceArgument(default=1)
    try_sleep = ResourceArgument(default=0)
    path = ForcedListArgument(default=[])
    actions = Resource.actions + ["run"]
    on_new_line = ResourceArgument()
    logoutput = ResourceArgument(default=None)
    timeout = ResourceArgument()
    on_timeout = ResourceArgument()
    wait_for_finish = BooleanArgument(default=True)
    sudo = BooleanArgument(default=False)
    stdout = ResourceArgument(default=subprocess.PIPE)
    stderr = ResourceArgument(default=subprocess.STDOUT)
    timeout_kill_strategy = ResourceArgument(default=TerminateStrategy.TERMINATE_PARENT)


class ExecuteScript(Resource):
    action = ForcedListArgument(default="run")
    code = ResourceArgument(required=True)
    cwd = ResourceArgument()
    environment = ResourceArgument()
    interpreter = ResourceArgument(default="/bin/bash")
    user = ResourceArgument()
    group = ResourceArgument()

    actions = Resource.actions + ["run"]
