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
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# valgrind 3.19 cannot read the release binary's DWARF: a copy without debug info, symbols kept.
cp "$binary" "$work/todo-server"
objcopy --strip-debug "$work/todo-server"
port=$((20400 + ($$ % 500) * 4))

# drive PORT: each route once or a few times, as a client would (curl).
drive() {
  local base=http://127.0.0.1:$1 id follower last
  # A live-feed stream follows every change of the drive.
  curl -sS -N -m 60 "$base/todos/events" >/dev/null 2>&1 &
  follower=$!
  curl -fsS "$base/healthz" "$base/" "$base/openapi.json" "$base/metrics" >/dev/null
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
  # A replay, for a second, from the event the list names.
  last=$(curl -fsS -D - -o /dev/null "$base/todos" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-last-event-id" {print $2}')
  curl -sS -m 1 -N -H "Last-Event-ID: $last" "$base/todos/events" >/dev/null 2>&1 || true
  kill "$follower" 2>/dev/null || true
  curl -fsS -o /dev/null -X DELETE "$base/todos/$id"
  curl -fsS -o /dev/null -X DELETE "$base/todos"
}

# profile NAME [VAR=VALUE…]: one callgrind run of a start, the drive and a stop.
profile() {
  local name=$1
  shift
  port=$((port + 1))
  (cd "$work" && exec env TODO_HOST=127.0.0.1 TODO_PORT=$port "$@" valgrind --tool=callgrind \
    --demangle=no --compress-strings=no --compress-pos=no --callgrind-out-file="$work/$name.out" \
    ./todo-server) >"$work/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log" >&2; exit 1; }
    sleep 0.1
  done
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
bin=$(swift build -c release --show-bin-path)
toolchain=$(dirname "$(dirname "$(realpath "$(command -v swiftc)")")")
{
  tr -d "'" <"$bin/todo-server.product/Objects.LinkFileList" | xargs readelf -S -W 2>/dev/null || true
  readelf -S -W "$toolchain"/lib/swift_static/linux/*.a 2>/dev/null || true
} | grep -o ' \.text\.[^ ]*' | cut -c8- | sort -u >"$work/movable.txt"

output=scripts/link-order.txt
[ "${CHECK:-0}" = 1 ] && output=$work/fresh.txt
python3 - "$work/movable.txt" "$work/memory.out" "$work/journal.out" >"$output" <<'PY'
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
            if ob.endswith("/todo-server"):
                cost[fn] += 0
        elif line.startswith("calls="):
            after_calls = True  # the next cost line is the callee's inclusive cost
        elif line[:1].isdigit():
            if after_calls:
                after_calls = False
            elif ob.endswith("/todo-server"):
                cost[fn] += int(line.split()[1])
# Movable functions first, then the rest; the most instructions first within each.
for name, _ in sorted(cost.items(), key=lambda item: (item[0] not in movable, -item[1], item[0])):
    print(name)
PY
if [ "${CHECK:-0}" = 1 ]; then
  movable_now=$(grep -xFf "$work/movable.txt" "$work/fresh.txt" | sort -u)
  total=$(printf '%s\n' "$movable_now" | grep -c . || true)
  named=$(printf '%s\n' "$movable_now" | grep -cxFf scripts/link-order.txt || true)
  percent=$((total == 0 ? 100 : named * 100 / total))
  echo "link-order: $named of the $total movable functions that run are named in scripts/link-order.txt ($percent %)"
  if [ "$percent" -lt "${MIN_PERCENT:-80}" ]; then
    echo "link-order: the file is stale (under ${MIN_PERCENT:-80} %): run scripts/link-order.sh and commit scripts/link-order.txt" >&2
    exit 1
  fi
else
  echo "link-order: $(wc -l <scripts/link-order.txt) functions in scripts/link-order.txt, $(grep -cxFf "$work/movable.txt" scripts/link-order.txt) of them in sections of their own"
fi
