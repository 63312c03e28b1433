#!/usr/bin/env bash
# What a POST costs into a large, growing store: instructions, allocations and page faults per
# request, where `callgrind.sh` (20 to-dos, 2,000 POSTs) sees none of the store's growth.
#
# For each server, one loop thread: seeds SEED to-dos (Benchmarks/seed.py, 4 pipelined
# connections), then drives N POSTs over one keep-alive connection (drive.py) and divides by N.
# Two runs per server: one under `valgrind --tool=callgrind` with instrumentation off while
# seeding (instructions), one native under the LD_PRELOAD malloc counter (allocations, and minor
# page faults from /proc/PID/stat, field 10). N large enough to cross the store's growth steps
# (the default 100,000 from 300,000 crosses the id table's doubling at 393,216 and the title
# buffer's growth) gives their amortized share. Environment: SEED (300000), N (100000), SERVERS
# ("todo c"), TODO_BINARY (a staged todo-server; default .build/staging/todo-server, built if
# missing), INSTRUCTIONS (1; 0 skips callgrind), KEEP (a folder for <server>-post-large.out).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
SEED=${SEED:-300000} N=${N:-100000} SERVERS=${SERVERS:-"todo c"} INSTRUCTIONS=${INSTRUCTIONS:-1}
TODO_BINARY=${TODO_BINARY:-.build/staging/todo-server}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
port=$((21180 + ($$ % 400) * 20))
next_port() {
  port=$((port + 1))
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  export TODO_PORT=$port
}
export TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1 SWIFT_DETERMINISTIC_HASHING=1

if [[ " $SERVERS " == *" todo "* ]]; then
  [ -x "$TODO_BINARY" ] || scripts/build-release.sh "$(dirname "$TODO_BINARY")" >/dev/null
  cp -R "$(dirname "$TODO_BINARY")/." "$work/todo"
  objcopy --strip-debug "$work/todo/todo-server"
fi
[[ " $SERVERS " == *" c "* ]] && make -s -C Benchmarks/Peers/C
make -s -C Benchmarks/wire/malloc-count
preload="$PWD/Benchmarks/wire/malloc-count/libmalloccount.so"
body='{"title":"a thirty character title here!"}'

command_for() {
  case "$1" in
    todo) echo "$work/todo/todo-server" ;;
    c) echo "$root/Benchmarks/Peers/C/todo_c_server $port 1" ;;
  esac
}
wait_up() { for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || return 1; curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
stop() { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; pid=; }
faults() { awk '{print $10}' "/proc/$pid/stat"; }
per() { python3 -c "print(f'{($2 - $1) / $N:.${3:-1}f}')"; }

printf "| server | seeded | POSTs | instructions/POST | allocations/POST | minor faults/POST | RSS after (MiB) |\n|---|---|---|---|---|---|---|\n"
for server in $SERVERS; do
  instructions=n/a
  if [ "$INSTRUCTIONS" = 1 ]; then
    next_port
    (cd "$work" && exec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/cg.out" $(command_for "$server")) >/dev/null 2>&1 &
    pid=$!
    wait_up || { echo "$server did not start under valgrind" >&2; exit 1; }
    python3 Benchmarks/seed.py $port "$SEED" 4 >/dev/null
    python3 Benchmarks/wire/drive.py $port POST /todos 200 "$body"
    callgrind_control -i on $pid >/dev/null
    python3 Benchmarks/wire/drive.py $port POST /todos "$N" "$body"
    callgrind_control -d $pid >/dev/null
    total=$(cat "$work"/cg.out.* | grep '^summary:' | tail -1 | awk '{print $2}')
    instructions=$((total / N))
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cat "$work"/cg.out.* >"$KEEP/$server-post-large.out"; fi
    stop
    rm -f "$work"/cg.out*
  fi
  counts="$work/malloc.txt"
  next_port
  (cd "$work" && MALLOC_COUNT_FILE="$counts" LD_PRELOAD="$preload" exec $(command_for "$server")) >/dev/null 2>&1 &
  pid=$!
  wait_up || { echo "$server did not start" >&2; exit 1; }
  python3 Benchmarks/seed.py $port "$SEED" 4 >/dev/null
  python3 Benchmarks/wire/drive.py $port POST /todos 200 "$body"
  kill -URG $pid; sleep 0.2; allocations=$(cat "$counts"); before=$(faults)
  python3 Benchmarks/wire/drive.py $port POST /todos "$N" "$body"
  after=$(faults); kill -URG $pid; sleep 0.2
  rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")
  printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$server" "$SEED" "$N" "$instructions" \
    "$(per "$allocations" "$(cat "$counts")")" "$(per "$before" "$after" 3)" "$rss"
  stop
done
