#!/usr/bin/env bash
# Runs schemathesis (PyPI, in .venv-tools/: scripts/python-tools.sh) against the release build's
# own /openapi.json: the examples, coverage and fuzzing phases (valid and invalid requests for
# every operation), a bounded number each.
# Fails on any 5xx, any response that does not conform to the document (status, content type,
# headers, body schema), any schema-violating request accepted, or any crash.
#
# Left out: GET /todos/events, a stream that never ends (its HEAD and OPTIONS stay in): with
# subscribers allowed every case would wait out the request time-out, without (as run here,
# TODO_EVENTS_MAX_SUBSCRIBERS=0) every case is the documented 503, which schemathesis counts as a
# server error whatever the document says; the stream is tested by LiveFeed*Tests and
# scripts/browser-feed-check.sh. And positive_data_acceptance, which expects every schema-valid request to succeed; here
# a valid but stale If-Match is a correct 412 and a well-formed but unknown tz a correct 400. And
# the stateful phase, whose link-following (schemathesis 4.32) checked a PATCH body against PUT's
# schema and counted a CORS preflight on a deleted to-do as "still available".
# Environment: EXAMPLES per operation (30), SEED (1), DATA_DIR (unset: in memory; set: journal it),
# SKIP_BUILD=1 to reuse .build/staging.
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES=${EXAMPLES:-30} SEED=${SEED:-1}
tools="$(scripts/python-tools.sh)"
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-release.sh .build/staging >/dev/null
port=$((20000 + RANDOM % 20000))
log="$(mktemp)" out="$(mktemp)"
(cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_EVENTS_MAX_SUBSCRIBERS=0 TODO_DATA_DIR="${DATA_DIR:-}" exec ./todo-server) >"$log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; rm -f "$log" "$out"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
status=0
"$tools/schemathesis" --config-file scripts/schemathesis.toml run "http://127.0.0.1:$port/openapi.json" --checks all --exclude-checks positive_data_acceptance --exclude-name 'GET /todos/events' \
  --phases examples,coverage,fuzzing --max-examples "$EXAMPLES" --seed "$SEED" --request-timeout 5 >"$out" 2>&1 || status=$?
sed -n '/= SUMMARY =/,$p' "$out"
if [ "$status" -ne 0 ]; then sed -n '/= FAILURES =/,/= SUMMARY =/p' "$out" | head -150; fi
kill -0 "$pid" 2>/dev/null || { echo "schemathesis: the server died" >&2; tail -20 "$log" >&2; exit 1; }
cases=$(grep -oE '[0-9]+ generated' "$out" | head -1)
kill -TERM "$pid"; wait "$pid" || { echo "schemathesis: server exit status $?" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "schemathesis: passed ($cases test cases, $EXAMPLES examples per operation, seed $SEED)"
exit "$status"
