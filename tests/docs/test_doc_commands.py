# py3-only: runs the off-cluster commands the docs show (Python 3 tools)
"""Every command shown in the docs is run by a test, or checked where it needs a real cluster.

Run as written (in a scratch copy of the checkout, /tmp/ moved into it): build.py, mm2-ambari render
and validate, --help/--version, mm2-verify --print-spark-submit. Checked: mm2-ambari and mm2-verify command lines
against their own parsers (the files they name must exist), ambari-server mpack commands against the
mpack's name, curl calls against Ambari's REST conventions, pip extras against pyproject.toml, test
paths against the tree. Any other command fails until a rule says how to check it.
"""
import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import doc_commands
from doc_commands import REPO, shell_operators, split_env, words

SCRATCH_INPUTS = ("build.py", "mpack_build", "mpack.json", "common-services", "stacks", "package",
                  "examples", "tests/build/released-names.json")
COMMANDS = doc_commands.all_commands()
SUBSTITUTION = re.compile(r"\$\([^()]*\)")


def _mpack():
    with open(os.path.join(REPO, "mpack.json")) as fh:
        meta = json.load(fh)
    return meta["name"], meta["version"]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A copy of what the commands read, so running them never writes into the checkout."""
    root = tmp_path_factory.mktemp("docs-scratch")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")
    for rel in SCRATCH_INPUTS:
        source, target = os.path.join(REPO, rel), os.path.join(str(root), rel)
        if os.path.isdir(source):
            shutil.copytree(source, target, ignore=ignore)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
    os.makedirs(os.path.join(str(root), "tmp"))
    return str(root)


# -- the ways of checking ---------------------------------------------------------------------------

def run_as_written(text, scratch):
    """The command in bash, in the scratch copy, with this interpreter's scripts first on PATH."""
    text = text.replace("/tmp/", os.path.join(scratch, "tmp") + "/")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(["bash", "-c", text], cwd=scratch, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, "exit %d\n%s\n%s" % (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def _files_exist(args):
    for arg in args:
        if re.match(r"^(examples|package|tests|benchmarks|src)/", arg):
            assert os.path.exists(os.path.join(REPO, arg)), "%s names %s, which does not exist" % (args, arg)


def _parses(parse, argv):
    try:
        parse(argv)
    except SystemExit as exc:
        raise AssertionError("the parser refuses %s (exit %s)" % (argv, exc.code))


def check_mm2_ambari(argv):
    from mm2_ambari import cli
    _parses(cli.build_parser().parse_args, argv[1:])
    _files_exist(argv[1:])


def check_mm2_verify(argv):
    from mm2_verify import cli
    from mm2_verify_job import job
    _wrapper, rest = cli.wrapper_parser().parse_known_args(argv[1:])
    _parses(job.parse_args, rest)
    _files_exist(argv[1:])


def check_spark_submit(argv):
    scripts = [a for a in argv if a.endswith(".py")]
    assert len(scripts) == 1, "spark-submit needs exactly one job file: %s" % argv
    assert os.path.isfile(os.path.join(REPO, scripts[0])), "%s does not exist" % scripts[0]
    from mm2_verify_job import job
    _parses(job.parse_args, argv[argv.index(scripts[0]) + 1:])


AMBARI_SERVER_OPTIONS = {  # ambari-server's own option names (ambari-server.py / setupMpacks.py)
    "install-mpack": {"--mpack", "--verbose", "--force", "--purge", "--purge-list"},
    "upgrade-mpack": {"--mpack", "--verbose"},
    "uninstall-mpack": {"--mpack-name", "--verbose"},
    "restart": set(),
}


def check_ambari_server(argv):
    assert len(argv) > 1 and argv[1] in AMBARI_SERVER_OPTIONS, "unknown ambari-server action: %s" % argv
    name, version = _mpack()
    options = dict(a.split("=", 1) if "=" in a else (a, None) for a in argv[2:])
    assert set(options) <= AMBARI_SERVER_OPTIONS[argv[1]], "unknown option in %s" % argv
    if "--mpack" in options:
        tarball = os.path.basename(options["--mpack"])
        assert tarball in ("%s-%s.tar.gz" % (name, version), "%s-<new-version>.tar.gz" % name), \
            "%s is not the tarball build.py writes (%s-%s.tar.gz)" % (tarball, name, version)
    if "--mpack-name" in options:
        assert options["--mpack-name"] == name


def check_curl(argv):
    methods = [argv[i + 1] for i, a in enumerate(argv) if a == "-X"]
    urls = [a for a in argv if re.match(r'^(https?://|\$AMBARI)', a)]
    assert len(urls) == 1 and "/api/v1" in urls[0] or urls[0].startswith("$AMBARI/"), \
        "one Ambari REST URL expected: %s" % argv
    assert set(methods) <= {"GET", "PUT", "POST", "DELETE"}
    headers = [argv[i + 1] for i, a in enumerate(argv) if a == "-H"]
    if methods and methods[0] != "GET":
        assert any(h.startswith("X-Requested-By:") for h in headers), "Ambari refuses %s without X-Requested-By" % argv
    for i, a in enumerate(argv):
        if a == "-d":
            data = argv[i + 1]
            if data.startswith("@"):
                with open(os.path.join(REPO, data[1:])) as fh:
                    json.load(fh)
            else:
                json.loads(data)


def check_pip_install(argv):
    targets = [a for a in argv[2:] if not a.startswith("-")]
    assert targets, argv
    for target in targets:
        match = re.match(r"^\.(\[(\w+)\])?$", target)
        if match is None:
            assert re.match(r"^[A-Za-z0-9_.-]+([<>=!~]=?[0-9.]+)?$", target), "not a requirement: %s" % target
            continue
        if match.group(2):
            with io.open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as fh:
                text = fh.read()
            assert re.search(r"^%s\s*=" % re.escape(match.group(2)), text, re.M), \
                "pyproject.toml has no extra %r" % match.group(2)


def check_test_run(argv, env):
    paths = [a for a in argv if a.startswith("tests")]
    assert paths or argv[-1] == "tests/run.sh", "which tests? %s" % argv
    for path in paths:
        assert os.path.exists(os.path.join(REPO, path)), "%s does not exist" % path
    src = env.get("MM2_AMBARI_SRC")
    if src and os.path.isdir(os.path.join(REPO, "..", "shared")):
        assert os.path.isdir(os.path.join(REPO, src)), "MM2_AMBARI_SRC=%s does not exist" % src


def check_venv(argv):
    assert argv[1:3] == ["-m", "venv"] and argv[3].startswith(("/tmp/", "~/")), argv


def check_activate(argv):
    assert len(argv) == 2 and argv[1].startswith(("/tmp/", "~/")) and argv[1].endswith("/bin/activate"), argv


def check_pipx_install(argv):
    check_pip_install(["pip"] + argv[1:])


def check_mm2_verify_demo(argv):
    from mm2_verify import demo
    _parses(demo.parser().parse_args, argv[2:])


def check_benchmark(argv):
    script = [a for a in argv if a.startswith("benchmarks/")]
    assert len(script) == 1 and os.path.isfile(os.path.join(REPO, script[0])), "no benchmark script in %s" % argv


def check_inspection(argv):
    assert all(a.startswith(("/", "-")) for a in argv[1:]), "read-only look at absolute paths on a host: %s" % argv


def check_kill(argv):
    assert argv[1:] and all(PLACEHOLDER_ARG.match(a) or re.match(r"^-(TERM|KILL|9|15)$", a) for a in argv[1:]), \
        "kill takes a <pid> placeholder (and a signal): %s" % argv


PLACEHOLDER_ARG = re.compile(r"^<[a-z][a-z -]*>$")


# (what the rule is for, does it apply to argv, what to do: "run" or a check taking argv [, env])
RULES = [
    ("shell variables", lambda a: not a or a[0] == "export", None),
    ("build.py runs as written", lambda a: a[:2] == ["python3", "build.py"], "run"),
    ("CLI --help/--version runs", lambda a: a[0] in ("mm2-ambari", "mm2-verify") and
     a[-1] in ("--help", "--version"), "run"),
    ("mm2-ambari render runs", lambda a: a[:2] == ["mm2-ambari", "render"], "run"),
    ("mm2-ambari validate runs (offline)", lambda a: a[:2] == ["mm2-ambari", "validate"], "run"),
    ("mm2-ambari import-mm1 runs (offline)", lambda a: a[:2] == ["mm2-ambari", "import-mm1"], "run"),
    ("mm2-verify --print-spark-submit runs", lambda a: a[0] == "mm2-verify" and "--print-spark-submit" in a,
     "run"),
    ("mm2-verify demo (needs pyspark and Java; run by tests/verify/test_demo.py)",
     lambda a: a[:2] == ["mm2-verify", "demo"], check_mm2_verify_demo),
    ("mm2-ambari against Ambari: parsed", lambda a: a[0] == "mm2-ambari", check_mm2_ambari),
    ("mm2-verify with Spark and data: parsed", lambda a: a[0] == "mm2-verify", check_mm2_verify),
    ("spark-submit of the job: parsed", lambda a: a[0] == "spark-submit", check_spark_submit),
    ("ambari-server on the server host", lambda a: a[0] == "ambari-server", check_ambari_server),
    ("curl to Ambari's REST API", lambda a: a[0] == "curl", check_curl),
    ("pip install", lambda a: os.path.basename(a[0]) == "pip" and a[1:2] == ["install"], check_pip_install),
    ("the test suite or one folder", lambda a: a[:2] == ["bash", "tests/run.sh"] or
     ("-m" in a and a[a.index("-m") + 1:a.index("-m") + 2] == ["pytest"]), check_test_run),
    ("a virtualenv outside the checkout", lambda a: re.match(r"^python3(\.\d+)?$", a[0]) is not None and
     a[1:3] == ["-m", "venv"], check_venv),
    ("activate a virtualenv outside the checkout", lambda a: a[0] in (".", "source"), check_activate),
    ("pipx install", lambda a: a[:2] == ["pipx", "install"], check_pipx_install),
    ("look at files on a host", lambda a: a[0] in ("ls", "ps"), check_inspection),
    ("stop a stray process on a host (never run)", lambda a: a[0] == "kill", check_kill),
    ("a benchmark (minutes of timing: not run here)", lambda a: len(a) > 1 and a[1].startswith("benchmarks/"),
     check_benchmark),
]


def rule_for(argv):
    for description, applies, action in RULES:
        if applies(argv):
            return description, action
    return None, None


def _parts(command):
    """A command line split at unquoted &&, command substitutions replaced by a word."""
    return [p.strip() for p in SUBSTITUTION.sub("SUBSTITUTED", command.text).split(" && ")]


def _unique(commands):
    seen = {}
    for command in commands:
        seen.setdefault(command.text, []).append(command)
    return seen


UNIQUE = _unique(COMMANDS)


def test_every_page_with_commands_is_read():
    pages = set(c.page for c in COMMANDS)
    assert {"README.md", "docs/install-and-upgrade.md", "docs/configure.md", "docs/automate.md",
            "docs/verify.md", "docs/development-and-testing.md"} <= pages


def test_an_unknown_command_has_no_rule():
    assert rule_for(words("frobnicate --all")) == (None, None)
    assert rule_for(words("rm -rf /var/lib/ambari-server")) == (None, None)


def test_an_unquoted_arrow_is_a_redirection():
    """`--flow a->b` unquoted makes bash write to a file named b: the docs quote it."""
    assert shell_operators("mm2-verify --flow a->b") == [">"]
    assert shell_operators("mm2-verify --flow 'a->b' --mpack=/tmp/x-<new-version>.tar.gz") == []


@pytest.mark.parametrize("text", sorted(UNIQUE), ids=[UNIQUE[t][0].where for t in sorted(UNIQUE)])
def test_documented_command(text, scratch):
    where = ", ".join(c.where for c in UNIQUE[text])
    for part in _parts(UNIQUE[text][0]):
        operators = shell_operators(part)
        assert not operators, "%s: %r has unquoted %s: quote the argument" % (where, part, operators)
        env, argv = split_env(words(part))
        description, action = rule_for(argv)
        assert description, ("%s: no rule says how to run or check %r: add one to tests/docs/"
                             "test_doc_commands.py RULES" % (where, part))
        if action == "run":
            run_as_written(part, scratch)
        elif action is check_test_run:
            action(argv, env)
        elif action is not None:
            action(argv)


# -- troubleshooting quotes what the code prints ------------------------------------------------------

FORMAT_SPEC = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdrifxg]|\{[^{}]*\}")


def _string_constants():
    """Every string literal of the code, each formatted value (%s, %d, {name}) written as '…'."""
    found = set()
    for top in ("package", "src", "common-services"):
        for dirpath, _dirs, files in os.walk(os.path.join(REPO, top)):
            for name in files:
                if name.endswith(".py"):
                    with io.open(os.path.join(dirpath, name), encoding="utf-8") as fh:
                        tree = ast.parse(fh.read())
                    found.update(FORMAT_SPEC.sub("…", n.value) for n in ast.walk(tree)
                                 if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return found


def _quoted_messages():
    with io.open(os.path.join(REPO, "docs", "troubleshooting.md"), encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    return [(i + 1, m) for i, line in enumerate(lines) if line.startswith("**You see:**")
            for m in re.findall(r"`([^`]+)`", line)]


def test_troubleshooting_quotes_messages_the_code_prints():
    constants = _string_constants()
    quoted = _quoted_messages()
    assert len(quoted) >= 30
    missing = []
    for line, message in quoted:
        for fragment in message.split("…"):
            fragment = fragment.strip(" ")
            if len(fragment) >= 6 and not any(fragment in c for c in constants):
                missing.append("docs/troubleshooting.md:%d: %r" % (line, fragment))
    assert not missing, "not printed by the code (reworded?):\n" + "\n".join(missing)


# -- links between the pages ---------------------------------------------------------------------------

def _anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path):
    with io.open(path, encoding="utf-8") as fh:
        text = re.sub(r"```.*?```", "", fh.read(), flags=re.S)
    return set(_anchor(m) for m in re.findall(r"^#{1,6} (.+)$", text, re.M))


def test_relative_links_and_anchors_resolve():
    broken = []
    for page in doc_commands.doc_files():
        with io.open(os.path.join(REPO, page), encoding="utf-8") as fh:
            text = re.sub(r"```.*?```", "", fh.read(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(REPO, os.path.dirname(page), path)) if path else \
                os.path.join(REPO, page)
            if not os.path.exists(full):
                broken.append("%s: %s (no such file)" % (page, target))
            elif anchor and full.endswith(".md") and anchor not in _anchors(full):
                broken.append("%s: %s (no such heading)" % (page, target))
    assert not broken, "\n".join(broken)


# -- versions the docs name are the ones pip installs ----------------------------------------------------

def test_the_pyspark_range_in_the_docs_is_the_verify_extra():
    with io.open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as fh:
        extra = re.search(r'^verify = \[(.*)\]$', fh.read(), re.M).group(1)
    wanted = re.search(r'"(pyspark[^"]*)"', extra).group(1)
    with io.open(os.path.join(REPO, "docs", "verify.md"), encoding="utf-8") as fh:
        text = fh.read()
    install_lines = [line for line in text.split("\n") if line.startswith("pip install '.[verify]'")]
    assert any(wanted in line for line in install_lines), (wanted, install_lines)
    for named in re.findall(r"pyspark (\d+\.\d+\.\d+)", text):  # a bare version would go stale
        raise AssertionError("docs/verify.md names pyspark %s; name the range pip installs (%s)" % (named, wanted))
