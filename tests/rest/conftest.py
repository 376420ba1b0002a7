"""Fixtures of the REST subcommand tests: a fake Ambari on a real socket, and an in-process CLI runner."""
import io
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from rest_fake_ambari import FakeAmbari  # noqa: E402
from rest_helpers import ADMIN, FAST, Result, build_parser  # noqa: E402

from mm2_ambari.transport import ambari_state  # noqa: E402


@pytest.fixture
def fake():
    server = FakeAmbari().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _environment(monkeypatch, tmp_path):
    """Credentials from the environment, no real ~/.netrc, stable config tags."""
    monkeypatch.setenv("AMBARI_USER", ADMIN[0])
    monkeypatch.setenv("AMBARI_PASSWORD", ADMIN[1])
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    for var in ("AMBARI_URL", "AMBARI_CLUSTER", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                "MM2_KDC_ADMIN_PRINCIPAL", "MM2_KDC_ADMIN_PASSWORD"):
        monkeypatch.delenv(var, raising=False)
    counter = {"n": 0}

    def tag():
        counter["n"] += 1
        return "version%d" % (1000 + counter["n"])
    monkeypatch.setattr(ambari_state, "new_tag", tag)


@pytest.fixture
def cli(monkeypatch):
    def run(*argv, fast=True, stdin=None):
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        monkeypatch.setattr(sys, "stdin", stdin if stdin is not None else io.StringIO(""))
        argv = list(argv) + (FAST if fast else [])
        try:
            args = build_parser().parse_args(argv)
            code = args.func(args)
        except SystemExit as exc:
            code = exc.code
        return Result(code, out.getvalue(), err.getvalue())
    return run
