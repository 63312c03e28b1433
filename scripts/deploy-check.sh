#!/usr/bin/env bash
# Runs deploy/compose.yaml in podman-compose (PostgreSQL from Debian's package, two TodoServer
# instances, nginx in front; deploy/compose.check.yaml adds a 127.0.0.1 port for each instance)
# and checks scale-out as users deploy it: a to-do made through one instance is served by the
# other; an ETag holds across both (If-None-Match 304, If-Match 200, then 412 with the old one);
# the live feed streams through nginx with its default buffering (curl -N), changes made on either
# instance; stopping one instance while writes go through nginx loses no acknowledged write.
#
# podman 4.3 (Debian 12) cannot wait for a container to be healthy (podman-compose then ignores
# `condition: service_healthy` with a warning), and without systemd nothing runs health checks on
# their own: this script brings the services up in the compose file's order itself, each once the
# ones it depends on pass their health check (`podman healthcheck run`, within a deadline).
#
# Installs podman (scripts/container/lib.sh) and podman-compose (scripts/python-tools.sh) when
# missing. Uses the image IMAGE (default localhost/todo-server:check, which scripts/container-check.sh
# builds; built from the Dockerfile when missing). Leaves no container, volume or network.
# Ends with "N passed, N failed". QUIET=1: no line for a check that passed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/container/lib.sh
source scripts/container/lib.sh
started=$SECONDS
export TODO_IMAGE="${IMAGE:-localhost/todo-server:check}"
project=todo-deploy
work="$(mktemp -d /tmp/todo-deploy-check.XXXXXX)"
passed=0
failed=0

install_engine
tools="$(scripts/python-tools.sh)"
compose=("$tools/podman-compose" --project-name "$project" -f deploy/compose.yaml -f deploy/compose.check.yaml)

# The secrets: the database password by environment, the API token by file.
export TODO_DB_PASSWORD
TODO_DB_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export TODO_SECRETS_DIR="$work/secrets"
mkdir -p "$TODO_SECRETS_DIR"
token="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
printf '# read-write tokens\n%s\n' "$token" >"$TODO_SECRETS_DIR/todo_tokens"
chmod 644 "$TODO_SECRETS_DIR/todo_tokens"
export TODO_PUBLISH="127.0.0.1:$((20000 + RANDOM % 20000))"
proxy="http://$TODO_PUBLISH"
auth=(-H "Authorization: Bearer $token")

cleanup() {
  local containers
  containers="$(podman ps -aq --filter "label=com.docker.compose.project=$project")"
  # shellcheck disable=SC2086 # one container id a word
  [ -z "$containers" ] || podman rm -f -v -t 0 $containers >/dev/null 2>&1 || true
  "${compose[@]}" down -v -t 0 >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "FAILED: scripts/deploy-check.sh stopped at line $LINENO (a command the checks did not expect to fail)" >&2' ERR

pass() {
  passed=$((passed + 1))
  [ "${QUIET:-0}" = 1 ] || echo "ok: $1"
}
fail() {
  failed=$((failed + 1))
  echo "FAILED: $1" >&2
}
expect() {
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected '$2', got '$3'"; fi
}
# The end: after a failure, the last log lines of each service's container; then the tally.
finish() {
  local service
  if ((failed)); then
    for service in postgres todo-1 todo-2 nginx; do
      echo "--- podman logs --tail 15 ($service):" >&2
      podman logs --tail 15 "$(container_of "$service")" >&2 2>&1 || true
    done
  fi
  echo "deploy-check: $passed passed, $failed failed"
  echo "deploy-check took $((SECONDS - started)) s"
  [ "$failed" -eq 0 ]
}
request() {
  local method=$1 url=$2
  shift 2
  status="$(curl -sS -o "$work/body" -D "$work/headers" -w '%{http_code}' --max-time 10 -X "$method" "${auth[@]}" "$@" "$url" 2>"$work/curl-error")" ||
    status="curl: $(tr '\n' ' ' <"$work/curl-error")"
  body="$(cat "$work/body" 2>/dev/null || true)"
}
header() { sed -n "s/^$1: *\(.*\)\r$/\1/Ip" "$work/headers" | sed -n 1p; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null || true; }
container_of() {
  podman ps -a --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=$1" \
    --format '{{.Names}}' | sed -n 1p
}
# healthy SERVICE…: runs each one's health check until it passes, for up to 60 s.
healthy() {
  local service container deadline
  for service in "$@"; do
    container="$(container_of "$service")"
    deadline=$((SECONDS + 60))
    until [ -n "$container" ] && podman healthcheck run "$container" >/dev/null 2>&1; do
      if ((SECONDS >= deadline)); then
        echo "--- podman logs ${container:-($service has no container)}:" >&2
        [ -z "$container" ] || podman logs "$container" 2>&1 | tail -20 >&2
        return 1
      fi
      sleep 0.5
      [ -n "$container" ] || container="$(container_of "$service")"
    done
  done
}
# up SERVICE…: starts them (not their dependencies: they are up and healthy already).
up() {
  if ! "${compose[@]}" up -d --no-deps "$@" >"$work/up.log" 2>&1; then
    tail -20 "$work/up.log" >&2
    return 1
  fi
}

# The images: PostgreSQL's and nginx's from their Containerfiles; TodoServer's from the Dockerfile
# when IMAGE is not there yet.
make_debian_slim
if ! podman image exists "$TODO_IMAGE"; then
  make_swift_image
  podman build --pull=never --format docker "${CONTAINER_BUILD_MOUNTS[@]}" -t "$TODO_IMAGE" . >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log" >&2; fail "building $TODO_IMAGE"; finish; }
fi
build_started=$SECONDS
if ! "${compose[@]}" build postgres nginx >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  fail "podman-compose build postgres nginx (log above)"
  finish
fi
echo "built the postgres and nginx images in $((SECONDS - build_started)) s"

"${compose[@]}" down -v -t 0 >/dev/null 2>&1 || true
up_started=$SECONDS
if up postgres && healthy postgres && up todo-1 todo-2 && healthy todo-1 todo-2 && up nginx && healthy nginx; then
  pass "up in order, each healthy before what depends on it: postgres, todo-1 and todo-2, nginx ($((SECONDS - up_started)) s)"
else
  fail "podman-compose up (deploy/compose.yaml): a service did not become healthy within 60 s"
  finish
fi
one="http://$(podman port "$(container_of todo-1)" 8080/tcp | sed -n 1p)"
two="http://$(podman port "$(container_of todo-2)" 8080/tcp | sed -n 1p)"

expect "through nginx, without the token (a file secret): 401" 401 \
  "$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 "$proxy/todos" 2>&1 || true)"
request GET "$proxy/healthz"
expect "through nginx: /healthz" '200 ok' "$status $(json_field "$body" status)"

# Made through one, served by the other.
request POST "$one/todos" -H 'Content-Type: application/json' -d '{"title":"made on one"}'
id="$(json_field "$body" id)"
expect "POST on todo-1: 201" 201 "$status"
request GET "$two/todos/$id"
etag="$(header ETag)"
expect "the to-do made on todo-1 is served by todo-2" "200 made on one" "$status $(json_field "$body" title)"
request GET "$one/todos/$id"
expect "the same ETag from both instances" "$etag" "$(header ETag)"
request GET "$two/todos/$id" -H "If-None-Match: $etag"
expect "todo-2 answers todo-1's ETag in If-None-Match with 304" 304 "$status"
request PATCH "$two/todos/$id" -H 'Content-Type: application/json' -H "If-Match: $etag" -d '{"completed":true}'
expect "PATCH on todo-2 with If-Match of todo-1's ETag: 200" 200 "$status"
request PATCH "$one/todos/$id" -H 'Content-Type: application/json' -H "If-Match: $etag" -d '{"title":"lost update"}'
expect "PATCH on todo-1 with the ETag from before todo-2's change: 412" 412 "$status"

# The live feed through nginx, default buffering: curl -N sees each change as it happens, whichever
# instance made it. The instances ask nginx not to buffer it (X-Accel-Buffering: no, which nginx
# takes for itself and does not pass on).
curl -sS -N --max-time 3 -D "$work/direct-headers" "${auth[@]}" "$one/todos/events" >/dev/null 2>&1 || true
expect "the feed from an instance: X-Accel-Buffering no, Cache-Control no-store" "no no-store" \
  "$(sed -n 's/^x-accel-buffering: *//Ip' "$work/direct-headers" | tr -d '\r' | sed -n 1p) $(sed -n 's/^cache-control: *//Ip' "$work/direct-headers" | tr -d '\r' | sed -n 1p)"
curl -sS -N --max-time 60 -D "$work/feed-headers" "${auth[@]}" "$proxy/todos/events" >"$work/feed" 2>/dev/null &
feed=$!
deadline=$((SECONDS + 10))
until grep -q '^retry:' "$work/feed" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.1; done
for instance in "$one" "$two"; do
  title="feed via ${instance##*:}"
  request POST "$instance/todos" -H 'Content-Type: application/json' -d "{\"title\":\"$title\"}"
  made=$SECONDS
  deadline=$((SECONDS + 5))
  until grep -q "\"title\":\"$title\"" "$work/feed" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.05; done
  if grep -q "\"title\":\"$title\"" "$work/feed"; then
    pass "live feed through nginx (curl -N): a create on port ${instance##*:} streamed within $((SECONDS - made)) s"
  else
    fail "live feed through nginx: the create on port ${instance##*:} did not arrive within 5 s (the stream so far: $(tr '\n' ' ' <"$work/feed" | cut -c1-300))"
  fi
done
kill "$feed" 2>/dev/null || true
wait "$feed" 2>/dev/null || true
expect "the feed through nginx: text/event-stream, Cache-Control no-store, X-Accel-Buffering not passed on" \
  "text/event-stream no-store " \
  "$(sed -n 's/^content-type: *\([^;]*\).*/\1/Ip' "$work/feed-headers" | tr -d '\r' | sed -n 1p) $(sed -n 's/^cache-control: *//Ip' "$work/feed-headers" | tr -d '\r' | sed -n 1p) $(sed -n 's/^x-accel-buffering: *//Ip' "$work/feed-headers" | tr -d '\r' | sed -n 1p)"

# Stopping one instance while writes go through nginx: every write answered 201 is there after.
writes=400
: >"$work/acknowledged"
: >"$work/refused"
(
  for i in $(seq 1 "$writes"); do
    code="$(curl -sS -o "$work/write-body" -w '%{http_code}' --max-time 10 "${auth[@]}" -H 'Content-Type: application/json' \
      -d "{\"title\":\"write $i\"}" "$proxy/todos" 2>"$work/write-error")" || code="curl exit $? ($(tr -d '\n' <"$work/write-error"))"
    if [ "$code" = 201 ]; then
      { cat "$work/write-body"; echo; } >>"$work/acknowledged"
    else
      echo "$code" >>"$work/refused"
    fi
  done
) &
writer=$!
deadline=$((SECONDS + 30))
until [ "$(grep -c . "$work/acknowledged" || true)" -ge 50 ] || ((SECONDS >= deadline)); do sleep 0.05; done
stop_started=$SECONDS
podman stop -t 15 "$(container_of todo-1)" >/dev/null 2>"$work/stop.err" || true
grep -v 'systemd connection' "$work/stop.err" >&2 || true
stop_seconds=$((SECONDS - stop_started))
wait "$writer" || true
acknowledged="$(grep -c . "$work/acknowledged" || true)"
refused="$(grep -c . "$work/refused" || true)"
refusals="$(sort "$work/refused" | uniq -c | sed 's/^ *\([0-9]*\) \(.*\)/\2 x\1/' | paste -sd ';' -)"
expect "todo-1 stopped (podman stop, SIGTERM) with exit status 0 in $stop_seconds s" 0 \
  "$(podman inspect --format '{{.State.ExitCode}}' "$(container_of todo-1)")"
request GET "$two/todos?q=write&limit=1000"
python3 - "$work/acknowledged" "$work/body" >"$work/lost" <<'PY' || true
import json, sys
acknowledged = [json.loads(line)["id"] for line in open(sys.argv[1]) if line.strip()]
stored = {todo["id"] for todo in json.load(open(sys.argv[2]))}
print(len([i for i in acknowledged if i not in stored]))
PY
expect "stopping todo-1 amid $writes writes through nginx: none of the $acknowledged acknowledged lost ($refused not acknowledged${refusals:+: $refusals})" 0 \
  "$(cat "$work/lost")"
if ((acknowledged >= writes * 9 / 10)); then
  pass "nginx sent the writes to todo-2 while todo-1 stopped: $acknowledged of $writes acknowledged"
else
  fail "only $acknowledged of $writes writes acknowledged while todo-1 stopped ($refused refused: $refusals)"
fi
finish
