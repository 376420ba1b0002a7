"""Reading Ambari configuration values (Ambari's ConfigDictionary hands "true"/"false" over as bools)."""
import difflib
import re

from mm2_core.config import schema
from mm2_core.formats import javaregex


def text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return value if isinstance(value, str) else as_str(value)


def as_str(value):
    """str(value); Python 2 unicode with non-ASCII text stays unicode (config values and messages)."""
    try:
        return str(value)
    except UnicodeEncodeError:  # Python 2 unicode with non-ASCII text: keep it unicode
        return value


def parse_bool(value):
    """True/False for Ambari booleans (bools or 'true'/'false' in any case); None if neither."""
    if isinstance(value, bool):
        return value
    lowered = text(value).strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    return None


def parse_list(value):
    """The items of a LIST setting (topics, groups, their excludes): Kafka's split (formats.javaregex.split_list),
    empty items dropped; a list or tuple is taken item by item."""
    if value is None:
        return []
    items = value if isinstance(value, (list, tuple)) else javaregex.split_list(text(value))
    return [i.strip() for i in items if i and i.strip()]


def parse_int(value):
    if isinstance(value, bool):
        return None
    raw = text(value).strip()
    if re.match(r"^[-+]?\d+$", raw):
        return int(raw)
    return None


def configs(configurations, config_type):
    value = (configurations or {}).get(config_type)
    return value if isinstance(value, dict) else {}


def get(configurations, config_type, name):
    """A property's value, or the schema default when Ambari did not send it."""
    props = configs(configurations, config_type)
    if name in props and props[name] is not None:
        return props[name]
    owned = schema.BY_NAME.get(config_type)
    if owned is not None and name in owned:
        return owned[name].default
    return None


def suggest(word, candidates):
    """' (did you mean X?)' for a likely typo, else ''."""
    lowered = dict((c.lower(), c) for c in candidates)
    if word.lower() in lowered and lowered[word.lower()] != word:
        return " (did you mean %s? keys are case-sensitive)" % lowered[word.lower()]
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.8)
    return " (did you mean %s?)" % close[0] if close else ""

