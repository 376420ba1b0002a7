from resource_management.core.base import *  # noqa: F401,F403
from resource_management.core.environment import *  # noqa: F401,F403
from resource_management.core.exceptions import *  # noqa: F401,F403
from resource_management.core.providers import *  # noqa: F401,F403
from resource_management.core.resources import *  # noqa: F401,F403
from resource_management.core.source import *  # noqa: F401,F403
from resource_management.core.shell import *  # noqa: F401,F403
from resource_management.core.logger import *  # noqa: F401,F403
from resource_management.core.signal_utils import *  # noqa: F401,F403

__version__ = "0.4.1"
