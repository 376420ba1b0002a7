"""Keep passwords out of everything mm2-ambari prints: plans, diffs, errors.

A property is secret when the catalog says it is a PASSWORD, when Ambari's properties_attributes mark it
as a password, or when its name looks like one (Ambari's own SecretReference heuristic: 'password' or
'passwd' in the name, plus JAAS configs which embed passwords).
"""
import re

from mm2_core import schema

MASK = "********"
_SECRET_NAME = re.compile(r"password|passwd|jaas\.config", re.IGNORECASE)
_CATALOG_SECRETS = frozenset(schema.secret_properties())
# key: value / key=value lines (YAML or properties) whose key looks secret; group 3 is the value.
_SECRET_LINE = re.compile(
    r"""^(\s*(?:-\s+)?["']?([^\s"':=]*(?:password|passwd|jaas\.config)[^\s"':=]*)["']?\s*[:=]\s*)(.*)$""",
    re.IGNORECASE)
# name=value / name: value anywhere in free text (task output, error messages): the value is masked.
_SECRET_INLINE = re.compile(
    r"""((?:[\w.\-]*(?:password|passwd))["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;]+)""", re.IGNORECASE)
_SECRET_REF = re.compile(r"^SECRET:[^:]+:\d+:[^:]+$")
# A Kafka config provider reference (${file:/path:key}) names where a secret is, not the secret.
_PROVIDER_REF = re.compile(r"^[\"']?\$\{[^}]*\}[\"']?$")


def is_secret_ref(value):
    """Ambari's SECRET:<type>:<version>:<name> reference (SecretReference.isSecret)."""
    return isinstance(value, str) and bool(_SECRET_REF.match(value))


def is_secret(config_type, name, attributes=None):
    if (config_type, name) in _CATALOG_SECRETS or _SECRET_NAME.search(name):
        return True
    marked = ((attributes or {}).get("password") or {}).get(name)
    return str(marked).lower() == "true"


def mask_value(config_type, name, value, attributes=None):
    if value in (None, "") or is_secret_ref(value) or _PROVIDER_REF.match(str(value).strip()):
        return value  # an empty password or a reference reveals nothing
    return MASK if is_secret(config_type, name, attributes) else mask_text(value)


def mask_properties(config_type, properties, attributes=None):
    return dict((k, mask_value(config_type, k, v, attributes)) for k, v in (properties or {}).items())


def mask_text(text):
    """Mask secret-looking values inside a multi-line text (topology YAML, templates)."""
    if not isinstance(text, str) or not _SECRET_NAME.search(text):
        return text
    out, block_indent = [], None
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if line.strip() and indent > block_indent:
                out.append(line[:indent] + MASK)
                continue
            block_indent = None
        match = _SECRET_LINE.match(line)
        if match and match.group(3).strip():
            value = match.group(3).strip()
            if _PROVIDER_REF.match(value) or is_secret_ref(value):
                out.append(line)
            elif value[:1] in ("|", ">"):  # YAML block scalar: the secret is on the next lines
                block_indent = indent
                out.append(line)
            else:
                out.append(match.group(1) + MASK)
        else:
            out.append(_SECRET_INLINE.sub(_mask_inline, line))
    return "\n".join(out)


def _mask_inline(match):
    value = match.group(2)
    if is_secret_ref(value.strip("\"'")) or _PROVIDER_REF.match(value) or value in ("(empty)",):
        return match.group(0)
    return match.group(1) + MASK


def mask_body(body):
    """A request body as sent to Ambari, with every secret masked (for --dry-run and errors)."""
    if isinstance(body, list):
        return [mask_body(item) for item in body]
    if not isinstance(body, dict):
        return body
    masked = {}
    config_type = body.get("type")
    for key, value in body.items():
        if key == "properties" and isinstance(value, dict) and config_type:
            masked[key] = mask_properties(config_type, value, body.get("properties_attributes"))
        else:
            masked[key] = mask_body(value)
    return masked
