"""The agent-side tests reuse the lifecycle tests' fake site (fake Kafka home and JDK) and
their execute-mode driver runner."""
import os
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(TESTS, "agent"), os.path.join(TESTS, "fixtures", "fake_kafka")):
    if path not in sys.path:
        sys.path.insert(0, path)
