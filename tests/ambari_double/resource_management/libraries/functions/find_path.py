import os

__all__ = ["find_path"]


def find_path(search_directories, filename):
    """First <dir>/<filename> that is a file, else None."""
    for directory in search_directories:
        if directory:
            candidate = os.path.join(directory, filename)
            if os.path.isfile(candidate):
                return candidate
    return None
