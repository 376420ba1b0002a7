from resource_management.libraries.functions import *  # noqa: F401,F403
from resource_management.libraries.resources import *  # noqa: F401,F403
from resource_management.libraries.providers import *  # noqa: F401,F403
from resource_management.libraries.script import *  # noqa: F401,F403
