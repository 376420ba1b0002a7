"""Test double of Ambari's resource_management (see tests/ambari_double/README.md)."""
from resource_management.libraries import *  # noqa: F401,F403
from resource_management.core import *  # noqa: F401,F403
