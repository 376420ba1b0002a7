"""The reproducible tarball: fixed order, owners, times and modes."""

import gzip
import hashlib
import os
import tarfile

# Fixed so that two builds of the same tree are byte-identical (SOURCE_DATE_EPOCH overrides it).
DEFAULT_MTIME = 1577836800  # 2020-01-01T00:00:00Z


def _mtime():
    value = os.environ.get("SOURCE_DATE_EPOCH")
    return int(value) if value and value.isdigit() else DEFAULT_MTIME


def write_tarball(root, out_path):
    """tar.gz with one top-level directory, sorted entries, fixed owners/times, normalised modes."""
    top = os.path.basename(root)
    entries = [(top, root)]
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            entries.append((top + "/" + os.path.relpath(full, root).replace(os.sep, "/"), full))
    entries.sort(key=lambda entry: entry[0].split("/"))
    mtime = _mtime()
    tmp = out_path + ".part"
    with open(tmp, "wb") as raw:
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0)
        tar = tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT)
        for name, full in entries:
            info = tarfile.TarInfo(name)
            info.mtime = mtime
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            if os.path.isdir(full):
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                info.size = os.path.getsize(full)
                info.mode = 0o755 if os.stat(full).st_mode & 0o111 else 0o644
                with open(full, "rb") as fh:
                    tar.addfile(info, fh)
        tar.close()
        gz.close()
    os.rename(tmp, out_path)
    return out_path


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()
