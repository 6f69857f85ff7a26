#!/usr/bin/env bash
# Set up refdoc-site in .venv and build the documentation site of this repository,
# offline (no API key, no network needed once installed).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet .
# Optional: a local Mermaid script draws the module maps; without it they show as text.
if command -v npm >/dev/null 2>&1 && [ ! -f "$HOME/.cache/refdoc-site/node_modules/mermaid/dist/mermaid.min.js" ]; then
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/refdoc-site" mermaid@11 >/dev/null 2>&1 \
    || echo "note: npm could not install mermaid; module maps will show as text"
fi
.venv/bin/refdoc-site build .
