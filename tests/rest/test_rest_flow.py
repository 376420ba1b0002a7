"""`mm2-ambari flow pause|resume|stop --flow A->B` against the fake Ambari: the FLOW_* custom command on every
driver host with the flow as its parameter; a flow no host serves and a malformed --flow are clear errors."""
from rest_fake_ambari import C, S
from rest_helpers import CL, HOSTS, normalize

from mm2_core.config import names


DC1_DC2 = {names.CLUSTERS: {"source.alias": "dc1", "target.alias": "dc2"}}


def run(cli, fake, *argv):
    return cli(*argv, "--url", fake.url, "--cluster", "prod")


def test_pause_runs_the_flow_command_on_every_driver_host(cli, fake):
    fake.install_started_service(HOSTS, DC1_DC2)
    fake.custom_output[names.CMD_FLOW_PAUSE] = {"structured_out": {"flow": "dc1->dc2", "action": "pause",
                                                                   "state": "PAUSED", "served": True}}
    result = run(cli, fake, "flow", "pause", "--flow", "dc1 -> dc2")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [("POST", CL + "/requests", {
        "RequestInfo": {"context": "MirrorMaker 2 pause dc1->dc2", "command": names.CMD_FLOW_PAUSE,
                        "parameters": {"flow": "dc1->dc2"}},
        "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(HOSTS)}]})]
    assert '"state": "PAUSED"' in result.out


def test_a_flow_no_host_serves_is_an_error_naming_it(cli, fake):
    fake.install_started_service(HOSTS, DC1_DC2)
    fake.custom_output[names.CMD_FLOW_RESUME] = {"structured_out": {"flow": "dc1->dc2", "served": False,
                                                                    "target_here": "dc1"}}
    result = run(cli, fake, "flow", "resume", "--flow", "dc1->dc2")
    assert result.code == 1
    assert "flow dc1->dc2 runs on no driver host" in result.err and "serves dc1" in result.err


def test_malformed_flow_and_action_are_bad_input(cli, fake):
    fake.install_started_service(HOSTS, DC1_DC2)
    result = run(cli, fake, "flow", "stop", "--flow", "dc1")
    assert result.code == 2 and "--flow must name one flow as SOURCE->TARGET" in result.err
    assert fake.mutating_calls() == []
    result = run(cli, fake, "flow", "drop", "--flow", "dc1->dc2")
    assert result.code == 2 and "invalid choice" in result.err


def test_seed_sends_flow_seed_with_its_position_to_every_driver_host(cli, fake):
    fake.install_started_service(HOSTS, DC1_DC2)
    fake.custom_output[names.CMD_FLOW_SEED] = {"structured_out": {"flow_seed": {
        "flow": "dc1->dc2", "positions": {"orders-0": 0}, "written": 1, "method": "offsets API",
        "source_connector_state": "RUNNING", "served": True}}}
    result = run(cli, fake, "flow", "seed", "--flow", "dc1->dc2", "--offsets", "orders-0=0, orders-1=0")
    assert result.code == 0, result
    assert normalize(fake.mutating_calls()) == [("POST", CL + "/requests", {
        "RequestInfo": {"context": "MirrorMaker 2 seed dc1->dc2", "command": names.CMD_FLOW_SEED,
                        "parameters": {"flow": "dc1->dc2", "offsets": "orders-0=0,orders-1=0"}},
        "Requests/resource_filters": [{"service_name": S, "component_name": C, "hosts": ",".join(HOSTS)}]})]
    assert "offsets API" in result.out


def test_seed_needs_exactly_one_position_and_no_host_serving_it_is_an_error(cli, fake):
    fake.install_started_service(HOSTS, DC1_DC2)
    for extra in ([], ["--at", "end", "--offsets", "orders-0=1"]):
        result = run(cli, fake, "flow", "seed", "--flow", "dc1->dc2", *extra)
        assert result.code == 2 and "flow seed needs one of --at end" in result.err
    result = run(cli, fake, "flow", "pause", "--flow", "dc1->dc2", "--at", "end")
    assert result.code == 2 and "--at and --offsets belong to flow seed, not flow pause" in result.err
    assert fake.mutating_calls() == []
    fake.custom_output[names.CMD_FLOW_SEED] = {"structured_out": {"flow_seed": {"flow": "dc1->dc2", "served": False,
                                                                                "target_here": "dc1"}}}
    result = run(cli, fake, "flow", "seed", "--flow", "dc1->dc2", "--at", "end")
    assert result.code == 1 and "flow dc1->dc2 runs on no driver host" in result.err


def test_a_flow_the_service_does_not_have_is_refused_before_anything_is_sent(cli, fake):
    fake.install_started_service(HOSTS, DC1_DC2)
    for argv in (["flow", "pause"], ["flow", "seed", "--at", "end"]):
        result = run(cli, fake, *argv, "--flow", "dc1->dc9")
        assert result.code == 2, result
        assert ("--flow 'dc1->dc9': service KAFKA_MIRRORMAKER2 of cluster prod has no such flow; its flows: "
                "'dc1->dc2'. Give one of them, quoted") in result.err
    assert fake.mutating_calls() == []
