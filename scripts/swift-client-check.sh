#!/usr/bin/env bash
# Builds Examples/SwiftClient (a client that swift-openapi-generator's build plugin generates from
# the served document, Sources/TodoServer/Resources/openapi.json, calling through OpenAPIURLSession)
# and runs it against the release build on a free port: every operation, typed. Prints how long
# the example took to build and its `N passed, M failed` line; fails on any failed step, a build
# failure, a generator warning or a server that died.
# Environment: SKIP_BUILD=1 to reuse .build/staging; BUILD_ONLY=1 builds the example (and checks
# its warnings) and stops: CI builds it beside its other builds, then runs this again.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${SKIP_BUILD:-0}" = 1 ] || [ "${BUILD_ONLY:-0}" = 1 ] || scripts/build-release.sh .build/staging >/dev/null
example=Examples/SwiftClient
log="$(mktemp)" build_log="$(mktemp)"
pid=
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true; rm -f "$log" "$build_log"' EXIT

started=$SECONDS
swift build --package-path "$example" >"$build_log" 2>&1 || {
  tail -60 "$build_log"; echo "swift client check: the example did not build" >&2; exit 1; }
built=$((SECONDS - started))
# The generator reports what it cannot express as warnings (unsupported schemas, undescribed
# required properties): the document must give it none.
if grep -E "warning:" "$build_log" | grep -viE "^/opt/|/\.build/checkouts/" | grep -q .; then
  grep -E "warning:" "$build_log"; echo "swift client check: warnings building the example" >&2; exit 1
fi
if [ "${BUILD_ONLY:-0}" = 1 ]; then
  echo "swift client check: example built in ${built} s, no generator warning"
  exit 0
fi
bin="$(swift build --package-path "$example" --show-bin-path)/TodoClientExample"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
# The tour runs as alice (an owner token, sent by a ClientMiddleware), reads /metrics and the health
# count as an operator, and checks that bob's token reaches none of alice's to-dos.
export TODO_TOKEN=alice-swift-token TODO_OTHER_TOKEN=bob-swift-token TODO_OPERATOR_TOKEN=ops-swift-token
(cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_OWNER_TOKENS="alice:$TODO_TOKEN,bob:$TODO_OTHER_TOKEN" \
  TODO_AUTH_TOKENS="$TODO_OPERATOR_TOKEN" exec ./todo-server) >"$log" 2>&1 &
pid=$!
deadline=$((SECONDS + 20))
until curl -fs "$base/healthz" >/dev/null 2>&1; do
  if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    echo "swift client check: the server did not answer on $base" >&2; tail -20 "$log" >&2; exit 1
  fi
  sleep 0.05
done

status=0
out="$("$bin" "$base" 2>&1)" || status=$?
if [ "$status" -ne 0 ]; then echo "$out" | grep -vE '^ok |^[0-9]+ passed, [0-9]+ failed$' || true; fi
kill -0 "$pid" 2>/dev/null || { echo "swift client check: the server died" >&2; tail -20 "$log" >&2; exit 1; }
kill -TERM "$pid"; wait "$pid" || { echo "swift client check: server exit status $?" >&2; exit 1; }
pid=
echo "swift client check: example built in ${built} s; $(echo "$out" | tail -1)"
exit "$status"
