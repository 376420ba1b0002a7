#!/usr/bin/env bash
# The MM2 alerts benchmark on both Python lines: the .venv3 interpreter (with prometheus_client for the
# comparison) and Python 2.7 (the Ambari 2.7 agents' line). Prints the numbers; nothing is asserted.
# Usage: bash benchmarks/alerts_bench.sh [alerts_bench.py args, e.g. --partitions 1000,10000 --repeat 3]
set -euo pipefail
cd "$(dirname "$0")/.."
PY3=${MM2_PY3:-.venv3/bin/python}
PY27=${MM2_PY27:-$(PYENV_VERSION=2.7.18 pyenv which python 2>/dev/null || command -v python2.7 || true)}
echo "== Python 3: $($PY3 --version 2>&1)"
"$PY3" -u benchmarks/alerts_bench.py "$@"
if [ -n "$PY27" ] && [ -x "$PY27" ]; then
  echo
  echo "== Python 2.7: $("$PY27" --version 2>&1)"
  PYTHONPATH="$PWD/.venv27" "$PY27" -u benchmarks/alerts_bench.py "$@"
else
  echo "Python 2.7 not found (set MM2_PY27=/path/to/python2.7)" >&2
fi
