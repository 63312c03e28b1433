#!/usr/bin/env bash
# Installs what is missing, runs the whole test suite (unit and end-to-end), then checks every
# response the end-to-end tests received against the OpenAPI document (scripts/check_openapi.py),
# with the Python tools of .venv-tools/ (scripts/python-tools.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
tools="$(scripts/python-tools.sh)"
responses="$PWD/.build/e2e-responses.jsonl"
mkdir -p .build
rm -f "$responses"
TODO_RESPONSE_LOG="$responses" swift test "$@"
"$tools/python" scripts/check_openapi.py Sources/TodoServer/Resources/openapi.json "$responses"
