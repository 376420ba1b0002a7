"""Test double of the part of Ambari's ambari_commons the agent scripts touch."""
from ambari_commons.os_check import OSCheck, OSConst

__all__ = ['OSCheck', 'OSConst']
