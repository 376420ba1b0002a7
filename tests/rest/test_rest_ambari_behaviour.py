"""What Ambari's server does behind the calls, and what mm2-ambari makes of it: maintenance mode at
service, host and component level, INIT states, refused deletes, config-group host conflicts, secret
references in config groups, Kerberos installs, command parameters, DNS errors, `validate`.

The fake answers as the server code does (see the class and method named next to each behaviour in
rest_fake_ambari.py); the first tests pin the fake itself to those rules."""
import json
import os

import requests

from rest_fake_ambari import C, MISSING_KDC, REPO, S
from rest_helpers import ADMIN, CL, HOSTS, TOPOLOGY, deploy, with_configurations

from mm2_core.config import names

H1, H2 = HOSTS
SERVICE_LEVEL = {"level": "SERVICE", "cluster_name": "prod", "service_name": S}


def run(cli, fake, *argv):
    return cli(*argv, "--url", fake.url, "--cluster", "prod")


def put(fake, path, body):
    return requests.put(fake.url + "/api/v1/clusters/prod" + path, data=json.dumps(body), auth=ADMIN,
                        headers={"X-Requested-By": "test"})


def stopped(fake, hosts=HOSTS):
    fake.install_started_service(hosts)
    for hr in fake.hostroles():
        hr.update(state="INSTALLED", desired_state="INSTALLED")
    return fake


def states(fake):
    return dict((hr["host_name"], hr["state"]) for hr in fake.hostroles())


# --- the fake follows the server ------------------------------------------------------------------
def test_fake_without_operation_level_skips_a_service_in_maintenance_like_ambari(fake):
    stopped(fake)
    fake.set_maintenance(service=S)
    start = {"RequestInfo": {"context": "Start"}, "Body": {"ServiceInfo": {"state": "STARTED"}}}
    # ServiceResourceProvider.updateServices: no level -> CLUSTER -> service in maintenance skipped
    answer = put(fake, "/services/" + S, start)
    assert (answer.status_code, answer.content) == (200, b"")
    start["RequestInfo"]["operation_level"] = SERVICE_LEVEL
    answer = put(fake, "/services/" + S, start)
    assert answer.status_code == 202 and answer.json()["Requests"]["status"] == "Accepted"


def test_fake_reports_effective_maintenance_states(fake):
    fake.install_started_service(HOSTS)
    fake.set_maintenance(host=H1)
    assert [fake.effective_maintenance(hr) for hr in sorted(fake.hostroles(), key=lambda h: h["host_name"])] \
        == ["IMPLIED_FROM_HOST", "OFF"]
    fake.set_maintenance(service=S)
    assert sorted(fake.effective_maintenance(hr) for hr in fake.hostroles()) \
        == ["IMPLIED_FROM_SERVICE", "IMPLIED_FROM_SERVICE_AND_HOST"]
    fake.set_maintenance(component_host=H2)
    assert sorted(fake.effective_maintenance(hr) for hr in fake.hostroles()) == ["IMPLIED_FROM_SERVICE_AND_HOST", "ON"]


# --- maintenance mode -----------------------------------------------------------------------------
def test_deploy_starts_a_service_that_is_in_maintenance_mode(cli, fake):
    assert deploy(cli, fake, "--no-service-check").code == 0
    for hr in fake.hostroles():
        hr.update(state="INSTALLED", desired_state="INSTALLED")
    fake.set_maintenance(service=S)
    result = deploy(cli, fake, "--no-service-check")
    assert result.code == 0, result
    assert states(fake) == {H1: "STARTED", H2: "STARTED"}


def test_deploy_on_a_host_in_maintenance_exits_1_naming_host_and_cause(cli, fake):
    fake.set_maintenance(host=H2)
    result = deploy(cli, fake)
    assert result.code == 1, result
    assert states(fake) == {H1: "STARTED", H2: "INIT"}
    assert "%s on %s is INIT (its host is in maintenance mode)" % (C, H2) in result.err
    assert "turn maintenance mode off there" in result.err
    assert "done:" not in result.out
    # Maintenance off: the same deploy finishes the job.
    fake.set_maintenance(host=H2, state="OFF")
    again = deploy(cli, fake)
    assert again.code == 0, again
    assert states(fake) == {H1: "STARTED", H2: "STARTED"}


def test_restart_leaves_out_hosts_and_components_in_maintenance_but_not_the_service(cli, fake):
    fake.install_started_service(HOSTS + ["kafka-1.example.com"])
    fake.set_maintenance(host=H1)
    fake.set_maintenance(component_host=H2)
    fake.set_maintenance(service=S)
    result = run(cli, fake, "restart")
    assert result.code == 0, result
    [post] = [c for c in fake.mutating_calls() if c[0] == "POST"]
    assert post[2]["Requests/resource_filters"][0]["hosts"] == "kafka-1.example.com"
    assert "skipped %s: the service and its host are in maintenance mode" % H1 in result.err
    assert "skipped %s: the component is in maintenance mode" % H2 in result.err


def test_status_is_healthy_when_maintenance_explains_a_stopped_driver(cli, fake):
    fake.install_started_service(HOSTS)
    fake.services[S]["components"][C][H1].update(state="INSTALLED", desired_state="STARTED")
    assert run(cli, fake, "status").code == 1
    for where in ({"host": H1}, {"service": S}, {"component_host": H1}):
        fake.set_maintenance(**where)
        result = run(cli, fake, "status", "--json")
        assert result.code == 0, (where, result)
        fake.set_maintenance(state="OFF", **where)
    fake.set_maintenance(host=H1)
    table = run(cli, fake, "status")
    assert "IMPLIED_FROM_HOST" in table.out


def test_remove_stops_drivers_in_maintenance_one_by_one_then_deletes(cli, fake):
    fake.install_started_service(HOSTS)
    fake.set_maintenance(host=H2)
    result = run(cli, fake, "remove", "--yes")
    assert result.code == 0, result
    stop_h2 = [c for c in fake.mutating_calls() if c[1] == CL + "/hosts/%s/host_components/%s" % (H2, C)]
    assert stop_h2[0][2]["RequestInfo"]["operation_level"] == {
        "level": "HOST_COMPONENT", "cluster_name": "prod", "host_name": H2, "service_name": S}
    assert S not in fake.services


# --- INIT and INSTALL_FAILED ----------------------------------------------------------------------
def test_status_exits_1_for_drivers_never_installed(cli, fake):
    fake.install_started_service(HOSTS)
    fake.services[S]["components"][C][H2].update(state="INIT", desired_state="INIT")
    result = run(cli, fake, "status")
    assert result.code == 1, result
    assert "%s on %s is INIT: not installed" % (C, H2) in result.out
    fake.services[S]["components"][C][H2].update(state="INSTALL_FAILED", desired_state="INSTALLED")
    js = run(cli, fake, "status", "--json")
    assert js.code == 1 and json.loads(js.out)["healthy"] is False
    # Maintenance mode does not hide a driver that was never installed.
    fake.set_maintenance(host=H2)
    assert run(cli, fake, "status").code == 1


def test_deploy_installs_drivers_left_in_install_failed(cli, fake):
    fake.fail_next("INSTALL", host=H2, stderr="Fail: no space left")
    first = deploy(cli, fake)
    assert first.code == 1
    fake.services[S]["components"][C][H2]["state"] = "INSTALL_FAILED"
    again = deploy(cli, fake)
    assert again.code == 0, again
    assert states(fake) == {H1: "STARTED", H2: "STARTED"}


# --- a host component delete refused ---------------------------------------------------------------------------------
def test_remove_reports_a_refused_host_component_delete_and_keeps_the_service(cli, fake):
    fake.install_started_service(HOSTS)

    def started_meanwhile():  # someone starts H2 again between the stop and the delete
        fake.services[S]["components"][C][H2]["state"] = "STARTED"
        fake.before_delete.clear()
    fake.before_delete.append(started_meanwhile)
    result = run(cli, fake, "remove", "--yes")
    assert result.code == 1, result
    assert "Ambari did not delete every host component" in result.err
    assert "%s/%s: 500 An internal system exception occurred: Current host component state prohibiting " \
           "component removal" % (H2, C) in result.err
    assert not [c for c in fake.mutating_calls() if c == ("DELETE", CL + "/services/" + S, None)]
    assert S in fake.services and list(fake.services[S]["components"][C]) == [H2]


# --- config groups --------------------------------------------------------------------------------
GROUPS = """
  config_groups:
    - name: near-dc1
      hosts: [{a}]
      configurations:
        kafka-mm2-driver: {{internal.rest.port: '18081'}}
    - name: near-dc2
      hosts: [{b}]
      configurations:
        kafka-mm2-driver: {{internal.rest.port: '18082'}}
"""


def with_groups(tmp_path, a, b, name="groups.yaml"):
    text = open(TOPOLOGY).read()
    path = tmp_path / name
    path.write_text(text.replace("  configurations:\n", GROUPS.format(a=a, b=b).lstrip("\n") + "  configurations:\n", 1))
    return str(path)


def group_hosts(fake):
    return dict((g["group_name"], g["hosts"]) for g in fake.config_groups.values())


def test_hosts_swap_between_config_groups_without_a_conflict(cli, fake, tmp_path):
    assert deploy(cli, fake, path=with_groups(tmp_path, H1, H2)).code == 0
    assert group_hosts(fake) == {"near-dc1": [H1], "near-dc2": [H2]}
    result = run(cli, fake, "configure", with_groups(tmp_path, H2, H1, "swapped.yaml"))
    assert result.code == 0, result
    assert group_hosts(fake) == {"near-dc1": [H2], "near-dc2": [H1]}
    puts = [c for c in fake.mutating_calls() if c[0] == "PUT" and "/config_groups/" in c[1]]
    # First both groups give their host up, then each takes its new one.
    assert [[h["host_name"] for h in p[2][0]["ConfigGroup"]["hosts"]] for p in puts] == [[], [], [H2], [H1]]


def test_a_host_held_by_a_group_outside_the_file_is_bad_input_before_any_change(cli, fake, tmp_path):
    fake.install_started_service(HOSTS)
    fake.config_groups[9] = {"group_name": "legacy", "tag": S, "description": "", "hosts": [H2], "configs": {}}
    before = len(fake.mutating_calls())
    result = run(cli, fake, "configure", with_groups(tmp_path, H1, H2))
    assert result.code == 2, result
    assert "host %s is already in config group legacy" % H2 in result.err
    assert fake.mutating_calls()[before:] == []


def test_ambaris_409_host_conflict_is_a_failure_not_already_exists(cli, fake, tmp_path):
    fake.injected.append(("POST", "/clusters/prod/config_groups", 409,
                          "Host is already associated with a config group, clusterName = prod, configGroupName = x, "
                          "tag = %s, hostname = %s" % (S, H1)))
    result = deploy(cli, fake, path=with_groups(tmp_path, H1, H2))
    assert result.code == 1, result
    assert "config group near-dc1: Ambari refused a host" in result.err
    assert "already exists" not in result.err


def test_a_group_password_is_stored_as_the_value_never_as_a_secret_reference(cli, fake, tmp_path, monkeypatch):
    monkeypatch.setenv("METRICS_PW", "s3cret-metrics")
    group = """
  config_groups:
    - name: near-dc2
      hosts: [{h}]
      configurations:
        kafka-mm2-env:
          mm2_metrics_auth_password: {{from_env: METRICS_PW}}
          mm2_heap_opts: {heap}
"""
    text = open(TOPOLOGY).read()

    def file(heap, name):
        path = tmp_path / name
        path.write_text(text.replace("  configurations:\n", group.format(h=H2, heap=heap).lstrip("\n")
                                     + "  configurations:\n", 1))
        return str(path)
    assert deploy(cli, fake, path=file("-Xmx1g", "a.yaml")).code == 0
    result = run(cli, fake, "configure", file("-Xmx2g", "b.yaml"))
    assert result.code == 0, result
    [g] = fake.config_groups.values()
    stored = fake.configs[names.ENV][g["configs"][names.ENV]]["properties"]
    assert stored == {"mm2_metrics_auth_password": "s3cret-metrics", "mm2_heap_opts": "-Xmx2g"}
    assert "s3cret-metrics" not in result.out + result.err


# --- Kerberos -------------------------------------------------------------------------------------
def test_kerberized_install_stores_the_kdc_credential_from_the_environment(cli, fake, monkeypatch):
    fake.kerberos = True
    monkeypatch.setenv("MM2_KDC_ADMIN_PRINCIPAL", "admin/admin@EXAMPLE.COM")
    monkeypatch.setenv("MM2_KDC_ADMIN_PASSWORD", "kdc-secret")
    result = deploy(cli, fake)
    assert result.code == 0, result
    assert fake.credentials["kdc.admin.credential"] == {"principal": "admin/admin@EXAMPLE.COM", "key": "kdc-secret",
                                                        "type": "temporary"}
    posts = [c[1] for c in fake.mutating_calls()]
    assert posts.index(CL + "/credentials/kdc.admin.credential") < posts.index(CL + "/services/" + S)
    assert "kdc-secret" not in result.out + result.err
    dry = deploy(cli, fake, "--dry-run")
    assert "kdc-secret" not in dry.out


def test_kerberized_install_uses_a_stored_credential(cli, fake, monkeypatch):
    fake.kerberos = True
    fake.credentials["kdc.admin.credential"] = {"principal": "admin/admin@EXAMPLE.COM", "key": "kdc-secret",
                                                "type": "persisted"}
    result = deploy(cli, fake)
    assert result.code == 0, result
    assert "using the KDC administrator credential stored in Ambari (persisted)" in result.err
    assert not [c for c in fake.mutating_calls() if "/credentials/" in c[1]]


def test_kerberized_install_without_a_credential_is_bad_input_before_any_change(cli, fake):
    fake.kerberos = True
    result = deploy(cli, fake)
    assert result.code == 2, result
    assert "MM2_KDC_ADMIN_PRINCIPAL" in result.err and "kdc.admin.credential" in result.err
    assert fake.mutating_calls() == []


def test_wrong_kdc_password_is_reported_with_ambaris_words(cli, fake, monkeypatch):
    fake.kerberos = True
    monkeypatch.setenv("MM2_KDC_ADMIN_PRINCIPAL", "admin/admin@EXAMPLE.COM")
    monkeypatch.setenv("MM2_KDC_ADMIN_PASSWORD", "Wr0ng-kdc-pw")
    result = deploy(cli, fake)
    assert result.code == 2, result
    assert "Invalid KDC administrator credentials" in result.err
    assert "MM2_KDC_ADMIN_PASSWORD" in result.err
    assert "Wr0ng-kdc-pw" not in result.out + result.err


def test_ambaris_missing_credential_message_is_the_servers(fake):
    fake.kerberos = True
    stopped(fake)
    fake.services[S]["components"][C][H1].update(state="INIT", desired_state="INIT")
    answer = put(fake, "/services/" + S, {"RequestInfo": {"operation_level": SERVICE_LEVEL},
                                          "Body": {"ServiceInfo": {"state": "INSTALLED"}}})
    assert answer.status_code == 400 and answer.json()["message"] == MISSING_KDC


# --- run parameters, service check, DNS -----------------------------------------------------------
def test_run_passes_command_parameters(cli, fake):
    fake.install_started_service(HOSTS)
    result = run(cli, fake, "run", "EXPORT_TRANSLATED_OFFSETS", "--param", "groups=g1,g2", "--param", "flows=dc1->dc2")
    assert result.code == 0, result
    [post] = [c for c in fake.mutating_calls() if c[0] == "POST"]
    assert post[2]["RequestInfo"]["parameters"] == {"groups": "g1,g2", "flows": "dc1->dc2"}
    assert list(fake.requests.values())[0].parameters == {"groups": "g1,g2", "flows": "dc1->dc2"}
    bad = run(cli, fake, "run", "EXPORT_TRANSLATED_OFFSETS", "--param", "novalue")
    assert bad.code == 2


def test_no_service_check_skips_it_and_a_failed_check_fails_the_deploy(cli, fake):
    quiet = deploy(cli, fake, "--no-service-check")
    assert quiet.code == 0, quiet
    assert not [c for c in fake.mutating_calls() if c[1] == CL + "/requests"]
    fake.services.pop(S)
    fake.fail_next("SERVICE_CHECK", stderr="Fail: no heartbeat on dc2")
    failed = deploy(cli, fake)
    assert failed.code == 1, failed
    assert "no heartbeat on dc2" in failed.err


def test_an_unresolvable_ambari_host_fails_at_once_also_in_dry_run(cli):
    for extra in ((), ("--dry-run",)):
        result = cli("status", "--url", "http://ambari.no-such-host.invalid:8080", "--cluster", "prod", *extra)
        assert result.code == 2, result
        assert "cannot resolve Ambari's host 'ambari.no-such-host.invalid'" in result.err
        assert "retry" not in result.err


# --- validate ---------------------------------------------------------------------------------------
def validate(cli, *argv):
    return cli("validate", *argv, fast=False)


def test_validate_accepts_the_test_file_offline(cli):
    result = validate(cli, TOPOLOGY)
    assert result.code == 0, result
    assert "valid for Kafka 3.7.1 (2 driver host(s), 0 config group(s))" in result.out


def test_validate_reports_validator_and_placement_problems_with_exit_2(cli, tmp_path):
    bad_flow = tmp_path / "bad.yaml"
    bad_flow.write_text(open(TOPOLOGY).read().replace("target: dc2", "target: dc3"))
    result = validate(cli, str(bad_flow))
    assert result.code == 2, result
    assert "dc3" in result.err
    placement = with_configurations(tmp_path, """
    kafka-mm2-driver:
      target.clusters: dc1
""")
    result = validate(cli, placement)
    assert result.code == 2, result
    assert "placement" in result.err


def test_validate_needs_a_kafka_version(cli, tmp_path):
    no_version = tmp_path / "nov.yaml"
    no_version.write_text(open(TOPOLOGY).read().replace('  kafka_version: "3.7.1"\n', ""))
    result = validate(cli, str(no_version))
    assert result.code == 2 and "--kafka-version" in result.err
    assert validate(cli, str(no_version), "--kafka-version", "3.9.0").code == 0


def test_validate_checks_the_templates_the_stack_ships():
    """The offline validator starts from the stack defaults, content templates included (the env and
    log4j templates of package/templates), as the wizard would show them."""
    from mm2_ambari.offline import validate_cmd
    defaults = validate_cmd.catalog_defaults().properties
    with open(os.path.join(REPO, "package", "templates", "mm2-env.sh.j2"), encoding="utf-8") as fh:
        assert defaults[names.ENV]["content"] == fh.read()


def test_validate_is_a_subcommand_of_the_real_cli(capsys):
    from mm2_ambari import cli
    assert cli.main(["validate", TOPOLOGY]) == 0
    assert "valid for Kafka 3.7.1" in capsys.readouterr().out


def test_kdc_credential_comes_from_environment_or_a_terminal_prompt_only():
    from mm2_ambari.transport import credentials

    class Tty(object):
        def isatty(self):
            return True

    class Pipe(object):
        def isatty(self):
            return False
    env = {"MM2_KDC_ADMIN_PRINCIPAL": "admin/admin@EXAMPLE.COM", "MM2_KDC_ADMIN_PASSWORD": "pw"}
    assert credentials.kdc_admin(env, Pipe()) == ("admin/admin@EXAMPLE.COM", "pw")
    assert credentials.kdc_admin({}, Pipe()) is None
    asked = []
    assert credentials.kdc_admin({"MM2_KDC_ADMIN_PRINCIPAL": "k/admin"}, Tty(),
                                 prompt=lambda p: asked.append(p) or (p, "typed")) == ("k/admin", "typed")
    assert asked == ["k/admin"]


def test_a_rolling_restart_whose_answer_was_lost_follows_the_schedule_ambari_created(cli, fake):
    fake.install_started_service(HOSTS)
    fake.delays.append(("POST", "/clusters/prod/request_schedules", 1.0))
    result = run(cli, fake, "restart", "--rolling", "--batch-pause", "0", "--read-timeout", "0.3")
    assert result.code == 0, result
    assert "Ambari had accepted it as request schedule 1" in result.err
    assert len(fake.schedules) == 1 and len([c for c in fake.mutating_calls() if c[0] == "POST"]) == 1
    assert sorted(r.tasks[0]["host_name"] for r in fake.requests.values()) == HOSTS


def test_a_stopped_driver_kept_in_maintenance_is_left_alone_by_a_rerun(cli, fake):
    assert deploy(cli, fake).code == 0
    fake.services[S]["components"][C][H2].update(state="INSTALLED", desired_state="INSTALLED")
    fake.set_maintenance(component_host=H2)
    before = len(fake.mutating_calls())
    result = deploy(cli, fake)
    assert result.code == 0, result
    assert fake.mutating_calls()[before:] == []
    assert "%s on %s is INSTALLED and left so: the component is in maintenance mode" % (C, H2) in result.err


def test_dry_run_of_a_kerberized_install_masks_the_kdc_password(cli, fake, monkeypatch):
    fake.kerberos = True
    monkeypatch.setenv("MM2_KDC_ADMIN_PRINCIPAL", "admin/admin@EXAMPLE.COM")
    monkeypatch.setenv("MM2_KDC_ADMIN_PASSWORD", "kdc-secret")
    result = deploy(cli, fake, "--dry-run")
    assert result.code == 0, result
    assert "[dry-run] POST /api/v1/clusters/prod/credentials/kdc.admin.credential" in result.out
    assert '"key": "********"' in result.out and '"type": "temporary"' in result.out
    assert "kdc-secret" not in result.out + result.err
    assert fake.mutating_calls() == [] and fake.credentials == {}


def test_validate_refuses_a_host_name_with_a_space(cli, tmp_path):
    path = tmp_path / "host.yaml"
    path.write_text(open(TOPOLOGY).read().replace("hosts: [mm2-1.example.com, mm2-2.example.com]",
                                                  'hosts: [mm2-1.example.com, "mm2 2.example.com"]'))
    result = validate(cli, str(path))
    assert result.code == 2, result
    assert "deployment.hosts: 'mm2 2.example.com' is not a host name (it contains a space)" in result.err
