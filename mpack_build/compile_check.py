"""Python 2.7 and 3 compile checks of everything that runs inside Ambari."""

import os
import subprocess
import sys

from .configuration_xml import int_or_none
from .problems import Problem


_COMPILE_CHILD = r"""
import sys
strict = len(sys.argv) > 1
for path in sys.stdin.read().splitlines():
    try:
        with open(path, "rb") as fh:
            src = fh.read()
        compile(src, path, "exec", 0, True)
        if strict:
            import ast
            ast.parse(src, path, feature_version=(3, 9))
    except SyntaxError as e:
        sys.stdout.write("%s\t%s\t%s\n" % (path, e.lineno or 1, e.msg))
    except Exception as e:
        sys.stdout.write("%s\t1\t%s\n" % (path, e))
"""


def _which(program):
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


_VERSIONS = {}


def _python_version(executable):
    """'X.Y' of an interpreter, or None when it does not run (cached: asked once per build)."""
    if executable not in _VERSIONS:
        _VERSIONS[executable] = _ask_python_version(executable)
    return _VERSIONS[executable]


def _ask_python_version(executable):
    try:
        out = subprocess.check_output([executable, "-E", "-S", "-c",
                                       "import sys; print('%d.%d' % sys.version_info[:2])"],
                                      stderr=subprocess.STDOUT)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.decode("ascii", "replace").strip()


_FOUND = {}


def _cached(function):
    def wrapper():
        if function.__name__ not in _FOUND:
            _FOUND[function.__name__] = function()
        return _FOUND[function.__name__]
    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    return wrapper


def _real_executable(executable):
    """Resolve pyenv shims once, so later runs do not pay the shim's start-up."""
    try:
        out = subprocess.check_output([executable, "-E", "-S", "-c", "import sys; print(sys.executable)"])
    except (OSError, subprocess.CalledProcessError):
        return executable
    return out.decode("utf-8").strip() or executable


@_cached
def find_python27():
    """A Python 2.7 interpreter: $MM2_PY27, pyenv's 2.7.18, or python2.7 on PATH."""
    candidates = []
    if os.environ.get("MM2_PY27"):
        candidates.append(os.environ["MM2_PY27"])
    try:
        env = dict(os.environ, PYENV_VERSION="2.7.18")
        with open(os.devnull, "w") as devnull:
            out = subprocess.check_output(["pyenv", "which", "python"], env=env, stderr=devnull)
        candidates.append(out.decode("utf-8").strip())
    except (OSError, subprocess.CalledProcessError):
        pass
    candidates.append(_which("python2.7"))
    for candidate in candidates:
        if candidate and _python_version(candidate) == "2.7":
            return candidate
    return None


@_cached
def find_python3():
    """This interpreter when it is Python 3, else $MM2_PY3 or python3 on PATH."""
    if sys.version_info[0] >= 3:
        return sys.executable
    for candidate in (os.environ.get("MM2_PY3"), _which("python3")):
        if candidate and (_python_version(candidate) or "").startswith("3."):
            return _real_executable(candidate)
    return None


def compile_problems(layout, python27, python3):
    """Every .py file that runs inside Ambari must compile on Python 2.7 and Python 3.

    python27 / python3: the interpreters (find_python27() / find_python3(), or None when missing).
    """
    files = sorted(rel for rel in layout.origin if rel.endswith(".py"))
    if not files:
        return []
    problems = []
    interpreters = (("Python 2.7", python27,
                     "install it (pyenv install 2.7.18) or set MM2_PY27=/path/to/python2.7"),
                    ("Python 3", python3, "set MM2_PY3=/path/to/python3"))
    for label, executable, how in interpreters:
        if executable is None:
            problems.append(Problem("build.py", 1, "no %s interpreter to check that agent code compiles on "
                                    "it: %s" % (label, how)))
            continue
        args = [executable, "-E", "-S", "-c", _COMPILE_CHILD]  # -E -S: no PYTHONPATH or site of the caller
        version = tuple(int(x) for x in (_python_version(executable) or "0.0").split("."))
        if label == "Python 3" and version >= (3, 8):
            args.append("strict")  # reject grammar newer than 3.9, the oldest Ambari 3 Python
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        out, _ = proc.communicate("\n".join(layout.path(rel) for rel in files).encode("utf-8"))
        by_path = dict((layout.path(rel), rel) for rel in files)
        for row in out.decode("utf-8", "replace").splitlines():
            path, line, message = row.split("\t", 2)
            rel = by_path.get(path, path)
            problems.append(Problem(layout.source_of(rel), int_or_none(line) or 1,
                                    "does not compile on %s (the agent runs it there): %s" % (label, message)))
    return problems
