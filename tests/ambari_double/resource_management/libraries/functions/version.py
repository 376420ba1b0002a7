"""Stack version helpers (Ambari libraries/functions/version.py semantics)."""
import re

from resource_management import _double

__all__ = ["format_stack_version", "compare_versions", "get_major_version"]


def _normalize(v, desired_segments=0):
    parts = v.split(".")
    if desired_segments > 0 and len(parts) < desired_segments:
        parts = parts + (desired_segments - len(parts)) * ["0"]
    return [int(x) for x in parts]


def format_stack_version(value):
    """'2.2.0.1-885' -> '2.2.0.1'; '2.2' -> '2.2.0' on trunk but '2.2.0.0' on 2.7.8; '' when not a
    version."""
    if value:
        if "-" in value:
            first, last = value.find("-"), value.rfind("-")
            if first == last:
                value = value[first + 1:] if value[0].isalpha() else value[:first]
            else:
                value = value[first + 1:last]
        value = re.sub(r'^\D+', '', value)
        value = re.sub(r'\D+$', '', value)
        value = value.strip('.')
        if value.replace('.', '').isdigit():
            normalized = _normalize(str(value))
            if _double.is_trunk():
                if len(normalized) == 2:
                    normalized = normalized + [0]
            elif len(normalized) == 2:  # 2.7.8 pads to four segments
                normalized = normalized + [0, 0]
            elif len(normalized) == 3:
                normalized = normalized + [0]
            return ".".join(str(x) for x in normalized)
    return ""


def compare_versions(version1, version2, format=False):
    v1 = format_stack_version(version1) if format else version1
    v2 = format_stack_version(version2) if format else version2
    segments = max(len(v1.split(".")), len(v2.split(".")))
    a, b = _normalize(v1, segments), _normalize(v2, segments)
    return (a > b) - (a < b)


def get_major_version(full_version):
    match = re.compile(r'^[0-9]+\.[0-9]+').search(full_version)
    return match.group() if match else None
