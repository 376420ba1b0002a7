"""configure: diff, one new service config version, restart of the stale hosts only; SECRET round trips."""
import json

from rest_fake_ambari import C, S
from rest_helpers import CL, HOSTS, TOPOLOGY, configure, deploy, edited, normalize, restart_body, with_configurations

from mm2_core.config import names


def test_configure_writes_one_version_and_restarts_only_stale_hosts(cli, fake, tmp_path):
    assert deploy(cli, fake).code == 0
    env_before = dict(fake.desired_properties(names.ENV))
    before = len(fake.mutating_calls())
    path = edited(tmp_path, "mm2_heap_opts: -Xms2g -Xmx4g", "mm2_heap_opts: -Xms4g -Xmx8g")
    result = configure(cli, fake, path, "--note", "bigger heap")
    assert result.code == 0, result
    env_after = dict(env_before, mm2_heap_opts="-Xms4g -Xmx8g")
    assert normalize(fake.mutating_calls()[before:]) == [
        ("PUT", CL, {"Clusters": {"desired_config": [
            {"type": names.ENV, "tag": "<tag>", "properties": env_after,
             "service_config_version_note": "bigger heap"}]}}),
        ("POST", CL + "/requests", restart_body(HOSTS)),
    ]
    assert "kafka-mm2-env: changes (current tag" in result.out
    assert "  ~ mm2_heap_opts: '-Xms2g -Xmx4g' -> '-Xms4g -Xmx8g'" in result.out
    assert "service config version 2 created (bigger heap)" in result.out
    assert fake.service_config_versions[-1]["service_config_version_note"] == "bigger heap"
    assert [hr["stale_configs"] for hr in fake.hostroles()] == [False, False]
    # Only the stale, started hosts were asked for (Ambari's stale_configs flag).
    assert ("GET", CL + "/host_components?HostRoles/service_name=%s&HostRoles/stale_configs=true&fields="
            "HostRoles/host_name,HostRoles/component_name,HostRoles/state,HostRoles/desired_state,"
            "HostRoles/stale_configs,HostRoles/maintenance_state" % S, None) in fake.calls


def test_configure_with_an_unchanged_file_sends_nothing(cli, fake):
    assert deploy(cli, fake).code == 0
    before = len(fake.mutating_calls())
    result = configure(cli, fake, TOPOLOGY)
    assert result.code == 0, result
    assert fake.mutating_calls()[before:] == []
    assert "nothing to change" in result.out


def test_topology_change_shows_a_line_diff(cli, fake, tmp_path):
    assert deploy(cli, fake).code == 0
    path = edited(tmp_path, "topics: orders.*, payments.*", "topics: orders.*, payments.*, refunds.*")
    result = configure(cli, fake, path, "--no-restart")
    assert result.code == 0, result
    assert "-    topics: orders.*, payments.*" in result.out
    assert "+    topics: orders.*, payments.*, refunds.*" in result.out
    assert "refunds" in fake.desired_properties(names.TOPOLOGY)["content"]
    assert "run `mm2-ambari restart --stale-only` to apply" in result.out
    assert [hr["stale_configs"] for hr in fake.hostroles()] == [True, True]
    # The operator applies it later: only the stale hosts restart.
    before = len(fake.mutating_calls())
    restarted = cli("restart", "--stale-only", "--url", fake.url, "--cluster", "prod")
    assert restarted.code == 0, restarted
    assert normalize(fake.mutating_calls()[before:]) == [
        ("POST", CL + "/requests", restart_body(HOSTS, "Restart MirrorMaker 2 Driver (stale configs)"))]


def test_passwords_round_trip_as_secret_references(cli, fake, tmp_path, monkeypatch):
    monkeypatch.setenv("TS_PW", "first-Secret")
    path = with_configurations(tmp_path, """
    kafka-mm2-clusters:
      source.ssl.truststore.password: {from_env: TS_PW}
""")
    assert deploy(cli, fake, path=path).code == 0
    stored = lambda: fake.configs[names.CLUSTERS][fake.desired[names.CLUSTERS]]["properties"][  # noqa: E731
        "source.ssl.truststore.password"]
    assert stored() == "first-Secret"
    # Ambari answers a SECRET reference; the same file again changes nothing.
    item = fake.config_item(names.CLUSTERS, fake.desired[names.CLUSTERS])
    assert item["properties"]["source.ssl.truststore.password"].startswith("SECRET:%s:" % names.CLUSTERS)
    before = len(fake.mutating_calls())
    assert configure(cli, fake, path).code == 0
    assert fake.mutating_calls()[before:] == []

    # Another change in the same type sends the reference back unchanged: the password is kept.
    path2 = edited(tmp_path, "kafka-mm2-clusters:\n", "kafka-mm2-clusters:\n      source.sasl.username: mm2\n",
                   name="user.yaml", source=path)
    result = configure(cli, fake, path2, "--no-restart")
    assert result.code == 0, result
    sent = fake.mutating_calls()[-1][2]["Clusters"]["desired_config"][0]["properties"]
    assert sent["source.ssl.truststore.password"] == item["properties"]["source.ssl.truststore.password"]
    assert stored() == "first-Secret"
    assert "first-Secret" not in result.out + result.err

    # A new value in the file is only sent with --rotate-secrets, and never printed.
    monkeypatch.setenv("TS_PW", "second-Secret")
    before = len(fake.mutating_calls())
    assert configure(cli, fake, path2, "--no-restart").code == 0
    assert fake.mutating_calls()[before:] == []
    rotated = configure(cli, fake, path2, "--no-restart", "--rotate-secrets")
    assert rotated.code == 0, rotated
    assert stored() == "second-Secret"
    assert "~ source.ssl.truststore.password: (password replaced)" in rotated.out
    assert "second-Secret" not in rotated.out + rotated.err


def test_dry_run_configure_prints_diff_and_calls_without_sending(cli, fake, tmp_path):
    assert deploy(cli, fake).code == 0
    before = len(fake.mutating_calls())
    path = edited(tmp_path, "tasks.max: 8", "tasks.max: 16")
    result = configure(cli, fake, path, "--dry-run")
    assert result.code == 0, result
    assert fake.mutating_calls()[before:] == []
    assert "  ~ tasks.max: '8' -> '16'" in result.out
    assert "[dry-run] PUT %s  # new config version: kafka-mm2-replication" % CL in result.out
    assert "[dry-run] POST %s/requests  # restart %s on %s" % (CL, C, ",".join(HOSTS)) in result.out
    assert fake.desired_properties(names.REPLICATION)["tasks.max"] == "8"


def test_rolling_restart_after_configure_goes_host_by_host(cli, fake, tmp_path):
    assert deploy(cli, fake).code == 0
    before = len(fake.calls)
    path = edited(tmp_path, "tasks.max: 8", "tasks.max: 12")
    result = configure(cli, fake, path, "--rolling", "--batch-pause", "0")
    assert result.code == 0, result
    calls = fake.calls[before:]
    posts = [c for c in calls if c[0] == "POST"]
    assert [c[1] for c in posts] == [CL + "/request_schedules"]
    batches = posts[0][2][0]["RequestSchedule"]["batch"][0]["requests"]
    assert [b["RequestBodyInfo"]["Requests/resource_filters"][0]["hosts"] for b in batches] == HOSTS
    # Ambari started the second batch's request only after the first one completed.
    first, second = sorted(fake.requests.values(), key=lambda r: r.id)[-2:]
    assert [first.tasks[0]["host_name"], second.tasks[0]["host_name"]] == HOSTS
    assert all(not hr["stale_configs"] for hr in fake.hostroles())


def test_config_groups_are_created_then_updated_and_restart_only_their_hosts(cli, fake, tmp_path):
    group = """
  config_groups:
    - name: mm2-dc2
      description: serve dc2 only
      hosts: [mm2-2.example.com]
      configurations:
        kafka-mm2-driver: {target.clusters: dc2}
"""
    with open(TOPOLOGY) as fh:
        text = fh.read()
    path = tmp_path / "groups.yaml"
    path.write_text(text.replace("  configurations:\n", group.lstrip("\n") + "  configurations:\n", 1))
    result = deploy(cli, fake, path=str(path))
    assert result.code == 0, result
    [(gid, g)] = fake.config_groups.items()
    assert g["group_name"] == "mm2-dc2" and g["hosts"] == ["mm2-2.example.com"] and g["tag"] == S
    assert fake.configs[names.DRIVER][g["configs"][names.DRIVER]]["properties"] == {"target.clusters": "dc2"}
    create = [c for c in fake.mutating_calls() if c[1] == CL + "/config_groups"]
    assert normalize(create) == [("POST", CL + "/config_groups", [{"ConfigGroup": {
        "cluster_name": "prod", "group_name": "mm2-dc2", "tag": S, "service_name": S,
        "description": "serve dc2 only", "hosts": [{"host_name": "mm2-2.example.com"}],
        "desired_configs": [{"type": names.DRIVER, "tag": "<tag>", "properties": {"target.clusters": "dc2"}}],
        "service_config_version_note": "DR replication dc1 -> dc2"}}])]
    # Same file: nothing. Changed group value: PUT of the group, restart of its host only.
    before = len(fake.mutating_calls())
    assert configure(cli, fake, str(path)).code == 0
    assert fake.mutating_calls()[before:] == []
    path2 = edited(tmp_path, "{target.clusters: dc2}", "{target.clusters: 'dc1,dc2'}", name="g2.yaml", source=str(path))
    result = configure(cli, fake, path2)
    assert result.code == 0, result
    calls = normalize(fake.mutating_calls()[before:])
    assert [c[:2] for c in calls] == [("PUT", CL + "/config_groups/%d" % gid), ("POST", CL + "/requests")]
    assert calls[0][2][0]["ConfigGroup"]["id"] == gid
    assert calls[1][2] == restart_body(["mm2-2.example.com"])


def test_configure_before_deploy_fails_with_a_hint(cli, fake):
    result = configure(cli, fake, TOPOLOGY)
    assert result.code == 1, result
    assert "%s is not installed in cluster prod: run `mm2-ambari deploy" % S in result.err


def test_invalid_topology_is_bad_input_and_changes_nothing(cli, fake, tmp_path):
    assert deploy(cli, fake).code == 0
    before = len(fake.mutating_calls())
    path = edited(tmp_path, "    target: dc2", "    target: dc9")
    result = configure(cli, fake, path)
    assert result.code == 2, result
    assert "kafka-mm2-topology" in result.err and "dc9" in result.err
    assert fake.mutating_calls()[before:] == []


def test_status_json_after_configure_reports_healthy(cli, fake):
    assert deploy(cli, fake).code == 0
    result = cli("status", "--json", "-f", TOPOLOGY, "--url", fake.url)
    assert result.code == 0, result
    data = json.loads(result.out)
    assert data["healthy"] is True and data["state"] == "STARTED"
    assert [(hc["host_name"], hc["state"]) for hc in data["host_components"]] == [(h, "STARTED") for h in HOSTS]
