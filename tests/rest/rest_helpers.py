"""Helpers shared by the REST tests (a module of its own: every test directory has a conftest)."""
import argparse
import os
import re

from rest_fake_ambari import C, S

from mm2_ambari.dr import commands as dr_cmds
from mm2_ambari.offline import validate_cmd
from mm2_ambari.rest import commands as rest_cmds
from mm2_ambari.upgrade import commands as upgrade_cmds

HERE = os.path.dirname(os.path.abspath(__file__))
TOPOLOGY = os.path.join(HERE, "files", "deploy-test.yaml")
HOSTS = ["mm2-1.example.com", "mm2-2.example.com"]
CL = "/api/v1/clusters/prod"
ADMIN = ("admin", "admin-secret")
FAST = ["--poll-interval", "0", "--retry-backoff", "0.02", "--no-progress"]


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
    upgrade_cmds.register(sub)
    rest_cmds.register_removal(sub)
    validate_cmd.register(sub)
    dr_cmds.register(sub)
    return parser


def normalize(calls):
    """Mutating calls with volatile parts (tags) made stable for exact comparisons."""
    return [(method, path, _strip_tags(body)) for method, path, body in calls]


def _strip_tags(body):
    if isinstance(body, list):
        return [_strip_tags(b) for b in body]
    if isinstance(body, dict):
        return dict((k, "<tag>" if k == "tag" and isinstance(v, str) and re.match(r"^version\d+$", v)
                     else _strip_tags(v)) for k, v in body.items())
    return body


def deploy(cli, fake, *extra, path=TOPOLOGY):
    return cli("deploy", path, "--url", fake.url, *extra)


def configure(cli, fake, path, *extra):
    return cli("configure", path, "--url", fake.url, *extra)


def with_configurations(tmp_path, extra, name="deploy-extra.yaml"):
    """The test topology with more entries under deployment.configurations (4-space indented YAML)."""
    with open(TOPOLOGY) as fh:
        text = fh.read()
    path = tmp_path / name
    path.write_text(text.rstrip("\n") + "\n" + extra.strip("\n") + "\n")
    return str(path)


def edited(tmp_path, old, new, name="edited.yaml", source=TOPOLOGY):
    with open(source) as fh:
        text = fh.read()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return str(path)


def restart_body(hosts, context="Restart MirrorMaker 2 Driver (configuration changed)"):
    return {"RequestInfo": {"context": context, "command": "RESTART",
                            "operation_level": {"level": "SERVICE", "cluster_name": "prod", "service_name": S}},
            "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(hosts)}]}
