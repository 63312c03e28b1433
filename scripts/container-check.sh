#!/usr/bin/env bash
# Builds the project's Dockerfile, unchanged, in podman and checks the image the way a user runs it:
# its size (at most 120 MB) and labels; /healthz through a port published on 127.0.0.1; create,
# read, update, delete and the live feed (curl -N); the image's own HEALTHCHECK (`podman
# healthcheck run`, the image built with --format docker); a non-root user; a read-only root with
# the /data volume; SIGTERM with a request in flight (answered, exit 0, the drain logged, before the
# engine's kill) and SIGINT, the server being PID 1 with no init; a restart on the same volume
# keeping the to-dos; configuration by -e variables and by a mounted config file; a bad setting
# exiting 64 with its one line in `podman logs`. Then scripts/deploy-check.sh: two instances on
# PostgreSQL behind nginx (deploy/compose.yaml), unless SKIP_DEPLOY=1.
#
# Installs podman and what it needs when missing, and makes the base images when missing
# (scripts/container/lib.sh: no registry needs to be reachable). Each check prints one line; a
# failed one says what it expected and what it got. Ends with "N passed, N failed".
# Leaves no container or volume; keeps the images (the base images and the one it built, tagged
# localhost/todo-server:check) so that the next run builds from their layers.
# Usage: scripts/container-check.sh
# Environment: SKIP_DEPLOY=1, the image's checks only; QUIET=1, no line for a check that passed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/container/lib.sh
source scripts/container/lib.sh
started=$SECONDS
image=localhost/todo-server:check
name=todo-check
work="$(mktemp -d /tmp/todo-container-check.XXXXXX)"
passed=0
failed=0
containers=()

cleanup() {
  local container
  # -v: the anonymous volume each container got for the image's VOLUME /data goes too.
  for container in "${containers[@]}"; do podman rm -f -v -t 0 "$container" >/dev/null 2>&1 || true; done
  podman volume rm -f "$name-data" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "FAILED: scripts/container-check.sh stopped at line $LINENO (a command the checks did not expect to fail)" >&2' ERR

pass() {
  passed=$((passed + 1))
  [ "${QUIET:-0}" = 1 ] || echo "ok: $1"
}
fail() {
  failed=$((failed + 1))
  echo "FAILED: $1" >&2
}
# expect DESCRIPTION EXPECTED ACTUAL
expect() {
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected '$2', got '$3'"; fi
}
# The end: after a failure, the last log lines of each container; then the tally.
finish() {
  local container
  if ((failed)); then
    for container in "${containers[@]}"; do
      echo "--- podman logs --tail 15 $container:" >&2
      podman logs --tail 15 "$container" >&2 2>&1 || true
    done
  fi
  echo "container-check: $passed passed, $failed failed"
  echo "container-check took $((SECONDS - started)) s"
  [ "$failed" -eq 0 ]
}

# request METHOD URL [curl arguments…]: the status in $status, the body in $body, the header
# fields in $work/headers (the last response's).
request() {
  local method=$1 url=$2
  shift 2
  status="$(curl -sS -o "$work/body" -D "$work/headers" -w '%{http_code}' --max-time 10 -X "$method" "$@" "$url" 2>"$work/curl-error")" ||
    status="curl: $(tr '\n' ' ' <"$work/curl-error")"
  body="$(cat "$work/body" 2>/dev/null || true)"
}
header() { sed -n "s/^$1: *\(.*\)\r$/\1/Ip" "$work/headers" | sed -n 1p; }
json_field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]); print(v.get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null || true; }

# run_server CONTAINER [podman run arguments…] -- [server arguments…]: starts it detached with a
# port published on 127.0.0.1 (a free one the engine picks) and waits up to 30 s for /healthz
# there; sets $port. Returns 1 (with the container's log) if it never answers.
run_server() {
  local container=$1 inner=8080 arguments=()
  shift
  while (($#)) && [ "$1" != "--" ]; do
    arguments+=("$1")
    [[ "$1" == TODO_PORT=* ]] && inner="${1#TODO_PORT=}"
    shift
  done
  (($#)) && shift
  containers+=("$container")
  podman rm -f -v -t 0 "$container" >/dev/null 2>&1 || true
  if ! podman run -d --name "$container" -p "127.0.0.1::$inner" "${arguments[@]}" "$image" "$@" >/dev/null 2>"$work/run.err"; then
    grep -v 'systemd connection' "$work/run.err" >&2
    return 1
  fi
  port="$(podman port "$container" "$inner/tcp" | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p' | sed -n 1p)"
  local deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    if [ -n "$port" ] && curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then
      return 0
    fi
    [ "$(podman inspect --format '{{.State.Running}}' "$container")" = true ] || break
    sleep 0.2
  done
  echo "--- podman logs $container:" >&2
  podman logs "$container" 2>&1 | tail -20 >&2
  return 1
}
# log_shows CONTAINER PATTERN: polls `podman logs` for up to 10 s (the server writes its log in
# batches, within 20 ms).
log_shows() {
  local deadline=$((SECONDS + 10))
  while ((SECONDS < deadline)); do
    grep -q -- "$2" <<<"$(podman logs "$1" 2>&1)" && return 0
    sleep 0.2
  done
  return 1
}
# exit_status CONTAINER: waits for it to exit (at most 60 s) and prints its exit code.
exit_status() {
  timeout 60 podman wait "$1" 2>/dev/null | tail -1 || echo "still running after 60 s"
}

install_engine
make_debian_slim
make_swift_image

# --- The image --------------------------------------------------------------------------------
build_started=$SECONDS
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
# The revision as a build argument (the Dockerfile's LABEL, as `docker build --build-arg` gives it)
# and as --label too: buildah 1.28 (podman 4.3) reuses a cached LABEL step whatever the argument's
# value, so the argument alone leaves an earlier build's revision on the image.
if ! podman build --pull=never --format docker "${CONTAINER_BUILD_MOUNTS[@]}" \
  --build-arg REVISION="$revision" --label org.opencontainers.image.revision="$revision" \
  -t "$image" . >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  fail "podman build --format docker . (the Dockerfile as it is; its log above)"
  finish
fi
echo "built $image from the Dockerfile in $((SECONDS - build_started)) s"

size="$(podman image inspect --format '{{.Size}}' "$image")"
echo "image size: $((size / 1000000)) MB ($size bytes)"
if ((size <= 120000000)); then pass "image size $((size / 1000000)) MB is at most 120 MB"; else fail "image size: $((size / 1000000)) MB, over 120 MB"; fi
expect "HEALTHCHECK kept (built --format docker)" '[/app/healthcheck]' \
  "$(podman image inspect --format '{{if .HealthCheck}}{{.HealthCheck.Test}}{{end}}' "$image" | sed 's/^\[CMD /[/')"
version="$(podman run --rm "$image" --version 2>/dev/null)"
expect "label org.opencontainers.image.version is the binary's --version" "$version" \
  "$(podman image inspect --format '{{index .Labels "org.opencontainers.image.version"}}' "$image")"
expect "label org.opencontainers.image.revision is the commit built" "$revision" \
  "$(podman image inspect --format '{{index .Labels "org.opencontainers.image.revision"}}' "$image")"
expect "label org.opencontainers.image.title" todo-server \
  "$(podman image inspect --format '{{index .Labels "org.opencontainers.image.title"}}' "$image")"
# The binary's shared libraries all resolve in the image (a missing one would stop it at start only
# on the path that opens it: libpq is opened with a database URL, so it is looked up here too).
# (podman run's standard error is left out: without systemd, podman says on it that it cannot set
# up the health check's timer.)
unresolved="$(podman run --rm --entrypoint /bin/bash "$image" -c \
  'ldd /app/todo-server | grep "not found"; for l in libpq.so.5 libcurl.so.4; do ldconfig -p | grep -q "$l" || echo "$l not found"; done; echo checked' 2>/dev/null || true)"
expect "every shared library the binary loads is in the image (libpq, libcurl included)" checked "$unresolved"
expect "no curl in the image" "none" "$(podman run --rm --entrypoint /bin/bash "$image" -c 'command -v curl || echo none' 2>/dev/null)"

# --- One container: health, CRUD, the feed, user, read-only root ------------------------------
main="$name-main"
podman volume rm -f "$name-data" >/dev/null 2>&1 || true
if ! run_server "$main" --read-only -v "$name-data:/data"; then
  fail "the image started with --read-only and a /data volume answers /healthz on 127.0.0.1 within 30 s"
  finish
fi
request GET "http://127.0.0.1:$port/healthz"
expect "/healthz through the published port 127.0.0.1:$port" '200 {"status":"ok","todos":0}' "$status $body"

request POST "http://127.0.0.1:$port/todos" -H 'Content-Type: application/json' -d '{"title":"milk"}'
id="$(json_field "$body" id)"
location="$(header Location | sed -E 's|^https?://[^/]*||')"
expect "POST /todos: 201 with Location /todos/{id}" "201 /todos/$id" "$status $location"
[ -n "$id" ] || id=missing
request GET "http://127.0.0.1:$port/todos/$id"
etag="$(header ETag)"
expect "GET /todos/{id}: 200, the title, an ETag" "200 milk yes" "$status $(json_field "$body" title) $([ -n "$etag" ] && echo yes || echo no)"
request PATCH "http://127.0.0.1:$port/todos/$id" -H 'Content-Type: application/json' -H "If-Match: $etag" -d '{"completed":true}'
expect "PATCH with If-Match: 200, completed" "200 True" "$status $(json_field "$body" completed)"
request PATCH "http://127.0.0.1:$port/todos/$id" -H 'Content-Type: application/json' -H "If-Match: $etag" -d '{"title":"stale"}'
expect "PATCH with the old ETag: 412" 412 "$status"
request DELETE "http://127.0.0.1:$port/todos/$id"
expect "DELETE /todos/{id}: 204, then GET 404" 204 "$status"
request GET "http://127.0.0.1:$port/todos/$id"
expect "GET after DELETE: 404" 404 "$status"

# The live feed: a stream opened with curl -N gets the change made after it opened.
curl -sS -N --max-time 30 -D "$work/feed-headers" "http://127.0.0.1:$port/todos/events" >"$work/feed" 2>/dev/null &
feed=$!
deadline=$((SECONDS + 10))
until grep -q '^retry:' "$work/feed" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.1; done
request POST "http://127.0.0.1:$port/todos" -H 'Content-Type: application/json' -d '{"title":"bread"}'
kept_id="$(json_field "$body" id)"
deadline=$((SECONDS + 10))
until grep -q '"title":"bread"' "$work/feed" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.1; done
kill "$feed" 2>/dev/null || true
wait "$feed" 2>/dev/null || true
expect "live feed (curl -N /todos/events): text/event-stream, the create streamed as it happened" \
  "text/event-stream created bread" \
  "$(sed -n 's/^content-type: *\([^;]*\).*/\1/Ip' "$work/feed-headers" | tr -d '\r' | sed -n 1p) $(sed -n 's/^event: //p' "$work/feed" | sed -n 1p) $(grep -o '"title":"bread"' "$work/feed" | sed -n 1p | cut -d'"' -f4)"

health="$(podman healthcheck run "$main" 2>&1)" && health=${health:-healthy}
expect "the image's HEALTHCHECK (podman healthcheck run)" healthy "$health"
podman healthcheck run "$main" >/dev/null 2>&1 || true
# PID 1 is the server and nothing else lives in the container: the health checks left no process,
# no zombie (the server reaps nothing, and nothing needs reaping).
expect "PID 1 is todo-server, alone in the container after health checks (no zombie, no leftover)" "1 todo-server" \
  "$(podman exec "$main" bash -c 'for s in /proc/[0-9]*/stat; do read -r pid comm state _ <"$s"; [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] || echo "$pid ${comm//[()]/} $state"; done' 2>&1 | sed 's/ R$\| S$//' | tr '\n' ' ' | sed 's/ $//')"
expect "runs as uid 10001, not root" "10001 10001 10001 10001" \
  "$(podman exec "$main" bash -c 'sed -n "s/^Uid:[[:space:]]*//p" /proc/1/status' | tr -s '[:space:]' ' ' | sed 's/ $//')"
expect "root file system read-only, /data writable by the server" "read-only journal" \
  "$(podman exec "$main" bash -c 'touch /app/probe 2>/dev/null && echo writable || echo read-only') $(podman exec "$main" bash -c 'ls /data | grep -q . && echo journal || echo empty')"

# --- SIGTERM with a request in flight ---------------------------------------------------------
# The request's head and half its body are sent, then `podman stop` (SIGTERM, SIGKILL after 30 s);
# once the server logs the drain, the rest of the body: it must be answered, 201.
body_json='{"title":"in flight"}'
if ! exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  fail "SIGTERM: cannot connect to 127.0.0.1:$port"
  finish
fi
printf 'POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n%s' \
  "${#body_json}" "${body_json:0:10}" >&3
stop_started=$SECONDS
podman stop -t 30 "$main" >/dev/null 2>&1 &
stopping=$!
if log_shows "$main" "shutdown requested, draining"; then pass "SIGTERM: the drain is logged"; else fail "SIGTERM: no 'shutdown requested, draining' in podman logs within 10 s"; fi
printf '%s' "${body_json:10}" >&3
answer=""
IFS= read -r -t 10 answer <&3 || true
exec 3<&-
expect "SIGTERM: the request in flight is answered" "HTTP/1.1 201 Created" "${answer%$'\r'}"
wait "$stopping" || true
stop_seconds=$((SECONDS - stop_started))
expect "SIGTERM: exit status 0" 0 "$(podman inspect --format '{{.State.ExitCode}}' "$main")"
if ((stop_seconds < 30)); then pass "SIGTERM: stopped in $stop_seconds s, before the engine's kill (30 s)"; else fail "SIGTERM: took $stop_seconds s, the engine killed it"; fi
if grep -q 'stopped' <<<"$(podman logs "$main" 2>&1)"; then pass "SIGTERM: 'stopped' logged"; else fail "SIGTERM: no 'stopped' in podman logs"; fi

# --- A restart on the same volume ------------------------------------------------------------
again="$name-again"
if run_server "$again" --read-only -v "$name-data:/data"; then
  request GET "http://127.0.0.1:$port/todos"
  expect "restart on the same volume: both to-dos kept (the one answered while draining too)" "200 bread,in flight" \
    "$status $(python3 -c 'import json,sys; print(",".join(sorted(t["title"] for t in json.loads(sys.argv[1]))))' "$body" 2>/dev/null)"
  request GET "http://127.0.0.1:$port/todos/$kept_id"
  expect "restart: the to-do keeps its id" 200 "$status"
  # SIGINT, as Ctrl-C on `docker run -it` sends it.
  podman kill --signal INT "$again" >/dev/null
  expect "SIGINT: exit status 0" 0 "$(exit_status "$again")"
else
  fail "restart on the same volume: no answer within 30 s"
fi

# --- Configuration --------------------------------------------------------------------------
# By -e variables: another port (the health check follows it) and a token.
if run_server "$name-env" -e TODO_PORT=9000 -e TODO_AUTH_TOKENS=env-token -e TODO_THREADS=1 --; then
  request GET "http://127.0.0.1:$port/todos"
  first=$status
  request GET "http://127.0.0.1:$port/todos" -H 'Authorization: Bearer env-token'
  expect "config by -e: TODO_PORT=9000 serves there, TODO_AUTH_TOKENS asks for the token" "401 200" "$first $status"
  health="$(podman healthcheck run "$name-env" 2>&1)" && health=${health:-healthy}
  expect "config by -e: the HEALTHCHECK follows TODO_PORT=9000" healthy "$health"
else
  fail "config by -e variables: no answer on port 9000 within 30 s"
fi
# By a mounted file (--config after the image name): JSON logs and a token.
printf '{\n  "logFormat": "json",\n  "authTokens": ["file-token"],\n  "threads": 1\n}\n' >"$work/todo-server.json"
chmod 644 "$work/todo-server.json"
if run_server "$name-file" -v "$work/todo-server.json:/etc/todo-server.json:ro" -- --config /etc/todo-server.json; then
  request GET "http://127.0.0.1:$port/todos"
  first=$status
  request GET "http://127.0.0.1:$port/todos" -H 'Authorization: Bearer file-token'
  expect "config by a mounted file: its token asked for" "401 200" "$first $status"
  first_line="$(podman logs "$name-file" 2>&1 | sed -n 1p)"
  if [[ "$first_line" == "{"* ]]; then pass "config by a mounted file: its logFormat json"; else fail "config by a mounted file: the log is not JSON: $first_line"; fi
  podman stop -t 30 "$name-file" >/dev/null 2>&1
else
  fail "config by a mounted file: no answer within 30 s"
fi
# A bad setting: exit 64, and its log is the one line naming the setting, the value and the source.
containers+=("$name-bad")
podman run -d --name "$name-bad" -e TODO_PORT=99999 "$image" >/dev/null 2>"$work/run.err"
bad_status="$(exit_status "$name-bad")"
bad_log="$(podman logs "$name-bad" 2>&1)"
expect "a bad setting (-e TODO_PORT=99999): exit 64, its one line in podman logs" \
  "64 1 todo-server: invalid configuration: 'port' is '99999' but must be an integer from 0 to 65535 (set by TODO_PORT)" \
  "$bad_status $(grep -c . <<<"$bad_log") $(sed -n 1p <<<"$bad_log")"

if [ "${SKIP_DEPLOY:-0}" != 1 ]; then
  if IMAGE="$image" scripts/deploy-check.sh; then pass "two instances behind nginx (scripts/deploy-check.sh)"; else fail "two instances behind nginx (scripts/deploy-check.sh; its lines above)"; fi
fi
finish
