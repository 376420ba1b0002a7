"""The checks of the assembled layout: one Checker made of one mixin per file kind."""

import os

from .check_alerts import AlertChecks
from .check_configurations import ConfigurationChecks
from .check_kerberos import KerberosChecks
from .check_metainfo import MetainfoChecks
from .check_mpack_json import MpackJsonChecks
from .check_role_command_order import RoleCommandOrderChecks
from .check_service_advisor import ServiceAdvisorChecks
from .check_theme_coverage import ThemeCoverageChecks
from .check_themes import ThemeChecks
from .configuration_xml import schema_problems
from .paths import SCHEMA_REL, TEMPLATES_REL
from .problems import Problem, Invalid, text_type
from .released_names import ReleasedNamesChecks
from .sources import load_json, load_xml


class Checker(MpackJsonChecks, MetainfoChecks, ConfigurationChecks, ThemeChecks, KerberosChecks,
              RoleCommandOrderChecks, AlertChecks, ServiceAdvisorChecks, ReleasedNamesChecks, ThemeCoverageChecks):
    def __init__(self, layout):
        self.layout = layout
        self.core = layout.core
        self.names = layout.core.names
        self.problems = []

    # -- helpers -------------------------------------------------------------------------------
    def add(self, rel, line, message):
        self.problems.append(Problem(self.layout.source_of(rel), line, message))

    def json(self, rel, required=True):
        return self._load(rel, load_json, required)

    def xml(self, rel, required=True):
        return self._load(rel, load_xml, required)

    def _load(self, rel, loader, required):
        """Parsed file, or None with the problem recorded (missing file, or not well-formed)."""
        path = self.layout.path(rel)
        if not os.path.isfile(path):
            if required:
                self.add(rel, 1, "missing")
            return None
        try:
            return loader(path, self.layout.source_of(rel))
        except Invalid as e:
            self.problems.append(e.problem)
            return None

    def ref_problem(self, ref):
        """None if 'type/prop' names a property this service owns or a type it reads, else why not."""
        if not isinstance(ref, (str, text_type)) or "/" not in ref:
            return "%r is not of the form config-type/property" % (ref,)
        config_type, name = ref.split("/", 1)
        if config_type in self.core.own_types:
            if not self.core.has_property(config_type, name):
                return "%s has no property %r (see %s)" % (config_type, name, SCHEMA_REL)
            return None
        if config_type not in self.core.known_types:
            return ("config type %r is neither owned by the service nor listed in "
                    "names.FOREIGN_CONFIG_TYPES" % config_type)
        return None

    # -- everything ----------------------------------------------------------------------------
    def run(self):
        self.problems.extend(p for p in schema_problems(self.core) if TEMPLATES_REL not in p.message)
        self.check_well_formed()
        meta = self.check_mpack_json()
        self.check_service_metainfo()
        self.check_stack_metainfos(meta)
        self.check_configurations()
        self.check_themes()
        self.check_theme_coverage()
        self.check_quicklinks()
        self.check_kerberos()
        self.check_role_command_order()
        self.check_alerts()
        self.check_alert_registry()
        self.check_telemetry()
        self.check_service_advisor()
        self.check_released_names()
        return self.problems

    def check_well_formed(self):
        """Every JSON and XML file that ships must parse (the specific checks re-read them)."""
        for rel in sorted(self.layout.origin):
            if rel.endswith(".json"):
                self.json(rel)
            elif rel.endswith(".xml"):
                self.xml(rel)
        # parse errors are reported once: the specific checks below skip unparsable files
        self._unparsable = set(p.path for p in self.problems)

    def _parsable(self, rel):
        return self.layout.source_of(rel) not in self._unparsable
