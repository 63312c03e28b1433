#!/usr/bin/env bash
# Installs what is missing, runs the whole test suite (unit and end-to-end), then checks every
# response the end-to-end tests received against the OpenAPI document (scripts/check-openapi.py).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
if ! python3 -c "import openapi_spec_validator, openapi_schema_validator" 2>/dev/null; then
  python3 -m pip install --quiet openapi-spec-validator openapi-schema-validator
fi
responses="$PWD/.build/e2e-responses.jsonl"
mkdir -p .build
rm -f "$responses"
TODO_RESPONSE_LOG="$responses" swift test "$@"
python3 scripts/check-openapi.py Sources/TodoServer/Resources/openapi.json "$responses"
