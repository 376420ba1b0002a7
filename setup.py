"""setuptools shim: the version is read from mpack.json, the one place it is written."""
import json
import os

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "mpack.json")) as fh:
    VERSION = json.load(fh)["version"]

setup(version=VERSION)
