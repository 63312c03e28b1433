#!/usr/bin/env bash
# Writes scripts/link-order.txt, the order in which the release link lays out the functions that
# run (issue 38, idle memory). scripts/build-release.sh hands the file to the linker.
#
# Why: the binary's text is 12.6 MB, of which a start plus one of each request runs about 3.2 MB
# (callgrind, at 46eec4d). Those functions were spread over the whole text. The kernel maps a
# file's pages 64 KiB at a time around each fault (fault-around) and reads ahead around it, so
# 10.4-11.1 MB of text was resident at idle. Laid out together, the code that runs shares pages and
# the rest stays on disk.
#
# How: runs the staged binary under `valgrind --tool=callgrind` twice (in memory, then journaled
# in a data directory), starts it, sends each route once or a few times (the workload below), stops
# it with SIGTERM, and lists every function of the binary that ran, the most instructions first
# (the request path ahead of code that runs once), one symbol a line, as lld's
# --symbol-ordering-file reads them: the Swift compiler and the static Swift runtime put each
# function in a section of its own, which the linker can move.
# The file may go stale as the code changes: a function it does not name is laid out after the ones
# it names, and a name that no longer exists is skipped (--no-warn-symbol-ordering), so a stale
# file costs memory, never correctness. Rerun this script after large changes and commit the file with the figures.
#
# Usage: scripts/link-order.sh [staged todo-server]   (default: .build/staging/todo-server)
# CHECK=1 (CI) writes nothing: it fails when fewer than MIN_PERCENT (80) of the movable functions
# that run now are named in the committed file, that is when the file has gone stale enough to
# cost memory again: rerun the script and commit the file.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/staging/todo-server}")
[ -x "$binary" ] || { echo "link-order: no executable at $binary (scripts/build-release.sh stages one)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "link-order: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d)
pid="" follower=""
cleanup() {
  for process in $pid $follower; do kill "$process" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# valgrind 3.19 cannot read the release binary's DWARF: a copy without debug info, symbols kept.
cp "$binary" "$work/todo-server"
objcopy --strip-debug "$work/todo-server"

# events BASE LAST-EVENT-ID COUNT: reads the live feed from LAST-EVENT-ID until COUNT events came
# (a replay), then hangs up.
events() {
  python3 - "$@" <<'PY'
import sys, urllib.request
base, last, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
request = urllib.request.Request(base + "/todos/events", headers={"Last-Event-ID": last})
with urllib.request.urlopen(request, timeout=600) as stream:
    seen = 0
    while seen < count:
        line = stream.readline()
        if not line:
            sys.exit("link-order: the feed ended after %d of %d events" % (seen, count))
        seen += line.startswith(b"id:")
PY
}

# drive PORT: each route once or a few times, as a client would (curl).
drive() {
  local base=http://127.0.0.1:$1 id first
  # A live-feed stream follows every change of the drive (the cap only guards against a hang).
  curl -sS -N -m 600 "$base/todos/events" >/dev/null 2>&1 &
  follower=$!
  curl -fsS "$base/healthz" "$base/" "$base/openapi.json" "$base/metrics" >/dev/null
  curl -fsS -X POST "$base/todos" -d '{"title":"first"}' >/dev/null
  first=$(curl -fsS -D - -o /dev/null "$base/todos" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-last-event-id" {print $2}')
  # At least six changes after `first` (four POSTs, the first PATCH, the PUT; the PATCHes that
  # change nothing may add none): the replay below reads five of them.
  for title in milk bread "call Bob"; do
    curl -fsS -X POST "$base/todos" -H 'Content-Type: application/json' \
      -d "{\"title\":\"$title\",\"order\":1,\"dueDate\":\"2026-12-08\"}" >/dev/null
  done
  id=$(curl -fsS -X POST "$base/todos" -d '{"title":"walk"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  for _ in 1 2 3; do
    curl -fsS "$base/todos" "$base/todos/$id" "$base/todos?completed=false&sort=-title&limit=2&q=a" >/dev/null
    curl -fsS -X PATCH "$base/todos/$id" -H 'Content-Type: application/merge-patch+json' -d '{"completed":true}' >/dev/null
  done
  curl -fsS -X PUT "$base/todos/$id" -d '{"title":"run","completed":false,"order":2}' >/dev/null
  curl -fsS -I "$base/todos/$id" >/dev/null
  curl -fsS -H 'If-None-Match: *' -o /dev/null "$base/todos/$id" || true
  curl -fsS "$base/todos/upcoming?tz=Europe/Berlin&weekStart=sunday" >/dev/null
  curl -fsS -X OPTIONS "$base/todos" -H 'Origin: https://app.example' \
    -H 'Access-Control-Request-Method: PATCH' >/dev/null
  # Errors: not found, bad JSON, a bad id, a bad query.
  curl -sS "$base/nothing" "$base/todos/nope" "$base/todos?limit=0" >/dev/null
  curl -sS -X POST "$base/todos" -d '{"title":' >/dev/null
  # A replay of the changes since `first`.
  events "$base" "$first" 5
  kill "$follower" 2>/dev/null || true
  follower=""
  curl -fsS -o /dev/null -X DELETE "$base/todos/$id"
  curl -fsS -o /dev/null -X DELETE "$base/todos"
}

# profile NAME [VAR=VALUE…]: one callgrind run of a start, the drive and a stop.
profile() {
  local name=$1
  shift
  local port=""
  # Port 0: the kernel picks a free one, which the banner names ("port=N … listening on"), so the
  # drive never reaches another server.
  (cd "$work" && exec env TODO_HOST=127.0.0.1 TODO_PORT=0 "$@" valgrind --tool=callgrind \
    --demangle=no --compress-strings=no --compress-pos=no --callgrind-out-file="$work/$name.out" \
    ./todo-server) >"$work/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 1200); do
    port=$(grep 'listening' "$work/$name.log" | grep -o 'port=[0-9]*' | head -1 | cut -c6- || true)
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$port" ] || { echo "link-order: the server did not start within 120 s" >&2; cat "$work/$name.log" >&2; exit 1; }
  drive "$port"
  kill -TERM "$pid"
  wait "$pid" || true
  pid=""
}

profile memory
mkdir "$work/data"
profile journal TODO_DATA_DIR="$work/data"

# The functions that have a section of their own, which the linker can move: lld gives a section
# the place of its first symbol in the order, so a function inside a file's shared `.text` (the Swift
# compiler emits merged functions, thunks and partial applications there; the static runtime's
# Swift.o keeps 1.6 MB in one) would drag that whole section into the middle of the ordered
# functions. They come last.
objects=$(swift build -c release --show-bin-path)/todo-server.product/Objects.LinkFileList
[ -f "$objects" ] || { echo "link-order: no $objects: build with scripts/build-release.sh first" >&2; exit 1; }
static=$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')_static/linux
# xargs reads the list's quoting ('…/Unmanaged extensions.swift.o').
{
  xargs readelf -S -W <"$objects"
  readelf -S -W "$static"/*.a
} 2>/dev/null | { grep -o ' \.text\.[^ ]*' || true; } | cut -c8- | sort -u >"$work/movable.txt"
# Thousands on any real build (38,000 at 46eec4d): far fewer means the lists were not read.
[ "$(wc -l <"$work/movable.txt")" -gt 10000 ] || { echo "link-order: too few sections found in $objects and $static" >&2; exit 1; }

python3 - "$work/movable.txt" "$work/memory.out" "$work/journal.out" >"$work/fresh.txt" <<'PY'
import collections, sys

movable = set(line.rstrip("\n") for line in open(sys.argv[1]))

# Self instructions of each function of the binary ("ob=" ending in /todo-server), over both runs.
cost = collections.Counter()
for path in sys.argv[2:]:
    ob = fn = None
    after_calls = False
    for line in open(path):
        if line.startswith("ob="):
            ob = line[3:].strip()
        elif line.startswith("fn="):
            # callgrind marks a recursion depth as name'2: the symbol is the same.
            fn = line[3:].strip().split("'")[0]
            after_calls = False
            # Symbols only: callgrind names code without one by its address (0x…), and the start
            # of the process "(below main)".
            if ob.endswith("/todo-server") and not fn.startswith(("0x", "(")):
                cost[fn] += 0
        elif line.startswith("calls="):
            after_calls = True  # the next cost line is the callee's inclusive cost
        elif line[:1].isdigit():
            if after_calls:
                after_calls = False
            elif fn in cost:
                cost[fn] += int(line.split()[1])
# Movable functions first, then the rest; the most instructions first within each.
for name, _ in sorted(cost.items(), key=lambda item: (item[0] not in movable, -item[1], item[0])):
    print(name)
PY
if [ "${CHECK:-0}" = 1 ]; then
  # The binary itself: linked by lld, its text starting with the file's functions.
  # (Files, not pipes into `grep -q` or `head`: a reader that stops early would fail the writer
  # with SIGPIPE under pipefail.)
  readelf -p .comment "$binary" >"$work/comment.txt"
  grep -q 'Linker: LLD' "$work/comment.txt" || { echo "link-order: $binary was not linked by lld" >&2; exit 1; }
  nm -n --defined-only "$binary" >"$work/symbols.txt"
  awk '$2 == "t" || $2 == "T" {print $3; if (++n == 20) exit}' "$work/symbols.txt" >"$work/leading.txt"
  leading=$(grep -cxFf scripts/link-order.txt "$work/leading.txt" || true)
  if [ "$leading" -lt 15 ]; then
    echo "link-order: only $leading of the first 20 functions of $binary's text are in scripts/link-order.txt: not linked in its order" >&2
    exit 1
  fi
  movable_now=$({ grep -xFf "$work/movable.txt" "$work/fresh.txt" || true; } | sort -u)
  total=$(printf '%s\n' "$movable_now" | grep -c . || true)
  [ "$total" -gt 0 ] || { echo "link-order: no movable function ran: the profile is broken" >&2; exit 1; }
  named=$(printf '%s\n' "$movable_now" | grep -cxFf scripts/link-order.txt || true)
  percent=$((named * 100 / total))
  echo "link-order: $named of the $total movable functions that run are named in scripts/link-order.txt ($percent %)"
  if [ "$percent" -lt "${MIN_PERCENT:-80}" ]; then
    echo "link-order: the file is stale (under ${MIN_PERCENT:-80} %): run scripts/link-order.sh and commit scripts/link-order.txt" >&2
    exit 1
  fi
else
  mv "$work/fresh.txt" scripts/link-order.txt
  echo "link-order: $(wc -l <scripts/link-order.txt) functions in scripts/link-order.txt, $(grep -cxFf "$work/movable.txt" scripts/link-order.txt) of them in sections of their own"
fi
