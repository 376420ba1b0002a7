"""A custom command refused in the current run mode, or for want of the input only REST and mm2-ambari can give,
ends red with one clear line and no traceback (issue 38: the Actions menu): Ambari's Script.fail_with_error,
"Error: <why and the way out>" on stdout and stderr, exit 1, on both Python lines."""
import pytest

from mm2_core.config import names

from driver_fixture import Driver
from agent_support import failed


@pytest.mark.parametrize("command,params,line", [
    (names.CMD_FLOW_PAUSE, {"flow": "A->B"},
     "Error: Per-flow pause needs connect mode (kafka-mm2-env/mm2_run_mode=connect): in dedicated mode every flow "
     "runs in one connect-mirror-maker.sh process and only stops with it"),
    (names.CMD_FLOW_STOP, {"flow": "A->B"}, "Error: Per-flow stop needs connect mode"),
    (names.CMD_APPLY_LIVE, None, "Error: Apply live flow changes works in connect mode (kafka-mm2-env/mm2_run_mode="
                                 "connect): a dedicated driver reads its flows only at start; restart the drivers instead"),
    (names.CMD_FAILOVER_GROUPS, None, "Error: FAILOVER_GROUPS needs flow=SOURCE->TARGET (the enabled flows are A->B"),
    (names.CMD_DRILL, {"flow": "A->B"}, "Error: DRILL needs groups=g1,g2"),
    (names.CMD_FLOW_SEED, None, "Error: FLOW_SEED needs flow=SOURCE->TARGET between two clusters of the topology"),
    # issue 33: the groups are checked before any Kafka tool runs, with the words of mm2-ambari
    (names.CMD_FAILOVER_GROUPS, {"flow": "A->B", "groups": "orders,,orders"},
     "Error: FAILOVER_GROUPS groups=orders,,orders: item 2 is empty (two commas in a row, or a comma at an end): "
     "remove the extra comma; group 'orders' is given twice (items 1 and 3): give each group once; nothing was done"),
    (names.CMD_DRILL, {"flow": "A->B", "groups": "connect-app"},
     "Error: DRILL groups=connect-app: group 'connect-app' of flow A->B is excluded by the pattern 'connect-.*' of "
     "the flow's groups.exclude 'console-consumer-.*, connect-.*, __.*' (kafka-mm2-replication/groups.exclude): "
     "MirrorMaker 2 never translates its offsets, so it cannot be rehearsed."),
    (names.CMD_CUTOVER_CHECK, {"flow": "A->B", "groups": "my app"},
     "Error: CUTOVER_CHECK groups=my app: group 'my app' contains a space"),
])
def test_a_refused_command_says_why_in_one_line_without_a_traceback(site, command, params, line):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    run = failed(Driver(site).run(command, command_params=params, timeout=120))
    assert run.exit_code == 1
    assert "Traceback" not in run.output and "resource_management" not in run.output
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert run.stderr.startswith(line), run.stderr
    assert line in run.stdout


def test_connect_mode_names_an_unknown_flow_in_one_line(site):
    site.cluster("A", "a1:9092")
    site.cluster("B", "b1:9092")
    run = failed(Driver(site).run(names.CMD_FLOW_PAUSE, env={"mm2_run_mode": "connect"}, command_params={},
                                  timeout=120))
    assert "Traceback" not in run.output
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert run.stderr.startswith("Error: no flow given: name one as SOURCE->TARGET, e.g. --flow A->B"), run.stderr
