"""CPU of one Kafka command-line tool run, with Kafka's default JVM options against the ones the agent gives its
tools (mm2_kafka_cli.TOOL_JVM_OPTS), on one real broker, in the same run.

    .venv3/bin/python benchmarks/tool_jvm_bench.py [--rounds 5]

The agent runs a short-lived tool for each fact a command reads (a cut-over check reads about a dozen): each is a
JVM start. Prints, per tool, the median CPU seconds (user + system of the JVM) of each option set and their ratio.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# mm2_kafka_cli imports Ambari's library: the tests' double of it stands in (only the constants are read)
sys.path[:0] = [os.path.join(HERE, "..", "tests"), os.path.join(HERE, "..", "tests", "ambari_double"),
                os.path.join(HERE, "..", "package", "scripts")]

from realkafka import cluster as rk  # noqa: E402
import mm2_kafka_cli  # noqa: E402


def cpu_of(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reason = rk.skip_reason()
    if reason:
        sys.exit("cannot run: %s" % reason)
    work = tempfile.mkdtemp(prefix="tool-jvm-bench-")
    with rk.KafkaCluster("a", work) as a:   # started by the with, stopped by its pid at the end
        a.create_topic("bench", partitions=4)
        a.produce_n("bench", 1000)
        a.consume("bench", 1000, group="bench-group")
        bin_dir = os.path.join(a.home, "bin")
        tools = {
            "kafka-get-offsets": [os.path.join(bin_dir, "kafka-get-offsets.sh"), "--bootstrap-server", a.bootstrap],
            "kafka-consumer-groups --describe --all-groups": [
                os.path.join(bin_dir, "kafka-consumer-groups.sh"), "--bootstrap-server", a.bootstrap, "--describe",
                "--all-groups"],
            "kafka-console-consumer (1 record)": [
                os.path.join(bin_dir, "kafka-console-consumer.sh"), "--bootstrap-server", a.bootstrap, "--topic",
                "bench", "--partition", "0", "--offset", "0", "--max-messages", "1", "--timeout-ms", "10000"],
        }
        default_env = rk.tool_env(a.tool_log_dir, heap=mm2_kafka_cli.TOOL_HEAP, lean=False)
        agent_env = dict(default_env, KAFKA_JVM_PERFORMANCE_OPTS=mm2_kafka_cli.TOOL_JVM_OPTS)
        print("%-48s %10s %10s %7s" % ("tool (median of %d, CPU s)" % args.rounds, "default", "agent", "ratio"))
        for name, argv in tools.items():
            cpu = {"default": [], "agent": []}
            for _ in range(args.rounds):   # interleaved: a host's drift hits both alike
                cpu["default"].append(cpu_of(argv, default_env))
                cpu["agent"].append(cpu_of(argv, agent_env))
            d, g = statistics.median(cpu["default"]), statistics.median(cpu["agent"])
            print("%-48s %10.2f %10.2f %7.2f" % (name, d, g, g / d))


if __name__ == "__main__":
    main()
