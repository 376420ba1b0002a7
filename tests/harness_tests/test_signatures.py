"""Signature parity (only with MM2_AMBARI_SRC): every resource the double provides takes exactly
the real arguments with the real defaults, and every function / method has the real parameters.
Known, deliberate deviations are listed in ALLOWED and explained."""
import json
import subprocess
import sys

import pytest

import harness
import signatures

pytestmark = pytest.mark.skipif(not harness.using_real_ambari(), reason="needs MM2_AMBARI_SRC (real Ambari)")

# name -> why the double differs from the real line(s)
ALLOWED = {
    # 2.7.8 has call(..., shell=True); trunk does not. Agent code runs on both lines, so the
    # double offers the intersection (no shell=).
    "resource_management.core.shell.call": "2.7.8-only shell= argument",
}


def _double_signatures():
    env = harness.script_environment(ambari_src="double")
    out = subprocess.check_output([sys.executable, signatures.__file__], env=env)
    return json.loads(out.decode("utf-8"))


@pytest.fixture(scope="module")
def both():
    return signatures.collect(), _double_signatures()


def test_resources_take_the_real_arguments_with_the_real_defaults(both):
    real, double = both
    for name, args in double["resources"].items():
        assert args == real["resources"][name], name


def test_functions_and_methods_have_the_real_parameters(both):
    real, double = both
    mismatches = {}
    for name, params in double["functions"].items():
        if name in ALLOWED:
            assert set(params) <= set(real["functions"][name]), name
            continue
        if params != real["functions"][name]:
            mismatches[name] = {"double": params, "real": real["functions"][name]}
    assert mismatches == {}
