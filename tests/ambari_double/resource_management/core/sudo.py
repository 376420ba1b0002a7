"""File-system primitives with the names of Ambari's core/sudo.py.

The real module runs them directly as root or through ambari-sudo.sh otherwise. The double
always uses os calls: as a non-root test user that works for the user's own files, and chown to
another user fails loudly instead of silently doing nothing.
read_file returns bytes on Python 3, like the real one (open 'rb', no decoding).
"""
import errno
import os
import random
import shutil
import sys
import tempfile
import time

from resource_management.core.exceptions import Fail
from resource_management.core.utils import attr_to_bitmask
from resource_management import _double


def chown(path, owner, group):
    uid = owner.pw_uid if owner else -1
    gid = group.gr_gid if group else -1
    if uid != -1 or gid != -1:
        try:
            os.chown(path, uid, gid)
        except OSError as ex:
            raise Fail("chown of {0} to {1}:{2} failed: {3} (the test double runs as uid {4}; use the "
                       "current user in test fixtures)".format(path, owner.pw_name if owner else "",
                                                              group.gr_name if group else "", ex,
                                                              os.geteuid()))


def chown_recursive(path, owner, group, follow_links=False):
    uid = owner.pw_uid if owner else -1
    gid = group.gr_gid if group else -1
    if uid == -1 and gid == -1:
        return
    for root, dirs, files in os.walk(path, followlinks=True):
        for name in files + dirs:
            full = os.path.join(root, name)
            try:
                (os.chown if follow_links else os.lchown)(full, uid, gid)
            except OSError as ex:
                if ex.errno != errno.ENOENT:
                    raise


def chmod(path, mode):
    return os.chmod(path, mode)


def chmod_extended(path, mode):
    st = os.stat(path)
    os.chmod(path, attr_to_bitmask(mode, initial_bitmask=st.st_mode))


def chmod_recursive(path, recursive_mode_flags, recursion_follow_links=False):
    dir_attrib = recursive_mode_flags.get("d")
    # Ambari reads the file flags only when a 'd' key is present too (sic); reproduced.
    files_attrib = recursive_mode_flags.get("f") if "d" in recursive_mode_flags else None
    for root, dirs, files in os.walk(path, followlinks=recursion_follow_links):
        if dir_attrib is not None:
            for name in dirs:
                full = os.path.join(root, name)
                chmod(full, attr_to_bitmask(dir_attrib, initial_bitmask=os.stat(full).st_mode))
        if files_attrib is not None:
            for name in files:
                full = os.path.join(root, name)
                chmod(full, attr_to_bitmask(files_attrib, initial_bitmask=os.stat(full).st_mode))


def move(src, dst):
    shutil.move(src, dst)


def copy(src, dst):
    shutil.copy(src, dst)


def makedirs(path, mode):
    try:
        os.makedirs(path, mode)
    except OSError as ex:
        dirname = os.path.dirname(ex.filename or path)
        if ex.errno == errno.ENOENT and os.path.islink(dirname) and not os.path.exists(dirname):
            raise Fail("Cannot create directory '{0}' as '{1}' is a broken symlink".format(path, dirname))
        if ex.errno == errno.ENOTDIR and os.path.isfile(dirname):
            raise Fail("Cannot create directory '{0}' as '{1}' is a file".format(path, dirname))
        raise


def makedir(path, mode):
    # Like the real root implementation: mode is applied afterwards by the provider.
    os.mkdir(path)


def symlink(source, link_name):
    os.symlink(source, link_name)


def link(source, link_name):
    os.link(source, link_name)


def unlink(path):
    os.unlink(path)


def rmtree(path):
    shutil.rmtree(path)


def _tmp_name():
    return tempfile.gettempdir() + os.sep + tempfile.template + str(time.time()) + "_" + \
        str(random.randint(0, 1000))


def create_file(filename, content, encoding=None, on_file_created=None):
    if _double.is_trunk():
        # trunk: write a temporary file, let the caller set owner/mode, then move it in place.
        content = content if content else ""
        tmp = _tmp_name()
        with open(tmp, "wb" if isinstance(content, bytes) else "w") as fp:
            fp.write(content)
        if on_file_created:
            on_file_created(tmp)
        # trunk moves it with `mv` through shell.checked_call: a bytes name fails there with Fail
        # ("Command should be a list of strings ...") and the temp file stays behind
        from resource_management.core import shell
        shell.quote_bash_args(filename)
        shutil.move(tmp, filename)
        return
    # 2.7.8: write in place (permissions are fixed afterwards by the provider).
    if on_file_created is not None:
        raise TypeError("create_file() got an unexpected keyword argument 'on_file_created'")
    with open(filename, "wb") as fp:
        if content:
            if encoding:
                content = content.encode(encoding)
            if sys.version_info[0] >= 3 and not isinstance(content, bytes):
                content = content.encode("utf-8")  # only when emulating 2.7.8 on Python 3
            fp.write(content)


def read_file(filename, encoding=None):
    with open(filename, "rb") as fp:
        content = fp.read()
    if encoding and not _double.is_trunk():
        content = content.decode(encoding)
    return content


def path_exists(path):
    return os.path.exists(path)


def path_isdir(path):
    return os.path.isdir(path)


def path_islink(path):
    return os.path.islink(path)


def path_lexists(path):
    return os.path.lexists(path)


def readlink(path):
    return os.readlink(path)


def path_isfile(path):
    return os.path.isfile(path)


def stat(path):
    class Stat:
        def __init__(self, path):
            st = os.stat(path)
            self.st_uid, self.st_gid, self.st_mode = st.st_uid, st.st_gid, st.st_mode & 0o7777
    return Stat(path)


def kill(pid, signal):
    os.kill(pid, signal)


def listdir(path):
    return os.listdir(path)
