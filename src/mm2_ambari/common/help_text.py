"""What `mm2-ambari --help` and `mm2-ambari COMMAND --help` teach: an overview naming every command, and working
examples for each (a flow is always quoted, 'A->B': unquoted, the shell reads > as a redirect and leaves an empty
file named after the target behind).

The overview is built from the commands the parser has, so a new command is listed the day it is added; the
examples are parsed by tests/rest/test_rest_help.py, so they stay valid."""
import argparse
import textwrap

# Examples per command (the key is the command line's words before the options). deploy.yaml is a deployment file
# whose deployment.ambari section gives --url and --cluster (-f), as `mm2-ambari validate` checks it.
EXAMPLES = {
    "render": ["mm2-ambari render --configs configs.json --kafka-version 3.7.1 --out preview "
               "--host mm2-1.example.com"],
    "validate": ["mm2-ambari validate deploy.yaml",
                 "mm2-ambari validate deploy.yaml --kafka-version 3.7.1"],
    "deploy": ["mm2-ambari deploy deploy.yaml --dry-run", "mm2-ambari deploy deploy.yaml"],
    "configure": ["mm2-ambari configure deploy.yaml --dry-run", "mm2-ambari configure deploy.yaml --rolling"],
    "restart": ["mm2-ambari restart -f deploy.yaml --stale-only",
                "mm2-ambari restart --url https://ambari.example.com:8443 --cluster prod --rolling"],
    "status": ["mm2-ambari status -f deploy.yaml",
               "mm2-ambari status --url https://ambari.example.com:8443 --cluster prod --json"],
    "alerts": ["mm2-ambari alerts -f deploy.yaml --fail-on CRITICAL"],
    "check": ["mm2-ambari check -f deploy.yaml"],
    "run": ["mm2-ambari run -f deploy.yaml REPLICATION_STATUS",
            "mm2-ambari run -f deploy.yaml CUTOVER_CHECK --param flow='east->west'"],
    "flow": ["mm2-ambari flow pause --flow 'east->west' -f deploy.yaml",
             "mm2-ambari flow seed --flow 'east->west' --at end -f deploy.yaml"],
    "upgrade": ["mm2-ambari upgrade -f deploy.yaml --mpack kafka-mirrormaker2-mpack.tar.gz --dry-run"],
    "remove-host": ["mm2-ambari remove-host mm2-2.example.com --url https://ambari.example.com:8443 "
                    "--cluster prod --yes"],
    "remove": ["mm2-ambari remove -f deploy.yaml --dry-run", "mm2-ambari remove -f deploy.yaml --yes"],
    "cutover": ["mm2-ambari cutover check --flow 'east->west' --groups orders -f deploy.yaml"],
    "cutover check": ["mm2-ambari cutover check --flow 'east->west' --groups orders -f deploy.yaml",
                      "mm2-ambari cutover check --flow 'east->west' --threshold max.rpo.seconds=30 -f deploy.yaml"],
    "failover": ["mm2-ambari failover --flow 'east->west' --groups orders,billing --stop-flow -f deploy.yaml "
                 "--dry-run",
                 "mm2-ambari failover --flow 'east->west' --groups orders,billing --stop-flow -f deploy.yaml"],
    "failback": ["mm2-ambari failback --flow 'east->west' --groups orders,billing --restore original "
                 "-f deploy.yaml --dry-run"],
    "drill": ["mm2-ambari drill --flow 'east->west' --groups orders --records 500 -f deploy.yaml"],
    "import-mm1": ["mm2-ambari import-mm1 --kafka-version 3.7.1 --source-alias dc1 --target-alias dc2 "
                   "--out deploy.yaml -- kafka-mirror-maker.sh --consumer.config consumer.properties "
                   "--producer.config producer.properties --include 'orders.*' --num.streams 4"],
    "seed-from-mm1": ["mm2-ambari seed-from-mm1 --kafka-home /opt/kafka --source-alias dc1 --target-alias dc2 "
                      "--dry-run -- kafka-mirror-maker.sh --consumer.config consumer.properties "
                      "--producer.config producer.properties --include 'orders.*'"],
}

# The overview's groups, in order; a command in none of them is listed under "Other".
GROUPS = (
    ("Offline (no Ambari needed)", ("validate", "render", "import-mm1")),
    ("Against an Ambari server (--url/AMBARI_URL and --cluster/AMBARI_CLUSTER, or -f FILE with a "
     "deployment.ambari section; the password comes from AMBARI_PASSWORD, ~/.netrc or a prompt, never from the "
     "command line)", ("deploy", "configure", "restart", "status", "alerts", "check", "run", "flow", "upgrade",
                       "remove-host", "remove")),
    ("Disaster recovery (a flow is quoted: --flow 'A->B')", ("cutover", "failover", "failback", "drill")),
    ("Moving from MirrorMaker 1", ("seed-from-mm1",)),
)


class Formatter(argparse.HelpFormatter):
    """argparse's wrapping for prose; a line indented by two spaces (an example, a list) is kept as written."""

    def _fill_text(self, text, width, indent):
        out, paragraph = [], []

        def flush():
            if paragraph:
                out.append(argparse.HelpFormatter._fill_text(self, " ".join(paragraph), width, indent))
                del paragraph[:]
        for line in text.splitlines():
            if line.startswith("  ") or not line.strip():
                flush()
                out.append(indent + line if line.strip() else "")
            else:
                paragraph.append(line.strip())
        flush()
        return "\n".join(out)


def epilog(key):
    return "Example%s:\n%s" % ("s" if len(EXAMPLES[key]) > 1 else "", "\n".join("  " + e for e in EXAMPLES[key]))


def teach(parser, key):
    """Give a subcommand's parser its examples (and the formatter that keeps them as written)."""
    parser.formatter_class = Formatter
    if key in EXAMPLES:
        parser.epilog = epilog(key)
    nested = parser._subparsers._group_actions[0].choices if parser._subparsers is not None else {}
    for name, sub in nested.items():
        teach(sub, "%s %s" % (key, name))


def overview(subparsers_action):
    """The top-level description: every command with its one-line help, in groups."""
    helps = dict((a.dest, a.help) for a in subparsers_action._choices_actions)
    names = list(subparsers_action.choices)
    width = max(len(n) for n in names) + 2
    lines = ["Manage the MirrorMaker 2 service of an Ambari cluster from the command line.", ""]
    for title, commands in GROUPS + (("Other", tuple(n for n in names if not any(
            n in group for _, group in GROUPS))),):
        present = [c for c in commands if c in helps]
        if not present:
            continue
        lines.extend(textwrap.wrap(title + ":", 100, subsequent_indent="  "))
        for command in present:
            lines.extend(textwrap.wrap("  %s%s" % (command.ljust(width), helps[command]), 100,
                                       subsequent_indent=" " * (width + 2)))
        lines.append("")
    lines += ["Exit codes: 0 ok, 1 the operation failed, 2 bad input (nothing was sent), 130 interrupted.",
              "`mm2-ambari COMMAND --help` describes one command, with examples.",
              "Docs: docs/automate.md (commands against Ambari), docs/operate.md (failover, drills), "
              "docs/troubleshooting.md (every message)."]
    return "\n".join(lines)
