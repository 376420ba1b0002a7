"""Process-wide locks (Ambari core/global_lock.py), e.g. to serialize kinit."""
import threading

from resource_management.core.exceptions import Fail

LOCK_TYPE_KERBEROS = "KERBEROS_LOCK"

_GLOBAL_LOCKS = {LOCK_TYPE_KERBEROS: threading.RLock()}


def get_lock(lock_type):
    if lock_type not in _GLOBAL_LOCKS:
        raise Fail("There is no global lock associated with {0}".format(str(lock_type)))
    return _GLOBAL_LOCKS[lock_type]
