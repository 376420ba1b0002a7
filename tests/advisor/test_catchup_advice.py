"""The catch-up settings the advisor recommends (mm2_core.advisor.catchup): the target producers' batching and one
task per partition, which closed the gap to the raw pipe in the DR catch-up benchmark (benchmarks/README.md)."""
from mm2_core.advisor import catchup
from mm2_core.config import names

import advisor_inputs as inputs
from advisor_harness import find, recommended, validation_items

C, R, X = names.CLUSTERS, names.REPLICATION, names.CUSTOM
HOSTS = ["k1.example.com", "k2.example.com", "k3.example.com", "m1.example.com"]


def _mm2(direction="one-way", custom=None, **replication):
    mm2 = {C: {"source.alias": "dc1", "source.bootstrap.servers": "dc1-k1.example.org:9092",
               "target.alias": "dc2", "target.bootstrap.servers": ""},
           R: dict({"direction": direction}, **replication)}
    if custom:
        mm2[X] = dict(custom)
    return mm2


def _services(advisor_path, mm2):
    return inputs.services_json(advisor_path, drivers=("m1.example.com",), mm2=mm2)


def test_each_target_gets_the_benchmarked_producer_batching_unless_set():
    assert catchup.recommend(["B"], {}) == {"B.producer.batch.size": "262144", "B.producer.linger.ms": "10"}
    # the operator's own value stays (problems() warns when it is lower)
    assert catchup.recommend(["B", "A"], {"B.producer.linger.ms": "0"}) == {
        "A.producer.batch.size": "262144", "A.producer.linger.ms": "10", "B.producer.batch.size": "262144"}


def test_lower_values_are_warned_about_with_the_measured_reason():
    found = catchup.problems(["B"], {"B.producer.batch.size": "16384", "B.producer.linger.ms": "20"}, "2")
    assert [(t, p, level) for t, p, level, _ in found] == [(X, "B.producer.batch.size", "WARN"), (R, "tasks.max", "WARN")]
    batch, tasks = found[0][3], found[1][3]
    assert "B.producer.batch.size=16384 is below 262144: flows into B catch up slower after an outage" in batch
    assert "0.46 of the raw pipe" in batch and "0.92" in batch and "measured in the mpack's benchmarks, section DR catch-up" in batch
    assert tasks.startswith("tasks.max=2: a flow with more partitions than tasks catches up slower")
    assert catchup.problems(["B"], {}, "4") == [] and catchup.problems(["B"], {}, "x") == []


def test_the_stack_advisor_recommends_it_for_the_target_of_each_flow(stack_advisor, advisor_path):
    rec = recommended(stack_advisor, _services(advisor_path, _mm2()), inputs.hosts_json(HOSTS, "c1"))
    assert rec[X] == {"dc2.producer.batch.size": "262144", "dc2.producer.linger.ms": "10"}
    rec = recommended(stack_advisor, _services(advisor_path, _mm2("active-active", {"dc2.producer.linger.ms": "5"})),
                      inputs.hosts_json(HOSTS, "c1"))
    assert rec[X] == {"dc1.producer.batch.size": "262144", "dc1.producer.linger.ms": "10",
                      "dc2.producer.batch.size": "262144"}


def test_the_stack_advisor_warns_on_the_property_that_slows_the_catch_up(stack_advisor, advisor_path):
    mm2 = _mm2(custom={"dc2.producer.linger.ms": "0"}, **{"tasks.max": "1"})
    items = validation_items(stack_advisor, _services(advisor_path, mm2), inputs.hosts_json(HOSTS, "c1"))
    assert find(items, config_type=X, config_name="dc2.producer.linger.ms", level="WARN", text="0.46 of the raw pipe")
    assert find(items, config_type=R, config_name="tasks.max", level="WARN", text="tasks.max=1")
