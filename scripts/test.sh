#!/usr/bin/env bash
# Set up everything the tests need and run the whole test suite:
# .venv with the package and test tools, Debian's chromium for the browser tests
# (installed when running as root, as CI does), the npm packages of the JS tests and the
# TypeScript language server of the code-intelligence tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if command -v npm >/dev/null 2>&1; then
  (cd tests/js && npm install --no-save --no-package-lock --silent --no-audit --no-fund)
  # The TypeScript language server, where refdoc-site looks for it (languages/servers.py).
  npm install --prefix "${XDG_CACHE_HOME:-$HOME/.cache}/refdoc-site/npm" --no-save --no-package-lock \
    --silent --no-audit --no-fund typescript-language-server typescript@5
fi
.venv/bin/python -m pytest -q "$@"
