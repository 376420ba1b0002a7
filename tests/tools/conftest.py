"""Fixtures of the Python 3-only tool tests: a JDK process that loads .properties files like MM2."""
import json
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


class PropertiesLoader(object):
    """Talks to PropsDump (one JVM per test session): path in, the loaded map out."""

    def __init__(self, classes):
        self.proc = subprocess.Popen(["java", "-cp", classes, "PropsDump"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, universal_newlines=True, encoding="utf-8")

    def load(self, path):
        self.proc.stdin.write(path + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("PropsDump exited")
        result = json.loads(line)
        if "__error__" in result:
            raise ValueError(result["__error__"])
        return result

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="session")
def jdk_properties(tmp_path_factory):
    if not (shutil.which("javac") and shutil.which("java")):
        pytest.skip("no JDK (javac/java) on PATH")
    classes = str(tmp_path_factory.mktemp("propsdump"))
    shutil.copy(os.path.join(HERE, "PropsDump.java"), classes)
    subprocess.check_call(["javac", "-d", classes, os.path.join(classes, "PropsDump.java")])
    loader = PropertiesLoader(classes)
    try:
        yield loader
    finally:
        loader.close()
