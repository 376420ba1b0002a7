"""ConfigDictionary (Ambari libraries/script/config_dictionary.py semantics).

Nested dicts are wrapped; [] turns the strings "true"/"false" into bools and a missing key into
UnknownConfiguration, which fails only when used. Assignment with [] fails; note that .get()
is plain dict.get (no conversion), exactly as in Ambari.
"""
from resource_management.core.exceptions import Fail

IMMUTABLE_MESSAGE = """Configuration dictionary is immutable!

For adding dynamic properties to xml files please use {{varible_from_params}} substitutions.
Lookup xml files for {{ for examples. 
"""


class ConfigDictionary(dict):
    def __init__(self, dictionary):
        for k, v in list(dictionary.items()):
            if isinstance(v, dict):
                dictionary[k] = ConfigDictionary(v)
        super(ConfigDictionary, self).__init__(dictionary)

    def __setitem__(self, name, value):
        raise Fail(IMMUTABLE_MESSAGE)

    def __getitem__(self, name):
        try:
            value = super(ConfigDictionary, self).__getitem__(name)
        except KeyError:
            return UnknownConfiguration(name)
        if value == "true":
            value = True
        elif value == "false":
            value = False
        return value


# An old-style class on Python 2, as in Ambari: there str()/==/bool() of it also fail lazily.
class UnknownConfiguration():
    def __init__(self, name):
        self.name = name

    def __getattr__(self, name):
        raise Fail("Configuration parameter '" + self.name + "' was not found in configurations dictionary!")

    def __getitem__(self, name):
        return self
