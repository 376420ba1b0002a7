"""remove-host: a driver is stopped before its host component is deleted; one that cannot be stopped
(its agent does not answer) is not deleted, and the error names it. remove (the whole service) refuses
the same way."""
from rest_fake_ambari import C, S
from rest_helpers import CL, HOSTS, normalize


def run(cli, fake, *argv):
    return cli(*argv, "--url", fake.url, "--cluster", "prod")


def test_remove_host_stops_then_deletes(cli, fake):
    fake.install_started_service(HOSTS)
    result = run(cli, fake, "remove-host", HOSTS[1], "--yes")
    assert result.code == 0, result
    path = CL + "/hosts/%s/host_components/%s" % (HOSTS[1], C)
    assert normalize(fake.mutating_calls()) == [
        ("PUT", path, {"RequestInfo": {"context": "Stop MirrorMaker 2 Driver on %s" % HOSTS[1], "operation_level": {
            "level": "HOST_COMPONENT", "cluster_name": "prod", "host_name": HOSTS[1], "service_name": S}},
            "Body": {"HostRoles": {"state": "INSTALLED"}}}),
        ("DELETE", path, None)]
    assert sorted(fake.services[S]["components"][C]) == [HOSTS[0]]
    assert fake.services[S]["components"][C][HOSTS[0]]["state"] == "STARTED"
    assert "%s stopped and removed from %s" % (C, HOSTS[1]) in result.out
    again = run(cli, fake, "remove-host", HOSTS[1], "--yes")
    assert again.code == 0 and "nothing to remove" in again.out


def test_a_driver_in_maintenance_is_stopped_too(cli, fake):
    fake.install_started_service(HOSTS)
    fake.set_maintenance(component_host=HOSTS[1])
    result = run(cli, fake, "remove-host", HOSTS[1], "--yes")
    assert result.code == 0, result
    assert HOSTS[1] not in fake.services[S]["components"][C]


def test_an_unreachable_driver_is_not_deleted_and_is_named(cli, fake):
    fake.install_started_service(HOSTS)
    fake.services[S]["components"][C][HOSTS[1]]["state"] = "UNKNOWN"  # heartbeat lost
    result = run(cli, fake, "remove-host", HOSTS[1], "--yes")
    assert result.code == 1
    assert ("%s on %s cannot be stopped: its agent does not answer (state UNKNOWN)" % (C, HOSTS[1])) in result.err
    assert "Start the agent there (ambari-agent start) and run this again" in result.err
    assert fake.mutating_calls() == []
    assert HOSTS[1] in fake.services[S]["components"][C]


def test_a_driver_busy_with_another_command_is_not_deleted(cli, fake):
    fake.install_started_service(HOSTS)
    fake.services[S]["components"][C][HOSTS[0]]["state"] = "STARTING"
    result = run(cli, fake, "remove-host", HOSTS[0], "--yes")
    assert result.code == 1 and "Ambari is running another command on it (state STARTING)" in result.err
    assert fake.mutating_calls() == []


def test_a_stop_that_fails_keeps_the_host_component(cli, fake):
    fake.install_started_service(HOSTS)
    fake.fail_next("STOP", host=HOSTS[1], stderr="Fail: kill failed")
    result = run(cli, fake, "remove-host", HOSTS[1], "--yes")
    assert result.code == 1
    assert not [c for c in fake.mutating_calls() if c[0] == "DELETE"]
    assert HOSTS[1] in fake.services[S]["components"][C]


def test_confirmation_dry_run_and_unknown_host(cli, fake):
    fake.install_started_service(HOSTS)
    refused = run(cli, fake, "remove-host", HOSTS[1])
    assert refused.code == 2 and "pass --yes to confirm" in refused.err
    dry = run(cli, fake, "remove-host", HOSTS[1], "--dry-run")
    assert dry.code == 0, dry
    assert fake.mutating_calls() == []
    assert "[dry-run] DELETE /api/v1/clusters/prod/hosts/%s/host_components/%s" % (HOSTS[1], C) in dry.out
    other = run(cli, fake, "remove-host", "kafka-1.example.com", "--yes")
    assert other.code == 0 and "%s is not on kafka-1.example.com" % C in other.out


def test_remove_of_the_service_refuses_an_unreachable_driver(cli, fake):
    fake.install_started_service(HOSTS)
    fake.services[S]["components"][C][HOSTS[0]]["state"] = "UNKNOWN"
    result = run(cli, fake, "remove", "--yes")
    assert result.code == 1
    assert "%s cannot be removed while a driver cannot be stopped; nothing was changed" % S in result.err
    assert "%s on %s cannot be stopped" % (C, HOSTS[0]) in result.err
    assert fake.mutating_calls() == [] and S in fake.services
