"""Findings of validation: Problem (config type, property, message, level) and ConfigError."""

from mm2_core.config import config_values

ERROR, WARN = "ERROR", "WARN"


class Problem(object):
    """One finding: config type, property name, message, level ERROR or WARN."""

    def __init__(self, config_type, name, message, level=ERROR):
        self.config_type = config_type
        self.name = name
        self.message = message
        self.level = level

    @property
    def is_error(self):
        return self.level == ERROR

    def __str__(self):
        return config_values.as_str(self.__unicode__())

    def __unicode__(self):  # Python 2: unicode(problem) keeps a non-ASCII value the message echoes
        return u"%s/%s: %s" % (self.config_type, self.name, self.message)

    def __repr__(self):
        return "Problem(%r, %r, %r, %r)" % (self.config_type, self.name, self.message, self.level)

    def __eq__(self, other):
        return isinstance(other, Problem) and self.as_tuple() == other.as_tuple()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.as_tuple())

    def as_tuple(self):
        return (self.config_type, self.name, self.message, self.level)

    def to_dict(self):
        return {"config_type": self.config_type, "property": self.name, "message": self.message,
                "level": self.level}

    # Alias of ``name`` (last in the class body: it shadows the builtin from here on).
    property = property(lambda self: self.name)


class ConfigError(ValueError):
    """The configuration cannot be rendered; ``problems`` lists every error (warnings too)."""

    def __init__(self, problems):
        self.problems = list(problems)
        ValueError.__init__(self, config_values.as_str(u"\n".join(p.__unicode__() for p in self.errors)))

    @property
    def errors(self):
        return [p for p in self.problems if p.level == ERROR]

    @property
    def warnings(self):
        return [p for p in self.problems if p.level != ERROR]


def problem(config_type, name, message, level=ERROR):
    """A Problem; a YAML location given as name 'content: <path>' moves into the message, so the
    property is always the real one (kafka-mm2-topology/content) for the advisor and the UI."""
    if name.startswith("content: "):
        name, message = "content", "%s: %s" % (name[len("content: "):], message)
    return Problem(config_type, name, message, level)


def _subject(found):
    """What a finding is about: the property, or for the topology YAML the path its message starts with."""
    if found.name == "content" and ": " in found.message:
        return (found.config_type, found.name, found.message.split(": ", 1)[0])
    return (found.config_type, found.name)


def without_shadowed_warnings(problems):
    """Drop a WARN about a property that also has an ERROR: the error says what to do, and a warning
    that the value is accepted (e.g. 'it is written as topics.exclude') would contradict it."""
    erred = set(_subject(p) for p in problems if p.level == ERROR)
    return [p for p in problems if p.level == ERROR or _subject(p) not in erred]


class Collector(object):
    def __init__(self):
        self.problems = []

    def error(self, config_type, name, message):
        self.problems.append(problem(config_type, name, message, ERROR))

    def warn(self, config_type, name, message):
        self.problems.append(problem(config_type, name, message, WARN))

    @property
    def has_errors(self):
        return any(p.level == ERROR for p in self.problems)

