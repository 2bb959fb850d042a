#!/usr/bin/env bash
# The whole check, as CI runs it: lint, types, layer contracts, then every test (slow ones too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/python -m pytest -n 2 -q "$@"
