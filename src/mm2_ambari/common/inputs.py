"""Operator input of the mm2-ambari commands, checked before anything runs: configurations files,
parser errors told in plain words with file:line, output directories, Kafka version flags.

Every message names the input (file, flag, key) and says how to fix it; none echoes a value that
could be a secret.
"""
import difflib
import json
import os

from mm2_core.config import names
from mm2_core.kafka import versions
from mm2_ambari.common.errors import BadInput

# Config types `render --configs` reads: the service's own and the foreign ones the core reads.
KNOWN_CONFIG_TYPES = tuple(names.OWN_CONFIG_TYPES) + tuple(names.FOREIGN_CONFIG_TYPES)


def did_you_mean(word, choices, cutoff=0.6):
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=cutoff)
    return " (did you mean %s?)" % close[0] if close else ""


# --- JSON ----------------------------------------------------------------------------------------
def load_json(path, flag, expected):
    """The JSON document of ``path`` or BadInput naming the flag, the file, its line and column."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except IsADirectoryError:
        raise BadInput("%s %s: is a directory; give the JSON file (%s)" % (flag, path, expected))
    except FileNotFoundError:
        raise BadInput("%s %s: no such file; give the JSON file (%s)" % (flag, path, expected))
    except UnicodeDecodeError:
        raise BadInput("%s %s: not a text file (not UTF-8); give the JSON file (%s)" % (flag, path, expected))
    except OSError as exc:
        raise BadInput("%s %s: cannot read it: %s" % (flag, path, exc.strerror or exc))
    try:
        return json.loads(text)
    except ValueError as exc:
        line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
        where = "%s:%d:%d" % (path, line, column) if line else path
        hint = ""
        first = text.lstrip()[:1]
        if first and first not in "{[":
            hint = (" The file does not start with '{': it looks like YAML or another format, and %s takes "
                    "JSON. A deployment file (topology YAML) is checked with `mm2-ambari validate FILE`." % flag)
        raise BadInput("%s: %s is not valid JSON: %s.%s Expected %s."
                       % (where, flag, getattr(exc, "msg", "parse error"), hint, expected))


def configurations_map(data, path, flag):
    """{type: {property: value}} of a configurations file (or of a command JSON's "configurations").
    Every config type must be one the service reads: a misspelled type would otherwise be silently
    ignored and its properties would take the stack defaults."""
    wrapped = isinstance(data, dict) and isinstance(data.get("configurations"), dict)
    if wrapped:
        data = data["configurations"]
    if not isinstance(data, dict) or not data:
        raise BadInput("%s %s: expected a JSON object {config type: {property: value}}, e.g. "
                       "{\"kafka-mm2-clusters\": {\"source.alias\": \"dc1\", ...}}" % (flag, path))
    problems = []
    for name in sorted(data):
        value = data[name]
        # A command JSON carries every config type of the cluster: there only the service's own
        # prefix and near-misses of its types are checked.
        own_like = str(name).startswith("kafka-mm2") or did_you_mean(name, names.OWN_CONFIG_TYPES, 0.8)
        if name not in KNOWN_CONFIG_TYPES and (not wrapped or own_like):
            problems.append("%s: unknown config type%s; the types read are %s. Fix the name or remove it "
                            "(its properties would be ignored)"
                            % (name, did_you_mean(name, KNOWN_CONFIG_TYPES), ", ".join(KNOWN_CONFIG_TYPES)))
        elif not isinstance(value, dict):
            if name in KNOWN_CONFIG_TYPES:
                problems.append("%s: must be an object {property: value}, got %s" % (name, type(value).__name__))
        else:
            for prop, item in value.items():
                if name in KNOWN_CONFIG_TYPES and not isinstance(item, (str, int, float, bool)) and item is not None:
                    problems.append("%s/%s: must be a string (Ambari stores every value as text), got %s"
                                    % (name, prop, type(item).__name__))
    if problems:
        raise BadInput("%s %s: the configurations cannot be used" % (flag, path), problems)
    return data


# --- YAML ----------------------------------------------------------------------------------------
_YAML_HINTS = (
    ("expected <block end>", "the indentation does not line up: this line is indented differently from "
                             "the keys of the mapping above it; indent keys of one mapping by the same "
                             "number of spaces"),
    ("found undefined alias", "an alias *%(word)s refers to no anchor: define &%(word)s on a value "
                              "above, or write the value out"),
    ("mapping values are not allowed here", "a ':' where YAML does not expect a key: quote a value that "
                                            "contains ': ', or fix the indentation"),
    ("could not find expected ':'", "a line without 'key: value' inside a mapping: add the ':' or "
                                    "fix the indentation"),
    ("found character '\\t' that cannot start any token", "a tab: YAML indents with spaces only"),
    ("found character '\\t'", "a tab: YAML indents with spaces only"),
    ("did not find expected key", "the indentation does not line up (or a '- ' item sits inside a "
                                  "mapping): indent keys of one mapping by the same number of spaces"),
    ("did not find expected '-' indicator", "a list item without '- ' or a key indented like a list item: "
                                            "align the items of one list"),
    ("found unexpected end of stream", "a quote or bracket is not closed"),
    ("found unknown escape character", "a backslash escape YAML does not know inside double quotes: use "
                                       "single quotes, or double the backslash"),
    ("found duplicate anchor", "the same &anchor is defined twice: rename one"),
    ("while scanning a quoted scalar", "a quote is not closed"),
    ("while parsing a flow", "the [ or { opened here is not closed, or an item inside it is malformed (a "
                             "value with ':' or ',' needs quotes)"),
)


def yaml_error(path, exc):
    """'path:line:column: what is wrong, in words, and how to fix it (YAML says: ...)'."""
    problem = (getattr(exc, "problem", None) or "").strip()
    context = (getattr(exc, "context", None) or "").strip()
    mark = getattr(exc, "problem_mark", None)
    if context.startswith(("while parsing a flow", "while scanning a quoted")) or mark is None:
        mark = getattr(exc, "context_mark", None) or mark  # where the unclosed bracket or quote opened
    where = "%s:%d:%d" % (path, mark.line + 1, mark.column + 1) if mark is not None else path
    said = " ".join(part for part in (context, problem) if part) or str(exc).splitlines()[0]
    word = said.rsplit("'", 2)[-2] if said.count("'") >= 2 else ""
    for marker, hint in _YAML_HINTS:
        if marker in said:
            return "%s: not valid YAML: %s (YAML says: %s)" % (where, hint % {"word": word}, said)
    return "%s: not valid YAML: %s; fix the file at that line" % (where, said)


# --- output directories --------------------------------------------------------------------------
def check_out_dir(path, flag="--out"):
    """Make sure ``path`` is (or can be made) a writable directory; BadInput saying why not."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise BadInput("%s %s: is a file, not a directory; give a directory (it is created when missing)"
                       % (flag, path))
    if not os.path.isdir(path):
        try:
            os.makedirs(path)
        except (FileExistsError, NotADirectoryError):
            raise BadInput("%s %s: a part of the path is a file, so the directory cannot be created; give "
                           "another path" % (flag, path))
        except OSError as exc:
            raise BadInput("%s %s: cannot create the directory (%s); give a directory you can write"
                           % (flag, path, exc.strerror or exc))
    if not os.access(path, os.W_OK | os.X_OK):
        raise BadInput("%s %s: the directory is not writable for this user; give another directory"
                       % (flag, path))


def check_file_to_write(path, flag, create_dir=False):
    """Make sure the file ``path`` can be written before anything is sent: it is not a directory, its
    directory exists (or, with ``create_dir``, can be created) and is writable; BadInput naming ``flag``
    (the option, or what the file is) and the fix otherwise."""
    absolute = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(absolute):
        raise BadInput("%s %s: is a directory; give the path of a file (in that directory, e.g. %s)"
                       % (flag, path, os.path.join(path, "FILE")))
    directory = os.path.dirname(absolute)
    existing = directory
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise BadInput("%s %s: %s is a file, so the directory %s cannot be there; give another path"
                       % (flag, path, existing, directory))
    if existing != directory and not create_dir:
        raise BadInput("%s %s: the directory %s does not exist; create it (mkdir -p %s) or give another path"
                       % (flag, path, directory, directory))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BadInput("%s %s: %s is not writable for this user; give a path you can write"
                       % (flag, path, existing if existing == directory else "%s (to create %s in)" % (
                           existing, directory)))
    if os.path.exists(absolute) and not os.access(absolute, os.W_OK):
        raise BadInput("%s %s: the file is not writable for this user; give a path you can write" % (flag, path))


# --- Kafka versions ------------------------------------------------------------------------------
def kafka_version(text, source):
    """(KafkaVersion, warning or None) of a version the operator gave through ``source`` (the flag
    or the file key); BadInput naming ``source`` when it is not a version or has no MM2."""
    try:
        version = versions.KafkaVersion.parse(str(text).strip())
    except ValueError as exc:
        raise BadInput("%s: %s" % (source, exc))
    unsupported = versions.support_problem(version)
    if unsupported and unsupported[0] == "ERROR":
        raise BadInput("%s %s: %s" % (source, version, unsupported[1]))
    return version, (unsupported[1] if unsupported else None)


def is_version_problem(problem, version):
    """True for the core's own finding about the version itself (reported on kafka_version_override)
    when the version came from elsewhere: the command already reported it on the right input."""
    unsupported = versions.support_problem(version)
    return bool(unsupported) and getattr(problem, "config_type", None) == names.ENV and \
        getattr(problem, "name", None) == "kafka_version_override" and \
        getattr(problem, "message", None) == unsupported[1]
