"""`mm2-ambari validate FILE`: check a deployment file completely offline.

The same checks deploy and configure make before their first change, without an Ambari server:
the deployment section (deployfile), the configurations the file produces on top of the stack
defaults (mm2_core.config.schema, what build.py writes into the stack XML), the core validator
(mm2_core.rendering.render.validate, the one the agent and the service advisor run) and the driver
placement rules (mm2_core.model.placement, as the advisor applies them to deployment.hosts and the
config groups). What needs the cluster (its Kafka brokers, the stack's Kafka version, config
groups already in Ambari) is left to deploy. Exit 0 valid, 2 invalid.
"""
import os
import sys

from mm2_core.config import names, schema
from mm2_ambari.common import inputs
from mm2_ambari.common.errors import EXIT_BAD_INPUT, EXIT_OK, BadInput, report
from mm2_ambari.offline import render_cmd
from mm2_ambari.rest import config_apply, configplan, deployfile
from mm2_ambari.transport.ambari_state import StackDefaults


def register(subparsers):
    p = subparsers.add_parser(
        "validate", help="check a deployment file offline (validator and placement rules); exit 0/2",
        description="The same checks deploy and configure make before their first change, without an Ambari "
                    "server: the deployment section, the configurations the file gives on top of the stack "
                    "defaults, the validator the agent and the service advisor run (live flow settings "
                    "included), and the driver placement rules. What needs the cluster (its Kafka brokers, the "
                    "stack's Kafka version, config groups already in Ambari) is left to deploy. Exit 0 valid, "
                    "2 invalid.")
    p.add_argument("topology", metavar="TOPOLOGY.yaml", help="advanced topology YAML with a deployment: section")
    p.add_argument("--kafka-version", help="Kafka version MM2 runs (default: deployment.kafka_version or "
                                           "kafka-mm2-env/kafka_version_override of the file)")
    p.set_defaults(func=run)


class _OfflineContext(object):
    """What config_apply.validate / config_apply.check_placement need of a Context: somewhere to write warnings."""

    def __init__(self, err):
        self.err = err

    def log(self, message):
        print(message, file=self.err)


def catalog_defaults():
    """The stack defaults as build.py generates them from mm2_core.config.schema."""
    props, passwords = {}, {}
    templates = render_cmd.TEMPLATES_DIR
    for ctype in schema.CONFIG_TYPES:
        for prop in ctype.properties:
            value = prop.default
            path = os.path.join(templates, prop.content_file) if prop.content_file else None
            if path and os.path.isfile(path):
                with open(path, encoding="utf-8") as fh:
                    value = fh.read()
            props.setdefault(ctype.name, {})[prop.name] = "" if value is None else str(value)
            if prop.property_type == "PASSWORD":
                passwords.setdefault(ctype.name, set()).add(prop.name)
    return StackDefaults(props, passwords)


def validate_file(path, kafka_version=None, err=None):
    """Raise BadInput listing every problem; print warnings to err."""
    ctx = _OfflineContext(err or sys.stderr)
    df = deployfile.load(path)
    changes = configplan.plan(catalog_defaults(), {}, df.desired_overrides())
    env = next(ch for ch in changes if ch.type == names.ENV).properties
    override = (env.get("kafka_version_override") or "").strip()
    version = kafka_version or df.kafka_version or override
    if not version:
        raise BadInput("%s: which Kafka version runs MirrorMaker 2? Offline there is no stack to ask: set "
                       "deployment.kafka_version or pass --kafka-version" % df.where("deployment"))
    if kafka_version or df.kafka_version:  # checked and blamed on where it came from, once
        source = "--kafka-version" if kafka_version else "%s: deployment.kafka_version" % df.where(
            "deployment", "kafka_version")
        version, warning = inputs.kafka_version(version, source)
        if warning:
            ctx.log("warning: %s: %s" % (source, warning))
        configurations = config_apply.validate(ctx, df, changes, str(version),
                                      skip=lambda p, v=version: inputs.is_version_problem(p, v))
    else:
        configurations = config_apply.validate(ctx, df, changes, str(version))
    config_apply.check_placement(ctx, df, configurations, str(version), None, set(df.hosts), [])
    return df, str(version)


def run(args):
    try:
        df, version = validate_file(args.topology, args.kafka_version)
    except BadInput as exc:
        report(sys.stderr, exc)
        return EXIT_BAD_INPUT
    print("%s: valid for Kafka %s (%d driver host(s), %d config group(s))" % (
        df.path, version, len(df.hosts), len(df.config_groups)))
    return EXIT_OK
