from resource_management.libraries.script.script import *  # noqa: F401,F403
from resource_management.libraries.script.config_dictionary import *  # noqa: F401,F403
