#!/usr/bin/env bash
# The whole test suite from a fresh clone, setup included: Python 3 line and Python 2.7 line.
# Usage: bash tests/run.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

PY3=${MM2_PY3:-python3}
PY27=${MM2_PY27:-$(PYENV_VERSION=2.7.18 pyenv which python 2>/dev/null || command -v python2.7 || true)}

echo "== setup: Python 3 ($($PY3 --version 2>&1))"
[ -x .venv3/bin/python ] || "$PY3" -m venv .venv3
.venv3/bin/python -m pip install -q --disable-pip-version-check -r requirements-test.txt
.venv3/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .

if [ -z "$PY27" ] || [ ! -x "$PY27" ]; then
  echo "Python 2.7 not found: install it (pyenv install 2.7.18) or set MM2_PY27=/path/to/python2.7" >&2
  exit 1
fi
echo "== setup: Python 2.7 ($("$PY27" --version 2>&1))"
"$PY27" -m pip install -q --disable-pip-version-check --target .venv27 -r requirements-test-py27.txt

# Ambari trunk's agent library needs `distro` (the agent package's python3-distro): the end-to-end suites
# run trunk's scripts under Python 3.9 with this directory on PYTHONPATH (tests/e2e/agent.py).
PY39=${PY39:-$(PYENV_VERSION=3.9.18 pyenv which python 2>/dev/null || command -v python3.9 || true)}
if [ -n "$PY39" ] && [ -x "$PY39" ]; then
  echo "== setup: Ambari trunk agent packages for $("$PY39" --version 2>&1)"
  "$PY39" -m pip install -q --disable-pip-version-check --target .venv-agent39 -r requirements-agent-py39.txt
fi

status=0
echo "== tests: Python 3"
.venv3/bin/python -m pytest -p no:cacheprovider "$@" || status=1
echo "== tests: Python 2.7"
PYTHONPATH="$ROOT/.venv27" "$PY27" -m pytest -p no:cacheprovider "$@" || status=1
exit $status
