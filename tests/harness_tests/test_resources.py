"""Resource declaration semantics: argument names, validation, defaults, list names."""
import pytest

from resource_management.core.exceptions import Fail, InvalidArgument
from resource_management.core.resources.system import Directory, Execute, File, Link
from resource_management.core.resources.packaging import Package
from resource_management.libraries.resources.properties_file import PropertiesFile


@pytest.mark.parametrize("factory, name, bad", [
    (File, "/etc/x.conf", "permissions"),
    (Directory, "/etc/x", "recursive"),
    (Execute, "true", "usr"),
    (Link, "/etc/x", "target"),
    (PropertiesFile, "x.properties", "delimiter"),
    (Package, "kafka", "retries"),
])
def test_unknown_argument_is_rejected_with_ambaris_message(test_env, factory, name, bad):
    with pytest.raises(Fail) as err:
        factory(name, **{bad: "x"})
    assert str(err.value) == "%s['%s'] received unsupported argument %s" % (factory.__name__, name, bad)


def test_env_is_not_an_execute_argument_but_the_environment(test_env):
    # shell.call takes env=, Execute takes environment=; env= on a resource is taken as the
    # Environment object itself and blows up (in Ambari too).
    with pytest.raises(AttributeError):
        Execute("true", env={"A": "1"})


def test_boolean_arguments_accept_only_booleans(test_env):
    with pytest.raises(InvalidArgument) as err:
        Directory("/d", create_parents="yes")
    assert "Expected a boolean for create_parents received 'yes'" in str(err.value)
    Directory("/d2", create_parents=True)


def test_required_argument_is_checked_only_when_passed(test_env):
    # Link's 'to' is required, but Ambari only checks a value that is passed (as None).
    Link("/l1")
    with pytest.raises(InvalidArgument) as err:
        Link("/l2", to=None)
    assert "Required argument to missing" in str(err.value)


def test_only_explicit_arguments_are_recorded_and_defaults_apply(test_env):
    e = Execute("echo hi")
    assert e.arguments == {}
    assert (e.command, e.tries, e.try_sleep, e.returns, e.environment, e.user, e.wait_for_finish,
            e.logoutput, e.timeout, e.path) == ("echo hi", 1, 0, [0], {}, None, True, None, None, [])
    f = File("/etc/a", action="delete")
    assert f.arguments == {"action": ["delete"]}
    assert (f.path, f.replace, f.owner, f.mode) == ("/etc/a", True, None, None)
    d = Directory("/var/d")
    assert (d.create_parents, d.recursive_ownership, d.follow, d.action) == (False, False, True, ["create"])


def test_returns_and_action_are_forced_to_lists(test_env):
    e = Execute("x", returns=3, action="nothing")
    assert e.returns == [3]
    assert e.action == ["nothing"]


def test_list_name_declares_one_resource_per_item_in_order(test_env):
    Directory(["/a", "/b", "/c"], mode=0o750)
    assert [(r.name, r.arguments) for r in test_env.resource_list] == [
        ("/a", {"mode": 0o750}), ("/b", {"mode": 0o750}), ("/c", {"mode": 0o750})]


def test_resources_are_recorded_not_performed_in_test_mode(test_env, tmpdir):
    target = tmpdir.join("never")
    File(str(target), content="x")
    Execute("touch " + str(target))
    assert not target.exists()
    assert [str(r) for r in test_env.resource_list] == ["File['%s']" % target, "Execute['touch %s']" % target]


def test_package_defaults(test_env):
    p = Package("kafka_3_1")
    assert (p.package_name, p.location, p.action, p.retry_count, p.retry_on_repo_unavailability) == \
        ("kafka_3_1", "kafka_3_1", ["install"], 4, False)
