"""Checks of service_advisor.py."""

import io
import os
import re


class ServiceAdvisorChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_service_advisor(self):
        rel = self.core.service_dir + "/service_advisor.py"
        path = self.layout.path(rel)
        if not os.path.isfile(path):
            return
        with io.open(path, encoding="utf-8") as fh:
            text = fh.read()
        classes = [(m.group(1), text.count("\n", 0, m.start()) + 1)
                   for m in re.finditer(r"^class\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.M)]
        # stack_advisor.instantiateServiceAdvisor takes the first dir() name matching this
        pattern = re.compile("%s.*?ServiceAdvisor" % self.names.SERVICE, re.I)
        matching = [(c, line) for c, line in classes if pattern.match(c)]
        wanted = self.names.ADVISOR_CLASS
        if wanted not in [c for c, _ in classes]:
            self.add(rel, 1, "no class %s: Ambari looks the advisor up by that name" % wanted)
        for cls, line in matching:
            if cls != wanted:
                self.add(rel, line, "class %s also matches %s.*?ServiceAdvisor, and Ambari instantiates the "
                         "first match in dir() order: rename it" % (cls, self.names.SERVICE))
