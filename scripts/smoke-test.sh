#!/usr/bin/env bash
# Runs a staged release binary as the container would (from its folder, config from the file and
# TODO_* variables, a data directory as the image's /data volume), checks /healthz, the image's
# health check (staged `healthcheck`, with the port given by --port over a wrong TODO_PORT), a
# create, /openapi.json and /metrics, then SIGTERM: exit status must be 0; a restart must still
# hold the to-do.
# Usage: scripts/smoke-test.sh [staging-folder]   (default: .build/staging)
set -euo pipefail
cd "$(dirname "$0")/.."
staging="$(cd "${1:-.build/staging}" && pwd)"
# The Dockerfile runs this folder as /app: its HEALTHCHECK is the staged health check, and its drain
# grace stays below `docker stop`'s 10 s.
grep -q '^HEALTHCHECK .* CMD \["/app/healthcheck"\]$' Dockerfile
grace="$(sed -n 's/^ *TODO_SHUTDOWN_GRACE_SECONDS=\([0-9]*\).*/\1/p' Dockerfile | head -1)"
[ -n "$grace" ] && [ "$grace" -lt 10 ]
port=$((20000 + RANDOM % 20000))
log="$(mktemp)"
data="$(mktemp -d)"

start() {
  (cd "$staging" && TODO_PORT="${PORT_VARIABLE:-$port}" TODO_HOST=127.0.0.1 TODO_DATA_DIR="$data" exec ./todo-server "$@") >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
}
PORT_VARIABLE=1 start --port "$port"  # the flag wins over TODO_PORT=1, as in `docker run … --port`
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$log" "$data"' EXIT
test "$(curl -fsS "http://127.0.0.1:$port/healthz")" = '{"status":"ok","todos":0}'
TODO_HEALTHCHECK_PID=$pid "$staging/healthcheck"
created="$(curl -fsS -X POST "http://127.0.0.1:$port/todos" -H 'Content-Type: application/json' -d '{"title":"smoke"}')"
grep -q '"title":"smoke"' <<<"$created"
document="$(curl -fsS "http://127.0.0.1:$port/openapi.json")"
grep -q '"openapi": "3.1.0"' <<<"$document"
metrics="$(curl -fsS "http://127.0.0.1:$port/metrics")"
grep -q 'http_requests_total{route="/todos",method="POST",status="201"} 1' <<<"$metrics"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
grep -q "stopped" "$log"
test "$status" -eq 0
start
test "$(curl -fsS "http://127.0.0.1:$port/healthz")" = '{"status":"ok","todos":1}'
grep -q "todos=1 recovered" "$log"
kill -TERM "$pid"
wait "$pid"
echo "smoke test passed: healthz, health check on --port, create, openapi.json, metrics, SIGTERM exit 0, to-do kept across a restart (port $port)"
