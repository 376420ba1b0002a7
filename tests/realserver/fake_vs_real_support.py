"""The fake Ambari of tests/rest and its call normalization, importable from this folder (tests/rest is not a
package: its directory goes on sys.path here, as test_fake_vs_real.py does)."""
import os
import sys

REST_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rest")
if REST_DIR not in sys.path:
    sys.path.insert(0, REST_DIR)

from rest_fake_ambari import FakeAmbari  # noqa: E402,F401
from rest_helpers import normalize  # noqa: E402,F401
