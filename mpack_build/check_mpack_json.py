"""Checks of mpack.json: prerequisites, artifacts, stack add-ons, hooks."""

import os
import re

from .ambari_rules import ARTIFACT_TYPES, HOOK_NAMES, MPACK_KEYS, PREREQUISITE_KEYS
from .problems import text_type


class MpackJsonChecks(object):
    """A part of Checker (checker.py), which provides self.add/json/xml/ref_problem, .core, .names."""

    def check_mpack_json(self):
        if not self._parsable("mpack.json"):
            return None
        src = self.json("mpack.json")
        meta = src.obj
        rel = "mpack.json"
        if not isinstance(meta, dict):
            self.add(rel, 1, "mpack.json must be a JSON object")
            return None
        for key in meta:
            if key not in MPACK_KEYS:
                self.add(rel, src.key_line(key), "unknown key %r: setupMpacks.py does not read it" % key)
        for key in ("name", "version", "prerequisites", "artifacts"):
            if key not in meta:
                self.add(rel, 1, "missing %r: setupMpacks.py reads mpack_metadata.%s and fails with "
                         "AttributeError without it" % (key, key))
        name, version = meta.get("name"), meta.get("version")
        if "name" in meta and not (isinstance(name, (str, text_type)) and re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", name)):
            self.add(rel, src.key_line("name"), "name must be letters, digits, '.', '_' or '-' "
                     "(it names the staging directory mpacks/<name>-<version>)")
        if "version" in meta and not (isinstance(version, (str, text_type)) and re.match(r"^\d+(\.\d+){1,3}$", version)):
            self.add(rel, src.key_line("version"), "version must be 2 to 4 dot-separated numbers (e.g. 1.0.0.0): "
                     "upgrade-mpack compares versions numerically")
        stacks_required = self._check_prerequisites(src, meta.get("prerequisites"))
        self._check_artifacts(src, meta.get("artifacts"), stacks_required)
        self._check_hooks(src, meta.get("hooks"))
        return meta

    def _check_prerequisites(self, src, prereq):
        rel = "mpack.json"
        if prereq is None:
            return set()
        if not isinstance(prereq, dict):
            self.add(rel, src.key_line("prerequisites"), "prerequisites must be an object")
            return set()
        for key in prereq:
            if "-" in key and key.replace("-", "_") in PREREQUISITE_KEYS:
                self.add(rel, src.key_line(key), "%r is silently ignored by setupMpacks.py, which reads "
                         "underscore keys only: use %r" % (key, key.replace("-", "_")))
            elif key not in PREREQUISITE_KEYS:
                self.add(rel, src.key_line(key), "unknown prerequisite %r (setupMpacks.py reads %s)"
                         % (key, ", ".join(PREREQUISITE_KEYS)))
        if "min_ambari_version" not in prereq:
            self.add(rel, src.key_line("prerequisites"), "prerequisites needs min_ambari_version so that "
                     "install-mpack fails fast on an Ambari that cannot run the service")
        for key in ("min_ambari_version", "max_ambari_version"):
            value = prereq.get(key)
            if value is not None and not re.match(r"^\d+(\.\d+){1,4}$", str(value)):
                self.add(rel, src.key_line(key), "%s must be a dotted version like 2.7.0.0" % key)
        stacks = set()
        msv = prereq.get("min_stack_versions")
        if msv is not None:
            if not isinstance(msv, list) or not msv:
                self.add(rel, src.key_line("min_stack_versions"), "min_stack_versions must be a non-empty list")
            else:
                for entry in msv:
                    pair = self._stack_pair(src, entry, "min_stack_versions")
                    if pair:
                        stacks.add(pair)
        return stacks

    def _stack_pair(self, src, entry, where):
        if not isinstance(entry, dict) or not entry.get("stack_name") or not entry.get("stack_version"):
            self.add("mpack.json", src.key_line(where), "%s entries need stack_name and stack_version" % where)
            return None
        return (entry["stack_name"], entry["stack_version"])

    def _check_artifacts(self, src, artifacts, stacks_required):
        rel = "mpack.json"
        if artifacts is None:
            return
        if not isinstance(artifacts, list) or not artifacts:
            self.add(rel, src.key_line("artifacts"), "artifacts must be a non-empty list")
            return
        seen, linked_stacks, stack_dirs = set(), set(), set()
        for art in artifacts:
            if not isinstance(art, dict):
                self.add(rel, src.key_line("artifacts"), "each artifact must be an object")
                continue
            line = src.line_of('"%s"' % art.get("name")) if art.get("name") else src.key_line("artifacts")
            for key in ("name", "type", "source_dir"):
                if not art.get(key):
                    self.add(rel, line, "artifact needs %r (setupMpacks.py reads artifact.%s)" % (key, key))
            if art.get("name") in seen:
                self.add(rel, line, "duplicate artifact name %r" % art.get("name"))
            seen.add(art.get("name"))
            art_type, source_dir = art.get("type"), art.get("source_dir")
            if art_type and art_type not in ARTIFACT_TYPES:
                self.add(rel, line, "artifact type %r is not one setupMpacks.py processes (%s): it would be "
                         "ignored" % (art_type, ", ".join(ARTIFACT_TYPES)))
            if not source_dir:
                continue
            if source_dir.startswith("/") or ".." in source_dir.split("/"):
                self.add(rel, line, "source_dir %r must be relative to the mpack root" % source_dir)
                continue
            abs_dir = self.layout.path(source_dir)
            if not os.path.isdir(abs_dir):
                self.add(rel, line, "source_dir %r does not exist in the mpack" % source_dir)
                continue
            if source_dir.startswith("stacks/"):
                stack_dirs.add(source_dir)
            if art_type == "service-definitions":
                self._check_service_definitions(line, source_dir)
            elif art_type == "stack-addon-service-definitions":
                linked_stacks |= self._check_addon(src, line, art, source_dir)
        if stacks_required and linked_stacks and stacks_required != linked_stacks:
            missing = sorted(stacks_required - linked_stacks)
            extra = sorted(linked_stacks - stacks_required)
            detail = []
            if missing:
                detail.append("listed in min_stack_versions but never linked: %s" % _stacks(missing))
            if extra:
                detail.append("linked but missing from min_stack_versions: %s" % _stacks(extra))
            self.add(rel, src.key_line("min_stack_versions"), "min_stack_versions and the applicable_stacks "
                     "of the add-on artifacts must list the same stacks; " + "; ".join(detail))
        stacks_root = self.layout.path("stacks")
        if os.path.isdir(stacks_root):
            for name in sorted(os.listdir(stacks_root)):
                if "stacks/" + name not in stack_dirs:
                    self.add(rel, src.key_line("artifacts"), "stacks/%s is in the mpack but no artifact "
                             "links it, so the service would never show up on %s" % (name, name))

    def _check_service_definitions(self, line, source_dir):
        abs_dir = self.layout.path(source_dir)
        for svc in sorted(os.listdir(abs_dir)):
            svc_dir = os.path.join(abs_dir, svc)
            if not os.path.isdir(svc_dir):
                self.add("mpack.json", line, "%s/%s: only service directories belong in a service-definitions "
                         "source_dir" % (source_dir, svc))
                continue
            for ver in sorted(os.listdir(svc_dir)):
                ver_dir = os.path.join(svc_dir, ver)
                rel = "%s/%s/%s" % (source_dir, svc, ver)
                if not os.path.isdir(ver_dir):
                    self.add(rel, 1, "Ambari treats every entry under %s/%s/ as a service version directory; "
                             "move this file into a version directory" % (source_dir, svc))
                elif not os.path.isfile(os.path.join(ver_dir, "metainfo.xml")):
                    self.add(rel, 1, "service version directory without metainfo.xml (ambari-server refuses "
                             "to start)")

    def _check_addon(self, src, line, art, source_dir):
        linked = set()
        svm = art.get("service_versions_map")
        if not isinstance(svm, list) or not svm:
            self.add("mpack.json", line, "a stack-addon-service-definitions artifact needs a non-empty "
                     "service_versions_map (setupMpacks.py: 'Must provide service versions map')")
            return linked
        mapped = set()
        family = source_dir.split("/")[1] if source_dir.startswith("stacks/") else None
        for entry in svm:
            if not isinstance(entry, dict) or not entry.get("service_name") or not entry.get("service_version"):
                self.add("mpack.json", line, "service_versions_map entries need service_name and service_version")
                continue
            mapped.add((entry["service_name"], entry["service_version"]))
            stacks = entry.get("applicable_stacks")
            if not isinstance(stacks, list) or not stacks:
                self.add("mpack.json", line, "service_versions_map entry needs a non-empty applicable_stacks")
                continue
            for stack in stacks:
                pair = self._stack_pair(src, stack, "applicable_stacks")
                if pair is None:
                    continue
                linked.add(pair)
                if family and pair[0] != family:
                    self.add("mpack.json", src.line_of('"%s"' % pair[1], after='"%s"' % art.get("name")),
                             "%s holds the %s add-on definition but is linked into %s/%s"
                             % (source_dir, family, pair[0], pair[1]))
        on_disk = set()
        abs_dir = self.layout.path(source_dir)
        for svc in sorted(os.listdir(abs_dir)):
            svc_dir = os.path.join(abs_dir, svc)
            if not os.path.isdir(svc_dir):
                self.add("mpack.json", line, "%s/%s: only <service>/<version> directories belong here"
                         % (source_dir, svc))
                continue
            for ver in sorted(os.listdir(svc_dir)):
                on_disk.add((svc, ver))
        for svc, ver in sorted(mapped - on_disk):
            self.add("mpack.json", line, "service_versions_map lists %s %s but %s/%s/%s does not exist"
                     % (svc, ver, source_dir, svc, ver))
        for svc, ver in sorted(on_disk - mapped):
            self.add("mpack.json", line, "%s/%s/%s is not in service_versions_map, so install-mpack "
                     "never links it" % (source_dir, svc, ver))
        for svc, ver in sorted(mapped):
            if (svc, ver) != (self.names.SERVICE, self.names.SERVICE_VERSION):
                self.add("mpack.json", line, "service_versions_map names %s %s; names.py says %s %s"
                         % (svc, ver, self.names.SERVICE, self.names.SERVICE_VERSION))
        return linked

    def _check_hooks(self, src, hooks):
        if hooks is None:
            return
        if not isinstance(hooks, list):
            self.add("mpack.json", src.key_line("hooks"), "hooks must be a list")
            return
        for hook in hooks:
            if not isinstance(hook, dict) or hook.get("name") not in HOOK_NAMES \
                    or hook.get("type") not in ("python", "shell") or not hook.get("script"):
                self.add("mpack.json", src.key_line("hooks"), "each hook needs name (%s), type (python|shell) "
                         "and script" % "|".join(HOOK_NAMES))
            elif not os.path.isfile(self.layout.path(hook["script"])):
                self.add("mpack.json", src.line_of(hook["script"]), "hook script %s is not in the mpack"
                         % hook["script"])


def _stacks(pairs):
    return ", ".join("%s/%s" % p for p in pairs)
