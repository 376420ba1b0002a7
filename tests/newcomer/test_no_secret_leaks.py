"""No secret appears in any output, on any error path (issue 26): the installed mm2-ambari runs
against an unresolvable host, a closed port, TLS spoken to a plain HTTP port, a server that answers
too late, HTTP errors (with and without retries) and a dry run, with secrets planted in the URL,
AMBARI_PASSWORD, a netrc line with unquoted spaces and the deployment file's passwords. Neither
stdout nor stderr nor any file left in the working directory (other than the 0600 secrets file a
render writes on purpose) may hold any of them.
"""
import os
import sys

import pytest

import testports

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "rest"))
from rest_fake_ambari import FakeAmbari  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
URL_PW, ENV_PW, CFG_PW, METRICS_PW = "Url-Pw-7q", "Env-Pw-3k", "Cfg-Pw-9z", "Mtr-Pw-5x"
NETRC_PW = "Nx7-alpha Nx7-beta"
PLANTED = [URL_PW, ENV_PW, CFG_PW, METRICS_PW, "Nx7-alpha", "Nx7-beta"]
FAST = ["--retries", "2", "--retry-backoff", "0", "--connect-timeout", "2", "--read-timeout", "2",
        "--poll-interval", "0", "--no-progress"]


def deployment(url):
    with open(os.path.join(ROOT, "examples", "deploy-dr.yaml")) as fh:
        text = fh.read()
    text = text.replace("${file:/etc/kafka-mm2/secrets/dr.properties:east.sasl.password}", CFG_PW)
    text = text.replace("${file:/etc/kafka-mm2/secrets/dr.properties:west.sasl.password}", CFG_PW)
    text = text.replace("url: https://ambari.west.example.com:8443", "url: %s" % url)
    text = text.replace("cluster: west", "cluster: prod")
    text = text.replace("hosts: [mm2-1.west.example.com, mm2-2.west.example.com]",
                        "hosts: [mm2-1.example.com, mm2-2.example.com]")
    text = text.replace("      mm2_heap_opts: -Xms4g -Xmx8g\n",
                        "      mm2_heap_opts: -Xms4g -Xmx8g\n      mm2_metrics_auth_username: prom\n"
                        "      mm2_metrics_auth_password: %s\n" % METRICS_PW)
    return text


free_port = testports.free_port


@pytest.fixture
def fake():
    server = FakeAmbari(users={"admin": (ENV_PW, "admin")}).start()
    try:
        yield server
    finally:
        server.stop()


def _leaks(text):
    return [secret for secret in PLANTED if secret in text]


def _files_with_secrets(root, inputs):
    found = []
    for base, _, files in os.walk(root):
        for name in files:
            path = os.path.join(base, name)
            if path in inputs or name == "mm2-secrets.properties":
                continue
            with open(path, errors="replace") as fh:
                if _leaks(fh.read()):
                    found.append(path)
    return found


def _paths(fake_url):
    """(id, argv, env, exit codes, text that shows the path was really taken, fake set-up)."""
    closed = "http://127.0.0.1:%d" % free_port()
    return [
        ("password in --url, host unresolvable", ["status", "--url", "http://admin:%s@no-such-host.invalid:8080" % URL_PW,
                                                  "--cluster", "prod"], {}, (2,), "holds a password", None),
        ("password in AMBARI_URL", ["status", "--cluster", "prod"],
         {"AMBARI_URL": "https://admin:%s@ambari.example.com:8443" % URL_PW}, (2,), "AMBARI_URL", None),
        ("password with '/' and '@' in --url", ["status", "--url", "http://admin:%s/x@y@h:8080" % URL_PW,
                                                "--cluster", "prod"], {}, (2,), "holds a password", None),
        ("DNS failure", ["status", "--url", "http://no-such-host.invalid:8080", "--cluster", "prod"], {}, (2,),
         "cannot resolve Ambari's host", None),
        ("connection refused, retried", ["status", "--url", closed, "--cluster", "prod"], {}, (1,),
         "cannot reach Ambari", None),
        ("TLS to a plain HTTP port", ["status", "--url", fake_url.replace("http://", "https://"), "--cluster", "prod"],
         {}, (1,), "cannot reach Ambari", None),
        ("read timeout, retried", ["status", "--url", fake_url, "--cluster", "prod"], {}, (1,), "retry",
         lambda f: f.delays.extend([("GET", "/clusters", 4)] * 3)),
        ("503 on every GET, retried", ["status", "--url", fake_url, "--cluster", "prod"], {}, (1,), "503",
         lambda f: f.injected.extend([("GET", "/clusters", 503, "busy")] * 3)),
        ("wrong password", ["status", "--url", fake_url, "--cluster", "prod"], {"AMBARI_PASSWORD": ENV_PW + "-typo"},
         (1,), "403", None),
        ("netrc with an unquoted space", ["status", "--url", fake_url, "--cluster", "prod"],
         {"AMBARI_PASSWORD": "", "NETRC": "{netrc}"}, (2,), "cannot be read: near line", None),
        ("deploy --dry-run with passwords in the file", ["deploy", "{deploy}", "--dry-run"], {}, (0,),
         "[dry-run]", None),
        ("deploy, Ambari echoes the body in a 400", ["deploy", "{deploy}"], {}, (1,), "400",
         lambda f: f.injected.append(("PUT", "/clusters/prod", 400,
                                      'Invalid desired_config: {"sasl.password": "%s", "mm2_metrics_auth_password": '
                                      '"%s", "password=%s"}' % (CFG_PW, METRICS_PW, CFG_PW)))),
        ("deploy, 503 on a change (may have been sent)", ["deploy", "{deploy}"], {}, (0, 1), "503",
         lambda f: f.injected.extend([("POST", "/clusters/prod/services", 503, "busy")])),
        ("validate an invalid file with passwords", ["validate", "{invalid}"], {}, (2,), "tasks.max", None),
    ]


PATH_IDS = [p[0] for p in _paths("http://127.0.0.1:1")]


@pytest.mark.parametrize("path_id", PATH_IDS)
def test_no_planted_secret_appears_on_any_error_path(installed, fake, tmp_path, path_id):
    path = next(p for p in _paths(fake.url) if p[0] == path_id)
    _, argv, env, codes, evidence, setup = path
    deploy = tmp_path / "deploy.yaml"
    deploy.write_text(deployment(fake.url))
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text(deployment(fake.url).replace("tasks.max: 8", "tasks.max: eight"))
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login admin password %s\n" % NETRC_PW)
    netrc.chmod(0o600)
    names = {"{deploy}": str(deploy), "{invalid}": str(invalid), "{netrc}": str(netrc)}
    argv = [names.get(a, a) for a in argv]
    full_env = {"AMBARI_USER": "admin", "AMBARI_PASSWORD": ENV_PW}
    full_env.update(dict((k, names.get(v, v)) for k, v in env.items()))
    if setup:
        setup(fake)
    if argv[0] != "validate":
        argv = argv + FAST
    rc, out, err = installed.run("mm2-ambari", argv, env=full_env, cwd=str(tmp_path))
    assert rc in codes, out + err
    assert evidence in out + err, out + err  # the error path was really taken
    assert "Traceback" not in out + err, out + err
    assert _leaks(out + err) == [], out + err
    assert _files_with_secrets(str(tmp_path), {str(deploy), str(invalid), str(netrc)}) == []


def test_render_errors_and_output_hold_no_password(installed, tmp_path):
    import json
    with open(os.path.join(ROOT, "examples", "active-active-dc", "configurations.json")) as fh:
        data = json.load(fh)
    data["kafka-mm2-clusters"].update({"source.ssl.truststore.password": CFG_PW, "source.ssl.keystore.password": CFG_PW})
    data["kafka-mm2-env"] = {"mm2_metrics_auth_username": "prom", "mm2_metrics_auth_password": METRICS_PW}
    (tmp_path / "ok.json").write_text(json.dumps(data))
    data["kafka-mm2-replication"]["tasks.max"] = "eight"
    data["kafka-mm2-clusters"]["source.sasl.password"] = CFG_PW  # not used by SSL: reported, never echoed
    (tmp_path / "bad.json").write_text(json.dumps(data))
    for name, code in (("ok.json", 0), ("bad.json", 2)):
        rc, out, err = installed.run("mm2-ambari", ["render", "--configs", name, "--kafka-version", "3.7.1",
                                                    "--out", "out-" + name, "--host", "h"], cwd=str(tmp_path))
        assert rc == code, err
        assert _leaks(out + err) == [], out + err
    inputs = {str(tmp_path / "ok.json"), str(tmp_path / "bad.json")}
    assert _files_with_secrets(str(tmp_path), inputs) == []
    secrets = tmp_path / "out-ok.json" / "mm2-secrets.properties"
    assert CFG_PW in secrets.read_text() and secrets.stat().st_mode & 0o077 == 0
