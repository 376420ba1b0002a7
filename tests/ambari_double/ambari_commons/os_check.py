"""OSCheck / OSConst basics (Ambari ambari_commons/os_check.py), from /etc/os-release.

Families and their parents follow Ambari's os_family.json (debian's parent is ubuntu, fedora's
is redhat, ...). OSConst.<NAME>_FAMILY / OSConst.OS_<TYPE> resolve like the real metaclass.
"""
import platform

_FAMILIES = {
    'redhat': (['redhat', 'rhel', 'centos', 'oraclelinux', 'ascendos', 'xenserver', 'oel', 'ovs',
                'cloudlinux', 'slc', 'scientific', 'psbm', 'centos linux', 'rocky'], None),
    'redhat-ppc': (['redhat-ppc', 'centos-ppc'], 'redhat'),
    'openeuler': (['openeuler'], 'redhat'),
    'fedora': (['fedora'], 'redhat'),
    'amazonlinux': (['amazonlinux'], 'redhat'),
    'debian': (['debian'], 'ubuntu'),
    'ubuntu': (['ubuntu'], None),
    'suse': (['sles', 'sled', 'opensuse', 'suse'], None),
    'winsrv': (['win2008server', 'win2008serverr2', 'win2012server', 'win2012serverr2'], None),
}


class _OSConstType(type):
    def __getattr__(cls, name):
        name = name.lower()
        if name.startswith("os_") and any(name[3:] in v[0] for v in _FAMILIES.values()):
            return name[3:]
        if name.endswith("_family") and name[:-7] in _FAMILIES:
            return name[:-7]
        raise Exception("Unknown class property '%s'" % name)


OSConst = _OSConstType("OSConst", (object,), {"systemd_redhat_os_major_versions": ["7"]})


def _os_release():
    values = {}
    try:
        with open("/etc/os-release") as fp:
            for line in fp:
                if "=" in line:
                    key, _, value = line.strip().partition("=")
                    values[key] = value.strip('"')
    except IOError:
        pass
    return values


class OSCheck:
    @staticmethod
    def os_distribution():
        info = _os_release()
        return (info.get("ID", ""), info.get("VERSION_ID", ""), info.get("VERSION_CODENAME", ""))

    @staticmethod
    def get_os_type():
        os_type = OSCheck.os_distribution()[0].lower()
        if os_type in ("rhel", "rocky"):
            os_type = "redhat"
        elif os_type.startswith("sles") or os_type.startswith("opensuse"):
            os_type = "sles" if os_type.startswith("sles") else "opensuse"
        if not os_type:
            raise Exception("Cannot detect os type. Exiting...")
        return os_type

    @staticmethod
    def get_os_family():
        os_type = OSCheck.get_os_type()
        for family, (os_list, _) in _FAMILIES.items():
            if os_type in os_list:
                return family
        return os_type

    @staticmethod
    def get_os_family_parent(os_family):
        return _FAMILIES.get(os_family, (None, None))[1]

    @staticmethod
    def get_os_version():
        version = OSCheck.os_distribution()[1]
        if not version:
            raise Exception("Cannot detect os version. Exiting...")
        return version

    @staticmethod
    def get_os_major_version():
        return OSCheck.get_os_version().split('.')[0]

    @staticmethod
    def get_os_release_name():
        return OSCheck.os_distribution()[2].lower()

    @staticmethod
    def is_in_family(current_family, family):
        try:
            parent = OSCheck.get_os_family_parent(current_family)
            return current_family == family or bool(parent and OSCheck.is_in_family(parent, family))
        except Exception:
            return False

    @staticmethod
    def is_ubuntu_family():
        return OSCheck.is_in_family(OSCheck.get_os_family(), 'ubuntu')

    @staticmethod
    def is_suse_family():
        return OSCheck.is_in_family(OSCheck.get_os_family(), 'suse')

    @staticmethod
    def is_redhat_family():
        return OSCheck.is_in_family(OSCheck.get_os_family(), 'redhat')

    @staticmethod
    def is_windows_family():
        return platform.system() == "Windows"
