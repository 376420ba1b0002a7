"""Print the TYPES table of mm2_core/kafka/kafka_keys.py from a Kafka distribution's own ConfigDefs.

Usage: python3 tests/tools/extract_kafka_types.py ../shared/kafka/kafka_2.13-3.9.0 > /tmp/types.txt
Needs javac/java. Compiles tests/tools/java/ConfigTypes.java against the distribution's libs/ and
turns each "<table> <name> <TYPE> <validator>" line into "name TYPE [validator]", validators
reduced to what the core checks: "lo..hi" ranges (either end may be empty), "=a|b" (exact choices)
and "~a|b" (case-insensitive choices). Anything else is left out (no check).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def java_rows(kafka_home):
    libs = os.path.join(kafka_home, "libs")
    classpath = os.pathsep.join(os.path.join(libs, name) for name in sorted(os.listdir(libs)) if name.endswith(".jar"))
    work = tempfile.mkdtemp(prefix="mm2-types-")
    try:
        shutil.copy(os.path.join(HERE, "java", "ConfigTypes.java"), work)
        subprocess.check_call(["javac", "-d", work, "-cp", classpath, os.path.join(work, "ConfigTypes.java")])
        out = subprocess.check_output(["java", "-cp", classpath + os.pathsep + work, "ConfigTypes"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [line.split(" ", 3) for line in out.decode("utf-8").splitlines() if line.strip()]


def simplify(validator):
    match = re.match(r"^\[(-?[0-9.]+)?,?\.\.\.(?:,(-?[0-9.]+))?\]$", validator)
    if match:
        return "%s..%s" % (match.group(1) or "", match.group(2) or "")
    match = re.match(r"^(\(case_insensitive\)_)?\[([A-Za-z0-9_.,-]+)\]$", validator)
    if match and "..." not in validator:
        choices = [c for c in match.group(2).split(",_")]
        return ("~" if match.group(1) else "=") + "|".join(choices)
    return ""


def table(kafka_home):
    found = {}
    for _, name, kind, validator in java_rows(kafka_home):
        simple = simplify(validator)
        previous = found.get(name)
        if previous is None or (not previous[1] and simple):
            found[name] = (kind, simple)
    return found


def main(argv):
    for name, (kind, check) in sorted(table(argv[1]).items()):
        print(("%s %s %s" % (name, kind, check)).rstrip())


if __name__ == "__main__":
    main(sys.argv)
