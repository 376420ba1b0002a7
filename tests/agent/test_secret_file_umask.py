"""Secret-bearing files are never readable by others, not even while Ambari's File writes them.

Ambari's File writes the content first and applies the mode afterwards (trunk via a temp file in
/tmp), so the umask in force during the write decides who could read a password meanwhile.
"""
import os

import mm2_setup


class _Params(object):
    def __init__(self, conf_dir):
        self.mm2_conf_dir = conf_dir
        self.mm2_user = "mm2"
        self.user_group = "hadoop"
        self.mm2_manifest_file = os.path.join(conf_dir, ".rendered-files")
        self.mm2_metrics_enabled = True
        self.metrics_has_secrets = True
        self.jmx_exporter_config_file = os.path.join(conf_dir, "jmx_exporter_mm2.yaml")
        self.mm2_metrics_ssl_enabled = True
        self.metrics_keystore = "/etc/security/mm2.jks"
        self.metrics_keystore_type = "JKS"
        self.metrics_keystore_password = "s3cret"
        self.metrics_certificate_alias = "mm2"
        self.metrics_auth_username = ""
        self.metrics_auth_password = ""


class _Rendered(object):
    def __init__(self, name, text, mode):
        self.name, self.text, self.mode = name, text, mode


class _Rendering(object):
    files = [_Rendered("connect-mirror-maker.properties", "a=1\n", 0o640),
             _Rendered("mm2-secrets.properties", "pw=s3cret\n", 0o600)]


def _record_umask_at_each_file(monkeypatch):
    seen = []

    def fake_file(path, **kwargs):
        current = os.umask(0o022)
        os.umask(current)
        seen.append((os.path.basename(path), current))

    monkeypatch.setattr(mm2_setup, "File", fake_file)
    monkeypatch.setattr(mm2_setup, "Execute", lambda *a, **k: None)
    monkeypatch.setattr(mm2_setup, "InlineTemplate", lambda text, **k: (text, k))  # needs an Environment
    return seen


def _planned(params, basedir):
    """What planned_files gives write_files: the rendered files plus the exporter config."""
    files = [(os.path.join(params.mm2_conf_dir, r.name), r.text, r.mode) for r in _Rendering.files]
    exporter_text, exporter_mode = mm2_setup.exporter_config(params, basedir)
    files.append((params.jmx_exporter_config_file, exporter_text, exporter_mode))
    return files


def test_every_file_is_written_under_a_private_umask(monkeypatch, tmpdir):
    seen = _record_umask_at_each_file(monkeypatch)
    tmpdir.mkdir("files").join("jmx_exporter_mm2.yaml").write("rules: []\n")
    params = _Params(str(tmpdir))
    files = _planned(params, str(tmpdir))
    assert files[-1][2] == 0o600 and "s3cret" in files[-1][1]   # the exporter config holds the password
    before = os.umask(0o022)
    try:
        mm2_setup.write_files(params, files, removed=[])
        after = os.umask(0o022)
    finally:
        os.umask(before)
    written = dict((name, umask) for name, umask in seen if name.endswith(".new"))
    assert written == {".connect-mirror-maker.properties.new": 0o077, ".mm2-secrets.properties.new": 0o077,
                       ".jmx_exporter_mm2.yaml.new": 0o077}
    assert after == 0o022  # the agent's umask is restored for everything else
