#!/usr/bin/env bash
# Installs what is missing, runs the whole test suite (unit and end-to-end), then checks every
# response the end-to-end tests received against the OpenAPI document (scripts/check_openapi.py),
# with the Python tools of .venv-tools/ (scripts/python-tools.sh).
#
# --quick: while iterating, skips the suites tagged .endToEnd or .postgres (Tests/TestSupport/Tags.swift:
# servers and processes over sockets, the throwaway PostgreSQL cluster) and the OpenAPI check;
# every other test still runs. Swift 6.3's --skip matches test names, not tags, so the tagged
# suites are found in the sources and skipped by name (a suite's tests and nested suites with it).
#
# Usage: scripts/test.sh [--quick] [swift test arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."

# The names of the suites tagged .endToEnd or .postgres, as one --skip pattern.
skip_pattern() { python3 scripts/tagged-suites.py endToEnd postgres; }

scripts/install-deps.sh
if [ "${1:-}" = "--quick" ]; then
  shift
  pattern="$(skip_pattern)"
  exec swift test --skip "$pattern" "$@"
fi
tools="$(scripts/python-tools.sh)"
responses="$PWD/.build/e2e-responses.jsonl"
mkdir -p .build
rm -f "$responses"
TODO_RESPONSE_LOG="$responses" swift test "$@"
"$tools/python" scripts/check_openapi.py Sources/TodoServer/Resources/openapi.json "$responses"
