from resource_management.libraries.script.config_dictionary import UnknownConfiguration

__all__ = ["is_empty"]


def is_empty(var):
    """True for a configuration that did not come (UnknownConfiguration)."""
    return isinstance(var, UnknownConfiguration)
