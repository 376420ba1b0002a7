"""Resources performed for real (outside test mode), as during an agent command."""
import os
import stat

import pytest

import harness
from resource_management.core.exceptions import Fail
from resource_management.core.resources.system import Directory, Execute, File, Link
from resource_management.core.source import InlineTemplate
from resource_management.libraries.resources.properties_file import PropertiesFile

from conftest import ambari_line, double_only

ME, MY_GROUP = harness.current_user(), harness.current_group()


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_directory_with_parents_mode_and_owner(live_env, tmpdir):
    path = str(tmpdir.join("a", "b", "c"))
    Directory(path, owner=ME, group=MY_GROUP, mode=0o750, create_parents=True)
    assert os.path.isdir(path) and _mode(path) == 0o750


def test_directory_without_create_parents_needs_the_parent(live_env, tmpdir):
    path = str(tmpdir.join("missing", "child"))
    with pytest.raises(Fail) as err:
        Directory(path)
    assert "parent directory %s doesn't exist" % os.path.dirname(path) in str(err.value)


def test_file_is_written_with_content_mode_and_owner(live_env, tmpdir):
    path = str(tmpdir.join("secret.properties"))
    File(path, content=InlineTemplate("pw={{ pw }}\n", pw="s3cret"), owner=ME, group=MY_GROUP, mode=0o600)
    assert open(path).read() == "pw=s3cret"
    assert _mode(path) == 0o600
    assert os.stat(path).st_uid == os.geteuid()


def test_file_content_is_replaced_and_replace_false_keeps_it(live_env, tmpdir):
    path = str(tmpdir.join("f"))
    File(path, content="one", owner=ME, group=MY_GROUP)
    File(path, content="two", owner=ME, group=MY_GROUP)
    assert open(path).read() == "two"
    File(path, content="three", owner=ME, group=MY_GROUP, replace=False)
    assert open(path).read() == "two"


def test_file_needs_its_directory(live_env, tmpdir):
    with pytest.raises(Fail) as err:
        File(str(tmpdir.join("no", "f")), content="x", owner=ME, group=MY_GROUP)
    assert "parent directory" in str(err.value)


def test_file_delete(live_env, tmpdir):
    path = tmpdir.join("gone")
    path.write("x")
    File(str(path), action="delete")
    assert not path.exists()


def test_unknown_user_fails(live_env, tmpdir):
    with pytest.raises(Fail) as err:
        Directory(str(tmpdir.join("d")), owner="no-such-user-mm2")
    assert "User 'no-such-user-mm2' doesn't exist" in str(err.value)


def test_file_without_owner_on_trunk_is_chowned_to_root(live_env, tmpdir):
    path = str(tmpdir.join("rootfile"))
    if ambari_line() == "3" and os.geteuid() != 0:
        with pytest.raises(Exception):
            File(path, content="x")  # trunk tries chown root:root
        return
    File(path, content="x")
    if ambari_line() == "3":
        assert os.stat(path).st_uid == 0
    else:
        assert os.stat(path).st_uid == os.geteuid()  # 2.7.8 leaves ownership alone


def test_symlink(live_env, tmpdir):
    target = tmpdir.join("t")
    target.write("x")
    link = str(tmpdir.join("l"))
    Link(link, to=str(target))
    assert os.readlink(link) == str(target)


def test_execute_runs_and_honours_not_if_only_if_creates(live_env, tmpdir):
    out = tmpdir.join("out")
    Execute("echo ran >> %s" % out)
    Execute("echo not_if >> %s" % out, not_if="true")
    Execute("echo only_if >> %s" % out, only_if="false")
    Execute("echo creates >> %s" % out, creates=str(out))
    Execute("echo callable >> %s" % out, not_if=lambda: False)
    assert out.read() == "ran\ncallable\n"


def test_execute_tuple_condition_is_an_error(live_env, tmpdir):
    # not_if/only_if take a string, a callable or a bool; a tuple fails (with a TypeError from
    # Ambari's own error formatting) before the command runs.
    out = tmpdir.join("ran")
    with pytest.raises(Exception):
        Execute("touch %s" % out, not_if=("test", "-f", "/x"))
    assert not out.exists()


def test_execute_failure_and_ignore_failures(live_env, log_lines):
    with pytest.raises(Fail) as err:
        Execute("exit 5")
    assert "returned 5" in str(err.value)
    Execute("exit 6", ignore_failures=True)
    assert any("Skipping failure of Execute['exit 6'] due to ignore_failures" in line for line in log_lines)


def test_execute_environment_and_user(live_env, tmpdir, monkeypatch):
    out = tmpdir.join("env")
    Execute("echo \"$FOO $HOME_SET\" > %s" % out, environment={"FOO": "bar", "HOME_SET": "x"}, user=ME)
    assert out.read() == "bar x\n"


def test_execute_wait_for_finish_false_returns_at_once(live_env, tmpdir):
    pid_file = tmpdir.join("pid")
    Execute("sleep 30 & echo $! > %s; wait" % pid_file, wait_for_finish=False)
    import time
    deadline = time.time() + 10
    while not (pid_file.exists() and pid_file.read().strip()) and time.time() < deadline:
        time.sleep(0.05)
    pid = int(pid_file.read())
    try:
        os.kill(pid, 0)  # still running: Execute did not wait
    finally:
        os.kill(pid, 15)


def test_properties_file_writes_sorted_values_rendered_as_templates(live_env, tmpdir):
    live_env.set_params({"port": 9092})
    PropertiesFile("p.properties", dir=str(tmpdir), owner=ME, group=MY_GROUP, mode=0o644,
                   properties={"b": "{{ port }}", "A": "1", "c": "x=y"})
    lines = open(str(tmpdir.join("p.properties"))).read().split("\n")
    assert lines[0].startswith("# Generated by Apache Ambari. ")
    assert lines[1:] == ["    ", "A=1", "b=9092", "c=x=y", "    "]


@double_only
def test_double_refuses_chown_to_another_user_when_not_root(live_env, tmpdir):
    if os.geteuid() == 0:
        pytest.skip("root can chown")
    with pytest.raises(Fail) as err:
        Directory(str(tmpdir.join("d")), owner="root")
    assert "chown" in str(err.value)
