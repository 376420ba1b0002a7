"""Record mode on the probe service (the RMFTestCase way)."""
import pytest

import harness
from resource_management.core.exceptions import Fail

from probe_fixture import PROBE_SCRIPT, probe_command


def _configure(**kwargs):
    return harness.run_recorded(PROBE_SCRIPT, "ProbeServer", "configure", probe_command("CONFIGURE", **kwargs))


def test_configure_declares_resources_in_order():
    run = _configure()
    for path in ("/etc/probe/conf", "/var/run/probe", "/var/log/probe"):
        run.assert_resource_called("Directory", path, owner="probe", group="hadoop", mode=0o755,
                                   create_parents=True)
    run.assert_resource_called("File", "/etc/probe/conf/probe.conf", content=run.Template("probe.conf.j2"),
                               owner="probe", group="hadoop", mode=0o644)
    run.assert_resource_called("File", "/etc/probe/conf/secret.properties",
                               content=run.InlineTemplate("password=s3cret-pw\n"),
                               owner="probe", group="hadoop", mode=0o600)
    run.assert_resource_called("File", "/etc/probe/conf/static.txt", content=run.StaticFile("static.txt"),
                               owner="probe", group="hadoop", mode=0o644)
    run.assert_resource_called("PropertiesFile", "public.properties", dir="/etc/probe/conf",
                               properties={"greeting": "hello", "host": "h1"},
                               owner="probe", group="hadoop", mode=0o644)
    run.assert_no_more_resources()


def test_template_content_can_be_checked_against_the_real_text():
    run = _configure(probe_enabled="false")
    probe_conf = run.find("File", "/etc/probe/conf/probe.conf")[0]
    assert probe_conf.arguments["content"].get_content() == "# probe configuration\nhost=h1\ngreeting=hello"


def test_params_are_reloaded_for_every_run():
    assert _configure(password="one").find("File", "/etc/probe/conf/secret.properties")[0] \
        .arguments["content"].get_content() == "password=one"
    assert _configure(password="two").find("File", "/etc/probe/conf/secret.properties")[0] \
        .arguments["content"].get_content() == "password=two"


def test_mismatch_is_reported():
    run = _configure()
    with pytest.raises(AssertionError):
        run.assert_resource_called("Directory", "/etc/probe/conf", owner="probe")
    with pytest.raises(AssertionError):
        run.assert_no_more_resources()


def test_custom_command_and_structured_output():
    run = harness.run_recorded(PROBE_SCRIPT, "ProbeServer", "PROBE_SECRET", probe_command("PROBE_SECRET"))
    run.assert_resource_called("Execute", "echo connecting with --password s3cret-pw > /dev/null")
    run.assert_no_more_resources()
    assert "done with [PROTECTED]" in run.log


def test_exceptions_propagate():
    with pytest.raises(Fail) as err:
        harness.run_recorded(PROBE_SCRIPT, "ProbeServer", "probe_fail", probe_command("PROBE_FAIL"))
    assert "probe failure requested" in str(err.value)


def test_print_resources_gives_assertions(capsys):
    text = _configure().print_resources()
    assert "run.assert_resource_called('Directory', '/etc/probe/conf'," in text
    assert "mode=0o755," in text
    assert text.endswith("run.assert_no_more_resources()")


def test_install_packages_records_one_package_per_entry():
    cmd = harness.command_json(role="PROBE_SERVER", command="INSTALL", service_name="PROBE",
                               package_list=["kafka", "jmx-exporter"])
    cmd["configurations"].update(probe_command()["configurations"])
    run = harness.run_recorded(PROBE_SCRIPT, "ProbeServer", "install", cmd, try_install=True)
    run.assert_resource_called("Package", "kafka", retry_on_repo_unavailability=False, retry_count=5)
    run.assert_resource_called("Package", "jmx-exporter", retry_on_repo_unavailability=False, retry_count=5)
    run.assert_no_more_resources()
