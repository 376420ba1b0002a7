"""`mm2-ambari upgrade` against the real Ambari 3 server (issue 25): a cluster made on the previous release
is brought to this build, and everything is read back from the server's own API.

The previous release is the one tests/build/released-names.json records below this version, rebuilt from
its commit by its own build.py (git archive, as tests/build does). Its alert definitions are the ones
this build has for every alert but the lag alert, which is given an older shape (no
metrics.cache.seconds parameter, another description): no existing definition changed between the two
recorded releases, and the update path needs one that did. Everything else is that release as built.

The operator's life on the previous release, done the way ambari-web does it:
- the service, its component on a host of a real agent, every config type with the stack's defaults
  (the Add Service wizard's save), tasks.max changed by the operator;
- the lag alert's warning threshold and check interval edited (Alerts page: PUT of the definition).
Then `ambari-server upgrade-mpack` (the server's setupMpacks) to this build, a server restart, and:
`mm2-ambari upgrade --dry-run` (diff shown, nothing changed on the server), `mm2-ambari upgrade` (new
properties with the stack's defaults, the operator's values and thresholds kept, an earlier release's
default replaced, changed definitions updated, drivers Restart Required), and a second run that changes
nothing.
"""
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

import pytest

import server

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_TESTS = os.path.join(REPO_ROOT, "tests", "build")
if BUILD_TESTS not in sys.path:
    sys.path.append(BUILD_TESTS)
import mpack_helpers  # noqa: E402  (tests/build: the release history and the rebuild from git)

from mm2_core.config import names  # noqa: E402

S, C = names.SERVICE, names.COMPONENT
ENV, REPL = names.ENV, names.REPLICATION
CLUSTER = "upgradecli"
STACK = ("BIGTOP", "3.3.0")
SERVICE_DIR = "common-services/%s/%s" % (S, names.SERVICE_VERSION)
LAG = "mm2_replication_lag"
OPERATOR_WARNING = 25000  # the operator's lag threshold (the release's default is 10000)
OPERATOR_INTERVAL = 7


def _cli(srv, *args):
    env = dict(os.environ, AMBARI_USER="admin", AMBARI_PASSWORD="admin",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO_ROOT, "src"), os.path.join(REPO_ROOT, "package", "scripts")]))
    env.pop("NETRC", None)
    proc = subprocess.run([sys.executable, "-c", "import sys; from mm2_ambari.cli import main; sys.exit(main())",
                           "upgrade", "--url", srv.url, "--cluster", CLUSTER, "--no-progress"] + list(args),
                          env=env, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    return proc


def _older_lag_alert(tarball, out_dir):
    """The previous release's tarball with its lag alert in an older shape; (tarball, the dropped parameter)."""
    work = os.path.join(out_dir, "unpacked")
    with tarfile.open(tarball) as tar:
        tar.extractall(work)
    root, = glob.glob(os.path.join(work, "*"))
    path = os.path.join(root, *(SERVICE_DIR + "/alerts.json").split("/"))
    with open(path) as fh:
        alerts = json.load(fh)
    lag = next(d for defs in alerts[S].values() for d in defs if d["name"] == LAG)
    dropped = "metrics.cache.seconds"
    assert dropped in [p["name"] for p in lag["source"]["parameters"]]
    lag["source"]["parameters"] = [p for p in lag["source"]["parameters"] if p["name"] != dropped]
    lag["description"] = "An older description of the replication lag alert."
    with open(path, "w") as fh:
        json.dump(alerts, fh, indent=2)
    out = os.path.join(out_dir, os.path.basename(tarball))
    with tarfile.open(out, "w:gz") as tar:
        tar.add(root, arcname=os.path.basename(root))
    return out, dropped


# Ambari's H2 DDL (a test database) keeps configurations and alert sources in VARCHAR(3000); every
# production database has unbounded text there (Ambari-DDL-Postgres-CREATE.sql: TEXT, MySQL: LONGTEXT,
# Oracle: CLOB). This service's kafka-mm2-log4j is longer than 3000 characters, so the H2 server would
# refuse the wizard's save ("Value too long for column CONFIG_DATA VARCHAR(3000)"): the copy of the DDL
# this server runs gets CLOB (H2's unbounded text) for those columns, as production has.
TEXT_COLUMNS = ("config_data", "config_attributes", "alert_source")


def _production_text_columns(srv):
    ddl = os.path.join(srv.dirs["resources"], "Ambari-DDL-H2-CREATE.sql")
    with open(ddl) as fh:
        text = fh.read()
    for column in TEXT_COLUMNS:
        assert "  %s VARCHAR(3000)" % column in text, "Ambari's H2 DDL changed: no %s VARCHAR(3000)" % column
        text = text.replace("  %s VARCHAR(3000)" % column, "  %s CLOB" % column)
    with open(ddl, "w") as fh:
        fh.write(text)


def _stack_defaults(srv):
    """{type: {name: default}} of the service as the server serves it (what the wizard saves)."""
    status, body = srv.get("/api/v1/stacks/%s/versions/%s/services/%s/configurations?fields=StackConfigurations/*"
                           % (STACK + (S,)))
    assert status == 200, body
    out = {}
    for item in body["items"]:
        c = item["StackConfigurations"]
        value = c.get("property_value")
        out.setdefault(c["type"][:-len(".xml")], {})[c["property_name"]] = "" if value is None else str(value)
    return out


def _desired(srv):
    status, body = srv.get("/api/v1/clusters/%s?fields=Clusters/desired_configs" % CLUSTER)
    assert status == 200, body
    return dict((t, d["tag"]) for t, d in body["Clusters"]["desired_configs"].items())


def _properties(srv, config_type):
    tag = _desired(srv)[config_type]
    status, body = srv.get("/api/v1/clusters/%s/configurations?type=%s&tag=%s" % (CLUSTER, config_type, tag))
    assert status == 200 and len(body["items"]) == 1, body
    return body["items"][0]["properties"]


def _definitions(srv):
    status, body = srv.get("/api/v1/clusters/%s/alert_definitions?AlertDefinition/service_name=%s"
                           "&fields=AlertDefinition/*" % (CLUSTER, S))
    assert status == 200, body
    return dict((i["AlertDefinition"]["name"], i["AlertDefinition"]) for i in body["items"])


def _host_components(srv):
    status, body = srv.get("/api/v1/clusters/%s/host_components?HostRoles/component_name=%s"
                           "&fields=HostRoles/state,HostRoles/stale_configs" % (CLUSTER, C))
    assert status == 200, body
    return dict((i["HostRoles"]["host_name"], i["HostRoles"]) for i in body["items"])


def _wait(what, check, timeout=120):
    deadline = time.time() + timeout
    while True:
        value = check()
        if value or time.time() > deadline:
            assert value, "%s: not within %ds" % (what, timeout)
            return value
        time.sleep(1)


def _snapshot(srv):
    return {"desired": _desired(srv), "env": _properties(srv, ENV), "repl": _properties(srv, REPL),
            "definitions": _definitions(srv), "host_components": _host_components(srv)}


def _ok(srv, method, path, body=None):
    status, answer = srv.request(method, path, body)
    assert status in (200, 201, 202), (method, path, status, answer)
    return answer


def _previous_release_cluster(srv, host):
    """What an operator has after installing the service with the previous release."""
    c = "/api/v1/clusters/" + CLUSTER
    _ok(srv, "POST", c, {"Clusters": {"version": "-".join(STACK)}})
    _ok(srv, "POST", c + "/services", [{"ServiceInfo": {
        "service_name": S, "desired_repository_version_id": srv.repository_version(*STACK)}}])
    status, body = srv.get("/api/v1/stacks/%s/versions/%s/services/%s?fields=StackServices/config_types" % (STACK + (S,)))
    assert status == 200, body
    configs = dict((t, {}) for t in body["StackServices"]["config_types"])  # every type, as the wizard saves
    for config_type, properties in _stack_defaults(srv).items():
        configs[config_type].update(properties)
    configs[REPL]["tasks.max"] = "12"  # the operator's
    # the wizard's order (ambari-web installer step 8): configurations, then components, hosts, host components
    _ok(srv, "PUT", c, [{"Clusters": {"desired_config": [
        {"type": t, "tag": "version1", "properties": p, "service_config_version_note": "Initial configurations"}
        for t, p in sorted(configs.items())]}}])
    _ok(srv, "POST", c + "/services/%s/components/%s" % (S, C))
    _ok(srv, "POST", c + "/hosts/" + host)
    _ok(srv, "POST", c + "/hosts/%s/host_components/%s" % (host, C))
    lag = _wait("the server creates the alert definitions", lambda: _definitions(srv).get(LAG))
    source = copy.deepcopy(lag["source"])
    for p in source["parameters"]:
        if p["name"] == "lag.warning":
            p["value"] = OPERATOR_WARNING
    edit = {"AlertDefinition": {"source": source, "interval": OPERATOR_INTERVAL}}
    _ok(srv, "PUT", c + "/alert_definitions/%d" % lag["id"], edit)
    return configs, edit


@pytest.fixture(scope="module")
def upgrade_runs(server_home, built_mpack, tmp_path_factory):
    import agent as agent_mod
    previous = mpack_helpers.previous_release()
    if previous is None:
        pytest.skip("tests/build/released-names.json records no release below %s with its commit"
                    % mpack_helpers.current_version())
    version, commit = previous
    old, why = mpack_helpers.build_release_from_git(commit, str(tmp_path_factory.mktemp("dist-previous")),
                                                    str(tmp_path_factory.mktemp("previous")))
    if old is None:
        pytest.skip("cannot rebuild release %s: %s" % (version, why))
    old, dropped = _older_lag_alert(old, str(tmp_path_factory.mktemp("previous-alerts")))
    try:
        srv = server.AmbariServer(server_home, str(tmp_path_factory.mktemp("upgrade-cli-server")))
    except server.Skip as why:
        pytest.skip(str(why))
    _production_text_columns(srv)
    srv.install_mpack(old)
    agent = None
    try:
        srv.start()
        agent = agent_mod.RealAgent(srv, str(tmp_path_factory.mktemp("upgrade-cli-agent")))
        agent.start()
        agent.wait_registered()
        host = agent.hostname
        wizard, edit = _previous_release_cluster(srv, host)
        before = _snapshot(srv)
        srv.stop()
        code, out = srv.mpack("upgrade_mpack", built_mpack)
        assert code == 0, out
        srv.start()
        runs = {"srv": srv, "previous_tarball": old, "operator_edit": edit, "previous": version, "dropped": dropped, "host": host, "wizard": wizard, "before": before}
        runs["dry"] = _cli(srv, "--mpack", built_mpack, "--dry-run")
        runs["after_dry"] = _snapshot(srv)
        runs["stack"] = _stack_defaults(srv)
        runs["run"] = _cli(srv, "--mpack", built_mpack)
        runs["after"] = _snapshot(srv)
        runs["again"] = _cli(srv, "--mpack", built_mpack)
        runs["after_again"] = _snapshot(srv)
        yield runs
    finally:
        if agent is not None:
            agent.stop()
        srv.stop()


def _release_lag(built_mpack):
    with tarfile.open(built_mpack) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(SERVICE_DIR + "/alerts.json"))
        alerts = json.loads(tar.extractfile(member).read().decode("utf-8"))
    return next(d for defs in alerts[S].values() for d in defs if d["name"] == LAG)


def _values(definition):
    return dict((p["name"], p.get("value")) for p in definition["source"].get("parameters") or [])


def test_the_cluster_starts_as_the_previous_release_left_it(upgrade_runs):
    before = upgrade_runs["before"]
    assert "mpack_version" not in before["env"]
    assert before["repl"]["tasks.max"] == "12"
    lag = before["definitions"][LAG]
    assert upgrade_runs["dropped"] not in _values(lag)
    assert float(_values(lag)["lag.warning"]) == OPERATOR_WARNING and lag["interval"] == OPERATOR_INTERVAL


def test_dry_run_shows_the_diff_and_the_server_is_unchanged(upgrade_runs):
    run = upgrade_runs["dry"]
    assert run.returncode == 0, run.stdout + run.stderr
    version = mpack_helpers.current_version()
    out = run.stdout
    assert "%s: changes" % ENV in out
    assert "+ mpack_version = '%s'" % version in out
    new_env = sorted(set(upgrade_runs["stack"][ENV]) - set(upgrade_runs["wizard"][ENV]))
    assert new_env, "the previous release lacks none of this build's kafka-mm2-env properties"
    for name in new_env:
        # a new password property is shown without its value, as a transition (configplan.render_diff)
        shown = "+ %s = " % name in out or "~ %s: (empty)" % name in out
        assert shown, name
    assert not [line for line in out.splitlines() if "_password = " in line], "a password value in the dry run"
    assert "alert definition %s: changes" % LAG in out
    assert "+ parameter %s" % upgrade_runs["dropped"] in out
    # the server keeps a PUT's parameter values as text: the operator's 25000 reads back as '25000'
    assert "= parameter lag.warning: kept '%d' (this release's default: 10000.0)" % OPERATOR_WARNING in out
    assert "then Ambari flags %s Restart Required on %s" % (C, upgrade_runs["host"]) in out
    assert "[dry-run] PUT /api/v1/clusters/%s/alert_definitions/" % CLUSTER in out
    assert "dry run:" in out and "none sent" in out
    # nothing reached the server
    before, after = upgrade_runs["before"], upgrade_runs["after_dry"]
    assert after["desired"] == before["desired"]
    assert after["definitions"][LAG]["source"] == before["definitions"][LAG]["source"]
    assert after["definitions"][LAG]["description"] == before["definitions"][LAG]["description"]


def test_upgrade_adds_new_properties_with_the_stack_defaults(upgrade_runs):
    run = upgrade_runs["run"]
    print("\n" + run.stdout)  # what the operator reads (-s shows it)
    assert run.returncode == 0, run.stdout + run.stderr
    after, stack, wizard = upgrade_runs["after"], upgrade_runs["stack"], upgrade_runs["wizard"]
    assert after["env"]["mpack_version"] == mpack_helpers.current_version()
    new_env = set(stack[ENV]) - set(wizard[ENV]) - {"mpack_version"}
    for name in sorted(new_env):
        assert after["env"][name] == stack[ENV][name], name
    assert set(after["env"]) == set(stack[ENV])


def test_upgrade_keeps_the_operators_values(upgrade_runs):
    after, before = upgrade_runs["after"], upgrade_runs["before"]
    assert after["repl"]["tasks.max"] == "12"
    for name, value in before["env"].items():
        assert after["env"][name] == value, name


def test_an_earlier_releases_default_takes_this_releases(upgrade_runs):
    """A value that is still the previous release's default (release-history.json) was chosen by nobody."""
    stack, wizard, after = upgrade_runs["stack"], upgrade_runs["wizard"], upgrade_runs["after"]
    changed = sorted(n for n in wizard[REPL] if n in stack[REPL] and wizard[REPL][n] != stack[REPL][n]
                     and n != "tasks.max")
    if not changed:
        pytest.skip("no kafka-mm2-replication default changed between mpack %s and this build" % upgrade_runs["previous"])
    for name in changed:
        assert after["repl"][name] == stack[REPL][name], name
        assert "note: %s/%s has an earlier release's default" % (REPL, name) in upgrade_runs["run"].stdout


def test_changed_alert_definition_is_updated_keeping_the_thresholds(upgrade_runs, built_mpack):
    lag = upgrade_runs["after"]["definitions"][LAG]
    release = _release_lag(built_mpack)
    values = _values(lag)
    assert [p["name"] for p in lag["source"]["parameters"]] == [p["name"] for p in release["source"]["parameters"]]
    assert float(values["lag.warning"]) == OPERATOR_WARNING
    assert float(values[upgrade_runs["dropped"]]) == float(_values(release)[upgrade_runs["dropped"]])
    assert lag["description"] == release["description"]
    assert lag["interval"] == OPERATOR_INTERVAL and lag["enabled"] is True
    assert lag["source"]["path"] == release["source"]["path"]
    # the definitions that did not change were not touched
    before = upgrade_runs["before"]["definitions"]
    for name, definition in upgrade_runs["after"]["definitions"].items():
        if name != LAG and name in before:
            assert definition["source"] == before[name]["source"], name


def test_drivers_are_restart_required(upgrade_runs):
    """Ambari flags the driver whatever its state (here INIT: this agent never ran its INSTALL)."""
    host = upgrade_runs["host"]
    assert upgrade_runs["after"]["host_components"][host]["state"] == "INIT"
    assert upgrade_runs["before"]["host_components"][host]["stale_configs"] is False
    assert upgrade_runs["after"]["host_components"][host]["stale_configs"] is True
    assert "Restart Required: %s on %s" % (C, host) in upgrade_runs["run"].stdout


def test_a_second_run_changes_nothing(upgrade_runs):
    again = upgrade_runs["again"]
    assert again.returncode == 0, again.stdout + again.stderr
    assert "nothing to change: cluster %s is at mpack %s already" % (CLUSTER, mpack_helpers.current_version()) \
        in again.stdout
    assert upgrade_runs["after_again"]["desired"] == upgrade_runs["after"]["desired"]
    assert upgrade_runs["after_again"]["definitions"] == upgrade_runs["after"]["definitions"]


ACCEPTS = ["application/json", "text/plain", None, "*/*", "application/json, text/*;q=0.5", "text/plain;q=0"]


def _status_with_accept(url, path, accept, user, password):
    import base64
    from urllib.request import Request, urlopen
    from urllib.error import HTTPError
    req = Request(url + path)
    req.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode())
    if accept is not None:
        req.add_header("Accept", accept)
    try:
        with urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers.get("Content-Type"), bool(resp.read())
    except HTTPError as err:
        return err.code, err.headers.get("Content-Type"), bool(err.read())


def test_the_fake_negotiates_content_types_as_the_server_does(upgrade_runs):
    """Every REST service of Ambari produces text/plain: "Accept: application/json" alone is answered 406
    with no body (what broke every mm2-ambari call on a real server before its Accept header was fixed)."""
    rest_dir = os.path.join(REPO_ROOT, "tests", "rest")
    if rest_dir not in sys.path:
        sys.path.insert(0, rest_dir)
    from rest_fake_ambari import FakeAmbari
    from rest_helpers import ADMIN
    from mm2_ambari.transport.ambari_api import ACCEPT
    fake = FakeAmbari(stack=STACK).start()
    try:
        for accept in ACCEPTS + [ACCEPT]:
            for path in ("/api/v1/stacks/%s/versions/%s/services/KAFKA?fields=StackServices/service_version" % STACK,
                         "/api/v1/clusters/nonexistent"):
                real = _status_with_accept(upgrade_runs["srv"].url, path, accept, "admin", "admin")
                mine = _status_with_accept(fake.url, path, accept, *ADMIN)
                assert mine == real, (accept, path)
    finally:
        fake.stop()


def test_the_fake_stores_an_edited_alert_source_as_the_server_does(upgrade_runs):
    """The operator's edit of the lag alert, sent to the fake as to the server: the same source reads back
    (parameter values as text, everything else as given)."""
    rest_dir = os.path.join(REPO_ROOT, "tests", "rest")
    if rest_dir not in sys.path:
        sys.path.insert(0, rest_dir)
    import requests
    from rest_fake_ambari import FakeAmbari
    from rest_helpers import ADMIN
    with tarfile.open(upgrade_runs["previous_tarball"]) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(SERVICE_DIR + "/alerts.json"))
        alerts = json.loads(tar.extractfile(member).read().decode("utf-8"))
    fake = FakeAmbari(stack=STACK).start()
    try:
        fake.install_started_service(["h1.example.com"])
        fake.load_alert_definitions(alerts)
        did = next(i for i, d in fake.alert_definitions.items() if d["name"] == LAG)
        resp = requests.put("%s/api/v1/clusters/%s/alert_definitions/%d" % (fake.url, fake.cluster, did),
                            json=upgrade_runs["operator_edit"], auth=ADMIN, headers={"X-Requested-By": "test"})
        assert resp.status_code == 200, resp.text
        mine = fake.alert_definitions[did]
    finally:
        fake.stop()
    real = upgrade_runs["before"]["definitions"][LAG]
    assert mine["source"] == real["source"]
    assert mine["interval"] == real["interval"]
