"""restart, remove, status, alerts, check and run against the fake Ambari."""
import json

from rest_fake_ambari import C, S
from rest_helpers import CL, HOSTS, normalize, restart_body

from mm2_core.config import names



def started(fake):
    fake.install_started_service(HOSTS)
    return fake


def run(cli, fake, *argv):
    return cli(*argv, "--url", fake.url, "--cluster", "prod")


def test_restart_is_one_request_for_all_driver_hosts(cli, fake):
    started(fake)
    result = run(cli, fake, "restart")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [
        ("POST", CL + "/requests", restart_body(HOSTS, "Restart MirrorMaker 2 Driver (requested)"))]
    assert "restarted %s on %s" % (C, ", ".join(HOSTS)) in result.out


def schedule_batches(fake):
    """The batch requests of the request schedules the client posted: [[hosts of batch 1], ...]."""
    posts = [c for c in fake.mutating_calls() if c[0] == "POST" and c[1] == CL + "/request_schedules"]
    return [[r["RequestBodyInfo"]["Requests/resource_filters"][0]["hosts"] for r in p[2][0]["RequestSchedule"]["batch"][0]["requests"]]
            for p in posts]


def test_rolling_restart_is_ambaris_request_schedule_as_the_ui_sends_it(cli, fake):
    started(fake)
    result = run(cli, fake, "restart", "--rolling", "--batch-pause", "0")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [("POST", CL + "/request_schedules", [{"RequestSchedule": {"batch": [
        {"requests": [{"order_id": i + 1, "type": "POST", "uri": "/clusters/prod/requests", "RequestBodyInfo": {
            "RequestInfo": {"context": "_PARSE_.ROLLING-RESTART.%s.%d.2" % (C, i + 1), "command": "RESTART"},
            "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": host}]}}
            for i, host in enumerate(HOSTS)]},
        {"batch_settings": {"batch_separation_in_seconds": 0, "task_failure_tolerance": 1}}]}}])]
    # Ambari ran the batches one after the other; each request was waited for.
    assert [r.tasks[0]["host_name"] for r in sorted(fake.requests.values(), key=lambda r: r.id)] == HOSTS
    assert "request 1 rolling restart batch 1/2: COMPLETED" in result.err
    assert "request 2 rolling restart batch 2/2: COMPLETED" in result.err
    assert all(hr["state"] == "STARTED" for hr in fake.hostroles())


def test_rolling_restart_defaults_are_the_uis(cli, fake):
    fake.hosts = ["mm2-%d.example.com" % i for i in range(1, 24)]
    fake.install_started_service(fake.hosts)
    result = run(cli, fake, "restart", "--rolling", "--dry-run")
    assert result.code == 0, result
    body = json.loads(result.out[result.out.index("["):result.out.index("[dry-run]     then")].split("\n", 1)[1])
    batch = body[0]["RequestSchedule"]["batch"]
    # 23 hosts: batches of ceil(23/10) = 3, 120 s apart, tolerating one batch worth of failed tasks
    assert [len(r["RequestBodyInfo"]["Requests/resource_filters"][0]["hosts"].split(",")) for r in batch[0]["requests"]] \
        == [3] * 7 + [2]
    assert batch[1] == {"batch_settings": {"batch_separation_in_seconds": 120, "task_failure_tolerance": 3}}


def test_rolling_restart_stops_when_more_tasks_fail_than_tolerated(cli, fake):
    fake.hosts = ["mm2-1.example.com", "mm2-2.example.com", "mm2-3.example.com"]
    fake.install_started_service(fake.hosts)
    fake.fail_next("RESTART", host="mm2-1.example.com", stderr="Fail: MirrorMaker 2 did not start")
    result = run(cli, fake, "restart", "--rolling", "--batch-pause", "0", "--failure-tolerance", "0")
    assert result.code == 1, result
    # Ambari ran the first batch only (BatchRequestJob: tolerance exceeded, no further batch).
    assert [r.tasks[0]["host_name"] for r in fake.requests.values()] == ["mm2-1.example.com"]
    assert "1 failed task(s), more than the 0 tolerated" in result.err
    assert "MirrorMaker 2 did not start" in result.err


def test_rolling_restart_goes_on_within_the_tolerance_but_exits_1(cli, fake):
    fake.hosts = ["mm2-1.example.com", "mm2-2.example.com", "mm2-3.example.com"]
    fake.install_started_service(fake.hosts)
    fake.fail_next("RESTART", host="mm2-1.example.com", stderr="Fail: MirrorMaker 2 did not start")
    result = run(cli, fake, "restart", "--rolling", "--batch-pause", "0", "--batch-size", "1",
                 "--failure-tolerance", "1")
    assert result.code == 1, result
    assert sorted(r.tasks[0]["host_name"] for r in fake.requests.values()) == fake.hosts
    assert "finished with 1 failed task(s) (within the tolerance of 1)" in result.err


def test_rolling_restart_of_chosen_hosts(cli, fake):
    started(fake)
    result = run(cli, fake, "restart", "--rolling", "--hosts", HOSTS[1], "--batch-pause", "0")
    assert result.code == 0, result
    assert schedule_batches(fake) == [[HOSTS[1]]]
    unknown = run(cli, fake, "restart", "--hosts", "nope.example.com")
    assert unknown.code == 2
    assert "nope.example.com does not run %s" % C in unknown.err


def test_remove_stops_then_deletes_and_is_idempotent(cli, fake):
    started(fake)
    result = run(cli, fake, "remove", "--yes")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [
        ("PUT", CL + "/services/" + S, {"RequestInfo": {"context": "Stop MirrorMaker 2", "operation_level": {
            "level": "SERVICE", "cluster_name": "prod", "service_name": S}},
                                        "Body": {"ServiceInfo": {"state": "INSTALLED"}}}),
    ] + [("DELETE", CL + "/hosts/%s/host_components/%s" % (h, C), None) for h in HOSTS] + [
        ("DELETE", CL + "/services/" + S, None),
    ]
    assert S not in fake.services
    assert not any(t in fake.desired for t in names.OWN_CONFIG_TYPES)
    before = len(fake.mutating_calls())
    again = run(cli, fake, "remove", "--yes")
    assert again.code == 0
    assert fake.mutating_calls()[before:] == []
    assert "nothing to remove" in again.out


def test_remove_needs_confirmation_and_dry_run_sends_nothing(cli, fake):
    started(fake)
    refused = run(cli, fake, "remove")
    assert refused.code == 2
    assert "pass --yes" in refused.err
    dry = run(cli, fake, "remove", "--dry-run")
    assert dry.code == 0, dry
    assert fake.mutating_calls() == []
    assert "[dry-run] DELETE /api/v1/clusters/prod/services/%s" % S in dry.out


def test_remove_reports_ambaris_500_when_a_component_cannot_be_removed(cli, fake):
    started(fake)
    fake.fail_next("STOP", host=HOSTS[1], stderr="Fail: kill failed")
    result = run(cli, fake, "remove", "--yes")
    assert result.code == 1, result
    assert "STOP on %s: FAILED" % HOSTS[1] in result.err
    assert not [c for c in fake.mutating_calls() if c[0] == "DELETE"]


def test_status_table_and_exit_code(cli, fake):
    started(fake)
    ok = run(cli, fake, "status")
    assert ok.code == 0, ok
    assert "%s in cluster prod (BIGTOP-3.2.0): service state STARTED" % S in ok.out
    assert "%s  %s  STARTED  STARTED  no" % (HOSTS[0], C) in ok.out
    fake.services[S]["components"][C][HOSTS[1]]["state"] = "INSTALLED"
    down = run(cli, fake, "status")
    assert down.code == 1
    assert "%s on %s is INSTALLED, Ambari wants STARTED" % (C, HOSTS[1]) in down.out
    fake.services[S]["components"][C][HOSTS[1]]["maintenance_state"] = "ON"
    assert run(cli, fake, "status").code == 0  # maintenance mode: intended to be down


def test_status_of_a_missing_service_exits_1(cli, fake):
    result = run(cli, fake, "status")
    assert result.code == 1
    assert "%s is not installed in cluster prod" % S in result.out


def test_alerts_sorted_by_severity_masked_and_fail_on(cli, fake):
    started(fake)
    fake.add_alert("OK", "MirrorMaker 2 Process", "TCP OK", host=HOSTS[0])
    fake.add_alert("CRITICAL", "Replication Lag", "dc1->dc2 lag 120000 records", host=HOSTS[1])
    fake.add_alert("WARNING", "Heartbeat gap", "sasl.jaas.config: org.apache.kafka...PlainLoginModule password=\"x\"",
                   host=HOSTS[0])
    result = run(cli, fake, "alerts")
    assert result.code == 0, result
    lines = [line for line in result.out.splitlines()[1:]]
    assert [line.split()[0] for line in lines] == ["CRITICAL", "WARNING", "OK"]
    assert 'password="x"' not in result.out
    failing = run(cli, fake, "alerts", "--fail-on", "CRITICAL", "--json")
    assert failing.code == 1
    assert [a["state"] for a in json.loads(failing.out)] == ["CRITICAL", "WARNING", "OK"]
    fake.alerts[1]["Alert"]["maintenance_state"] = "ON"
    assert run(cli, fake, "alerts", "--fail-on", "CRITICAL").code == 0
    assert run(cli, fake, "alerts", "--fail-on", "WARNING").code == 1


def test_service_check_runs_the_check_command_and_waits(cli, fake):
    started(fake)
    result = run(cli, fake, "check")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [("POST", CL + "/requests", {
        "RequestInfo": {"context": "MirrorMaker 2 Service Check", "command": names.SERVICE_CHECK_ROLE,
                        "operation_level": {"level": "SERVICE", "cluster_name": "prod", "service_name": S}},
        "Requests/resource_filters": [{"service_name": S}]})]
    assert "service check passed" in result.out
    fake.fail_next("SERVICE_CHECK", stderr="Fail: no heartbeat from dc1 within 60 s")
    failed = run(cli, fake, "check")
    assert failed.code == 1
    assert "no heartbeat from dc1 within 60 s" in failed.err


def test_custom_command_output_is_shown(cli, fake):
    started(fake)
    fake.custom_output[names.CMD_REPLICATION_STATUS] = {
        "structured_out": {"flows": [{"flow": "dc1->dc2", "lag": 12}]}, "stdout": "ok"}
    result = run(cli, fake, "run", names.CMD_REPLICATION_STATUS)
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [("POST", CL + "/requests", {
        "RequestInfo": {"context": "MirrorMaker 2 %s" % names.CMD_REPLICATION_STATUS,
                        "command": names.CMD_REPLICATION_STATUS},
        "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": HOSTS[0]}]})]
    assert "--- %s on %s: COMPLETED" % (names.CMD_REPLICATION_STATUS, HOSTS[0]) in result.out
    assert '"flow": "dc1->dc2"' in result.out
    everywhere = run(cli, fake, "run", names.CMD_VERIFY, "--all-hosts")
    assert everywhere.code == 0
    assert fake.mutating_calls()[-1][2]["Requests/resource_filters"][0]["hosts"] == ",".join(HOSTS)


def test_unknown_custom_command_is_bad_input(cli, fake):
    result = run(cli, fake, "run", "DROP_EVERYTHING")
    assert result.code == 2
    assert "invalid choice" in result.err


def test_the_real_dispatcher_runs_the_rest_subcommands(fake, capsys):
    from mm2_ambari import cli as dispatcher
    started(fake)
    code = dispatcher.main(["status", "--url", fake.url, "--cluster", "prod"])
    assert code == 0
    assert "service state STARTED" in capsys.readouterr().out
    assert dispatcher.main(["run", "NOPE"]) == 2


def test_a_wrong_cluster_name_is_bad_input_quoting_ambari(cli, fake):
    result = cli("restart", "--url", fake.url, "--cluster", "prdo")
    assert result.code == 2
    assert "cluster 'prdo' not found" in result.err
    assert "The requested resource doesn't exist: Cluster not found, clusterName=prdo" in result.err
