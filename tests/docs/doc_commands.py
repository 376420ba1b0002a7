"""The shell commands the documentation shows, and how each kind is run or checked.

Commands come from fenced code blocks tagged bash, sh, shell or console (in console blocks only the
lines after a `$ ` prompt) of README.md, docs/*.md, tests/README.md and benchmarks/README.md. A command nobody knows how to check is an error: add a rule
to RULES when a page shows a new kind of command.
"""
import io
import os
import re
import shlex

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
# <id>, <new version>, <driver>: placeholders the reader replaces (never pasted as they are)
PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9 _.-]*>")


def doc_files(repo=REPO):
    """The pages whose commands are checked, relative to repo."""
    pages = ["README.md", "tests/README.md", "benchmarks/README.md"]
    docs = os.path.join(repo, "docs")
    pages += sorted("docs/" + name for name in os.listdir(docs) if name.endswith(".md"))
    return [p for p in pages if os.path.isfile(os.path.join(repo, p))]


class Command(object):
    def __init__(self, page, line, text):
        self.page, self.line, self.text = page, line, text

    @property
    def where(self):
        return "%s:%d" % (self.page, self.line)

    def __repr__(self):
        return "%s: %s" % (self.where, self.text)


def _logical_lines(lines):
    """(first line number, text) with backslash continuations joined."""
    pending, start = None, None
    for number, line in lines:
        if pending is None:
            pending, start = line, number
        else:
            pending = pending[:-1].rstrip() + " " + line.strip()
        if pending.endswith("\\"):
            continue
        yield start, pending
        pending = None
    if pending is not None:
        yield start, pending


def commands_in(page, text):
    """Every command of one page's shell blocks."""
    found = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = re.match(r"^\s*```(\w*)\s*$", lines[i])
        if not match:
            i += 1
            continue
        language, body = match.group(1), []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1
        if language not in SHELL_LANGUAGES:
            continue
        if language == "console":
            kept, in_command = [], False
            for number, line in body:
                if line.startswith("$ "):
                    kept.append((number, line[2:]))
                    in_command = line.rstrip().endswith("\\")
                elif in_command:
                    kept.append((number, line))
                    in_command = line.rstrip().endswith("\\")
            body = kept
        for number, line in _logical_lines(body):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                found.append(Command(page, number, stripped))
    return found


def all_commands(repo=REPO):
    result = []
    for page in doc_files(repo):
        with io.open(os.path.join(repo, page), encoding="utf-8") as fh:
            result.extend(commands_in(page, fh.read()))
    return result


def words(text):
    """Shell words (comments dropped), placeholders kept as they are written."""
    return shlex.split(text, comments=True)


def shell_operators(text):
    """Unquoted operators (|, >, <, ;, &&, ...) bash would act on, placeholders aside."""
    lexer = shlex.shlex(PLACEHOLDER.sub("PLACEHOLDER", text), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return [token for token in lexer if token and set(token) <= set("|&;<>()")]


def split_env(argv):
    """(leading VAR=value assignments, the rest)."""
    env = {}
    while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
        name, value = argv[0].split("=", 1)
        env[name] = value
        argv = argv[1:]
    return env, argv
