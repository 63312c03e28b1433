#!/usr/bin/env bash
# Generates a Python client from the release build's own /openapi.json with openapi-python-client
# (PyPI, in .venv-tools/: scripts/python-tools.sh) into a temporary folder, then drives every
# operation through it (scripts/client_check.py): typed 2xx bodies, problem bodies, HEAD errors
# without a body, every operation called. Prints one summary line; fails on any warning of the
# generator or any failed call.
# Environment: SKIP_BUILD=1 to reuse .build/staging.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$(scripts/python-tools.sh)"
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-release.sh .build/staging >/dev/null
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
log="$(mktemp)" work="$(mktemp -d)"
# Two owners and an operator: the client runs as alice (a generated AuthenticatedClient), bob must
# reach none of her to-dos, /metrics and the health count need the operator's token.
export OWNER_TOKEN=alice-check-token OTHER_OWNER_TOKEN=bob-check-token OPERATOR_TOKEN=ops-check-token
(cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_EVENTS_MAX_SUBSCRIBERS=0 \
  TODO_OWNER_TOKENS="alice:$OWNER_TOKEN,bob:$OTHER_OWNER_TOKEN" TODO_AUTH_TOKENS="$OPERATOR_TOKEN" exec ./todo-server) >"$log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$log" "$work"' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null 2>&1 && break; sleep 0.05; done

# ruff (installed with the generator) formats the generated code; it must be on PATH.
# The document as the server serves it (with tokens on, /openapi.json needs one too).
curl -fsS -H "Authorization: Bearer $OPERATOR_TOKEN" "$base/openapi.json" >"$work/openapi.json" || {
  echo "client check: GET /openapi.json failed" >&2; tail -20 "$log" >&2; exit 1; }
generated="$(cd "$work" && PATH="$tools:$PATH" "$tools/openapi-python-client" generate \
  --path "$work/openapi.json" --meta none --output-path "$work/todo_server_client" 2>&1)" || {
  echo "$generated"; echo "client check: openapi-python-client failed" >&2; exit 1; }
if grep -qiE "warning|error" <<<"$generated"; then
  echo "$generated"; echo "client check: openapi-python-client warned about the document" >&2; exit 1
fi
status=0
"$tools/python" scripts/client_check.py "$work" todo_server_client "$base" || status=$?
kill -0 "$pid" 2>/dev/null || { echo "client check: the server died" >&2; tail -20 "$log" >&2; exit 1; }
kill -TERM "$pid"; wait "$pid" || { echo "client check: server exit status $?" >&2; exit 1; }
exit "$status"
