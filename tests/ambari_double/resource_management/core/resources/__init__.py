from resource_management.core.resources.packaging import *  # noqa: F401,F403
from resource_management.core.resources.system import *  # noqa: F401,F403
