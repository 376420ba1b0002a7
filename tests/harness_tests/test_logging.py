"""How Ambari logs resources: what leaks and what does not."""
from resource_management.core.logger import Logger
from resource_management.core.resources.system import Execute, File
from resource_management.core.source import InlineTemplate
from resource_management.libraries.resources.properties_file import PropertiesFile


def test_properties_file_with_five_or_fewer_entries_logs_values_in_clear(test_env, log_lines):
    Logger.info_resource(PropertiesFile("mm2.properties", dir="/etc/mm2",
                                        properties={"ssl.keystore.password": "s3cret", "a": "1"}))
    assert "s3cret" in log_lines[0]


def test_dicts_with_more_than_five_entries_are_elided(test_env, log_lines):
    props = dict(("k%d" % i, "s3cret") for i in range(6))
    Logger.info_resource(PropertiesFile("p", properties=props))
    assert "s3cret" not in log_lines[0]
    assert "'properties': ..." in log_lines[0]


def test_long_strings_are_elided_and_content_sources_hidden(test_env, log_lines):
    Logger.info_resource(File("/etc/a", content="x" * 513))
    Logger.info_resource(File("/etc/b", content=InlineTemplate("pw={{ p }}", p="s3cret")))
    Logger.info_resource(File("/etc/c", content="short-secret"))
    assert log_lines[0] == "File['/etc/a'] {'content': ...}"
    assert log_lines[1] == "File['/etc/b'] {'content': InlineTemplate(...)}"
    assert "short-secret" in log_lines[2]  # a plain short string content IS logged


def test_mode_is_shown_in_octal_and_functions_by_name(test_env, log_lines):
    def is_running():
        return False
    Logger.info_resource(File("/etc/a", mode=0o640))
    Logger.info_resource(Execute("x", not_if=is_running))
    assert log_lines[0] in ("File['/etc/a'] {'mode': 0o640}", "File['/etc/a'] {'mode': 0640}")
    assert log_lines[1] == "Execute['x'] {'not_if': is_running}"
