"""Text at the agent's boundaries, the same on both Ambari lines.

Inside the mpack every value is text (`unicode` on Python 2, `str` on Python 3): the Ambari 2.7
agent's JSON already gives `unicode` on Python 2, Ambari 3 hands decrypted sensitive values over
as `bytes`, and Kafka, MM2 and the JVM print bytes in whatever encoding they like. Decode once
where the value enters; encode only where the OS wants bytes.
"""
import sys

PY2 = sys.version_info[0] == 2
if PY2:
    TEXT = unicode  # noqa: F821 (Python 2 only)
else:
    TEXT = str


def to_text(value):
    """A configuration value as text: bytes decoded as UTF-8 (Ambari encrypts Java strings as
    UTF-8); bytes that are not UTF-8 keep every byte (latin-1), so a secret is never altered
    into replacement characters. Anything else (bool, int, None, text) is returned unchanged."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.decode("latin-1")
    return value


def decode_output(data):
    """Output of a program or the content of a log file as text: never raises."""
    if data is None:
        return u""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data


def text(value):
    """text of any value (str() that works for non-ASCII on Python 2 and bytes on Python 3)."""
    value = to_text(value)
    if isinstance(value, TEXT):
        return value
    try:
        return TEXT(value)
    except UnicodeDecodeError:  # Python 2 object whose __str__ gives non-ASCII bytes
        return str(value).decode("utf-8", "replace")


def native(value):
    """The interpreter's native str (what os, subprocess and the logging of paths expect):
    UTF-8 bytes on Python 2, text on Python 3."""
    value = text(value)
    if PY2:
        return value.encode("utf-8")
    return value
