from resource_management.core.utils import _text
from resource_management.libraries.functions.find_path import find_path

__all__ = ["find_executable"]


def find_executable(search_directories, filename):
    """Path of filename in a comma-separated string or list of dirs (default: the usual Kerberos
    bin dirs); the bare filename when not found."""
    if isinstance(search_directories, (str, _text)):
        search_directories = [d.strip() for d in search_directories.split(",")]
    elif not isinstance(search_directories, list):
        search_directories = ["/usr/bin", "/usr/kerberos/bin", "/usr/sbin", '/usr/lib/mit/bin', '/usr/lib/mit/sbin']
    path = find_path(search_directories, filename)
    return path if path else filename
