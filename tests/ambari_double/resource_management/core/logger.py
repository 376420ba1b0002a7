"""Logger with Ambari's masking rules (core/logger.py).

filter_text() replaces every string registered in sensitive_strings (by format's !p / !h) with
its protected form. Resource arguments are printed as Ambari prints them: strings longer than
512 characters and dicts with MORE than 5 entries are elided; smaller dicts are printed in clear,
which is why PropertiesFile leaks small secret-bearing property sets.
"""
import logging
import sys

from resource_management.core.utils import PasswordString, _text

__all__ = ["Logger"]

MESSAGE_MAX_LEN = 512
DICTIONARY_MAX_LEN = 5


class Logger:
    logger = None
    sensitive_strings = {}  # unprotected text -> protected text

    @staticmethod
    def initialize_logger(name='resource_management', logging_level=logging.INFO,
                          format='%(asctime)s - %(message)s'):
        if Logger.logger:
            return
        logger = logging.getLogger(name)
        logger.setLevel(logging_level)
        formatter = logging.Formatter(format)
        chout = logging.StreamHandler(sys.stdout)
        chout.setLevel(logging_level)
        chout.setFormatter(formatter)
        cherr = logging.StreamHandler(sys.stderr)
        cherr.setLevel(logging.ERROR)
        cherr.setFormatter(formatter)
        logger.handlers = []
        logger.addHandler(cherr)
        logger.addHandler(chout)
        Logger.logger = logger

    @staticmethod
    def isEnabledFor(level):
        return Logger.logger is not None and Logger.logger.isEnabledFor(level)

    @staticmethod
    def exception(text):
        Logger.logger.exception(Logger.filter_text(text))

    @staticmethod
    def error(text):
        Logger.logger.error(Logger.filter_text(text))

    @staticmethod
    def warning(text):
        Logger.logger.warning(Logger.filter_text(text))

    @staticmethod
    def info(text):
        Logger.logger.info(Logger.filter_text(text))

    @staticmethod
    def debug(text):
        Logger.logger.debug(Logger.filter_text(text))

    @staticmethod
    def error_resource(resource):
        Logger.error(Logger.filter_text(Logger._get_resource_repr(resource)))

    @staticmethod
    def warning_resource(resource):
        Logger.warning(Logger.filter_text(Logger._get_resource_repr(resource)))

    @staticmethod
    def info_resource(resource):
        Logger.info(Logger.filter_text(Logger._get_resource_repr(resource)))

    @staticmethod
    def debug_resource(resource):
        Logger.debug(Logger.filter_text(Logger._get_resource_repr(resource)))

    @staticmethod
    def filter_text(text):
        from resource_management.core.shell import PLACEHOLDERS_TO_STR
        for unprotected, protected in Logger.sensitive_strings.items():
            text = text.replace(unprotected, protected)
        for placeholder in PLACEHOLDERS_TO_STR:
            text = text.replace(placeholder, '')
        return text

    @staticmethod
    def _get_resource_repr(resource):
        return Logger.get_function_repr(repr(resource), resource.arguments, resource)

    @staticmethod
    def _get_resource_name_repr(name):
        if isinstance(name, (str, _text)) and not isinstance(name, PasswordString):
            return "'" + name + "'"
        return repr(name)

    @staticmethod
    def format_command_for_output(command):
        if isinstance(command, (list, tuple)):
            return [repr(x).strip("'") if isinstance(x, PasswordString) else x for x in command]
        if isinstance(command, PasswordString):
            return repr(command).strip("'")
        return command

    @staticmethod
    def get_function_repr(name, arguments, resource=None):
        from resource_management.libraries.script.config_dictionary import UnknownConfiguration
        parts = []
        for key, value in arguments.items():
            if resource is not None and 'log_str' in dir(resource._arguments[key]):
                shown = resource._arguments[key].log_str(key, value)
            elif isinstance(value, (str, _text)) and len(value) > MESSAGE_MAX_LEN:
                shown = '...'
            elif isinstance(value, (str, _text)):
                shown = repr(value).lstrip('u')
            elif isinstance(value, dict) and len(value) > DICTIONARY_MAX_LEN:
                shown = "..."
            elif isinstance(value, UnknownConfiguration):
                shown = "[EMPTY]"
            elif value and key == 'mode':
                try:
                    shown = oct(value)
                except Exception:
                    shown = repr(value)
            elif hasattr(value, '__call__') and hasattr(value, '__name__'):
                shown = value.__name__
            else:
                shown = repr(value)
            parts.append("'{0}': {1}".format(key, shown))
        return "{0} {{{1}}}".format(name, ", ".join(parts))
