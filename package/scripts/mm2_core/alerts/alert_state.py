"""Small JSON state kept between alert runs (heartbeat counters, checkpoint activity).

Pure stdlib, Python 2.7 and 3. Writes are atomic (temp file + rename in the same directory),
so a reader never sees half a file; a missing, unreadable or corrupt file reads as empty state:
the alert then starts observing afresh instead of failing.
"""
import json
import os
import tempfile

DEFAULT_DIR = "/var/lib/ambari-agent/tmp"
SUBDIR = "mm2-alerts"


def state_dir(configured=""):
    """Where state files live: the configured dir, else <agent tmp dir>/mm2-alerts."""
    if configured:
        return configured
    base = DEFAULT_DIR
    try:
        from ambari_commons.constants import AGENT_TMP_DIR
        base = AGENT_TMP_DIR or base
    except Exception:
        pass
    if not os.path.isdir(base):
        base = tempfile.gettempdir()
    return os.path.join(base, SUBDIR)


def load(path):
    """The dict stored at path; {} when missing or unreadable."""
    try:
        with open(path, "r") as fh:
            data = json.load(fh)
    except (IOError, OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(path, data):
    """Write data atomically; returns None or the reason it could not be written."""
    directory = os.path.dirname(path) or "."
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        fd, tmp = tempfile.mkstemp(prefix=".state-", dir=directory)
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(data, fh, sort_keys=True)
            os.rename(tmp, path)
        except Exception:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise
    except (IOError, OSError, TypeError, ValueError) as e:
        return "could not save alert state to %s: %s" % (path, e)
    return None
