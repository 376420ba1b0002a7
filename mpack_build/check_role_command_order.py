"""Checks of role_command_order.json."""

from .ambari_rules import RCO_SECTIONS, ROLE_COMMANDS


class RoleCommandOrderChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_role_command_order(self):
        rel = self.core.service_dir + "/role_command_order.json"
        if not self._parsable(rel):
            return
        src = self.json(rel)
        if src is None:
            return
        names = self.names
        own_roles = (names.COMPONENT, names.SERVICE_CHECK_ROLE)
        if not isinstance(src.obj, dict) or not isinstance(src.obj.get("general_deps"), dict):
            self.add(rel, 1, "role_command_order.json needs a general_deps object")
            return
        keys = []
        for section, deps in src.obj.items():
            if section not in RCO_SECTIONS:
                self.add(rel, src.key_line(section), "unknown section %r" % section)
                continue
            for blocked, blockers in deps.items():
                if blocked == "_comment":
                    continue
                keys.append(blocked)
                if not isinstance(blockers, list):
                    self.add(rel, src.key_line(blocked), "%s: blockers must be a list" % blocked)
                    continue
                for role_command in [blocked] + blockers:
                    self._role_command(src, role_command, own_roles)
        for required in ("%s-START" % names.COMPONENT, "%s-SERVICE_CHECK" % names.SERVICE_CHECK_ROLE):
            if required not in keys:
                self.add(rel, 1, "no %r entry: the service would start or be checked in no particular order"
                         % required)

    def _role_command(self, src, role_command, own_roles):
        parts = str(role_command).split("-")
        line = src.line_of('"%s"' % role_command)
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "OVERRIDE") or not parts[0]:
            self.add(src.rel, line, "%r must be ROLE-COMMAND (the server splits on '-')" % role_command)
            return
        if parts[1] not in ROLE_COMMANDS:
            self.add(src.rel, line, "%r: unknown command %s" % (role_command, parts[1]))
        role = parts[0]
        mine = role.startswith(self.names.SERVICE) or "MIRRORMAKER" in role
        if mine and role not in own_roles:
            self.add(src.rel, line, "%r: this service's roles are %s" % (role_command, ", ".join(own_roles)))
