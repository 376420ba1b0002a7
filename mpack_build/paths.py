"""Where build.py finds things in a checkout."""

import os

# The checkout this package sits in (build.py is its entry point).
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_REL = "package/scripts/mm2_core/config/schema.py"
RELEASED_NAMES_REL = "tests/build/released-names.json"
TEMPLATES_REL = "package/templates"
