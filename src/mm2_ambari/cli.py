"""Entry point of `mm2-ambari`. Each subcommand module registers itself here.

Exit codes (for pipelines): 0 ok, 1 the operation failed, 2 bad input.
"""
import argparse
import importlib
import sys

from mm2_ambari.version import tools_version

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

# Modules that provide register(subparsers); each adds its subcommands with set_defaults(func=...).
SUBCOMMAND_MODULES = (
    "mm2_ambari.render_cmd",
    "mm2_ambari.rest_cmds",
    "mm2_ambari.validate_cmd",
    "mm2_ambari.mm1_cmds",
)


def build_parser():
    parser = argparse.ArgumentParser(prog="mm2-ambari", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version="mm2-ambari " + tools_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_name in SUBCOMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage (our "bad input" too), 0 for --help/--version
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
