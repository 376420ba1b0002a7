"""Checks of kerberos.json."""

import re

from .ambari_rules import KERBEROS_VARIABLES


class KerberosChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_kerberos(self):
        rel = self.core.service_dir + "/kerberos.json"
        if not self._parsable(rel):
            return
        src = self.json(rel)
        if src is None:
            return
        services = src.obj.get("services") if isinstance(src.obj, dict) else None
        if not isinstance(services, list) or [s.get("name") for s in services if isinstance(s, dict)] != [self.names.SERVICE]:
            self.add(rel, 1, "kerberos.json needs services: [{\"name\": \"%s\", ...}]" % self.names.SERVICE)
            return
        service = services[0]
        self._kerberos_identities(src, service.get("identities", []))
        for comp in service.get("components", []):
            if comp.get("name") != self.names.COMPONENT:
                self.add(rel, src.line_of('"%s"' % comp.get("name")), "unknown component %r" % comp.get("name"))
            self._kerberos_identities(src, comp.get("identities", []))
        for block in service.get("configurations", []):
            for config_type, props in block.items():
                for prop in props:
                    problem = self.ref_problem("%s/%s" % (config_type, prop))
                    if problem:
                        self.add(rel, src.line_of('"%s"' % prop), "configurations: " + problem)
        for entry in service.get("auth_to_local_properties", []):
            problem = self.ref_problem(entry.split("|")[0])
            if problem:
                self.add(rel, src.line_of(entry), "auth_to_local_properties: " + problem)
        self._kerberos_tokens(src)

    def _kerberos_identities(self, src, identities):
        rel = src.rel
        for ident in identities:
            if not isinstance(ident, dict) or not ident.get("name"):
                self.add(rel, 1, "every identity needs a name")
                continue
            line = src.line_of('"%s"' % ident["name"])
            if "reference" in ident and not str(ident["reference"]).startswith(("/", "../")):
                self.add(rel, line, "reference %r must be /<identity>, /<SERVICE>/<COMPONENT>/<identity> or ../<identity>"
                         % ident["reference"])
            principal = ident.get("principal")
            keytab = ident.get("keytab")
            if "reference" not in ident and not (principal and keytab):
                self.add(rel, line, "identity %s needs a principal and a keytab (or a reference)" % ident["name"])
            if principal:
                if principal.get("type") not in ("service", "user"):
                    self.add(rel, line, "principal type must be service or user")
                if not principal.get("value"):
                    self.add(rel, line, "principal needs a value")
            if keytab:
                if not keytab.get("file"):
                    self.add(rel, line, "keytab needs a file")
                for who in ("owner", "group"):
                    acl = keytab.get(who)
                    if acl is not None and acl.get("access") not in ("r", "rw", ""):
                        self.add(rel, line, "keytab %s access must be r, rw or empty" % who)
            for part in (principal or {}, keytab or {}):
                if part.get("configuration"):
                    problem = self.ref_problem(part["configuration"])
                    if problem:
                        self.add(rel, src.line_of(part["configuration"]), "configuration: " + problem)

    def _kerberos_tokens(self, src):
        for match in re.finditer(r"\$\{([^}]*)\}", src.text):
            token = match.group(1).split("|")[0]
            line = src.text.count("\n", 0, match.start()) + 1
            if "/" in token:
                problem = self.ref_problem(token)
                if problem:
                    self.add(src.rel, line, "${%s}: %s" % (match.group(1), problem))
            elif token not in KERBEROS_VARIABLES:
                self.add(src.rel, line, "${%s} is not a Kerberos descriptor variable (%s)"
                         % (match.group(1), ", ".join(sorted(KERBEROS_VARIABLES))))
