"""What ambari-server's install-mpack / upgrade-mpack / uninstall-mpack do with a tarball.

Re-implemented (not copied) from reading ambari-server/src/main/python/ambari_server/setupMpacks.py
and ambari-common/.../resource_management/libraries/functions/tar_archive.py, which have the same
logic on release-2.7.8 and trunk. Kept deliberately literal, quirks included:

- the archive root is os.path.commonprefix() of the member names: a STRING prefix, not a path;
- mpack.json is read into a dict with attribute access, and a missing key raises
  "AttributeError: type object 'dict' has no attribute '__getattr__'" (it calls dict.__getattr__);
- min_stack_versions passes when ANY listed stacks/<name>/<version> directory exists;
- a stack-addon link is made only when stacks/<name> and stacks/<name>/<version> exist, otherwise
  it is skipped without a word; a stack directory is never created (only its services/ dir);
- uninstall removes every link whose realpath CONTAINS the staging directory path (substring);
- a dashboards link that already exists is kept ("Grafana dashboards already exist"), even on
  upgrade, so upgrade-mpack ends up removing it together with the old version.

Hooks, --purge and ownership changes are not modelled (this mpack has no hooks, and the others
do not change what gets linked).
"""
import json
import os
import shutil
import subprocess
import tarfile


class FatalException(Exception):
    def __init__(self, code, reason):
        Exception.__init__(self, reason)
        self.code = code
        self.reason = reason


class NamedDict(dict):
    """setupMpacks._named_dict: attribute access to keys, nested dicts and lists converted."""

    def __init__(self, data):
        dict.__init__(self, data)
        for key, value in list(self.items()):
            self[key] = _convert(value)

    def __getattr__(self, item):
        if item in self:
            return self[item]
        # Ambari calls dict.__getattr__ here, which does not exist: AttributeError for any missing key
        return dict.__getattr__(self, item)


def _convert(value):
    if isinstance(value, dict) and not isinstance(value, NamedDict):
        return NamedDict(value)
    if isinstance(value, list):
        return [_convert(v) for v in value]
    return value


def format_stack_version(value):
    """version.format_stack_version: strip non-digits at the ends, pad #.# to #.#.0."""
    import re
    if not value:
        return ""
    if "-" in value:
        first, last = value.find("-"), value.rfind("-")
        if first == last:
            value = value[first + 1:] if value[0].isalpha() else value[:first]
        else:
            value = value[first + 1:last]
    value = re.sub(r"^\D+", "", value)
    value = re.sub(r"\D+$", "", value).strip(".")
    if not value.replace(".", "").isdigit():
        return ""
    parts = [int(x) for x in value.split(".")]
    if len(parts) == 2:
        parts.append(0)
    return ".".join(str(p) for p in parts)


def compare_versions(v1, v2, format=False):
    if format:
        v1, v2 = format_stack_version(v1), format_stack_version(v2)
    size = max(len(v1.split(".")), len(v2.split(".")))

    def norm(v):
        parts = v.split(".")
        return [int(x) for x in parts + ["0"] * (size - len(parts))]
    a, b = norm(v1), norm(v2)
    return (a > b) - (a < b)


def archive_root_dir(archive):
    """tar_archive.get_archive_root_dir: commonprefix of all member names (a string prefix)."""
    if archive.endswith(".tar.gz") or archive.endswith(".tgz"):
        mode = "r:gz"
    elif archive.endswith(".tar.bz2") or archive.endswith(".tbz"):
        mode = "r:bz2"
    else:
        raise ValueError("Could not extract `%s` as no appropriate extractor is found" % archive)
    with tarfile.open(archive, mode) as tar:
        names = tar.getnames()
    return os.path.commonprefix(names) if names else None


class Server(object):
    """The resources tree of an ambari-server and what the mpack commands do to it."""

    def __init__(self, resources, ambari_version="2.7.8.0.0", tmp_dir=None):
        self.resources = resources
        self.ambari_version = ambari_version
        self.stacks = os.path.join(resources, "stacks")
        self.extensions = os.path.join(resources, "extensions")
        self.common_services = os.path.join(resources, "common-services")
        self.mpacks = os.path.join(resources, "mpacks")
        self.dashboards = os.path.join(resources, "dashboards")
        self.tmp = tmp_dir or os.path.join(resources, "..", "data", "tmp")
        self.log = []

    # -- install ---------------------------------------------------------------------------
    def _download(self, mpack_path):
        if not os.path.isdir(self.tmp):
            os.makedirs(self.tmp)
        target = os.path.join(self.tmp, os.path.basename(mpack_path))
        if os.path.exists(target):
            os.remove(target)
        shutil.copyfile(mpack_path, target)
        return target

    def _expand(self, archive):
        root = archive_root_dir(archive)
        if not root:
            raise FatalException(-1, "Malformed management pack. Root directory missing!")
        tmp_root = os.path.join(self.tmp, root)
        if os.path.exists(tmp_root):
            shutil.rmtree(tmp_root)
        # Ambari runs the system tar (through ambari-sudo.sh) into the tmp dir
        subprocess.check_call(["tar", "-xf", archive, "-C", self.tmp + "/"])
        if not os.path.exists(tmp_root):
            raise FatalException(-1, "Malformed management pack. Failed to expand management pack!")
        return tmp_root

    @staticmethod
    def read_metadata(mpack_dir):
        path = os.path.join(mpack_dir, "mpack.json")
        if not os.path.exists(path):
            return None
        with open(path) as fh:
            return NamedDict(json.load(fh))

    def _validate_prerequisites(self, meta):
        fail = False
        prerequisites = meta.prerequisites
        if "min_ambari_version" in prerequisites:
            if compare_versions(prerequisites.min_ambari_version, self.ambari_version, format=True) > 0:
                self.log.append("Prerequisite failure! Current Ambari Version = %s, Min Ambari Version = %s"
                                % (self.ambari_version, prerequisites.min_ambari_version))
                fail = True
        if "max_ambari_version" in prerequisites:
            if compare_versions(prerequisites.max_ambari_version, self.ambari_version, format=True) < 0:
                # Ambari prints this but does not fail
                self.log.append("Prerequisite failure! Current Ambari Version = %s, Max Ambari Version = %s"
                                % (self.ambari_version, prerequisites.max_ambari_version))
        if "min_stack_versions" in prerequisites:
            found = False
            for entry in prerequisites.min_stack_versions:
                stack_dir = os.path.join(self.stacks, entry.stack_name, entry.stack_version)
                if os.path.isdir(stack_dir):
                    found = True
                    break
            if not found:
                self.log.append("Prerequisite failure! Min applicable stack not found")
                fail = True
        if fail:
            raise FatalException(-1, "Prerequisites for management pack %s-%s failed!" % (meta.name, meta.version))

    def _install(self, mpack_path, force=False):
        archive = self._download(mpack_path)
        tmp_root = self._expand(archive)
        meta = self.read_metadata(tmp_root)
        if not meta:
            raise FatalException(-1, "Malformed management pack %s. Metadata file missing!" % mpack_path)
        self._validate_prerequisites(meta)
        if "hooks" in meta:
            raise NotImplementedError("this model does not run mpack hooks")
        for path in (self.stacks, self.extensions, self.common_services, self.mpacks,
                     os.path.join(self.mpacks, "cache")):
            if not os.path.exists(path):
                os.mkdir(path)
        if not os.path.exists(self.dashboards):
            os.mkdir(self.dashboards)
            os.mkdir(os.path.join(self.dashboards, "grafana-dashboards"))
            os.mkdir(os.path.join(self.dashboards, "service-metrics"))
        staging = os.path.join(self.mpacks, meta.name + "-" + meta.version)
        if os.path.exists(staging):
            if force:
                shutil.rmtree(staging)
            else:
                raise FatalException(-1, "Management pack %s-%s already installed!" % (meta.name, meta.version))
        shutil.move(tmp_root, staging)
        shutil.move(archive, os.path.join(self.mpacks, "cache", os.path.basename(archive)))
        for artifact in meta.artifacts:
            source_dir = os.path.join(staging, artifact.source_dir)
            if artifact.type == "service-definitions":
                self._service_definitions(source_dir, force)
            elif artifact.type == "stack-addon-service-definitions":
                self._stack_addon(artifact, source_dir, force)
            elif artifact.type in ("stack-definitions", "extension-definitions"):
                raise NotImplementedError("this model does not link %s" % artifact.type)
            else:
                self.log.append("Unknown artifact %s of type %s" % (artifact.name, artifact.type))
        return meta, staging

    @staticmethod
    def _symlink(src, link, force):
        if force and os.path.islink(link):
            os.unlink(link)
        os.symlink(src, link)  # OSError (File exists) when already there and not forced

    def _service_definitions(self, source_dir, force):
        for service in sorted(os.listdir(source_dir)):
            src_service = os.path.join(source_dir, service)
            dest_service = os.path.join(self.common_services, service)
            if not os.path.exists(dest_service):
                os.mkdir(dest_service)
            for version in sorted(os.listdir(src_service)):
                self._symlink(os.path.join(src_service, version), os.path.join(dest_service, version), force)
                self._dashboards(os.path.join(src_service, version), service, force)

    def _stack_addon(self, artifact, source_dir, force):
        versions_map = artifact.service_versions_map if "service_versions_map" in artifact else None
        if not versions_map:
            raise FatalException(-1, "Must provide service versions map for stack-addon-service-definitions artifact!")
        for service in sorted(os.listdir(source_dir)):
            for version in sorted(os.listdir(os.path.join(source_dir, service))):
                src = os.path.join(source_dir, service, version)
                for entry in versions_map:
                    if service != entry.service_name or version != entry.service_version:
                        continue
                    for stack in entry.applicable_stacks:
                        stack_path = os.path.join(self.stacks, stack.stack_name)
                        version_path = os.path.join(stack_path, stack.stack_version)
                        services_path = os.path.join(version_path, "services")
                        if os.path.exists(stack_path) and os.path.exists(version_path):
                            if not os.path.exists(services_path):
                                os.mkdir(services_path)
                            self._symlink(src, os.path.join(services_path, service), force)
                            self._dashboards(src, service, force)

    def _dashboards(self, service_dir, service, force):
        dashboards = os.path.join(service_dir, "dashboards")
        if not os.path.exists(dashboards):
            return
        grafana = os.path.join(dashboards, "grafana-dashboards")
        if os.path.exists(grafana):
            link = os.path.join(self.dashboards, "grafana-dashboards", service)
            if not os.path.exists(link):
                self._symlink(grafana, link, force)
        metrics = os.path.join(dashboards, "service-metrics", service + ".txt")
        if os.path.exists(metrics):
            link = os.path.join(self.dashboards, "service-metrics", service + ".txt")
            if not os.path.exists(link):
                self._symlink(metrics, link, force)

    def install(self, mpack_path, force=False):
        """ambari-server install-mpack --mpack=<path>; returns the staging directory."""
        return self._install(mpack_path, force)[1]

    # -- search / uninstall / upgrade -------------------------------------------------------------
    def search(self, name, max_version=None):
        results = []
        if os.path.isdir(self.mpacks):
            for entry in sorted(os.listdir(self.mpacks)):
                staged = os.path.join(self.mpacks, entry)
                if entry == "cache" or not os.path.isdir(staged):
                    continue
                meta = self.read_metadata(staged)
                if not meta:
                    continue
                if meta.name == name and (not max_version or
                                          compare_versions(meta.version, max_version, format=True) < 0):
                    results.append((meta.name, meta.version))
        return results

    def _remove_symlinks(self, staged):
        for location in (self.stacks, self.extensions, self.common_services, self.dashboards):
            for root, dirs, files in os.walk(location):
                for name in files + dirs:
                    path = os.path.join(root, name)
                    if os.path.islink(path) and staged in os.path.realpath(path):
                        os.unlink(path)

    def _uninstall_one(self, name, version):
        for entry in sorted(os.listdir(self.mpacks)):
            staged = os.path.join(self.mpacks, entry)
            if entry == "cache" or not os.path.isdir(staged):
                continue
            meta = self.read_metadata(staged)
            if meta and meta.name == name and compare_versions(meta.version, version, format=True) == 0:
                shutil.rmtree(staged)
                self._remove_symlinks(staged)
                return True
        return False

    def uninstall(self, name):
        """ambari-server uninstall-mpack --mpack-name=<name>"""
        if not self.search(name):
            raise FatalException(-1, "No management packs found that can be uninstalled!")
        for found_name, found_version in self.search(name):
            self._uninstall_one(found_name, found_version)

    def upgrade(self, mpack_path):
        """ambari-server upgrade-mpack --mpack=<path>; returns the new staging directory."""
        tmp_root = self._expand(self._download(mpack_path))
        meta = self.read_metadata(tmp_root)
        if not self.search(meta.name, meta.version):
            raise FatalException(-1, "No management packs found that can be upgraded!")
        meta, staging = self._install(mpack_path, force=True)
        for found_name, found_version in self.search(meta.name, meta.version):
            self._uninstall_one(found_name, found_version)
        return staging
