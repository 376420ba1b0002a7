"""deploy against the fake Ambari: the exact calls, idempotent re-runs, dry run and injected faults."""
from rest_fake_ambari import C, S, stack_defaults
from rest_helpers import HOSTS, TOPOLOGY, deploy, normalize, with_configurations

from mm2_core.config import names

# The operation level the web UI sends with a service's state change (ajax.js 'common.service.update').
LEVEL = {"level": "SERVICE", "cluster_name": "prod", "service_name": S}


def topology_text():
    with open(TOPOLOGY) as fh:
        text = fh.read()
    return text[:text.index("deployment:")].rstrip() + "\n"


def expected_configs(note):
    props = stack_defaults()
    for config_type in names.OWN_CONFIG_TYPES:
        props.setdefault(config_type, {})
    props[names.ENV]["mm2_heap_opts"] = "-Xms2g -Xmx4g"
    props[names.REPLICATION]["tasks.max"] = "8"
    props[names.CLUSTERS]["topology.mode"] = "advanced"
    props[names.TOPOLOGY]["content"] = topology_text()
    return [{"type": t, "tag": "<tag>", "properties": props[t], "service_config_version_note": note}
            for t in sorted(props)]


def test_fresh_deploy_sends_exactly_the_ambari_calls(cli, fake):
    result = deploy(cli, fake)
    assert result.code == 0, result
    c = "/api/v1/clusters/prod"
    assert normalize(fake.mutating_calls()) == [
        ("POST", c + "/services", [{"ServiceInfo": {"service_name": S}}]),
        ("POST", c + "/services/%s/components/%s" % (S, C), None),
        ("POST", c + "/hosts/mm2-1.example.com/host_components/" + C, None),
        ("POST", c + "/hosts/mm2-2.example.com/host_components/" + C, None),
        ("PUT", c, {"Clusters": {"desired_config": expected_configs("DR replication dc1 -> dc2")}}),
        ("PUT", c + "/services/" + S, {"RequestInfo": {"context": "Install MirrorMaker 2", "operation_level": LEVEL},
                                       "Body": {"ServiceInfo": {"state": "INSTALLED"}}}),
        ("PUT", c + "/services/" + S, {"RequestInfo": {"context": "Start MirrorMaker 2", "operation_level": LEVEL},
                                       "Body": {"ServiceInfo": {"state": "STARTED"}}}),
        ("POST", c + "/requests", {"RequestInfo": {"context": "MirrorMaker 2 Service Check",
                                                   "command": names.SERVICE_CHECK_ROLE, "operation_level": LEVEL},
                                   "Requests/resource_filters": [{"service_name": S}]}),
    ]
    # Ambari's state after the deploy: everything started, one service config version with the note.
    assert sorted((hr["host_name"], hr["state"]) for hr in fake.hostroles()) == [(h, "STARTED") for h in HOSTS]
    assert [v["service_config_version_note"] for v in fake.service_config_versions] == ["DR replication dc1 -> dc2"]
    assert fake.desired_properties(names.TOPOLOGY)["content"] == topology_text()
    # The waits followed each request through Ambari's statuses.
    for status in ("PENDING", "IN_PROGRESS", "COMPLETED"):
        assert "install %s: %s" % (S, status) in result.err
        assert "start %s: %s" % (S, status) in result.err
    assert "done:" in result.out


def test_topology_content_keeps_the_file_line_numbers(cli, fake):
    assert deploy(cli, fake).code == 0
    content = fake.desired_properties(names.TOPOLOGY)["content"]
    with open(TOPOLOGY) as fh:
        original = fh.read().split("\n")
    for number, line in enumerate(content.rstrip("\n").split("\n")):
        assert line == original[number]


def test_rerun_with_the_same_file_sends_nothing(cli, fake):
    assert deploy(cli, fake).code == 0
    before = len(fake.mutating_calls())
    versions = len(fake.service_config_versions)
    again = deploy(cli, fake)
    assert again.code == 0, again
    assert fake.mutating_calls()[before:] == []
    assert len(fake.service_config_versions) == versions
    assert "nothing to change" in again.out
    assert "configurations: no change" in again.out


def test_dry_run_prints_the_plan_and_sends_nothing(cli, fake, monkeypatch, tmp_path):
    monkeypatch.setenv("TRUSTSTORE_PW", "s3cret-truststore")
    path = with_configurations(tmp_path, """
    kafka-mm2-clusters:
      source.ssl.truststore.password: {from_env: TRUSTSTORE_PW}
""")
    result = deploy(cli, fake, "--dry-run", path=path)
    assert result.code == 0, result
    assert fake.mutating_calls() == []
    assert fake.services == {}
    out = result.out
    assert "[dry-run] POST /api/v1/clusters/prod/services" in out
    assert "[dry-run] POST /api/v1/clusters/prod/hosts/mm2-2.example.com/host_components/%s" % C in out
    assert "[dry-run] PUT /api/v1/clusters/prod  # new config version" in out
    assert out.count("then wait for the request") == 3  # install, start, service check
    assert "s3cret-truststore" not in out + result.err
    assert '"source.ssl.truststore.password": "********"' in out
    assert "dry run: 8 call(s) planned, none sent" in out


def test_request_failed_midway_exits_1_naming_the_failed_task(cli, fake):
    fake.fail_next("START", host="mm2-2.example.com", stderr="Traceback (most recent call last):\n"
                                                            "resource_management.core.exceptions.Fail: "
                                                            "MirrorMaker 2 did not start within 120 seconds")
    result = deploy(cli, fake)
    assert result.code == 1, result
    assert "ended FAILED" in result.err
    assert "%s START on mm2-2.example.com: FAILED" % C in result.err
    assert "did not start within 120 seconds" in result.err
    assert "start %s: IN_PROGRESS" % S in result.err  # it failed midway, after progressing
    states = dict((hr["host_name"], hr["state"]) for hr in fake.hostroles())
    assert states == {"mm2-1.example.com": "STARTED", "mm2-2.example.com": "INSTALLED"}
    # A re-run after fixing the cause starts only what is not started.
    again = deploy(cli, fake)
    assert again.code == 0, again
    starts = [c for c in fake.mutating_calls() if c[0] == "PUT" and "STARTED" in str(c[2])]
    assert len(starts) == 2


def test_conflict_409_when_another_pipeline_created_the_service_meanwhile(cli, fake):
    def race(what):
        if what == ("service", S) and S not in fake.services:
            fake.services[S] = {"state": "INIT", "components": {}}
    fake.before_create.append(race)
    result = deploy(cli, fake)
    assert result.code == 0, result
    assert ("service %s already exists (Ambari: Attempted to create a service which already exists: , "
            "clusterName=prod serviceName=%s); continuing" % (S, S)) in result.err
    assert sorted((hr["host_name"], hr["state"]) for hr in fake.hostroles()) == [(h, "STARTED") for h in HOSTS]


def test_ambari_restart_while_polling_is_retried(cli, fake):
    fake.outage = {"after_polls": 1, "down": 0.4}
    result = deploy(cli, fake, "--retries", "30")
    assert result.code == 0, result
    assert "Connection refused" in result.err or "NewConnectionError" in result.err
    assert "retry 1/30" in result.err
    assert sorted((hr["host_name"], hr["state"]) for hr in fake.hostroles()) == [(h, "STARTED") for h in HOSTS]


def test_wrong_credentials_exit_1_with_ambaris_message(cli, fake, monkeypatch):
    monkeypatch.setenv("AMBARI_PASSWORD", "Wr0ng-Pa55")
    result = deploy(cli, fake)
    assert result.code == 1, result
    assert "403 Forbidden" in result.err
    assert "Unable to sign in. Invalid username/password combination." in result.err
    assert "Wr0ng-Pa55" not in result.out + result.err
    assert fake.mutating_calls() == []


def test_user_without_the_right_gets_ambaris_403(cli, fake, monkeypatch):
    monkeypatch.setenv("AMBARI_USER", "viewer")
    monkeypatch.setenv("AMBARI_PASSWORD", "viewer-secret")
    result = deploy(cli, fake)
    assert result.code == 1, result
    assert "You do not have permissions to access this resource." in result.err
    assert "POST /api/v1/clusters/prod/services" in result.err


def test_host_not_in_cluster_is_bad_input_naming_file_line(cli, fake):
    fake.hosts.remove("mm2-2.example.com")
    result = deploy(cli, fake)
    assert result.code == 2, result
    assert "deploy-test.yaml:18: deployment.hosts: mm2-2.example.com is not in cluster prod" in result.err
    assert fake.mutating_calls() == []


def test_unknown_cluster_is_bad_input(cli, fake):
    result = cli("deploy", TOPOLOGY, "--url", fake.url, "--cluster", "nope")
    assert result.code == 2, result
    assert "cluster 'nope' not found" in result.err


def test_mpack_not_installed_says_how_to_fix(cli, fake):
    fake.mpack_installed = False
    result = deploy(cli, fake)
    assert result.code == 1, result
    assert "stack BIGTOP 3.2.0 has no service %s: install the mpack" % S in result.err
    assert fake.mutating_calls() == []


def test_new_host_is_installed_without_stopping_the_running_ones(cli, fake, tmp_path):
    one_host = tmp_path / "one.yaml"
    one_host.write_text(open(TOPOLOGY).read().replace("hosts: [mm2-1.example.com, mm2-2.example.com]",
                                                      "hosts: [mm2-1.example.com]"))
    assert deploy(cli, fake, path=str(one_host)).code == 0
    before = len(fake.mutating_calls())
    result = deploy(cli, fake)
    assert result.code == 0, result
    c = "/api/v1/clusters/prod"
    assert normalize(fake.mutating_calls()[before:]) == [
        ("POST", c + "/hosts/mm2-2.example.com/host_components/" + C, None),
        ("PUT", c + "/host_components?HostRoles/service_name=%s&HostRoles/state.in(INIT,INSTALL_FAILED)" % S,
         {"RequestInfo": {"context": "Install MirrorMaker 2 on new hosts", "operation_level": LEVEL},
          "Body": {"HostRoles": {"state": "INSTALLED"}}}),
        ("PUT", c + "/services/" + S, {"RequestInfo": {"context": "Start MirrorMaker 2", "operation_level": LEVEL},
                                       "Body": {"ServiceInfo": {"state": "STARTED"}}}),
        ("POST", c + "/requests", {"RequestInfo": {"context": "MirrorMaker 2 Service Check",
                                                   "command": names.SERVICE_CHECK_ROLE, "operation_level": LEVEL},
                                   "Requests/resource_filters": [{"service_name": S}]}),
    ]
    assert sorted((hr["host_name"], hr["state"]) for hr in fake.hostroles()) == [(h, "STARTED") for h in HOSTS]


def test_invalid_yaml_is_bad_input_with_line(cli, fake, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("clusters:\n  dc1: {bootstrap.servers: a:9092\nflows: []\n")
    result = deploy(cli, fake, path=str(bad))
    assert result.code == 2, result
    assert "bad.yaml:2:8: not valid YAML: the [ or { opened here is not closed" in result.err


def test_the_validator_sees_this_clusters_kafka_brokers(cli, fake, monkeypatch):
    from mm2_core.rendering import render
    seen = []
    real = render.validate

    def spy(configurations, kafka_version, local_kafka=None):
        seen.append((kafka_version, local_kafka))
        return real(configurations, kafka_version, local_kafka)
    monkeypatch.setattr(render, "validate", spy)
    fake.add_kafka(["kafka-1.example.com", "mm2-1.example.com"],
                   {"listeners": "PLAINTEXT://localhost:6667", "port": "6667"})
    assert deploy(cli, fake).code == 0
    [(version, local)] = seen
    assert version == "3.7.1"
    assert local["broker_count"] == 2
    assert local["bootstrap.servers"] == "kafka-1.example.com:6667,mm2-1.example.com:6667"


def test_kafka_version_comes_from_the_stack_when_the_file_has_none(cli, fake, tmp_path):
    path = tmp_path / "noversion.yaml"
    path.write_text(open(TOPOLOGY).read().replace('  kafka_version: "3.7.1"\n', ""))
    fake.stack_kafka_version = "2.0.0.3.1"
    old = deploy(cli, fake, path=str(path))
    assert old.code == 2
    assert "has Kafka 2.0.0.3.1, which has no MirrorMaker 2 (2.4+ needed)" in old.err
    assert "set deployment.kafka_version" in old.err
    assert deploy(cli, fake, "--kafka-version", "3.7.1", "--dry-run", path=str(path)).code == 0
    fake.stack_kafka_version = "2.8.1-1"
    # Kafka 2.8 from the stack: two drivers serving one target lose reconfigurations (KAFKA-9981),
    # the advisor's placement check refuses it before any change.
    two = deploy(cli, fake, path=str(path))
    assert two.code == 2, two
    assert "validating for Kafka 2.8.1 (from the stack's KAFKA service version)" in two.err
    assert "Target dc2 is served by 2 driver hosts (mm2-1.example.com, mm2-2.example.com)" in two.err
    assert fake.mutating_calls() == []
    one = tmp_path / "one.yaml"
    one.write_text(path.read_text().replace("hosts: [mm2-1.example.com, mm2-2.example.com]",
                                            "hosts: [mm2-2.example.com]"))
    assert deploy(cli, fake, path=str(one)).code == 0


def test_several_repository_versions_need_the_id_ambari_asks_for(cli, fake, tmp_path):
    fake.repo_versions = [1, 2]
    result = deploy(cli, fake)
    assert result.code == 2, result
    assert ("ServiceInfo/desired_repository_version_id was not specified, and the cluster contains more "
            "than one standard-type repository") in result.err
    assert "set deployment.repository_version_id" in result.err
    path = tmp_path / "repo.yaml"
    path.write_text(open(TOPOLOGY).read().replace('  kafka_version: "3.7.1"\n',
                                                  '  kafka_version: "3.7.1"\n  repository_version_id: 2\n'))
    assert deploy(cli, fake, path=str(path)).code == 0
    assert [c for c in fake.mutating_calls() if c[1].endswith("/services") and c[0] == "POST"][-1][2] == [
        {"ServiceInfo": {"service_name": S, "desired_repository_version_id": 2}}]
