"""Fixtures of the REST subcommand tests: a fake Ambari on a real socket, and an in-process CLI runner."""
import argparse
import io
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from fake_ambari import FakeAmbari  # noqa: E402

from mm2_ambari import ops, rest_cmds  # noqa: E402

ADMIN = ("admin", "admin-secret")


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
    for var in ("AMBARI_URL", "AMBARI_CLUSTER", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(var, raising=False)
    counter = {"n": 0}

    def tag():
        counter["n"] += 1
        return "version%d" % (1000 + counter["n"])
    monkeypatch.setattr(ops, "new_tag", tag)


class Result(object):
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def __repr__(self):
        return "Result(code=%r)\n--- stdout\n%s\n--- stderr\n%s" % (self.code, self.out, self.err)


def build_parser():
    """The same parser shape as mm2_ambari.cli (dest='command'), with the REST subcommands only."""
    parser = argparse.ArgumentParser(prog="mm2-ambari")
    sub = parser.add_subparsers(dest="command")
    rest_cmds.register(sub)
    return parser


FAST = ["--poll-interval", "0", "--retry-backoff", "0.02", "--no-progress"]


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


def normalize(calls):
    """Mutating calls with volatile parts (tags) made stable for exact comparisons."""
    out = []
    for method, path, body in calls:
        out.append((method, path, _strip_tags(body)))
    return out


def _strip_tags(body):
    if isinstance(body, list):
        return [_strip_tags(b) for b in body]
    if isinstance(body, dict):
        return dict((k, "<tag>" if k == "tag" and isinstance(v, str) and re.match(r"^version\d+$", v)
                     else _strip_tags(v)) for k, v in body.items())
    return body
