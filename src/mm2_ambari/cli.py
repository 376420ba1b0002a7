"""Entry point of `mm2-ambari` (console script and `python -m mm2_ambari.cli`). Each room's command module
registers its subcommands here.

Exit codes (for pipelines): 0 ok, 1 the operation failed, 2 bad input, 130 interrupted (Ctrl-C).
"""
import argparse
import difflib
import importlib
import os
import sys

from mm2_ambari.common.errors import EXIT_INTERRUPTED
from mm2_ambari.version import tools_version

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

# (module, function) pairs: each function(subparsers) adds its subcommands with set_defaults(func=...), in the order
# argparse lists them ("choose from ...").
SUBCOMMANDS = (
    ("mm2_ambari.offline.render_cmd", "register"),        # render
    ("mm2_ambari.rest.commands", "register"),             # deploy configure restart status alerts check run flow
    ("mm2_ambari.upgrade.commands", "register"),          # upgrade
    ("mm2_ambari.rest.commands", "register_removal"),     # remove-host remove
    ("mm2_ambari.offline.validate_cmd", "register"),      # validate
    ("mm2_ambari.dr.commands", "register"),               # cutover failover failback drill
    ("mm2_ambari.mm1.commands", "register"),              # import-mm1 seed-from-mm1
)


def build_parser():
    from mm2_ambari.common import help_text
    parser = argparse.ArgumentParser(prog="mm2-ambari", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version="mm2-ambari " + tools_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_name, function in SUBCOMMANDS:
        getattr(importlib.import_module(module_name), function)(subparsers)
    for name, sub in subparsers.choices.items():   # examples in every COMMAND --help
        help_text.teach(sub, name)
    parser.description = help_text.overview(subparsers)   # every command, from the parser itself
    subparsers._choices_actions = []   # listed once, in the overview's groups
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


MM1_WORDS = ("--consumer.config", "--producer.config", "--whitelist", "--include", "--num.streams")


def _mm1_hint(command, argv):
    """import-mm1 / seed-from-mm1 given MirrorMaker 1's command line without the `--` before it."""
    if command not in ("import-mm1", "seed-from-mm1") or "--" in argv:
        return None
    if not any(a in MM1_WORDS or a.endswith(("kafka-mirror-maker.sh", "kafka.tools.MirrorMaker")) for a in argv):
        return None
    return ("mm2-ambari %s: MirrorMaker 1's command line goes after `--` (did you mean `mm2-ambari %s OPTIONS -- "
            "kafka-mirror-maker.sh --consumer.config consumer.properties --producer.config producer.properties "
            "...`?); see mm2-ambari %s --help" % (command, command, command))


def main(argv=None):
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    choices = parser._subparsers._group_actions[0].choices
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in choices:  # unknown options first: argparse would only say a required one is missing
        sub = choices[command]
        rest = argv[argv.index(command) + 1:]
        asks_help = "-h" in rest or "--help" in rest
        hint = _mm1_hint(command, argv)
        if hint:
            sys.stderr.write(hint + "\n")
            return EXIT_BAD_INPUT
        while sub._subparsers is not None:  # a command with its own subcommands (cutover check)
            nested = sub._subparsers._group_actions[0].choices
            word = next((a for a in rest if not a.startswith("-")), None)
            if word not in nested:
                if not asks_help:
                    # the options are not echoed: one of them could be a password given by mistake
                    sys.stderr.write("mm2-ambari %s: say what to do (did you mean `mm2-ambari %s %s ...`, the same "
                                     "options after %s?); subcommands: %s; see mm2-ambari %s --help\n" % (
                                         command, command, sorted(nested)[0], sorted(nested)[0],
                                         ", ".join(sorted(nested)), command))
                    return EXIT_BAD_INPUT
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
    except KeyboardInterrupt:   # the Ambari commands say what they had sent (rest.session.interrupted_line)
        sys.stderr.write("mm2-ambari %s: interrupted; nothing was sent to Ambari, and no file is left half-written "
                         "(each is written whole or not at all)\n" % args.command)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: one masked line, the stack trace only when asked for
        if os.environ.get("MM2_AMBARI_TRACEBACK"):
            raise
        from mm2_ambari.common import masking
        sys.stderr.write("mm2-ambari %s: internal error: %s: %s (a bug: please report it; "
                         "MM2_AMBARI_TRACEBACK=1 shows the stack trace)\n"
                         % (args.command, type(exc).__name__, masking.mask_text(str(exc).split("\n")[0])))
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
