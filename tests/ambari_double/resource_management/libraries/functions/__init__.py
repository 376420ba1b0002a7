"""Subset of Ambari's libraries/functions package (same star-exports for what exists)."""
from resource_management.libraries.functions.default import *  # noqa: F401,F403
from resource_management.libraries.functions.format import *  # noqa: F401,F403
from resource_management.libraries.functions.find_path import *  # noqa: F401,F403
from resource_management.libraries.functions.find_executable import *  # noqa: F401,F403
from resource_management.libraries.functions.get_kinit_path import *  # noqa: F401,F403
from resource_management.libraries.functions.check_process_status import *  # noqa: F401,F403
from resource_management.libraries.functions.is_empty import *  # noqa: F401,F403
from resource_management.libraries.functions.show_logs import *  # noqa: F401,F403
from resource_management.libraries.functions.version import *  # noqa: F401,F403
from resource_management.libraries.functions.get_bare_principal import *  # noqa: F401,F403
