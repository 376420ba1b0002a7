"""Entry point of `mm2-ambari`. Each subcommand module registers itself here.

Exit codes (for pipelines): 0 ok, 1 the operation failed, 2 bad input, 130 interrupted (Ctrl-C).
"""
import argparse
import difflib
import importlib
import os
import sys

from mm2_ambari.errors import EXIT_INTERRUPTED
from mm2_ambari.version import tools_version

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

# Modules that provide register(subparsers); each adds its subcommands with set_defaults(func=...).
SUBCOMMAND_MODULES = (
    "mm2_ambari.render_cmd",
    "mm2_ambari.rest_cmds",
    "mm2_ambari.validate_cmd",
    "mm2_ambari.dr_cmds",
    "mm2_ambari.mm1_cmds",
)


DESCRIPTION = """\
Manage the MirrorMaker 2 service of an Ambari cluster from the command line.

Offline (no Ambari needed):
  render     write the files the agent would write for one host, from an Ambari configurations map
  validate   check a deployment file (topology YAML with a deployment: section)

Against an Ambari server (--url/AMBARI_URL, --cluster/AMBARI_CLUSTER; the password comes from
AMBARI_PASSWORD, ~/.netrc or a prompt, never from the command line):
  deploy, configure, restart, status, alerts, check, run, remove

Exit codes: 0 ok, 1 the operation failed, 2 bad input. `mm2-ambari COMMAND --help` describes one command.
Docs: docs/automate.md (REST commands) and docs/configure.md (render)."""


def build_parser():
    parser = argparse.ArgumentParser(prog="mm2-ambari", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version="mm2-ambari " + tools_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_name in SUBCOMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def unknown_arguments(prog, extra, parser):
    """A message naming each unknown option, with a 'did you mean'; values are not echoed (an
    unknown option's value may be a password)."""
    known = sorted(set(o for action in parser._actions for o in action.option_strings if o.startswith("--")))
    lines = []
    for token in extra:
        if not token.startswith("-"):
            continue
        name = token.split("=", 1)[0]
        if "passw" in name.lower():
            lines.append("%s: %s: a password is never taken from the command line (it would show in `ps` and "
                         "the shell history); use AMBARI_PASSWORD, ~/.netrc or the prompt" % (prog, name))
            continue
        close = difflib.get_close_matches(name.replace("_", "-"), known, n=1, cutoff=0.6)
        lines.append("%s: unknown option %s%s; see %s --help" % (
            prog, name, " (did you mean %s?)" % close[0] if close else "", prog))
    values = [t for t in extra if not t.startswith("-")]
    if values:
        lines.append("%s: %d unexpected argument(s) that no option takes (not shown); see %s --help"
                     % (prog, len(values), prog))
    return "\n".join(lines)


def main(argv=None):
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    choices = parser._subparsers._group_actions[0].choices
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in choices:  # unknown options first: argparse would only say a required one is missing
        sub = choices[command]
        rest = argv[argv.index(command) + 1:]
        while sub._subparsers is not None:  # a command with its own subcommands (cutover check)
            nested = sub._subparsers._group_actions[0].choices
            word = next((a for a in rest if not a.startswith("-")), None)
            if word not in nested:
                break
            sub, rest = nested[word], rest[rest.index(word) + 1:]
        known = [o for action in sub._actions for o in action.option_strings]
        own = argv[:argv.index("--")] if "--" in argv else argv  # after `--`: a wrapped command line (import-mm1)
        unknown = [a for a in own if a.startswith("--") and not any(
            o.startswith(a.split("=", 1)[0]) for o in known)]
        if unknown:
            sys.stderr.write(unknown_arguments("mm2-ambari " + command, unknown, sub) + "\n")
            return EXIT_BAD_INPUT
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage (our "bad input" too), 0 for --help/--version
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if extra:
        sys.stderr.write(unknown_arguments("mm2-ambari " + args.command, extra, choices[args.command]) + "\n")
        return EXIT_BAD_INPUT
    try:
        return args.func(args)
    except KeyboardInterrupt:   # the Ambari commands say what they had sent (rest_cmds.interrupted_line)
        sys.stderr.write("mm2-ambari %s: interrupted; nothing was sent to Ambari, and no file is left half-written "
                         "(each is written whole or not at all)\n" % args.command)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: one masked line, the stack trace only when asked for
        if os.environ.get("MM2_AMBARI_TRACEBACK"):
            raise
        from mm2_ambari import masking
        sys.stderr.write("mm2-ambari %s: internal error: %s: %s (a bug: please report it; "
                         "MM2_AMBARI_TRACEBACK=1 shows the stack trace)\n"
                         % (args.command, type(exc).__name__, masking.mask_text(str(exc).split("\n")[0])))
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
