"""The tools' version: mpack.json's, the one place the version is written.

In a checkout (or an editable install) mpack.json sits two levels above this package and is read
directly, so the version never goes stale; an installed wheel carries it as its distribution
version (setup.py copied it from mpack.json).
"""
import json
import os

DISTRIBUTION = "kafka-mirrormaker2-mpack-tools"
_MPACK_JSON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "mpack.json")


def tools_version():
    if os.path.isfile(_MPACK_JSON):
        with open(_MPACK_JSON) as handle:
            return json.load(handle)["version"]
    from importlib import metadata
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (neither mpack.json nor an installed %s)" % DISTRIBUTION
