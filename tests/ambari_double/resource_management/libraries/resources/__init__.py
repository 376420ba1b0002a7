from resource_management.libraries.resources.properties_file import *  # noqa: F401,F403
