#!/usr/bin/env bash
# Install everything the tests need, then lint and run the whole suite (browser tests included).
#   bash scripts/test.sh            # all tests
#   bash scripts/test.sh -m "not e2e"   # extra arguments go to pytest
# Chromium comes from Debian's package (never a downloaded browser build). Where it is missing and
# cannot be installed (no root, no apt-get), the browser tests skip with a message saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

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

"$PY" -m ruff check .
"$PY" -m pytest "$@"
