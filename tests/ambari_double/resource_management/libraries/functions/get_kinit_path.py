from resource_management.libraries.functions.find_executable import find_executable

__all__ = ["get_kinit_path"]


def get_kinit_path(search_directories=None):
    return find_executable(search_directories, "kinit")
