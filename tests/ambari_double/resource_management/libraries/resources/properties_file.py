"""PropertiesFile (Ambari libraries/resources/properties_file.py arguments).

Its provider renders every value through InlineTemplate (so "{{ x }}" in a value is evaluated)
and writes the keys sorted case-insensitively. Resource logging prints the properties dict in
clear when it has 5 entries or fewer: never pass secrets through it.
"""
from resource_management.core.base import Resource, ForcedListArgument, ResourceArgument

__all__ = ["PropertiesFile"]


class PropertiesFile(Resource):
    action = ForcedListArgument(default="create")
    filename = ResourceArgument(default=lambda obj: obj.name)
    properties = ResourceArgument()
    dir = ResourceArgument()
    mode = ResourceArgument()
    owner = ResourceArgument()
    group = ResourceArgument()
    key_value_delimiter = ResourceArgument(default="=")
    encoding = ResourceArgument(default="UTF-8")

    actions = Resource.actions + ["create"]
