"""Helpers with the names Ambari's core/utils.py gives them."""
import re

from resource_management.core.exceptions import Fail

try:
    _text = unicode  # noqa: F821  (Python 2)
except NameError:
    _text = str

PASSWORDS_HIDE_STRING = "[PROTECTED]"
_PERM = re.compile("(?P<scope>[ugoa]*)(?P<direction>[-+=])(?P<attr>[rwx]*)")
_SCOPE_SHIFT = {"u": 0o100, "g": 0o010, "o": 0o001}
_BITS = {"r": 0o004, "w": 0o002, "x": 0o001}


class AttributeDictionary(object):
    """dict with attribute access; nested plain dicts come back wrapped (like Ambari's)."""

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_dict", args[0] if args else kwargs)

    def __setattr__(self, name, value):
        self[name] = value

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("'%s' object has no attribute '%s'" % (self.__class__.__name__, name))

    def __setitem__(self, name, value):
        self._dict[name] = self._wrap(value)

    def __getitem__(self, name):
        return self._wrap(self._dict[name])

    @staticmethod
    def _wrap(value):
        if isinstance(value, dict) and not isinstance(value, AttributeDictionary):
            return AttributeDictionary(value)
        return value

    def copy(self):
        return self.__class__(self._dict.copy())

    def update(self, *args, **kwargs):
        self._dict.update(*args, **kwargs)

    def items(self):
        return self._dict.items()

    def iteritems(self):
        return iter(self._dict.items())

    def values(self):
        return self._dict.values()

    def keys(self):
        return self._dict.keys()

    def pop(self, *args, **kwargs):
        return self._dict.pop(*args, **kwargs)

    def get(self, *args, **kwargs):
        return self._dict.get(*args, **kwargs)

    def __contains__(self, name):
        return name in self._dict

    def __iter__(self):
        return iter(self._dict)

    def __repr__(self):
        return repr(self._dict)

    def __str__(self):
        return str(self._dict)


def checked_unite(dict1, dict2):
    """Merge two variable maps; the same name bound to two different objects is an error."""
    for key in dict1:
        if key in dict2 and dict2[key] is not dict1[key]:
            raise Fail("Variable '%s' already exists more than once as a variable/configuration/kwarg "
                       "parameter. Cannot evaluate it." % key)
    result = dict1.copy()
    result.update(dict2)
    return result


class PasswordString(_text):
    """A string whose repr() is [PROTECTED], so resource logs hide it."""

    def __init__(self, value):
        self.value = value

    def __str__(self):
        return self.value

    def __repr__(self):
        return PASSWORDS_HIDE_STRING


def attr_to_bitmask(attr, initial_bitmask=0):
    """chmod-style 'ug+rx' applied to a mode (used by cd_access)."""
    match = _PERM.match(attr)
    scope, direction, attrs = (match.group("scope"), match.group("direction"), match.group("attr")) \
        if match else ("", "", "")
    scope = scope or "a"
    if "a" in scope:
        scope = "ugo"
    if direction == "=":
        for s in scope:
            initial_bitmask &= ~(0o007 * _SCOPE_SHIFT[s])
        direction = "+"
    for s in scope:
        for a in attrs:
            bit = _BITS[a] * _SCOPE_SHIFT[s]
            if direction == "-":
                initial_bitmask &= ~bit
            elif direction == "+":
                initial_bitmask |= bit
    return initial_bitmask
