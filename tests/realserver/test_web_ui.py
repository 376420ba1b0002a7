"""The Add Service wizard of Ambari's own web UI (ambari-web built from ../shared/ambari-src with npm, served by
the real server), driven in headless Chromium: every property the mpack's schema puts on a theme tab is on
Customize Services under that tab, and Deploy installs and starts MirrorMaker 2 replicating between real Kafka
clusters.

The lab (a server of this file's own, a real agent in a private mount namespace, two real Kafka clusters, a
cluster with cluster-env and another service) is test_real_replication's; only the server differs: it serves
the built web UI. The driver is webui/add_service.js (playwright-core, Debian's chromium); its screenshots
go to the directory this test prints ("web UI artifacts: ..."), the configuration page is customize-services.png.

Runs with MM2_REALSERVER_WEBUI=1 (tests/run.sh sets it for the realserver lane; .ci/run installs chromium). Skipped with the reason when ambari-web cannot be built here (no sources, node/npm or npm registry), without
Debian's chromium, or without the lab's prerequisites (root with `unshare --mount` and overlayfs, the official
Kafka distribution).
"""
import json
import os
import shutil
import subprocess
import time

import pytest

import realops
from realops import S
from mm2_core.config import names, schema
# the lab of test_real_replication (its fixtures resolve `own_ambari` and `prerequisites` to this file's)
from test_real_replication import own_agent, kafka_pair, lab, _wait_count  # noqa: F401
from test_real_replication import _prerequisites_problem

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
WEBUI = os.path.join(HERE, "webui")
THEME = os.path.join(REPO_ROOT, "common-services", S, "1.0.0", "themes", "theme.json")
CHROMIUM = os.environ.get("MM2_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
DEPLOY_TIMEOUT = 900
OPT_IN = "MM2_REALSERVER_WEBUI"


@pytest.fixture(scope="module")
def web_root():
    """ambari-web built by webui/build_web.sh (reused while its sources are unchanged): the public/ dir."""
    import server
    if os.environ.get(OPT_IN) != "1":
        pytest.skip("%s=1 runs this file (ambari-web built with npm, a second server, an agent, two Kafka clusters "
                    "and Chromium); tests/run.sh sets it, a bare pytest does not (see "
                    "docs/development-and-testing.md)" % OPT_IN)
    if not CHROMIUM:
        missing = "no chromium (Debian: apt-get install chromium; or set MM2_CHROMIUM)"
        if os.environ.get("CI"):
            pytest.fail(missing + ": .ci/run installs it, so CI cannot skip the web UI")
        pytest.skip(missing)
    proc = subprocess.run(["bash", os.path.join(WEBUI, "build_web.sh"), server.AMBARI_VERSION],
                          capture_output=True, text=True, timeout=1800)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode == 3:
        pytest.skip(lines[-1] if lines else "build_web.sh cannot build here")
    assert proc.returncode == 0, "tests/realserver/webui/build_web.sh failed:\n%s\n%s" % (proc.stdout[-4000:], proc.stderr[-2000:])
    print("ambari-web: " + " ".join(l for l in lines if "=" in l or l.startswith("reusing")))
    return lines[-1]


@pytest.fixture(scope="module")
def prerequisites(web_root):
    problem = _prerequisites_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope="module")
def own_ambari(prerequisites, web_root, server_home, built_mpack, tmp_path_factory):
    import server
    try:
        with server.started(server_home, str(tmp_path_factory.mktemp("ambari-server-web")), built_mpack,
                            web=web_root) as s:
            yield s
    except server.Skip as why:
        pytest.skip(str(why))


def _theme():
    with open(THEME) as fh:
        conf = json.load(fh)["configuration"]
    tabs, tab_of_subsection = [], {}
    for tab in conf["layouts"][0]["tabs"]:
        tabs.append({"name": tab["name"], "displayName": tab["display-name"]})
        for section in tab["layout"]["sections"]:
            for sub in section["subsections"]:
                tab_of_subsection[sub["name"]] = tab["name"]
    placed = {}
    for p in conf["placement"]["configs"]:
        placed[p["config"]] = (tab_of_subsection[p["subsection-name"]], bool(p.get("depends-on")))
    return tabs, placed


def shown_in_wizard():
    """The schema's answer: every visible property that is on a theme tab (Property.not_in_theme unset)."""
    return sorted("%s/%s" % (t.name, p.name) for t in schema.CONFIG_TYPES for p in t.properties
                  if p.visible and not p.not_in_theme)


def test_add_service_wizard_in_the_web_ui(lab, tmp_path_factory):
    ambari, cluster = lab.ambari, lab.cluster
    # what the installer wizard sets at its end: the web UI opens the dashboard of an installed cluster
    status, body = ambari.request("PUT", "/api/v1/clusters/" + cluster, {"Clusters": {"provisioning_state": "INSTALLED"}})
    assert status == 200, (status, body)
    status, body = ambari.request("POST", "/api/v1/persist", {"CLUSTER_CURRENT_STATUS": json.dumps(
        {"clusterName": cluster, "clusterState": "DEFAULT", "wizardControllerName": None, "localdb": {}})})
    assert status in (200, 202), (status, body)

    tabs, placed = _theme()
    expected = shown_in_wizard()
    assert expected and set(expected) <= set(placed), sorted(set(expected) - set(placed))
    # what the operator changes on this host: the lab's values that differ from the stack's defaults
    defaults = realops.stack_service_defaults(ambari)[0]
    changes = dict(("%s/%s" % (t, k), v) for t, props in lab.configurations.items() for k, v in props.items()
                   if defaults.get(t, {}).get(k) != v)
    on_tabs = dict((ref, v) for ref, v in changes.items() if ref in placed)
    artifacts = str(tmp_path_factory.mktemp("webui-artifacts"))
    print("web UI artifacts: " + artifacts)
    plan = {"url": ambari.url, "user": "admin", "password": "admin", "chromium": CHROMIUM,
            "service": S, "displayName": names.SERVICE_DISPLAY_NAME, "tabs": tabs,
            "type": on_tabs, "set": dict((r, v) for r, v in changes.items() if r not in on_tabs),
            "artifacts": artifacts, "deployTimeoutSeconds": DEPLOY_TIMEOUT}
    plan_path = os.path.join(artifacts, "plan.json")
    with open(plan_path, "w") as fh:
        json.dump(plan, fh)
    lab.source.create_topic("web", partitions=2)
    lab.source.produce_n("web", 200, prefix="w")
    driver = os.path.join(os.environ.get("MM2_CACHE") or os.path.expanduser("~/.cache/mm2-mpack"), "ambari-web", "driver")
    env = dict(os.environ, NODE_PATH=os.path.join(driver, "node_modules"))
    started = time.time()
    proc = subprocess.run(["node", os.path.join(WEBUI, "add_service.js"), plan_path], capture_output=True, text=True,
                          env=env, timeout=DEPLOY_TIMEOUT + 1200)
    with open(os.path.join(artifacts, "driver.log"), "w") as fh:
        fh.write(proc.stderr)
    print(proc.stderr[-6000:])
    print("wizard driven in %.0fs" % (time.time() - started))
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    with open(os.path.join(artifacts, "result.json"), "w") as fh:
        json.dump(result, fh, indent=1)
    assert not result.get("error"), result["error"] + "\n" + realops.task_report(
        ambari, "/api/v1/clusters/%s/requests/%s" % (cluster, _last_request(ambari, cluster)))

    # Customize Services: every property the schema puts on a tab is on that tab of the page; the ones without a
    # theme condition are shown, the conditional ones are in the tab's model (shown when their condition holds)
    placed_by_tab = dict((tab, dict(refs)) for tab, refs in result["placedByTab"].items())
    misplaced = [ref for ref in expected if ref not in placed_by_tab.get(placed[ref][0], {})]
    assert misplaced == [], misplaced
    not_shown = [ref for ref in expected if not placed[ref][1] and ref not in (result["shownByTab"].get(placed[ref][0]) or [])]
    assert not_shown == [], not_shown
    assert sorted(result["typed"]) == sorted(on_tabs), (sorted(set(on_tabs) - set(result["typed"])), result["notTaken"])
    assert result["missing"] == []
    assert os.path.getsize(result["screenshot"]) > 10000

    # Deploy completed: the service is started through the wizard, with the values typed on the page
    assert result["deploy"]["cluster"] == "STARTED", result["deploy"]
    assert realops.service_state(ambari, cluster) == "STARTED"
    status, body = ambari.get("/api/v1/clusters/%s?fields=Clusters/desired_configs" % cluster)
    saved = {}
    for config_type in lab.configurations:
        tag = body["Clusters"]["desired_configs"][config_type]["tag"]
        status, cfg = ambari.get("/api/v1/clusters/%s/configurations?type=%s&tag=%s" % (cluster, config_type, tag))
        saved[config_type] = cfg["items"][0]["properties"]
    wrong = dict((ref, (saved[ref.split("/", 1)[0]].get(ref.split("/", 1)[1]), v)) for ref, v in changes.items()
                 if saved[ref.split("/", 1)[0]].get(ref.split("/", 1)[1]) != v)
    assert wrong == {}, (wrong, "lost on the page after typing:", result["lost"])
    _wait_count(lab.target, "src.web", 200)


def _last_request(ambari, cluster):
    status, body = ambari.get("/api/v1/clusters/%s/requests?fields=Requests/id" % cluster)
    items = (body or {}).get("items", []) if status == 200 else []
    return items[-1]["Requests"]["id"] if items else 0
