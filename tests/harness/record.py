"""Record mode: run one command method in-process with resources recorded, not performed.

Mirrors Ambari's RMFTestCase.executeScript: Environment(basedir, test_mode=True), the command
JSON as Script.get_config(), shell.call / shell.checked_call mocked (default: always (0, "OK.")),
Script.post_start and (unless try_install) Script.install_packages mocked, get_kinit_path
-> kinit_path. The method is called directly (no pre_/post_ hooks), as RMFTestCase does.
Works with the double and with a real Ambari checkout (MM2_AMBARI_SRC).

Unlike RMFTestCase, every module loaded from the script's directory (params, status_params and
any helper module importing them) is dropped before and after the run, so each run starts as
fresh as the agent's new process does. Logger.sensitive_strings is reset for the same reason.
"""
import itertools
import logging
import os
import pprint
import sys

try:
    from unittest import mock
except ImportError:  # Python 2
    import mock
    if not hasattr(mock, "patch"):  # Ambari's bundled mock is a package holding mock.py
        from mock import mock

MAX_SHOWN_DICT_LEN = 10


class _ListHandler(logging.Handler):
    def __init__(self, sink):
        logging.Handler.__init__(self)
        self.sink = sink

    def emit(self, record):
        self.sink.append(record.getMessage())


def _load_module(name, path):
    if sys.version_info[0] >= 3:
        import importlib.util
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    import imp
    return imp.load_source(name, path)


def _drop_modules_from(directory):
    directory = os.path.abspath(directory)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and os.path.dirname(os.path.abspath(path)) == directory:
            del sys.modules[name]
    for name in ("params", "params_linux", "params_windows", "status_params"):
        sys.modules.pop(name, None)


def _side_effect(mocks):
    """A list/tuple of results is consumed in order; a callable is called with the same args."""
    if mocks is None:
        return itertools.cycle([(0, "OK.")])
    if callable(mocks) and not isinstance(mocks, (list, tuple)):
        return mocks
    return iter(list(mocks))


class RecordedRun(object):
    """Resources a command method declared, in order; assertion helpers pop from the front."""

    def __init__(self, env, config, log, mocks, script):
        self.env = env
        self.config = config
        self.log = log
        self.mocks = mocks
        self.script = script
        self.all_resources = list(env.resource_list)
        self.resources = env.resource_list  # the queue assert_* consume

    # -- sources comparable with the recorded ones (they need the run's Environment) -------
    def _in_env(self, factory, *args, **kwargs):
        from resource_management.core.environment import Environment
        if Environment.has_instance():
            return factory(*args, **kwargs)
        with self.env:
            return factory(*args, **kwargs)

    def Template(self, name, **kwargs):
        from resource_management.core.source import Template
        return self._in_env(Template, name, **kwargs)

    def InlineTemplate(self, text, **kwargs):
        from resource_management.core.source import InlineTemplate
        return self._in_env(InlineTemplate, text, **kwargs)

    def StaticFile(self, name):
        from resource_management.core.source import StaticFile
        return self._in_env(StaticFile, name)

    # -- assertions (RMFTestCase semantics: exactly the explicitly passed arguments) -------
    def _no_unknown_failures(self):
        from resource_management.libraries.script.config_dictionary import UnknownConfiguration
        return mock.patch.object(UnknownConfiguration, '__getattr__',
                                 return_value=lambda: "UnknownConfiguration()")

    def assert_resource_called(self, resource_type, name, **kwargs):
        with self._no_unknown_failures():
            assert self.resources, "There were no more resources executed! Expected %s[%r]" % (resource_type, name)
            resource = self.resources.pop(0)
            actual = (resource.__class__.__name__, resource.name)
            assert actual == (resource_type, name), "expected %s[%r], got %s[%r]" % (
                resource_type, name, actual[0], actual[1])
            if kwargs != resource.arguments:
                raise AssertionError("%s[%r] arguments differ:\n expected %s\n actual   %s" % (
                    resource_type, name, pprint.pformat(kwargs), pprint.pformat(resource.arguments)))
        return resource

    def assert_resource_called_ignore_earlier(self, resource_type, name, **kwargs):
        with self._no_unknown_failures():
            while self.resources:
                resource = self.resources.pop(0)
                if (resource.__class__.__name__, resource.name) == (resource_type, name) \
                        and resource.arguments == kwargs:
                    return resource
        raise AssertionError("%s[%r] with %r was not found in the call stack." % (resource_type, name, kwargs))

    def assert_no_more_resources(self):
        assert not self.resources, "There were other resources executed! " + \
            ", ".join(str(r) for r in self.resources)

    def find(self, resource_type, name=None):
        """Recorded resources of a type (and name), in order, without consuming them."""
        return [r for r in self.all_resources if r.__class__.__name__ == resource_type
                and (name is None or r.name == name)]

    def print_resources(self, indent=4):
        """Ready-made assertions for the remaining resources (like RMFTestCase.printResources)."""
        from resource_management.libraries.script.config_dictionary import UnknownConfiguration
        lines = []
        pad = " " * indent
        for resource in self.resources:
            args = []
            for key, value in resource.arguments.items():
                if key == 'mode' and isinstance(value, int):
                    shown = "0o%o" % value
                elif isinstance(value, UnknownConfiguration):
                    shown = "UnknownConfiguration"
                elif hasattr(value, '__call__') and hasattr(value, '__name__'):
                    shown = "<function %s>" % value.__name__
                elif isinstance(value, dict) and len(value) > MAX_SHOWN_DICT_LEN:
                    shown = "{...%d keys}" % len(value)
                else:
                    shown = pprint.pformat(value)
                args.append("%s    %s=%s," % (pad, key, shown.replace("\n", "\n" + pad + "      ")))
            head = "%srun.assert_resource_called(%r, %r%s" % (pad, resource.__class__.__name__, resource.name,
                                                               "," if args else ")")
            lines.append(head)
            if args:
                lines.extend(args)
                lines.append(pad + ")")
        lines.append(pad + "run.assert_no_more_resources()")
        text = "\n".join(lines)
        print(text)
        return text

    def log_text(self):
        return "\n".join(self.log)


def run_recorded(script_path, classname, command, command_json, call_mocks=None, checked_call_mocks=None,
                 basedir=None, tmp_dir="/tmp", try_install=False, kinit_path="/usr/bin/kinit",
                 command_args=(), os_env=None, patch_post_start=True):
    """Run <classname>().<command.lower()>(env) from script_path against command_json.

    call_mocks / checked_call_mocks: list of results returned in order (e.g. [(0, "out")]) or a
    callable(command, **kwargs); default: every call returns (0, "OK.").
    basedir: the package dir holding templates/ and files/ (default: the script's dir's parent).
    Returns a RecordedRun. Exceptions from the method propagate (pytest.raises works).
    """
    from resource_management.core.environment import Environment
    from resource_management.core.logger import Logger
    from resource_management.libraries.script.config_dictionary import ConfigDictionary
    from resource_management.libraries.script.script import Script
    import copy

    script_path = os.path.abspath(script_path)
    scripts_dir = os.path.dirname(script_path)
    basedir = basedir or os.path.dirname(scripts_dir)
    config = ConfigDictionary(copy.deepcopy(command_json))

    log = []
    logger = logging.getLogger("mm2.harness.record.%d" % id(log))
    logger.handlers = [_ListHandler(log)]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    previous_logger = Logger.logger
    Logger.sensitive_strings.clear()

    mocks = {}
    _drop_modules_from(scripts_dir)
    added_path = scripts_dir not in sys.path
    if added_path:
        sys.path.insert(0, scripts_dir)
    patches = [
        mock.patch('resource_management.core.shell.checked_call', side_effect=_side_effect(checked_call_mocks)),
        mock.patch('resource_management.core.shell.call', side_effect=_side_effect(call_mocks)),
        mock.patch.object(Script, 'get_config', return_value=config),
        mock.patch.object(Script, 'get_tmp_dir', return_value=tmp_dir),
        mock.patch('resource_management.libraries.functions.get_kinit_path', return_value=kinit_path),
    ]
    if patch_post_start:
        patches.append(mock.patch.object(Script, 'post_start'))
    if not try_install:
        patches.append(mock.patch.object(Script, 'install_packages'))
    if os_env is not None:
        patches.append(mock.patch.object(os, "environ", new=os_env))
    saved_config = Script.config
    try:
        started = [p.start() for p in patches]
        mocks['checked_call'], mocks['call'] = started[0], started[1]
        Script.config = config
        with Environment(basedir, test_mode=True, logger=logger) as env:
            module = _load_module("mm2_harness_script_%s" % classname, script_path)
            Script.instance = None
            instance = getattr(module, classname)()
            instance.log_out_files = False
            method = getattr(instance, command.lower())
            method(env, *command_args)
    finally:
        for p in reversed(patches):
            try:
                p.stop()
            except RuntimeError:
                pass
        Script.config = saved_config
        Script.instance = None
        Logger.logger = previous_logger
        if added_path:
            sys.path.remove(scripts_dir)
        _drop_modules_from(scripts_dir)
    return RecordedRun(env, config, log, mocks, instance)
