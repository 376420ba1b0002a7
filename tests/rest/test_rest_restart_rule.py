"""Which config saves flag the drivers "Restart Required" (Ambari's per-type rule, as the fake follows it
from the service's own metainfo.xml)."""
import requests

from rest_fake_ambari import service_config_dependencies
from rest_helpers import ADMIN, HOSTS

from mm2_core.config import names


def _save(fake, config_type, properties, tag):
    resp = requests.put(fake.url + "/api/v1/clusters/prod", auth=ADMIN, headers={"X-Requested-By": "test"},
                        json={"Clusters": {"desired_config": [{"type": config_type, "tag": tag,
                                                                "properties": properties}]}})
    assert resp.status_code == 200, resp.text


def test_service_auto_start_does_not_flag_the_drivers(fake):
    """ambari-web's Service Auto Start page saves cluster-env (recovery_enabled): not a driver restart."""
    fake.install_started_service(HOSTS)
    _save(fake, "cluster-env", {"recovery_enabled": "false", "security_enabled": "false"}, "v1")
    _save(fake, "cluster-env", {"recovery_enabled": "true", "security_enabled": "false"}, "v2")
    assert [hr["stale_configs"] for hr in fake.hostroles()] == [False, False]


def test_a_save_of_a_restart_type_flags_every_started_driver(fake):
    fake.install_started_service(HOSTS)
    _save(fake, "kafka-broker", {"listeners": "PLAINTEXT://localhost:6667", "log.retention.hours": "24"}, "v2")
    # the per-type rule: an unrelated broker key flags the drivers too (documented, unavoidable)
    assert [hr["stale_configs"] for hr in fake.hostroles()] == [True, True]


def test_the_restart_types_are_the_ones_the_scripts_need():
    assert service_config_dependencies() == set(names.RESTART_CONFIG_TYPES)
    assert "cluster-env" not in service_config_dependencies()
    assert "cluster-env" in names.FOREIGN_CONFIG_TYPES  # still read: every command carries it
