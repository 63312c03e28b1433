#!/usr/bin/env bash
# Drives the release binary with HTTP clients nobody here wrote and checks every answer (status,
# body shape, headers, connection reuse):
# - curl: keep-alive (several URLs on one connection: %{num_connects}), --http1.0 with and without
#   keep-alive, -Z parallel GETs and POSTs, HEAD then GET on one connection, 304 and 204 followed by
#   a GET, Connection: close, Expect: 100-continue (forced on a small and a 1 MB body, and curl's own
#   on a body over the limit: 413 at once), chunked uploads (and one over the limit: 413);
# - wrk (2 s, 8 connections: GET, POST, 8-deep pipelining): no non-2xx answer, no socket error;
# - ApacheBench: `ab -k` (HTTP/1.0 keep-alive) GET and POST, and `ab` without -k: no failed request,
#   no non-2xx, every request kept alive with -k;
# - Python http.client, requests, aiohttp and h11 as an oracle of the byte stream, pipelining and
#   refusals included (scripts/real_clients.py, in .venv-tools/: scripts/python-tools.sh);
# - Node's built-in fetch (undici), where the installed Node has it.
# Installs curl, wrk, apache2-utils and nodejs from Debian when missing. Prints failed checks, then
# one summary line; exits non-zero on any failure.
# Usage: scripts/real-clients.sh [staging-folder]   (default: .build/staging)
# Environment: SKIP_BUILD=1 to reuse the staged binary (otherwise scripts/build-release.sh stages it).
set -euo pipefail
cd "$(dirname "$0")/.."
staging="${1:-.build/staging}"

missing=()
for tool in curl:curl wrk:wrk ab:apache2-utils node:nodejs; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
tools="$(scripts/python-tools.sh)"
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-release.sh "$staging" >/dev/null
staging="$(cd "$staging" && pwd)"

work="$(mktemp -d)"
log="$work/server.log"
results="$work/results"  # one line per check: pass<TAB>name or fail<TAB>name: detail
: >"$results"
pid=""
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# A free port: one that nothing answers on, below the usual ephemeral range (the clients' own
# ports); a server that still finds it taken exits, and the next port is tried.
port_is_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for attempt in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 12000))
  port_is_free "$port" || continue
  (cd "$staging" && TODO_HOST=127.0.0.1 TODO_PORT=$port exec ./todo-server) >"$log" 2>&1 &
  pid=$!
  # Up to 30 s for the first answer (a deadline, not a pause: it ends at the first answer).
  deadline=$((SECONDS + 30))
  until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then break; fi
    sleep 0.05
  done
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  if kill -0 "$pid" 2>/dev/null; then
    echo "real clients: no answer from /healthz within 30 s; server log:" >&2; cat "$log" >&2; exit 1
  fi
  grep -q "Address already in use" "$log" && [ "$attempt" -lt 5 ] && { pid=""; continue; }
  echo "real clients: the server exited before answering; its log:" >&2; cat "$log" >&2; exit 1
done
base="http://127.0.0.1:$port"

# From here on a failed command is a failed check, not the end of the run: every check runs.
set +e
pass() { printf 'pass\t%s\n' "$1" >>"$results"; }
fail() { printf 'fail\t%s: %s\n' "$1" "$2" >>"$results"; echo "FAIL $1: $2" >&2; }
# check NAME COMMAND...: the command's success is the check.
check() { local name=$1; shift; if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "failed: $*"; fi; }
not_grep() { ! grep -q "$@"; }
# same NAME ACTUAL EXPECTED
same() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', expected '$3'"; fi; }
# shape KIND FILE: the body is a KIND (health, index, todo, todos, problem).
shape() { "$tools/python" scripts/real_clients.py shape "$1" "$2"; }
# field NAME HEADERS-FILE: the value of the last field NAME in a head curl wrote with -D.
field() { sed -n "s/^$1: *//Ip" "$2" | tr -d '\r' | tail -1; }
# status HEADERS-FILE: the last status code in it (after any 100 Continue).
status() { sed -n 's/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$1" | tr -d '\r' | tail -1; }
c="curl -sS --no-progress-meter --max-time 20"

# --- curl ---------------------------------------------------------------------------------------
out="$($c -w '%{http_code} %{num_connects} %{http_version}\n' -o "$work/k1" "$base/healthz" -o "$work/k2" "$base/" \
  -o "$work/k3" "$base/todos" -o "$work/k4" "$base/openapi.json")"
same "curl keep-alive: 4 URLs, one connection, HTTP/1.1" "$(tr '\n' ';' <<<"$out")" "200 1 1.1;200 0 1.1;200 0 1.1;200 0 1.1;"
check "curl keep-alive: /healthz body" shape health "$work/k1"
check "curl keep-alive: / body" shape index "$work/k2"
check "curl keep-alive: /todos body" shape todos "$work/k3"
check "curl keep-alive: /openapi.json body" grep -q '"openapi": *"3.1.0"' "$work/k4"

$c -D "$work/h" -o "$work/b" -H 'Content-Type: application/json' -d '{"title":"curl","order":1}' "$base/todos"
same "curl POST /todos: 201" "$(status "$work/h")" 201
check "curl POST /todos: a to-do" shape todo "$work/b"
location="$(field Location "$work/h")"
id="${location##*/}"
same "curl POST /todos: Location is the to-do's url" "$location" "$(jq -r .url "$work/b")"
same "curl POST /todos: ETag" "$(field ETag "$work/h")" '"1"'
same "curl POST /todos: Content-Length is the body's" "$(field Content-Length "$work/h")" "$(wc -c <"$work/b" | tr -d ' ')"
same "curl POST /todos: Content-Type" "$(field Content-Type "$work/h")" application/json
check "curl POST /todos: X-Request-ID" test -n "$(field X-Request-ID "$work/h")"
check "curl POST /todos: Date" test -n "$(field Date "$work/h")"

# HEAD, then GET on the same connection: the HEAD's answer must have no body, or the GET's
# answer would be read from its bytes.
out="$($c -I -D "$work/h1" -o /dev/null -w '%{http_code} %{num_connects} %{size_download};' "$base/todos/$id" \
  --next -sS -D "$work/h2" -o "$work/b2" -w '%{http_code} %{num_connects}' "$base/todos/$id")"
same "curl HEAD then GET, one connection" "$out" "200 1 0;200 0"
same "curl HEAD: the GET's Content-Length" "$(field Content-Length "$work/h1")" "$(wc -c <"$work/b2" | tr -d ' ')"
same "curl HEAD: the GET's ETag" "$(field ETag "$work/h1")" "$(field ETag "$work/h2")"
check "curl GET after HEAD: the to-do" shape todo "$work/b2"

# 304 and 204 carry no body: the next answer on the connection must parse.
out="$($c -o /dev/null -w '%{http_code} %{num_connects} %{size_download};' -H 'If-None-Match: "1"' "$base/todos/$id" \
  --next -sS -o /dev/null -w '%{http_code} %{num_connects} %{size_download};' -X OPTIONS -H 'Origin: http://example.test' \
  -H 'Access-Control-Request-Method: PATCH' "$base/todos/$id" \
  --next -sS -o "$work/b" -w '%{http_code} %{num_connects}' "$base/healthz")"
same "curl 304, preflight 204, then GET on one connection" "$out" "304 1 0;204 0 0;200 0"
check "curl GET after 304 and 204: health" shape health "$work/b"

out="$($c -w '%{http_code} %{num_connects};' -H 'Connection: close' -o /dev/null "$base/healthz" -o /dev/null "$base/healthz")"
same "curl Connection: close: a new connection for each" "$out" "200 1;200 1;"

out="$($c -o "$work/b" -D "$work/h" -w '%{http_code} %{size_download}' -X PATCH -H 'If-Match: "1"' \
  -H 'Content-Type: application/merge-patch+json' -d '{"completed":true,"order":null}' "$base/todos/$id")"
same "curl PATCH If-Match: 200" "${out%% *}" 200
same "curl PATCH: ETag \"2\", completed, order cleared" "$(field ETag "$work/h") $(jq -c '[.completed,.order]' "$work/b")" '"2" [true,null]'
$c -o "$work/b" -D "$work/h" "$base/nope"
same "curl GET /nope: 404" "$(status "$work/h")" 404
same "curl GET /nope: problem+json" "$(field Content-Type "$work/h")" application/problem+json
check "curl GET /nope: a problem with status 404" jq -e '.status == 404' "$work/b"

# HTTP/1.0: no reuse unless keep-alive is asked for, then reuse when the answer says keep-alive.
out="$($c --http1.0 -D "$work/h" -w '%{http_code} %{num_connects};' -o /dev/null "$base/healthz" -o "$work/b" "$base/healthz")"
same "curl --http1.0: 200 on a new connection each time" "$out" "200 1;200 1;"
check "curl --http1.0: health body" shape health "$work/b"
same "curl --http1.0: Content-Length" "$(field Content-Length "$work/h")" "$(wc -c <"$work/b" | tr -d ' ')"
check "curl --http1.0: not chunked" test -z "$(field Transfer-Encoding "$work/h")"
check "curl --http1.0: no keep-alive in the answer" test "$(field Connection "$work/h" | tr A-Z a-z)" != keep-alive
out="$($c --http1.0 -H 'Connection: keep-alive' -D "$work/h" -w '%{http_code} %{num_connects};' \
  -o /dev/null "$base/todos/$id" -o /dev/null "$base/todos/$id" -o "$work/b" "$base/healthz")"
check "curl --http1.0 keep-alive: health body" shape health "$work/b"
same "curl --http1.0 keep-alive: three requests, one connection" "$out" "200 1;200 0;200 0;"
same "curl --http1.0 keep-alive: Connection: keep-alive" "$(field Connection "$work/h" | tr A-Z a-z)" keep-alive

# -Z: parallel transfers (up to 8 connections) of GETs and of POSTs.
out="$($c -Z --parallel-max 8 -w '%{http_code} %{http_version}\n' -o "$work/z#1" "$base/todos?limit=[1-24]" | sort | uniq -c | awk '{$1=$1};1')"
same "curl -Z: 24 parallel GETs, all 200 over HTTP/1.1" "$out" "24 200 1.1"
bad=0
for n in $(seq 1 24); do shape todos "$work/z$n" || bad=$((bad + 1)); done
same "curl -Z: 24 lists" "$bad" 0
urls=()
for n in $(seq 1 16); do urls+=(-o /dev/null "$base/todos"); done
out="$($c -Z --parallel-max 8 -H 'Content-Type: application/json' -d '{"title":"parallel"}' -w '%{http_code}\n' "${urls[@]}" | sort | uniq -c | awk '{$1=$1};1')"
same "curl -Z: 16 parallel POSTs, all 201" "$out" "16 201"

# Expect: 100-continue. curl waits up to --expect100-timeout for the 100 before it sends the body:
# a prompt 100 (and a prompt final answer to a refused body) shows in the time taken.
printf '{"title":"expect"}' >"$work/small"
out="$($c -v --expect100-timeout 10 -H 'Expect: 100-continue' -H 'Content-Type: application/json' --data-binary @"$work/small" \
  -o "$work/b" -w '%{http_code} %{time_total}' "$base/todos" 2>"$work/v")"
same "curl Expect (forced, small body): 201" "${out%% *}" 201
check "curl Expect (forced, small body): 100 Continue" grep -q '^< HTTP/1.1 100 Continue' "$work/v"
check "curl Expect (forced, small body): no wait for the time-out" awk -v t="${out#* }" 'BEGIN { exit !(t < 5) }'
check "curl Expect (forced, small body): the to-do" shape todo "$work/b"
# A body of 1,000,000 bytes within maxBodyBytes (1 MiB): JSON with white space around the title.
"$tools/python" -c 'import sys; core = "\"title\":\"one megabyte\""; pad = 1000000 - 2 - len(core); sys.stdout.write("{" + " " * (pad // 2) + core + " " * (pad - pad // 2) + "}")' >"$work/mb"
same "curl Expect (forced, 1 MB body): the body is 1,000,000 bytes" "$(wc -c <"$work/mb" | tr -d ' ')" 1000000
out="$($c -v --expect100-timeout 10 -H 'Expect: 100-continue' -H 'Content-Type: application/json' --data-binary @"$work/mb" \
  -o "$work/b" -w '%{http_code} %{time_total}' "$base/todos" 2>"$work/v")"
same "curl Expect (forced, 1 MB body): 201" "${out%% *}" 201
check "curl Expect (forced, 1 MB body): 100 Continue" grep -q '^< HTTP/1.1 100 Continue' "$work/v"
check "curl Expect (forced, 1 MB body): no wait for the time-out" awk -v t="${out#* }" 'BEGIN { exit !(t < 5) }'
same "curl Expect (forced, 1 MB body): the to-do" "$(jq -r .title "$work/b")" "one megabyte"
# Over maxBodyBytes: curl adds Expect by itself for a body this size; 413 at once, no 100.
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$work/big"
out="$($c -v --expect100-timeout 10 -H 'Content-Type: application/json' --data-binary @"$work/big" \
  -D "$work/h" -o "$work/b" -w '%{http_code} %{time_total}' "$base/todos" 2>"$work/v")"
check "curl 2 MiB body: curl sent Expect: 100-continue by itself" grep -qi '^> Expect: 100-continue' "$work/v"
same "curl 2 MiB body: 413" "${out%% *}" 413
check "curl 2 MiB body: no 100 Continue" not_grep '^< HTTP/1.1 100' "$work/v"
check "curl 2 MiB body: answered without waiting" awk -v t="${out#* }" 'BEGIN { exit !(t < 5) }'
check "curl 2 MiB body: a problem with status 413" jq -e '.status == 413' "$work/b"
same "curl 2 MiB body: Connection: close" "$(field Connection "$work/h")" close

# Chunked uploads from standard input.
out="$(printf '{"title":"chunked","order":2}' | $c -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' \
  --data-binary @- -v -o "$work/b" -w '%{http_code}' "$base/todos" 2>"$work/v")"
check "curl chunked upload: sent chunked" grep -qi '^> Transfer-Encoding: chunked' "$work/v"
same "curl chunked upload: 201" "$out" 201
same "curl chunked upload: the to-do" "$(jq -c '[.title,.order]' "$work/b")" '["chunked",2]'
out="$("$tools/python" -c 'import sys; sys.stdout.write("{\"title\":\"chunked, large\"" + " " * 300000 + "}")' \
  | $c -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' --data-binary @- -o "$work/b" -w '%{http_code}' "$base/todos")"
same "curl chunked upload, 300 kB: 201" "$out" 201
same "curl chunked upload, 300 kB: the to-do" "$(jq -r .title "$work/b")" "chunked, large"
out="$(head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' ' ' | $c -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' \
  --data-binary @- -D "$work/h" -o "$work/b" -w '%{http_code}' "$base/todos" || true)"
same "curl chunked upload over maxBodyBytes: 413" "$out" 413
check "curl chunked upload over maxBodyBytes: a problem with status 413" jq -e '.status == 413' "$work/b"
same "curl chunked upload over maxBodyBytes: Connection: close" "$(field Connection "$work/h")" close

# --- wrk ----------------------------------------------------------------------------------------
cat >"$work/post.lua" <<'EOF'
wrk.method = "POST"
wrk.body = '{"title":"wrk"}'
wrk.headers["Content-Type"] = "application/json"
EOF
cat >"$work/pipeline.lua" <<'EOF'
init = function(args)
  local r = {}
  for i = 1, 8 do r[i] = wrk.format(nil, "/healthz") end
  req = table.concat(r)
end
request = function() return req end
EOF
wrk_run() {  # NAME ARGS...
  local name=$1; shift
  local out requests
  out="$(wrk -t2 -c8 -d2s "$@" 2>&1)" || { fail "wrk $name" "wrk exited $?: $out"; return; }
  requests="$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' <<<"$out")"
  check "wrk $name: requests answered" test "${requests:-0}" -gt 100
  if grep -q 'Non-2xx or 3xx responses' <<<"$out"; then fail "wrk $name: no non-2xx" "$(grep 'Non-2xx' <<<"$out")"; else pass "wrk $name: no non-2xx"; fi
  if grep -q 'Socket errors' <<<"$out"; then fail "wrk $name: no socket errors" "$(grep 'Socket errors' <<<"$out")"; else pass "wrk $name: no socket errors"; fi
}
wrk_run "GET /todos/{id}" "$base/todos/$id"
wrk_run "POST /todos" -s "$work/post.lua" "$base/todos"
wrk_run "8-deep pipeline of GET /healthz" -s "$work/pipeline.lua" "$base/healthz"
$c -o /dev/null -w '%{http_code}' -X DELETE "$base/todos" >"$work/b"
same "curl DELETE /todos after wrk: 204" "$(cat "$work/b")" 204

# --- ApacheBench --------------------------------------------------------------------------------
$c -o "$work/b" -H 'Content-Type: application/json' -d '{"title":"ab"}' "$base/todos"
id="$(jq -r .id "$work/b")"
ab_value() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" "$2"; }
ab_run() {  # NAME KEEP-ALIVE(0/1) ARGS...
  local name=$1 keep=$2; shift 2
  ab -q -l "$@" >"$work/ab" 2>&1 || { fail "ab $name" "ab exited $?: $(tail -3 "$work/ab")"; return; }
  local complete
  complete="$(ab_value 'Complete requests' "$work/ab")"
  check "ab $name: requests complete" test "${complete:-0}" -gt 0
  same "ab $name: failed requests" "$(ab_value 'Failed requests' "$work/ab")" 0
  same "ab $name: non-2xx responses" "$(ab_value 'Non-2xx responses' "$work/ab")" ""
  local errors keep_alive
  errors="$(ab_value 'Write errors' "$work/ab")"  # ab prints the line only when there were some
  same "ab $name: write errors" "${errors:-0}" 0
  keep_alive="$(ab_value 'Keep-Alive requests' "$work/ab")"
  if [ "$keep" = 1 ]; then
    same "ab $name: every request kept alive" "$keep_alive" "$complete"
  else
    same "ab $name: no keep-alive" "${keep_alive:-0}" 0
  fi
}
ab_run "-k GET /todos/{id}" 1 -k -n 3000 -c 8 "$base/todos/$id"
printf '{"title":"ab post"}' >"$work/ab-body"
ab_run "-k POST /todos" 1 -k -n 1000 -c 8 -p "$work/ab-body" -T application/json "$base/todos"
ab_run "GET /healthz (HTTP/1.0, no keep-alive)" 0 -n 500 -c 4 "$base/healthz"
ab_run "-k HEAD /todos/{id}" 1 -k -i -n 500 -c 4 "$base/todos/$id"
$c -o /dev/null -X DELETE "$base/todos"

# --- Python: http.client, requests, aiohttp, h11 ------------------------------------------------
"$tools/python" scripts/real_clients.py "$base" "$results" || fail "python clients" "scripts/real_clients.py exited $?"

# --- Node: the built-in fetch (undici) ----------------------------------------------------------
if node -e 'process.exit(typeof fetch === "function" ? 0 : 1)' 2>/dev/null; then
  node -e '
const base = process.argv[1];
const lines = [];
const check = (ok, name, detail) => lines.push(ok ? `pass\tnode fetch: ${name}` : `fail\tnode fetch: ${name}: ${detail}`);
const isTodo = (v) => v && typeof v.id === "string" && typeof v.title === "string" && typeof v.completed === "boolean" && v.url === `${base}/todos/${v.id}`;
const isProblem = (v, s) => v && v.status === s && typeof v.title === "string" && typeof v.detail === "string";
(async () => {
  let r = await fetch(`${base}/healthz`);
  let v = await r.json();
  check(r.status === 200 && r.headers.get("content-type") === "application/json" && v.status === "ok", "GET /healthz", `${r.status} ${JSON.stringify(v)}`);
  r = await fetch(`${base}/todos`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "fetch" }) });
  const todo = await r.json();
  check(r.status === 201 && isTodo(todo) && r.headers.get("location") === todo.url && r.headers.get("etag") === "\"1\"", "POST /todos: 201, Location, ETag", `${r.status} ${JSON.stringify(todo)}`);
  r = await fetch(todo.url, { method: "HEAD" });
  const text = await r.text();
  const length = r.headers.get("content-length");
  check(r.status === 200 && text === "" && /^[0-9]+$/.test(length), "HEAD /todos/{id}: Content-Length, no body", `${r.status} ${length} ${text.slice(0, 80)}`);
  r = await fetch(todo.url);
  const body = await r.text();
  check(r.status === 200 && String(Buffer.byteLength(body)) === length && isTodo(JSON.parse(body)), "GET after HEAD: the length HEAD announced", `${r.status} ${body.slice(0, 120)}`);
  r = await fetch(todo.url, { headers: { "if-none-match": "\"1\"" } });
  check(r.status === 304 && (await r.text()) === "", "If-None-Match: 304, no body", `${r.status}`);
  r = await fetch(`${base}/nope`);
  v = await r.json();
  check(r.status === 404 && r.headers.get("content-type") === "application/problem+json" && isProblem(v, 404), "GET /nope: 404 problem+json", `${r.status} ${JSON.stringify(v)}`);
  r = await fetch(todo.url, { method: "OPTIONS", headers: { origin: "http://example.test", "access-control-request-method": "PATCH" } });
  check(r.status === 204 && (await r.text()) === "", "preflight: 204, no body", `${r.status}`);
  // A streamed request body: undici sends it chunked.
  const stream = new ReadableStream({ start(c) { for (const part of ["{\"title\":", "\"streamed\",", "\"order\":5}"]) c.enqueue(new TextEncoder().encode(part)); c.close(); } });
  r = await fetch(`${base}/todos`, { method: "POST", headers: { "content-type": "application/json" }, body: stream, duplex: "half" });
  v = await r.json();
  check(r.status === 201 && isTodo(v) && v.title === "streamed" && v.order === 5, "POST a streamed (chunked) body: 201", `${r.status} ${JSON.stringify(v)}`);
  r = await fetch(`${base}/todos`, { method: "PATCH" });
  v = await r.json();
  check(r.status === 405 && isProblem(v, 405) && (r.headers.get("allow") || "").includes("GET"), "PATCH /todos: 405 with Allow", `${r.status} ${JSON.stringify(v)}`);
  const all = await Promise.all(Array.from({ length: 40 }, (_, n) => fetch(n % 2 ? `${base}/todos?limit=${n}` : todo.url).then(async (r) => [r.status, await r.json()])));
  check(all.every(([s, v], n) => s === 200 && (n % 2 ? Array.isArray(v) && v.every(isTodo) : isTodo(v))), "40 concurrent GETs", JSON.stringify(all.map(([s]) => s)));
  r = await fetch(todo.url, { method: "DELETE", headers: { "if-match": "\"1\"" } });
  check(r.status === 204 && (await r.text()) === "", "DELETE If-Match: 204, no body", `${r.status}`);
  r = await fetch(todo.url);
  v = await r.json();
  check(r.status === 404 && isProblem(v, 404), "GET after DELETE: 404", `${r.status}`);
})().catch((e) => check(false, "ran to the end", `${e} ${e.cause || ""}`)).finally(() => console.log(lines.join("\n")));
' "$base" >"$work/node" 2>&1 || true
  grep -E $'^(pass|fail)\t' "$work/node" >>"$results" || true
  grep -q . "$work/node" && ! grep -qvE $'^(pass|fail)\t' "$work/node" || fail "node fetch: output" "$(head -5 "$work/node")"
  grep $'^fail\t' "$work/node" | sed 's/^fail\t/FAIL /' >&2 || true
else
  echo "real clients: node has no built-in fetch ($(node --version 2>&1)): its checks skipped" >&2
fi

# --- the server lived through it and stops cleanly ----------------------------------------------
check "the server still answers" curl -fsS -o /dev/null "$base/healthz"
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
pid=""
same "the server exits 0 on SIGTERM" "$code" 0

passed="$(grep -c $'^pass\t' "$results" || true)"
failed="$(grep -c $'^fail\t' "$results" || true)"
if [ "$failed" -gt 0 ]; then
  echo "failed checks:" >&2
  grep $'^fail\t' "$results" | cut -f2- | sed 's/^/  /' >&2
  echo "server log (last 20 lines):" >&2
  tail -20 "$log" >&2
fi
echo "real clients: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
