"""Environment (Ambari core/environment.py): the per-command context resources register in.

test_mode=True records resources in resource_list without performing them (RMFTestCase);
otherwise each resource is performed when declared.
"""
import logging
import threading
import time
from datetime import datetime

from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.utils import AttributeDictionary, _text

__all__ = ["Environment"]

_local_data = threading.local()


class Environment(object):
    def __init__(self, basedir=None, tmp_dir=None, test_mode=False, logger=None,
                 logging_level=logging.INFO):
        self.reset(basedir, test_mode, tmp_dir)
        if logger:
            Logger.logger = logger
        else:
            Logger.initialize_logger(__name__, logging_level)

    def reset(self, basedir, test_mode, tmp_dir):
        self.config = AttributeDictionary()
        self.resources = {}
        self.resource_list = []
        self.delayed_actions = set()
        self.test_mode = test_mode
        self.tmp_dir = tmp_dir
        self.update_config({
            'date': datetime.now(),
            'backup.path': '/tmp/resource_management/backup',
            'backup.prefix': datetime.now().strftime("%Y%m%d%H%M%S"),
            'basedir': basedir,
            'params': {},
        })

    def update_config(self, attributes, overwrite=True):
        for key, value in attributes.items():
            attr = self.config
            path = key.split('.')
            for part in path[:-1]:
                if part not in attr:
                    attr[part] = AttributeDictionary()
                attr = attr[part]
            if overwrite or path[-1] not in attr:
                attr[path[-1]] = value

    def set_params(self, arg):
        """Template/format variables from a dict or a module (params.py)."""
        if isinstance(arg, dict):
            variables = arg
        else:
            variables = dict((var, getattr(arg, var)) for var in dir(arg))
        for name, value in list(variables.items()):
            if not name.startswith("__") and not hasattr(value, '__call__') \
                    and not hasattr(value, '__file__'):
                self.config.params[name] = value

    def run_action(self, resource, action):
        from resource_management.core.providers import find_provider
        provider_class = find_provider(self, resource.__class__.__name__, resource.provider)
        provider = provider_class(resource)
        try:
            provider_action = getattr(provider, 'action_%s' % action)
        except AttributeError:
            raise Fail("%r does not implement action %s" % (provider, action))
        provider_action()

    def _check_condition(self, cond):
        # Ambari accepts bool, a callable or a shell string. Anything else is an error; for a
        # tuple Ambari's own message formatting raises TypeError first (reproduced).
        if type(cond) == bool:
            return cond
        if hasattr(cond, '__call__'):
            return cond()
        if isinstance(cond, (str, _text)):
            from resource_management.core import shell
            ret, out = shell.call(cond)
            return ret == 0
        raise Exception("Unknown condition type %r" % cond)

    def run(self):
        while self.resource_list:
            resource = self.resource_list.pop(0)
            Logger.info_resource(resource)
            if resource.initial_wait:
                time.sleep(resource.initial_wait)
            if resource.not_if is not None and self._check_condition(resource.not_if):
                Logger.info("Skipping {0} due to not_if".format(resource))
                continue
            if resource.only_if is not None and not self._check_condition(resource.only_if):
                Logger.info("Skipping {0} due to only_if".format(resource))
                continue
            for action in resource.action:
                if not resource.ignore_failures:
                    self.run_action(resource, action)
                else:
                    try:
                        self.run_action(resource, action)
                    except Exception as ex:
                        Logger.info("Skipping failure of {0} due to ignore_failures. Failure reason: {1}"
                                    .format(resource, ex))
        while self.delayed_actions:
            action, resource = self.delayed_actions.pop()
            self.run_action(resource, action)

    @classmethod
    def has_instance(cls):
        return getattr(_local_data, 'instance', None) is not None

    @classmethod
    def get_instance(cls):
        instance = getattr(_local_data, 'instance', None)
        if instance is None:
            raise Exception("No Environment present for retrieving for thread %s" % threading.current_thread())
        return instance

    def __enter__(self):
        if getattr(_local_data, 'instance', None) is not None:
            raise Exception("Trying to enter to Environment from thread %s second time" % threading.current_thread())
        _local_data.instance = self
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if getattr(_local_data, 'instance', None) is None:
            raise Exception("Trying to exit from Environment without enter before for thread %s"
                            % threading.current_thread())
        _local_data.instance = None
        return False
