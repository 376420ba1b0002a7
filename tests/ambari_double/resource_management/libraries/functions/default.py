"""default('/a/b/c', fallback): walk the command JSON by slash path (Ambari semantics)."""
from resource_management.libraries.script import Script

__all__ = ['default', 'default_string']


def default(name, default_value):
    subdicts = [part for part in name.split('/') if part]
    curr_dict = Script.get_config()
    if not curr_dict:
        return default_value
    for part in subdicts:
        if part in curr_dict:
            curr_dict = curr_dict[part]
        else:
            return default_value
    return curr_dict


def default_string(name, default_value, delimiter):
    return delimiter.join(default(name, default_value))
