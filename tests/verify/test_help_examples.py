"""mm2-verify --help teaches with examples that parse, the flow quoted ('A->B' unquoted is a shell redirect)."""
import shlex

from mm2_verify import cli
from mm2_verify_job import job


def test_help_shows_examples_that_parse(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    for example in cli.EXAMPLES:
        assert "  %s\n" % example in text
        words = shlex.split(example)[1:]
        if words == ["demo"]:
            continue
        wrapper, rest = cli.wrapper_parser().parse_known_args(words)
        job.parse_args(rest)   # SystemExit: the example does not work
        assert "'primary->backup'" in example


def test_a_malformed_flow_shows_the_quoted_form():
    try:
        job.parse_flow("primary-")
    except job.BadInput as exc:
        assert "--flow 'primary->backup'" in str(exc)
    else:
        raise AssertionError("accepted")
