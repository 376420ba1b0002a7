"""Content sources for File(content=...) (Ambari core/source.py semantics).

- Template(name): <basedir>/templates/<name>, loaded (and syntax-checked) when constructed,
  rendered with StrictUndefined and trim_blocks; variables are env.set_params(...) params plus
  kwargs (a kwarg that shadows a different param object is a Fail, as in Ambari).
- InlineTemplate(text): same variables, plain Undefined (a missing name renders empty), no
  trim_blocks.
- StaticFile(name): <basedir>/files/<name> (or an absolute path), raw bytes.
- Equality compares rendered content (RMFTestCase relies on it).

Ambari renders with its vendored ambari_jinja2 (a Jinja2 2.x fork). The double uses the
installed jinja2 but only with the filters, tests and globals ambari_jinja2 has, so a template
that needs a newer Jinja feature fails here as it would on the agent.
"""
import io
import os

from resource_management.core.environment import Environment
from resource_management.core.exceptions import Fail
from resource_management.core.logger import Logger
from resource_management.core.utils import checked_unite, _text
from resource_management.core import sudo

__all__ = ["Source", "Template", "InlineTemplate", "StaticFile", "DownloadSource"]

_AMBARI_JINJA2_FILTERS = (
    'attr', 'replace', 'upper', 'lower', 'escape', 'e', 'forceescape', 'capitalize', 'title',
    'default', 'd', 'join', 'count', 'dictsort', 'sort', 'length', 'reverse', 'center', 'indent',
    'first', 'last', 'random', 'filesizeformat', 'pprint', 'truncate', 'wordwrap', 'wordcount',
    'int', 'float', 'string', 'list', 'urlize', 'format', 'trim', 'striptags', 'slice', 'batch',
    'sum', 'abs', 'round', 'groupby', 'safe', 'xmlattr')
_AMBARI_JINJA2_TESTS = (
    'odd', 'even', 'divisibleby', 'defined', 'undefined', 'none', 'lower', 'upper', 'string',
    'number', 'sequence', 'iterable', 'callable', 'sameas', 'escaped')
_AMBARI_JINJA2_GLOBALS = ('range', 'dict', 'lipsum', 'cycler', 'joiner')


def _restrict(jinja_env):
    for name in list(jinja_env.filters):
        if name not in _AMBARI_JINJA2_FILTERS:
            del jinja_env.filters[name]
    for name in list(jinja_env.tests):
        if name not in _AMBARI_JINJA2_TESTS:
            del jinja_env.tests[name]
    for name in list(jinja_env.globals):
        if name not in _AMBARI_JINJA2_GLOBALS:
            del jinja_env.globals[name]
    return jinja_env


class Source(object):
    def __init__(self, name):
        self.env = Environment.get_instance()
        self.name = name

    def get_content(self):
        raise NotImplementedError()

    def get_checksum(self):
        return None

    def __call__(self):
        return self.get_content()

    def __repr__(self):
        return self.__class__.__name__ + "('" + self.name + "')"

    def __eq__(self, other):
        return (isinstance(other, self.__class__)
                and ((self.name.startswith(os.sep) and self.name == other.name)
                     or self.get_content() == other.get_content()))


class StaticFile(Source):
    def get_content(self):
        if self.name.startswith(os.path.sep):
            path = self.name
        else:
            path = os.path.join(self.env.config.basedir, "files", self.name)
        if not sudo.path_isfile(path):
            raise Fail("{0} Source file {1} is not found".format(repr(self), path))
        return sudo.read_file(path)


from jinja2 import (Environment as JinjaEnvironment, BaseLoader, TemplateNotFound,  # noqa: E402
                    FunctionLoader, StrictUndefined)


class TemplateLoader(BaseLoader):
    def __init__(self, env=None):
        self.env = env or Environment.get_instance()

    def get_source(self, environment, template_name):
        if template_name.startswith(os.path.sep):
            path = template_name
        else:
            path = os.path.join(self.env.config.basedir, "templates", template_name)
        if not os.path.exists(path):
            raise TemplateNotFound("%s at %s" % (template_name, path))
        mtime = os.path.getmtime(path)
        with io.open(path, "r", encoding="utf-8") as fp:
            source = fp.read()
        return source, path, lambda: mtime == os.path.getmtime(path)


class Template(Source):
    def __init__(self, name, extra_imports=[], **kwargs):
        super(Template, self).__init__(name)
        variables = checked_unite(self.env.config.params, kwargs)
        self.imports_dict = dict((module.__name__, module) for module in extra_imports)
        self.context = variables.copy() if variables else {}
        if not hasattr(self, 'template_env'):
            self.template_env = _restrict(JinjaEnvironment(loader=TemplateLoader(self.env), autoescape=False,
                                                           undefined=StrictUndefined, trim_blocks=True))
        self.template = self.template_env.get_template(self.name)

    def get_content(self):
        default_variables = {'env': self.env, 'repr': repr, 'str': str, 'bool': bool, 'unicode': _text}
        self.context.update(checked_unite(default_variables, self.imports_dict))
        return self.template.render(self.context)


class InlineTemplate(Template):
    def __init__(self, name, extra_imports=[], **kwargs):
        self.template_env = _restrict(JinjaEnvironment(loader=FunctionLoader(lambda text: text)))
        super(InlineTemplate, self).__init__(name, extra_imports, **kwargs)

    def __repr__(self):
        return "InlineTemplate(...)"


class DownloadSource(Source):
    """URL content, cached in env.tmp_dir unless redownload_files (file:// works offline)."""

    def __init__(self, name, redownload_files=False, ignore_proxy=True):
        super(DownloadSource, self).__init__(name)
        self.url = self.name
        self.cache = not redownload_files and bool(self.env.tmp_dir)
        self.download_path = self.env.tmp_dir
        self.ignore_proxy = ignore_proxy

    def get_content(self):
        try:
            from urllib.request import build_opener, ProxyHandler, Request
            from urllib.error import HTTPError
            from urllib.parse import urlparse
        except ImportError:  # Python 2
            from urllib2 import build_opener, ProxyHandler, Request, HTTPError
            from urlparse import urlparse
        import time
        if self.download_path and not os.path.exists(self.download_path):
            raise Fail("Directory {0} doesn't exist, please provide valid download path".format(self.download_path))
        path = urlparse(self.url).path
        filename = os.path.basename(path) if path else 'index.html.{0}'.format(time.time())
        filepath = os.path.join(self.download_path, filename) if self.download_path else filename
        if not self.cache or not os.path.exists(filepath):
            Logger.info("Downloading the file from {0}".format(self.url))
            opener = build_opener(ProxyHandler({})) if self.ignore_proxy else build_opener()
            try:
                content = opener.open(Request(self.url)).read()
            except HTTPError as ex:
                raise Fail("Failed to download file from {0} due to HTTP error: {1}".format(self.url, str(ex)))
            if self.cache:
                sudo.create_file(filepath, content)
        else:
            Logger.info("Not downloading the file from {0}, because {1} already exists".format(self.url, filepath))
            content = sudo.read_file(filepath)
        return content
