"""format(): str.format over the caller's locals, kwargs and env params (Ambari semantics).

Conversions: !e bash-quotes, !h hides the value in logs, !p does both. When a result contains a
hidden value, the clear text is registered in Logger.sensitive_strings so every later log line
containing it shows the protected version instead.
"""
import sys
from string import Formatter

from resource_management.core.environment import Environment
from resource_management.core.logger import Logger
from resource_management.core.shell import quote_bash_args
from resource_management.core import utils
from resource_management.core.utils import checked_unite, _text

__all__ = ["format"]


class ConfigurationFormatter(Formatter):
    def format(self, format_string, *args, **kwargs):
        if Environment.has_instance():
            # env params first, the caller's variables override them (no checked_unite here so
            # reloading params modules does not clash)
            all_params = Environment.get_instance().config.params.copy()
        else:
            all_params = {}
        all_params.update(kwargs)

        self.convert_field = self.convert_field_protected
        result_protected = self.vformat(format_string, args, all_params)
        self.convert_field = self.convert_field_unprotected
        result_unprotected = self.vformat(format_string, args, all_params)
        if result_protected != result_unprotected:
            Logger.sensitive_strings[result_unprotected] = result_protected
        return result_unprotected

    def convert_field_unprotected(self, value, conversion):
        return self._convert_field(value, conversion, False)

    def convert_field_protected(self, value, conversion):
        return self._convert_field(value, conversion, True)

    def _convert_field(self, value, conversion, is_protected):
        if conversion == 'e':
            return quote_bash_args(_text(value))
        elif conversion == 'h':
            return utils.PASSWORDS_HIDE_STRING if is_protected else value
        elif conversion == 'p':
            return utils.PASSWORDS_HIDE_STRING if is_protected else self._convert_field(value, 'e', is_protected)
        return super(ConfigurationFormatter, self).convert_field(value, conversion)


def format(format_string, *args, **kwargs):
    variables = sys._getframe(1).f_locals
    result = checked_unite(kwargs, variables)
    result.pop("self", None)
    # As in Ambari, positional args arrive as ONE tuple: "{0}" is the whole args tuple.
    return ConfigurationFormatter().format(format_string, args, **result)
