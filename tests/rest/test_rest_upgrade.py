"""mm2-ambari upgrade: a cluster made with the previous release is brought to this one.

The cluster starts as the previous release left it (no kafka-mm2-env/mpack_version, a property this
release added missing, the previous alert definitions as ambari-server's start created them), with
values the operator changed. After upgrade: the new properties are there with their defaults, nothing
the operator set is touched, changed alert definitions carry the release's source with the operator's
thresholds, and the drivers are flagged Restart Required.
"""
import copy
import importlib.util
import json
import os
import shutil
import sys

import pytest

from rest_fake_ambari import REPO
from rest_helpers import CL, FAST, HOSTS

from mm2_core.config import names

ENV, REPL = names.ENV, names.REPLICATION
SERVICE_DIR = os.path.join("common-services", names.SERVICE, names.SERVICE_VERSION)


def _build_module():
    name = "mm2_mpack_build"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "build.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    """This checkout's mpack as install-mpack unpacks it (mpack.json, alerts.json, configuration/*.xml)."""
    return _build_module().assemble(str(tmp_path_factory.mktemp("mpack")), REPO)


@pytest.fixture
def release(release_dir, tmp_path):
    """A writable copy of the release directory (tests change its alerts or configuration)."""
    target = str(tmp_path / os.path.basename(release_dir))
    shutil.copytree(release_dir, target)
    return target


def _alerts(release):
    with open(os.path.join(release, SERVICE_DIR, "alerts.json")) as fh:
        return json.load(fh)


def _definitions(alerts):
    return dict((d["name"], d) for defs in alerts[names.SERVICE].values() for d in defs)


def _version(release):
    with open(os.path.join(release, "mpack.json")) as fh:
        return json.load(fh)["version"]


def _previous_alerts(release):
    """The alert definitions of an 'older release': the lag alert had an older description, no
    metrics.cache.seconds parameter and a smaller default warning threshold."""
    alerts = copy.deepcopy(_alerts(release))
    lag = _definitions(alerts)["mm2_replication_lag"]
    lag["description"] = "older description"
    lag["source"]["parameters"] = [p for p in lag["source"]["parameters"] if p["name"] != "metrics.cache.seconds"]
    for p in lag["source"]["parameters"]:
        if p["name"] == "lag.critical":
            p["value"] = 50000.0  # an older default, never touched by the operator
    return alerts


def _old_cluster(fake, release):
    """The cluster as the previous release left it, with the operator's own values."""
    fake.install_started_service(HOSTS, {REPL: {"tasks.max": "12"},
                                         ENV: {"mm2_metrics_ssl_keystore_password": "ks-secret-1"}})
    tag = fake.desired[ENV]
    props = fake.configs[ENV][tag]["properties"]
    del props["mpack_version"]
    del props["mm2_metrics_ssl_certificate_alias"]
    fake.load_alert_definitions(_previous_alerts(release))
    lag = next(d for d in fake.alert_definitions.values() if d["name"] == "mm2_replication_lag")
    for p in lag["source"]["parameters"]:
        if p["name"] == "lag.warning":
            p["value"] = 25000.0  # the operator's threshold (the web UI edits the parameter value)
    lag["interval"] = 5  # the operator's check interval
    return lag["id"]


def _upgrade(cli, fake, release, *extra):
    return cli("upgrade", "--url", fake.url, "--cluster", "prod", "--mpack", release, *extra)


def test_upgrade_adds_new_properties_keeps_operator_values_and_flags_restart(cli, fake, release):
    lag_id = _old_cluster(fake, release)
    version = _version(release)
    result = _upgrade(cli, fake, release)
    assert result.code == 0, result
    env = fake.desired_properties(ENV)
    assert env["mpack_version"] == version
    assert env["mm2_metrics_ssl_certificate_alias"] == ""  # new in this release: its default
    assert env["mm2_metrics_ssl_keystore_password"] == "ks-secret-1"  # the stored password, untouched
    assert fake.desired_properties(REPL)["tasks.max"] == "12"
    # one service config version, with a note naming the release
    puts = [c for c in fake.mutating_calls() if c[0] == "PUT" and c[1] == CL]
    assert len(puts) == 1
    assert [d["type"] for d in puts[0][2]["Clusters"]["desired_config"]] == [ENV]
    assert puts[0][2]["Clusters"]["desired_config"][0]["service_config_version_note"] == \
        "mm2-ambari upgrade to mpack %s" % version
    # Restart Required on every started driver (Ambari's rule: a dependency type changed)
    assert [hr["stale_configs"] for hr in fake.hostroles()] == [True, True]
    assert "Restart Required: MIRRORMAKER2_DRIVER on %s" % ", ".join(HOSTS) in result.out
    assert "mm2-ambari restart --stale-only" in result.out

    lag = fake.alert_definitions[lag_id]
    release_lag = _definitions(_alerts(release))["mm2_replication_lag"]
    # stored as Ambari stores a PUT's parameters: as text (see rest_fake_ambari._source_as_stored)
    values = dict((p["name"], p["value"]) for p in lag["source"]["parameters"])
    assert values["lag.warning"] == "25000.0"  # the operator's threshold stays
    assert values["lag.critical"] == "50000.0"  # the cluster's value stays (no way to tell it from an operator's)
    assert "metrics.cache.seconds" in values  # the new parameter arrives
    assert [p["name"] for p in lag["source"]["parameters"]] == [p["name"] for p in release_lag["source"]["parameters"]]
    assert lag["source"]["path"] == release_lag["source"]["path"] and lag["source"]["type"] == "SCRIPT"
    assert lag["description"] == release_lag["description"]
    assert lag["interval"] == 5 and lag["enabled"] is True
    assert "= parameter lag.warning: kept 25000.0" in result.out
    # only the changed definition was sent
    alert_puts = [c for c in fake.mutating_calls() if "/alert_definitions/" in c[1]]
    assert [c[1] for c in alert_puts] == [CL + "/alert_definitions/%d" % lag_id]
    assert "ks-secret-1" not in result.out + result.err


def test_a_second_run_changes_nothing(cli, fake, release):
    _old_cluster(fake, release)
    assert _upgrade(cli, fake, release).code == 0
    before = len(fake.mutating_calls())
    for hr in fake.hostroles():
        hr["stale_configs"] = False  # the operator restarted
    again = _upgrade(cli, fake, release)
    assert again.code == 0, again
    assert len(fake.mutating_calls()) == before
    assert "nothing to change: cluster prod is at mpack %s already" % _version(release) in again.out
    assert [hr["stale_configs"] for hr in fake.hostroles()] == [False, False]


def test_dry_run_shows_the_diff_and_sends_nothing(cli, fake, release):
    _old_cluster(fake, release)
    result = _upgrade(cli, fake, release, "--dry-run")
    assert result.code == 0, result
    assert fake.mutating_calls() == []
    assert "%s: changes" % ENV in result.out
    assert "+ mpack_version = '%s'" % _version(release) in result.out
    assert "+ mm2_metrics_ssl_certificate_alias = ''" in result.out
    assert "alert definition mm2_replication_lag: changes" in result.out
    assert "+ parameter metrics.cache.seconds" in result.out
    assert "[dry-run] PUT /api/v1/clusters/prod/alert_definitions/" in result.out
    assert "then Ambari flags MIRRORMAKER2_DRIVER Restart Required" in result.out
    assert "ks-secret-1" not in result.out + result.err


def test_an_interrupted_upgrade_is_finished_by_running_it_again(cli, fake, release):
    lag_id = _old_cluster(fake, release)
    fake.injected.append(("PUT", "/clusters/prod/alert_definitions/", 500,
                          "An internal system exception occurred: database unavailable"))
    failed = _upgrade(cli, fake, release)
    assert failed.code == 1 and "database unavailable" in failed.err
    assert fake.desired_properties(ENV)["mpack_version"] == _version(release)
    versions = len(fake.service_config_versions)
    done = _upgrade(cli, fake, release)
    assert done.code == 0, done
    assert len(fake.service_config_versions) == versions  # no second config version
    assert "metrics.cache.seconds" in [p["name"] for p in fake.alert_definitions[lag_id]["source"]["parameters"]]


def test_take_default_replaces_a_kept_template(cli, fake, release):
    _old_cluster(fake, release)
    tag = fake.desired[ENV]
    fake.configs[ENV][tag]["properties"]["content"] = "# an older mm2-env.sh template\n"
    kept = _upgrade(cli, fake, release, "--dry-run")
    assert "note: %s/content differs from mpack %s's default template: kept" % (ENV, _version(release)) in kept.out
    taken = _upgrade(cli, fake, release, "--take-default", "%s/content" % ENV)
    assert taken.code == 0, taken
    assert fake.desired_properties(ENV)["content"] != "# an older mm2-env.sh template\n"
    assert fake.desired_properties(REPL)["tasks.max"] == "12"


def test_a_server_still_serving_the_older_definition_is_refused(cli, fake, release):
    _old_cluster(fake, release)
    xml = os.path.join(release, SERVICE_DIR, "configuration", ENV + ".xml")
    with open(xml) as fh:
        text = fh.read()
    with open(xml, "w") as fh:
        fh.write(text.replace("</configuration>", "<property><name>brand_new</name><value>1</value>"
                                                  "<on-ambari-upgrade add=\"false\"/></property></configuration>"))
    result = _upgrade(cli, fake, release)
    assert result.code == 1
    assert "Ambari serves an older KAFKA_MIRRORMAKER2 definition than mpack %s" % _version(release) in result.err
    assert "lacks kafka-mm2-env/brand_new" in result.err and "ambari-server restart" in result.err
    assert fake.mutating_calls() == []


def test_a_definition_ambari_has_not_created_yet_is_reported(cli, fake, release):
    _old_cluster(fake, release)
    for did in [k for k, d in fake.alert_definitions.items() if d["name"] == "mm2_checkpoint_age"]:
        del fake.alert_definitions[did]
    result = _upgrade(cli, fake, release)
    assert result.code == 1
    assert "Ambari has no alert definition mm2_checkpoint_age of mpack %s" % _version(release) in result.err
    assert "restart it after upgrade-mpack" in result.err


@pytest.mark.parametrize("args,message", [
    (["--mpack", "/nonexistent/kafka-mirrormaker2-mpack-9.9.9.9.tar.gz"],
     "--mpack /nonexistent/kafka-mirrormaker2-mpack-9.9.9.9.tar.gz: no such file or directory"),
    (["--take-default", "kafka-mm2-env/no_such_property"],
     "--take-default kafka-mm2-env/no_such_property: the release has no default for it"),
    (["--take-default", "kafka-broker/listeners"], "kafka-broker is not a config type of KAFKA_MIRRORMAKER2"),
    (["--take-default", "kafka-mm2-env/mm2_metrics_ssl_keystore_password"], "a password has no default to take"),
])
def test_bad_input_is_named(cli, fake, release, args, message):
    _old_cluster(fake, release)
    argv = ["upgrade", "--url", fake.url, "--cluster", "prod"]
    if "--mpack" not in args:
        argv += ["--mpack", release]
    result = cli(*(argv + args))
    assert result.code == 2, result
    assert message in result.err
    assert fake.mutating_calls() == []


def test_a_cluster_reconciled_for_a_newer_release_is_not_downgraded(cli, fake, release):
    _old_cluster(fake, release)
    fake.configs[ENV][fake.desired[ENV]]["properties"]["mpack_version"] = "99.0.0.0"
    result = _upgrade(cli, fake, release)
    assert result.code == 2
    assert "settings were reconciled for mpack 99.0.0.0, newer than %s" % _version(release) in result.err
    assert fake.mutating_calls() == []


def test_a_tarball_works_like_the_directory(cli, fake, release_dir, tmp_path):
    import tarfile
    tarball = str(tmp_path / (os.path.basename(release_dir) + ".tar.gz"))
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(release_dir, arcname=os.path.basename(release_dir))
    _old_cluster(fake, release_dir)
    result = _upgrade(cli, fake, tarball, "--dry-run")
    assert result.code == 0, result
    assert "+ mpack_version = '%s'" % _version(release_dir) in result.out
    not_an_mpack = str(tmp_path / "x.tar.gz")
    with open(not_an_mpack, "wb") as fh:
        fh.write(b"not a tarball")
    bad = cli("upgrade", "--url", fake.url, "--cluster", "prod", "--mpack", not_an_mpack, *FAST)
    assert bad.code == 2 and "not an mpack tarball or directory" in bad.err


def _write_history(release, releases):
    import hashlib
    path = os.path.join(release, "release-history.json")
    with open(path) as fh:
        history = json.load(fh)
    history["releases"] = releases
    with open(path, "w") as fh:
        json.dump(history, fh)
    return lambda value: hashlib.sha256(value.strip().encode("utf-8")).hexdigest()


def test_the_tarball_carries_the_release_history(release_dir):
    with open(os.path.join(release_dir, "release-history.json")) as fh:
        history = json.load(fh)
    assert "1.0.0.0" in history["releases"]
    assert history["releases"]["1.0.0.0"]["alert_values"]["mm2_replication_lag"]["parameters"]["lag.warning"] == 10000.0


def test_an_earlier_releases_default_gives_way_to_the_new_one(cli, fake, release):
    lag_id = _old_cluster(fake, release)
    digest = _write_history(release, {})
    _write_history(release, {"1.0.0.0": {
        "defaults_sha256": {ENV: {"mm2_heap_opts": digest("-Xms512m -Xmx1g")},
                            REPL: {"tasks.max": digest("2")}},
        "alert_values": {"mm2_replication_lag": {"parameters": {"lag.critical": 50000.0, "lag.warning": 10000.0}}}}})
    props = fake.configs[ENV][fake.desired[ENV]]["properties"]
    props["mm2_heap_opts"] = "-Xms512m -Xmx1g"  # 1.0.0.0's default, never changed
    result = _upgrade(cli, fake, release)
    assert result.code == 0, result
    assert "note: %s/mm2_heap_opts has an earlier release's default (mpack 1.0.0.0)" % ENV in result.out
    assert fake.desired_properties(ENV)["mm2_heap_opts"] == "-Xms1g -Xmx2g"  # this release's default
    assert fake.desired_properties(REPL)["tasks.max"] == "12"  # the operator's, not 1.0.0.0's default "2"
    assert fake.desired_properties(ENV)["mm2_metrics_ssl_keystore_password"] == "ks-secret-1"
    values = dict((p["name"], p["value"]) for p in fake.alert_definitions[lag_id]["source"]["parameters"])
    assert values["lag.critical"] == "100000.0"  # was 1.0.0.0's default: takes this release's
    assert values["lag.warning"] == "25000.0"  # the operator's
    assert "~ parameter lag.critical: 50000.0 -> 100000.0 (an earlier release's default: this release's)" in result.out


def test_only_the_recorded_releases_defaults_count(cli, fake, release):
    _old_cluster(fake, release)
    digest = _write_history(release, {})
    _write_history(release, {
        "0.9.0.0": {"defaults_sha256": {ENV: {"mm2_heap_opts": digest("-Xmx512m")}}, "alert_values": {}},
        "1.0.0.0": {"defaults_sha256": {ENV: {"mm2_heap_opts": digest("-Xms512m -Xmx1g")}}, "alert_values": {}}})
    props = fake.configs[ENV][fake.desired[ENV]]["properties"]
    props["mm2_heap_opts"] = "-Xmx512m"  # 0.9.0.0's default, but the cluster was reconciled for 1.0.0.0:
    props["mpack_version"] = "1.0.0.0"   # so the operator chose it
    result = _upgrade(cli, fake, release)
    assert result.code == 0, result
    assert fake.desired_properties(ENV)["mm2_heap_opts"] == "-Xmx512m"


def test_a_wrong_mpack_is_bad_input_before_any_connection(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("AMBARI_USER")
    monkeypatch.delenv("AMBARI_PASSWORD")
    result = cli("upgrade", "--url", "http://127.0.0.1:9", "--cluster", "prod", "--mpack", str(tmp_path / "none.tar.gz"))
    assert result.code == 2
    assert "no such file or directory (the tarball given to ambari-server upgrade-mpack" in result.err
    assert "credentials" not in result.err


def test_a_directory_without_mpack_json_says_so(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("AMBARI_PASSWORD")
    (tmp_path / "some-dir").mkdir()
    result = cli("upgrade", "--url", "http://127.0.0.1:9", "--cluster", "prod", "--mpack", str(tmp_path / "some-dir"))
    assert result.code == 2, result
    assert "--mpack %s: no mpack.json in it, so it is not an mpack" % (tmp_path / "some-dir") in result.err
