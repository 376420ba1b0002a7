"""The pure core (names, schema) of a given checkout, imported from that checkout."""

import io
import os
import sys

from .paths import SCHEMA_REL
from .problems import Problem, Invalid
from .sources import Source


class Core(object):
    """names.py and schema.py of one checkout, plus the line of each property in schema.py."""

    def __init__(self, repo):
        self.repo = repo
        try:
            self.names, self.schema, self.alerts = _import_core(repo)
        except Exception as e:  # a broken schema must read as a problem, not a traceback
            raise Invalid(_import_problem(repo, e))
        with io.open(os.path.join(repo, SCHEMA_REL), encoding="utf-8") as fh:
            self.schema_source = Source(SCHEMA_REL, fh.read())
        self.own_types = dict((t.name, t) for t in self.schema.CONFIG_TYPES)
        self.known_types = set(self.own_types) | set(self.names.FOREIGN_CONFIG_TYPES)

    @property
    def service_dir(self):
        return "common-services/%s/%s" % (self.names.SERVICE, self.names.SERVICE_VERSION)

    def has_property(self, config_type, name):
        ctype = self.own_types.get(config_type)
        return ctype is not None and name in ctype

    def prop(self, config_type, name):
        ctype = self.own_types.get(config_type)
        return ctype[name] if ctype is not None and name in ctype else None

    def schema_line(self, config_type, name=None):
        """Best line of a property (or config type) definition in schema.py."""
        src = self.schema_source
        type_needles = ["names.%s" % k for k in sorted(dir(self.names))
                        if k.isupper() and getattr(self.names, k) == config_type]
        needles = []
        if name is not None:
            needles += ['"%s"' % name, "'%s'" % name]
            if "." in name:  # cluster properties are built as role + ".suffix"
                needles.append('".%s"' % name.split(".", 1)[1])
        for needle in needles:
            for after in type_needles + [None]:  # inside the type's definition first
                line = src.find_line(needle, after)
                if line:
                    return line
        for needle in type_needles:
            line = src.find_line(needle)
            if line:
                return line
        return 1

    def problem(self, config_type, name, message):
        label = "%s/%s" % (config_type, name) if name else config_type
        return Problem(SCHEMA_REL, self.schema_line(config_type, name), "%s: %s" % (label, message))


def _import_problem(repo, error):
    """Problem for an exception raised while importing mm2_core: its file and line in the checkout."""
    import traceback
    rel, line = SCHEMA_REL, 1
    if isinstance(error, SyntaxError) and error.filename:
        rel, line = os.path.relpath(error.filename, repo).replace(os.sep, "/"), error.lineno or 1
    else:
        for filename, lineno, _, _ in traceback.extract_tb(sys.exc_info()[2]):
            if os.path.abspath(filename).startswith(os.path.abspath(repo) + os.sep):
                rel, line = os.path.relpath(filename, repo).replace(os.sep, "/"), lineno
    return Problem(rel, line, "importing mm2_core failed: %s: %s" % (type(error).__name__, error))


def _import_core(repo):
    """Import mm2_core.config.names, .config.schema and .alerts.registry of `repo` without disturbing an
    mm2_core already imported."""
    import importlib
    scripts = os.path.join(repo, "package", "scripts")
    saved = dict((k, v) for k, v in sys.modules.items() if k == "mm2_core" or k.startswith("mm2_core."))
    for key in saved:
        del sys.modules[key]
    sys.path.insert(0, scripts)
    old_dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # keep the checkout free of caches
    try:
        names = importlib.import_module("mm2_core.config.names")
        schema = importlib.import_module("mm2_core.config.schema")
        alerts = importlib.import_module("mm2_core.alerts.registry")
    finally:
        sys.dont_write_bytecode = old_dont_write
        sys.path.remove(scripts)
        for key in [k for k in sys.modules if k == "mm2_core" or k.startswith("mm2_core.")]:
            del sys.modules[key]
        sys.modules.update(saved)
    return names, schema, alerts
