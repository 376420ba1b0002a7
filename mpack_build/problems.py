"""Problems ('file:line: message'), the errors that carry them, and native-string helpers."""

import sys

PY2 = sys.version_info[0] == 2
if PY2:  # pragma: no cover - exercised by the Python 2.7 test line
    text_type = unicode  # noqa: F821
else:
    text_type = str


class Problem(object):
    """One validation problem; str() gives 'file:line: message'."""

    def __init__(self, path, line, message):
        self.path = path
        self.line = line or 1
        self.message = message

    def __str__(self):
        return "%s:%d: %s" % (self.path, self.line, self.message)

    __repr__ = __str__


class BuildError(Exception):
    def __init__(self, problems):
        self.problems = list(problems)
        Exception.__init__(self, "\n".join(str(p) for p in self.problems))


class Invalid(Exception):
    """A file could not be read or parsed; carries the Problem."""

    def __init__(self, problem):
        Exception.__init__(self, str(problem))
        self.problem = problem


def native(value):
    """Python 2: unicode from json/sax as native str, so messages read 'x' and not u'x'."""
    if not PY2:
        return value
    if isinstance(value, text_type):  # pragma: no cover - Python 2.7 line
        return value.encode("utf-8")
    if isinstance(value, dict):  # pragma: no cover
        return dict((native(k), native(v)) for k, v in value.items())
    if isinstance(value, list):  # pragma: no cover
        return [native(v) for v in value]
    return value


def unicode_text(text):
    if PY2 and isinstance(text, bytes):  # pragma: no cover
        return text.decode("utf-8")
    return text
