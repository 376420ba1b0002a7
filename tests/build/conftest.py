"""Fixtures for the build tests: copies of the checkout and mpacks built from them."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mpack_helpers  # noqa: E402


@pytest.fixture(scope="session")
def build_module():
    return mpack_helpers.load_build_module()


@pytest.fixture
def repo_copy(tmpdir):
    """A writable copy of the checkout for tests that break or change it."""
    return mpack_helpers.copy_checkout(str(tmpdir.join("repo")))


@pytest.fixture(scope="session")
def session_repo(tmpdir_factory):
    """One read-only copy of the checkout shared by the tests that only build and inspect."""
    return mpack_helpers.copy_checkout(str(tmpdir_factory.mktemp("checkout").join("repo")))


@pytest.fixture(scope="session")
def built_mpack(session_repo, tmpdir_factory, build_module):
    """The tarball build.py makes of the (copied) checkout."""
    return build_module.build(str(tmpdir_factory.mktemp("dist")), repo=session_repo)
