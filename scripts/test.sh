#!/usr/bin/env bash
# Create .venv if needed, install what the tests need into it, then lint and run the whole suite
# (browser tests included).
#   bash scripts/test.sh                      # all tests
#   bash scripts/test.sh -m "not e2e"         # extra arguments go to pytest
#   PYTHON=/path/to/python bash scripts/test.sh   # use an existing environment instead of .venv
# Chromium comes from Debian's package (never a downloaded browser build). Where it is missing and
# cannot be installed (no root, no apt-get), the browser tests skip with a message saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${PYTHON:-}" ]; then
  PY="$PYTHON"
else
  # A Debian/Ubuntu system Python refuses `pip install` outside a virtual environment (PEP 668).
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv || {
      echo "error: 'python3 -m venv' failed; on Debian/Ubuntu install the python3-venv package" >&2
      exit 1
    }
  fi
  PY=.venv/bin/python
fi

# Leave nothing in the checkout: bytecode goes to a temporary folder, ruff keeps no cache
# (pytest's cache is already off: -p no:cacheprovider in pyproject.toml).
export PYTHONPYCACHEPREFIX="${TMPDIR:-/tmp}/verdictlab-pycache"
# ...and is written: where PYTHONDONTWRITEBYTECODE is set, every test worker and every CLI test's
# subprocess would compile the project again (about 3 s of each worker's start).
unset PYTHONDONTWRITEBYTECODE

"$PY" -m pip install --disable-pip-version-check -q -r requirements-dev.txt

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests…"
    apt-get update -qq >/dev/null \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
      || echo "warning: chromium could not be installed; the browser tests will be skipped"
  else
    echo "note: chromium is missing and this user cannot install it (needs root and apt-get);"
    echo "      the browser tests will be skipped. Install Debian's 'chromium' package to run them."
  fi
fi

# Java for the Spark tests of the counts table (PySpark in local mode, tests/counts/test_spark.py)
if ! command -v java >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's headless Java for the Spark tests…"
    apt-get update -qq >/dev/null \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null \
      || echo "warning: Java could not be installed; the Spark tests will be skipped"
  else
    echo "note: java is missing and this user cannot install it (needs root and apt-get);"
    echo "      the Spark tests will be skipped. Install Debian's 'openjdk-17-jre-headless' to run them."
  fi
fi

"$PY" -m ruff check --no-cache .
"$PY" -m ruff format --no-cache --check .
"$PY" -m mypy evalcore
# Two workers (this project's machines have 2 cores); every browser test starts its own server on
# a free loopback port, so the workers never share one. Doctests of evalcore run too (pyproject).
"$PY" -m pytest -n 2 --dist loadfile "$@"
