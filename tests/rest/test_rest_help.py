"""Help that teaches a new user: the overview names every command, every COMMAND --help has examples that parse,
a flow is always quoted ('A->B'), no internal module name shows, and two common slips get a 'did you mean'."""
import re
import shlex

import pytest

from mm2_ambari import cli
from mm2_ambari.common import help_text


def _commands():
    parser = cli.build_parser()
    out = []
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        out.append((name, sub))
        if sub._subparsers is not None:
            out.extend(("%s %s" % (name, n), s) for n, s in sub._subparsers._group_actions[0].choices.items())
    return parser, out


def test_the_overview_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    parser, commands = _commands()
    for name, _ in commands:
        if " " not in name:
            assert re.search(r"^  %s +\S" % re.escape(name), text, re.M), name
    assert "130 interrupted" in text


@pytest.mark.parametrize("name", [n for n, _ in _commands()[1]])
def test_every_command_help_has_examples_that_parse(name, capsys):
    assert cli.main(name.split() + ["--help"]) == 0
    text = capsys.readouterr().out
    assert "Example" in text, name
    examples = [line.strip() for line in text.split("Example", 1)[1].splitlines()[1:] if line.strip()]
    assert examples == help_text.EXAMPLES[name]
    for example in examples:
        assert "->" not in example or re.search(r"'[\w.-]+->[\w.-]+'", example), example   # quoted: not a redirect
        words = shlex.split(example)
        assert words[0] == "mm2-ambari"
        cli.build_parser().parse_args(words[1:])   # SystemExit here: the example does not work
    for internal in ("mm2_core", "mm2_ambari.", "deployfile", "build.py"):
        assert internal not in text, (name, internal)


def test_cutover_without_check_gets_a_did_you_mean(capsys):
    assert cli.main(["cutover", "--flow", "east->west", "--url", "http://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert "did you mean `mm2-ambari cutover check ...`, the same options after check?" in err
    assert "east->west" not in err   # options are not echoed


def test_import_mm1_without_the_separator_gets_a_did_you_mean(capsys):
    assert cli.main(["import-mm1", "--kafka-version", "3.7.1", "--out", "x.yaml", "kafka-mirror-maker.sh",
                     "--consumer.config", "c.properties"]) == 2
    err = capsys.readouterr().err
    assert "mm2-ambari import-mm1: MirrorMaker 1's command line goes after `--` (did you mean" in err


def test_flow_format_hints_show_the_quoted_form(capsys):
    assert cli.main(["flow", "pause", "--help"]) == 0
    assert "--flow 'A->B'" in capsys.readouterr().out
