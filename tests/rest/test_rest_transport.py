"""Transport behaviour a pipeline relies on: retries, timeouts, Ambari's error messages, CSRF header,
credentials from env/.netrc/prompt, TLS verification."""
import io
import os
import shutil
import subprocess

import pytest
import requests

from rest_fake_ambari import CSRF_MESSAGE, S, FakeAmbari
from rest_helpers import TOPOLOGY, deploy
import testports

from mm2_ambari.transport import credentials
from mm2_ambari.common.errors import BadInput


def status(cli, fake, *extra):
    return cli("status", "--url", fake.url, "--cluster", "prod", *extra)


def test_the_fake_enforces_csrf_and_auth_like_ambari(fake):
    auth = ("admin", "admin-secret")
    url = fake.url + "/api/v1/clusters/prod/services"
    no_header = requests.post(url, auth=auth, json=[{"ServiceInfo": {"service_name": S}}])
    assert no_header.status_code == 400
    assert no_header.json() == {"status": 400, "message": CSRF_MESSAGE}
    bad_login = requests.get(url, auth=("admin", "nope"))
    assert (bad_login.status_code, bad_login.json()["message"]) == (
        403, "Unable to sign in. Invalid username/password combination.")
    created = requests.post(url, auth=auth, json=[{"ServiceInfo": {"service_name": S}}],
                            headers={"X-Requested-By": "test"})
    assert created.status_code == 201
    again = requests.post(url, auth=auth, json=[{"ServiceInfo": {"service_name": S}}],
                          headers={"X-Requested-By": "test"})
    assert again.status_code == 409


def test_every_call_of_a_deploy_carries_x_requested_by_and_basic_auth(cli, fake):
    assert deploy(cli, fake).code == 0
    mutating = [h for h in fake.headers_seen if h[0] != "GET"]
    assert len(mutating) == 8  # 4 creates, configs, install, start, service check
    assert all(requested_by == "mm2-ambari" and auth.startswith("Basic ") for _, requested_by, auth in fake.headers_seen)


def test_get_is_retried_on_503_and_the_error_quotes_ambari_when_retries_run_out(cli, fake):
    fake.injected.append(("GET", "/clusters/prod", 503, "Ambari is starting"))
    ok = status(cli, fake)
    assert ok.code == 1  # service not installed, but the status call itself went through
    assert "retry 1/6" in ok.err and "answered 503" in ok.err
    for _ in range(4):
        fake.injected.append(("GET", "/clusters/prod", 503, "Ambari is starting"))
    failed = status(cli, fake, "--retries", "3")
    assert failed.code == 1
    assert "Ambari answered 503 Service Unavailable to GET /api/v1/clusters/prod" in failed.err
    assert "Ambari is starting" in failed.err


def test_a_command_that_timed_out_after_ambari_accepted_it_is_not_sent_twice(cli, fake):
    fake.install_started_service(["mm2-1.example.com"])
    fake.delays.append(("POST", "/clusters/prod/requests", 1.0))
    result = cli("restart", "--url", fake.url, "--cluster", "prod", "--read-timeout", "0.3")
    assert result.code == 0, result
    assert "Ambari had accepted it as request 1: waiting for it" in result.err
    assert len([c for c in fake.mutating_calls() if c[0] == "POST"]) == 1
    assert len(fake.requests) == 1


def test_a_state_change_that_failed_before_ambari_accepted_it_is_sent_once_more(cli, fake):
    # A 503 (e.g. from a proxy) on the start: Ambari's request list has no request with that context,
    # so the start is sent once more, and only one start request exists in the end.
    assert deploy(cli, fake, "--no-service-check").code == 0
    for hr in fake.hostroles():
        hr.update(state="INSTALLED", desired_state="INSTALLED")
    fake.injected.append(("PUT", "/clusters/prod/services/" + S, 503, "Service Unavailable"))
    before = len(fake.requests)
    result = deploy(cli, fake, "--no-service-check")
    assert result.code == 0, result
    assert "Ambari has no request for it: sending it once more" in result.err
    starts = [c for c in fake.mutating_calls() if c[0] == "PUT" and (c[2].get("RequestInfo") or {}).get("context") == "Start MirrorMaker 2"]
    assert len(starts) == 3  # the first deploy's, the one answered 503, the one sent again
    assert [r.context for r in list(fake.requests.values())[before:]] == ["Start MirrorMaker 2"]
    assert all(hr["state"] == "STARTED" for hr in fake.hostroles())


def test_a_retried_get_never_turns_a_put_into_two(cli, fake):
    # 502 on the config PUT after Ambari stored it (the fake answers late): the client sees the new
    # tag as desired and does not send the PUT again.
    assert deploy(cli, fake, "--no-service-check").code == 0
    fake.delays.append(("PUT", "/clusters/prod", 1.0))
    path = TOPOLOGY
    text = open(path).read().replace("tasks.max: 8", "tasks.max: 9")
    edited = os.path.join(os.environ.get("PYTEST_TMP", "/tmp"), "mm2-i13-retry-%d.yaml" % os.getpid())
    with open(edited, "w") as fh:
        fh.write(text)
    try:
        result = cli("configure", edited, "--url", fake.url, "--read-timeout", "0.3", "--no-restart")
    finally:
        os.unlink(edited)
    assert result.code == 0, result
    assert "the change went through" in result.err
    assert len([c for c in fake.mutating_calls() if c[0] == "PUT" and c[1] == "/api/v1/clusters/prod"]) == 2


def test_5xx_from_ambari_is_quoted(cli, fake):
    fake.install_started_service(["mm2-1.example.com"])
    fake.injected.append(("POST", "/clusters/prod/requests", 500,
                          "An internal system exception occurred: Unsupported action X"))
    result = cli("check", "--url", fake.url, "--cluster", "prod")
    assert result.code == 1
    assert ("Ambari answered 500 Internal Server Error to POST /api/v1/clusters/prod/requests: "
            "An internal system exception occurred: Unsupported action X") in result.err


def test_unreachable_ambari_exits_1_after_bounded_retries(cli):
    port = testports.free_port()  # nothing listens there, and no other test process is given it
    result = cli("status", "--url", "http://127.0.0.1:%d" % port, "--cluster", "prod", "--retries", "2")
    assert result.code == 1
    assert "retry 2/2" in result.err
    assert "cannot reach Ambari at http://127.0.0.1:%d" % port in result.err
    assert "Connection refused" in result.err


def test_kerberos_style_401_is_reported(cli, monkeypatch):
    monkeypatch.setenv("AMBARI_PASSWORD", "bad")
    server = FakeAmbari(kerberos_auth=True).start()
    try:
        result = cli("status", "--url", server.url, "--cluster", "prod")
    finally:
        server.stop()
    assert result.code == 1
    assert "Ambari answered 401 Unauthorized to GET /api/v1/clusters/prod" in result.err
    assert "Authentication requested" in result.err


# --- credentials --------------------------------------------------------------------------------------
class Tty(io.StringIO):
    def isatty(self):
        return True


def test_credentials_from_netrc_when_the_environment_has_none(cli, fake, monkeypatch, tmp_path):
    monkeypatch.delenv("AMBARI_USER")
    monkeypatch.delenv("AMBARI_PASSWORD")
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login admin password admin-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    result = status(cli, fake)
    assert "is not installed" in result.out, result  # authenticated: the read went through
    assert "warning: the netrc file" not in result.err
    netrc.chmod(0o644)
    result = status(cli, fake)
    assert "is not installed" in result.out, result
    assert ("warning: the netrc file %s holds the Ambari password and other users can read it (mode 644): chmod 600 %s"
            % (netrc, netrc)) in result.err
    assert "admin-secret" not in result.out + result.err


def test_no_credentials_and_no_terminal_is_bad_input(cli, fake, monkeypatch):
    monkeypatch.delenv("AMBARI_PASSWORD")
    result = status(cli, fake)
    assert result.code == 2
    assert "no Ambari credentials for 127.0.0.1: set AMBARI_USER and AMBARI_PASSWORD" in result.err
    assert fake.calls == []


def test_prompt_only_on_a_terminal(monkeypatch):
    asked = []
    monkeypatch.setattr(credentials.getpass, "getpass", lambda prompt: asked.append(prompt) or "typed")
    user, password = credentials.resolve("https://ambari.example.com:8443", "ops", environ={},
                                         stdin=Tty(), netrc_file="/nonexistent")
    assert (user, password) == ("ops", "typed")
    assert asked == ["Ambari password for ops@ambari.example.com: "]
    with pytest.raises(BadInput):
        credentials.resolve("https://ambari.example.com:8443", "ops", environ={}, stdin=io.StringIO(),
                            netrc_file="/nonexistent")


def test_environment_wins_and_user_option_overrides(monkeypatch):
    env = {"AMBARI_USER": "a", "AMBARI_PASSWORD": "p"}
    assert credentials.resolve("http://h:8080", None, environ=env, stdin=io.StringIO()) == ("a", "p")
    assert credentials.resolve("http://h:8080", "b", environ=env, stdin=io.StringIO()) == ("b", "p")


# --- TLS -----------------------------------------------------------------------------------------------
@pytest.fixture
def tls_fake(tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("openssl command not available to make a test certificate")
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.check_call(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                           "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                           "-addext", "subjectAltName=IP:127.0.0.1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = FakeAmbari(tls=(cert, key)).start()
    try:
        yield server, cert
    finally:
        server.stop()


def test_tls_is_verified_by_default_and_a_ca_bundle_makes_it_pass(cli, tls_fake):
    server, cert = tls_fake
    refused = status(cli, server)
    assert refused.code == 1
    assert "TLS certificate verify failed (use --ca-bundle PEM for a private CA)" in refused.err
    assert "retry" not in refused.err  # a certificate problem is not retried
    trusted = status(cli, server, "--ca-bundle", cert)
    assert "is not installed" in trusted.out, trusted
    insecure = status(cli, server, "--insecure")
    assert "is not installed" in insecure.out, insecure
    assert "warning: --insecure: Ambari's TLS certificate is not verified" in insecure.err


def test_tls_option_mistakes_are_bad_input(cli, fake):
    assert status(cli, fake, "--ca-bundle", "/nonexistent.pem").code == 2
    both = status(cli, fake, "--ca-bundle", TOPOLOGY, "--insecure")
    assert both.code == 2 and "contradict" in both.err


def test_connection_target_from_the_file_or_environment(cli, fake, monkeypatch):
    missing = cli("status")
    assert missing.code == 2 and "which Ambari? set --url" in missing.err
    monkeypatch.setenv("AMBARI_URL", fake.url)
    monkeypatch.setenv("AMBARI_CLUSTER", "prod")
    assert "is not installed" in cli("status").out
    assert os.path.exists(TOPOLOGY)


def test_the_fake_refuses_an_accept_without_text_plain_like_ambari(fake):
    """Ambari's REST services produce text/plain only: "Accept: application/json" gets 406 and no body
    (compared with the real server in tests/realserver/test_upgrade_cli.py); mm2-ambari's own Accept passes."""
    from mm2_ambari.transport.ambari_api import ACCEPT
    auth = ("admin", "admin-secret")
    url = fake.url + "/api/v1/clusters/prod"
    json_only = requests.get(url, auth=auth, headers={"Accept": "application/json"})
    assert (json_only.status_code, json_only.content) == (406, b"")
    for accept in (ACCEPT, "text/plain", "*/*"):
        ok = requests.get(url, auth=auth, headers={"Accept": accept})
        assert ok.status_code == 200 and ok.headers["Content-Type"] == "text/plain;charset=utf-8", accept


def test_https_to_a_plain_http_ambari_says_so(cli, fake):
    url = fake.url.replace("http://", "https://")
    result = cli("status", "--url", url, "--cluster", "prod")
    assert result.code != 0, result
    assert "the server answers plain HTTP, not HTTPS: use %s" % fake.url in result.err, result
