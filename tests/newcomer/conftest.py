"""The wheel of this checkout installed into a fresh virtualenv outside the checkout, for the whole
session (the `installed_wheel` fixture of tests/conftest.py, shared with tests/tools/test_wheel.py: one
wheel build per session): the commands run exactly as a newcomer runs them after `pip install .` (no
pyspark: the [verify] extra is not installed). Skipped when the package index is unreachable.
"""
import pytest


@pytest.fixture(scope="session")
def installed(installed_wheel):
    return installed_wheel
