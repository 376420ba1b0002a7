"""Pure planning of configuration changes: what to send to Ambari, and a diff a person can read.

Ambari never returns a password: GET answers SECRET:<type>:<version>:<name> instead, and a PUT that
sends such a reference back keeps the stored password (AmbariManagementControllerImpl resolves it).
So a password the file gives cannot be compared with the stored one. The rule here: a stored password
(a SECRET reference) is kept unless the file clears it ("") or --rotate-secrets asks to send the
file's value. A password property that is empty or missing in Ambari is set from the file.
"""
import difflib

from mm2_core.config import names
from mm2_ambari.common import masking
from mm2_ambari.rest.deployfile import RESET


class TypeChange(object):
    def __init__(self, config_type, current, properties, attributes, secret_names, baseline=None):
        self.type = config_type
        self.current = current  # ConfigState or None (type not created yet)
        self.baseline = baseline or {}  # the stack defaults a new type starts from (for the diff)
        self.properties = properties
        self.attributes = attributes
        self.secret_names = secret_names

    @property
    def is_new(self):
        return self.current is None

    @property
    def changed(self):
        if self.current is None:
            return True
        return (self.properties != self.current.properties
                or _norm_attrs(self.attributes) != _norm_attrs(self.current.attributes))

    def desired_config(self, tag, note):
        item = {"type": self.type, "tag": tag, "properties": self.properties,
                "service_config_version_note": note}
        if self.attributes:
            item["properties_attributes"] = self.attributes
        return item


def plan(stack, current, overrides, rotate_secrets=False, types=None):
    """[TypeChange] for every config type of the service (changed or not), in a stable order.

    stack: StackDefaults; current: {type: ConfigState}; overrides: {type: {name: str | RESET}}.
    """
    all_types = types or sorted(set(names.OWN_CONFIG_TYPES) | set(overrides) | set(stack.properties))
    changes = []
    for config_type in all_types:
        defaults = stack.properties.get(config_type, {})
        cur = current.get(config_type)
        attrs = dict((k, dict(v)) for k, v in (cur.attributes if cur else {}).items())
        props = dict(defaults)
        if cur is not None:
            props.update(cur.properties)
        secret_names = set(stack.password_names.get(config_type, ()))
        for name, value in sorted(overrides.get(config_type, {}).items()):
            if value is RESET:
                if name in defaults:
                    props[name] = defaults[name]
                else:
                    props.pop(name, None)
                continue
            secret = stack.is_password(config_type, name) or masking.is_secret(config_type, name, attrs)
            if secret:
                secret_names.add(name)
            stored = props.get(name)
            if (secret and masking.is_secret_ref(stored) and value != "" and not rotate_secrets
                    and not masking.is_secret_ref(value)):
                continue  # keep the stored password (see module docstring)
            props[name] = value
        if config_type == names.CUSTOM:
            _mark_custom_passwords(props, attrs)
        for name in props:
            if masking.is_secret(config_type, name, attrs) or stack.is_password(config_type, name):
                secret_names.add(name)
        changes.append(TypeChange(config_type, cur, props, attrs, secret_names, defaults))
    return changes


def _mark_custom_passwords(props, attrs):
    """Free-form properties that look like passwords get Ambari's password attribute, so Ambari
    stores them as secrets and answers SECRET references for them (as for catalog passwords)."""
    for name in props:
        if masking.is_secret(names.CUSTOM, name) and not masking.is_secret_ref(props[name]):
            attrs.setdefault("password", {})[name] = "true"


def _norm_attrs(attrs):
    return dict((k, v) for k, v in (attrs or {}).items() if v)


# --- human-readable diff ---------------------------------------------------------------------------
def render_diff(change):
    """Lines describing one TypeChange, secrets masked. Empty when nothing changed."""
    if not change.changed:
        return []
    old = change.current.properties if change.current else change.baseline
    new = change.properties
    if change.is_new:
        head = "%s: new config type: %d properties, the stack defaults%s" % (
            change.type, len(new), " with these changes:" if old != new else "")
    else:
        head = "%s: changes (current tag %s, version %s)" % (change.type, change.current.tag, change.current.version)
    lines = [head]
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        secret = name in change.secret_names
        if secret:
            lines.append("  ~ %s: %s" % (name, _secret_transition(before, after)))
        elif "\n" in (before or "") or "\n" in (after or ""):
            lines.append("  ~ %s:" % name)
            lines.extend("      " + line for line in _text_diff(before or "", after or ""))
        elif before is None:
            lines.append("  + %s = %s" % (name, _show(after)))
        elif after is None:
            lines.append("  - %s (was %s)" % (name, _show(before)))
        else:
            lines.append("  ~ %s: %s -> %s" % (name, _show(before), _show(after)))
    if change.current is not None and _norm_attrs(change.attributes) != _norm_attrs(change.current.attributes):
        lines.append("  ~ properties_attributes changed")
    return lines


def _secret_transition(before, after):
    if before in (None, ""):
        return "(password set)" if after not in (None, "") else "(empty)"
    if after in (None, ""):
        return "(password cleared)" if after == "" else "(password removed)"
    return "(password replaced)"


def _show(value):
    value = masking.mask_text(value)
    return repr(value) if len(value) <= 200 else repr(value[:200] + "...")


def _text_diff(before, after):
    a = masking.mask_text(before).splitlines()
    b = masking.mask_text(after).splitlines()
    out = list(difflib.unified_diff(a, b, "current", "new", lineterm="", n=2))
    return out or ["(whitespace changes only)"]
