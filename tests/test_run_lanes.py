"""tests/run.sh's lanes run every version of CI's short sequence (tests/versions/conftest.py CI_SHORT_VERSIONS) once:
the split over lanes A, B and D is the run script's, the list is the conftest's (Python 2.7 and 3)."""
import os
import re

TESTS = os.path.dirname(os.path.abspath(__file__))


def read(*parts):
    with open(os.path.join(TESTS, *parts)) as fh:
        return fh.read()


def test_the_lanes_split_the_short_sequence_without_a_gap_or_a_version_twice():
    listed = re.search(r"^CI_SHORT_VERSIONS = \(([^)]*)\)", read("versions", "conftest.py"), re.M).group(1)
    ci = re.findall(r'"([^"]+)"', listed)
    lanes = dict(re.findall(r'\bSHORT_([A-Z])="([^"]*)"', read("run.sh")))
    split = [v for lane in sorted(lanes) for v in lanes[lane].split()]
    assert ci and len(lanes) >= 2
    assert sorted(split) == sorted(ci), (lanes, ci)
    # each lane that runs a short version alone says "none" to the full case set (else it would rerun 2.8.2 and 4)
    script = read("run.sh")
    for lane in lanes:
        if lane != "B":
            assert 'MM2_TEST_KAFKA_VERSIONS=none MM2_TEST_KAFKA_SHORT_VERSIONS="$SHORT_%s"' % lane in script, lane
