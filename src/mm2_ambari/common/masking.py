"""Keep passwords out of everything mm2-ambari prints: plans, diffs, errors.

A property is secret when the catalog says it is a PASSWORD, when Ambari's properties_attributes mark it
as a password, when the core's rule says its key holds a credential (mm2_core.kafka.versions.is_secret_key:
passwords, JAAS configs, PEM private keys ssl.keystore.key, *secret, basic.auth.user.info), or when
its name contains 'password'/'passwd' (Ambari's own SecretReference heuristic). PEM private key
blocks and passwords inside URLs (https://user:pass@host) are masked in any text.
"""
import re

from mm2_core.config import schema
from mm2_core.kafka import versions

MASK = "********"
# Names whose value is a secret: the core rule's suffixes plus Ambari's 'password'/'passwd' anywhere.
_SECRET_WORDS = r"password|passwd|jaas\.config|keystore\.key|secret|basic\.auth\.user\.info"
_SECRET_NAME = re.compile(_SECRET_WORDS, re.IGNORECASE)
_PEM_KEY = re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|\Z)", re.DOTALL)
_URL_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:)([^/\s@]*)(@)")
_CATALOG_SECRETS = frozenset(schema.secret_properties())
# key: value / key=value lines (YAML or properties) whose key looks secret; group 3 is the value.
_SECRET_LINE = re.compile(
    r"""^(\s*(?:-\s+)?["']?([^\s"':=]*(?:%s)[^\s"':=]*)["']?\s*[:=]\s*)(.*)$""" % _SECRET_WORDS,
    re.IGNORECASE)
# name=value / name: value anywhere in free text (task output, error messages): the value is masked.
_SECRET_INLINE = re.compile(
    r"""((?:[\w.\-]*(?:%s))["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;]+)""" % _SECRET_WORDS, re.IGNORECASE)
_SECRET_REF = re.compile(r"^SECRET:[^:]+:\d+:[^:]+$")
# A Kafka config provider reference (${file:/path:key}) names where a secret is, not the secret.
_PROVIDER_REF = re.compile(r"^[\"']?\$\{[^}]*\}[\"']?$")


def is_secret_ref(value):
    """Ambari's SECRET:<type>:<version>:<name> reference (SecretReference.isSecret)."""
    return isinstance(value, str) and bool(_SECRET_REF.match(value))


def is_secret(config_type, name, attributes=None):
    if (config_type, name) in _CATALOG_SECRETS or versions.is_secret_key(name) or \
            re.search(r"password|passwd", name, re.IGNORECASE):
        return True
    marked = ((attributes or {}).get("password") or {}).get(name)
    return str(marked).lower() == "true"


def mask_value(config_type, name, value, attributes=None):
    if value in (None, "") or is_secret_ref(value) or versions.is_provider_reference(str(value)):
        return value  # an empty password or a reference reveals nothing
    return MASK if is_secret(config_type, name, attributes) else mask_text(value)


def mask_properties(config_type, properties, attributes=None):
    return dict((k, mask_value(config_type, k, v, attributes)) for k, v in (properties or {}).items())


def mask_text(text):
    """Mask secret-looking values inside a multi-line text (topology YAML, templates, errors)."""
    if not isinstance(text, str):
        return text
    text = _PEM_KEY.sub(MASK, text)
    text = _URL_USERINFO.sub(lambda m: m.group(1) + MASK + m.group(3), text)
    if not _SECRET_NAME.search(text):
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


_MESSAGE_PATH = re.compile(r"^([\w.\-\[\]/]+: )(.*)$", re.DOTALL)


def mask_message(message):
    """A validator message ('clusters.east.sasl.password: empty: ...'): the leading key path names the
    property, it is not a 'key: value' line, so only what follows is masked."""
    if not isinstance(message, str):
        return message
    match = _MESSAGE_PATH.match(message)
    if match:
        return match.group(1) + mask_text(match.group(2))
    return mask_text(message)


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


def url_password_problem(url):
    """None, or why a URL that may hold credentials (https://user:pass@host) is refused.

    Any '@' counts: a password may itself hold '/', '#', '?' or '@', so no parser can tell reliably
    where it ends, and the URL is therefore never echoed, not even masked."""
    if "@" not in (url or ""):
        return None
    scheme = url.split("://", 1)[0] if "://" in url else "https"
    scheme = scheme if scheme in ("http", "https") else "https"
    return ("the Ambari URL holds a password or user name (user:password@host; it has an '@'), so it is not "
            "shown; give the server only (%s://HOST:PORT) and the credentials through AMBARI_USER/"
            "AMBARI_PASSWORD, ~/.netrc or the prompt" % scheme)
