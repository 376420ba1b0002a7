import re

__all__ = ["get_bare_principal"]


def get_bare_principal(normalized_principal_name):
    """'mm2/host@REALM' -> 'mm2' (the primary); None for an empty name."""
    if not normalized_principal_name:
        return None
    match = re.match(r"([^/@]+)(?:/[^@])?(?:@.*)?", normalized_principal_name)
    return match.group(1) if match else None
