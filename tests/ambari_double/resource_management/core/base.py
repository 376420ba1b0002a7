"""Resource and argument machinery (Ambari core/base.py semantics).

- Every argument a resource accepts is declared; any other keyword raises
  Fail("<Resource>['name'] received unsupported argument <arg>").
- A list as name declares one resource per item.
- Outside test mode a resource is performed as soon as it is declared.
"""
import sys
from resource_management.core.exceptions import Fail, InvalidArgument
from resource_management.core.environment import Environment
from resource_management.core.logger import Logger
from resource_management.core.utils import PasswordString

__all__ = ["Resource", "ResourceArgument", "ForcedListArgument", "BooleanArgument"]


class ResourceArgument(object):
    def __init__(self, default=None, required=False):
        self.required = False  # the default itself is not checked for presence
        self.default = default if hasattr(default, '__call__') else self.validate(default)
        self.required = required

    def validate(self, value):
        if self.required and value is None:
            raise InvalidArgument("Required argument %s missing" % self.name)
        return value


class ForcedListArgument(ResourceArgument):
    def validate(self, value):
        value = super(ForcedListArgument, self).validate(value)
        if not isinstance(value, (tuple, list)):
            value = [value]
        return value


class BooleanArgument(ResourceArgument):
    def validate(self, value):
        value = super(BooleanArgument, self).validate(value)
        if value not in (True, False):
            raise InvalidArgument("Expected a boolean for %s received %r" % (self.name, value))
        return value


class IntegerArgument(ResourceArgument):
    def validate(self, value):
        if value is None:
            return value
        value = super(IntegerArgument, self).validate(value)
        if not isinstance(value, int):
            raise InvalidArgument("Expected an integer for %s received %r" % (self.name, value))
        return value


class PasswordArgument(ResourceArgument):
    def log_str(self, key, value):
        return repr(PasswordString(value))


class Accessor(object):
    def __init__(self, name):
        self.name = name

    def __get__(self, obj, cls):
        if obj is None:
            return self
        try:
            return obj.arguments[self.name]
        except KeyError:
            value = obj._arguments[self.name].default
            if hasattr(value, '__call__'):
                value = value(obj)
            return value

    def __set__(self, obj, value):
        obj.arguments[self.name] = obj._arguments[self.name].validate(value)


class ResourceMetaclass(type):
    def __init__(cls, name, bases, attrs):
        super(ResourceMetaclass, cls).__init__(name, bases, attrs)
        cls._arguments = getattr(bases[0], '_arguments', {}).copy()
        for key, value in list(attrs.items()):
            if isinstance(value, ResourceArgument):
                value.name = key
                cls._arguments[key] = value
                setattr(cls, key, Accessor(key))


# Python 2 and 3 spell metaclasses differently; build the base class by calling the metaclass.
_ResourceBase = ResourceMetaclass("_ResourceBase", (object,), {})


class Resource(_ResourceBase):
    action = ForcedListArgument(default="nothing")
    ignore_failures = BooleanArgument(default=False)
    not_if = ResourceArgument()
    only_if = ResourceArgument()
    initial_wait = ResourceArgument()

    actions = ["nothing"]

    def __new__(cls, name, env=None, provider=None, **kwargs):
        if isinstance(name, list):
            names = name[:]
            while len(names) != 1:
                cls(names.pop(0), env, provider, **kwargs)
            name = names[0]
        env = env or Environment.get_instance()
        obj = super(Resource, cls).__new__(cls)
        env.resources.setdefault(cls.__name__, {})[name] = obj
        env.resource_list.append(obj)
        return obj

    def __init__(self, name, env=None, provider=None, **kwargs):
        if isinstance(name, list):
            name = name[-1]
        if hasattr(self, 'name'):
            return
        self.env = env or Environment.get_instance()
        self.name = name
        self.provider = provider or getattr(self, 'provider', None)
        self.arguments = {}
        for key, value in kwargs.items():
            try:
                arg = self._arguments[key]
            except KeyError:
                raise Fail("%s received unsupported argument %s" % (self, key))
            try:
                self.arguments[key] = arg.validate(value)
            except InvalidArgument as exc:
                raise InvalidArgument("%s %s" % (self, exc))
        if not self.env.test_mode:
            self.env.run()

    def validate(self):
        pass

    if sys.version_info[0] == 2:
        # as Ambari 2.7.8: repr() goes through a unicode format, so a non-ASCII name (bytes or
        # unicode) makes logging the resource fail with a Unicode error
        def __repr__(self):
            return unicode(self)  # noqa: F821

        def __unicode__(self):
            return u"%s[%s]" % (self.__class__.__name__, Logger._get_resource_name_repr(self.name))

        def __str__(self):
            return repr(self)
    else:
        def __repr__(self):
            return str(self)

        def __str__(self):
            return "%s[%s]" % (self.__class__.__name__, Logger._get_resource_name_repr(self.name))
