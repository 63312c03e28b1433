#!/usr/bin/env bash
# Instructions and allocations per request, figures that a noisy shared machine barely moves.
#
# For each server (TodoServer, raw C, Hummingbird) and workload, runs the release binary with one
# loop thread under `valgrind --tool=callgrind`, seeds 20 to-dos, warms up, zeroes the counters,
# drives exactly N requests over one keep-alive connection, and divides the instructions counted by
# N. Then the same under an LD_PRELOAD malloc counter for allocations per request.
# valgrind 3.19 cannot read the release binary's DWARF, so it runs a copy without debug info
# (symbols kept). A server whose run under valgrind fails gets "n/a" (Hummingbird's SwiftNIO binary
# here: it does not survive the dump) and still has its allocations counted. Environment: N (2000), SERVERS
# ("todo c hummingbird"), INSTRUCTIONS (1; 0 counts allocations only), TODO_BINARY (measure this
# staged todo-server instead of building one; only what SERVERS names is built), KEEP (a folder:
# each run's callgrind profile is kept there as <server>-<workload>.out, for callgrind_annotate),
# WORKLOADS (the workloads to run, by name: "get-one list20 post patch"), SUBSCRIBERS (0: that many
# live-feed streams follow the server during the drive, `subscriber.py`; every change the drive
# makes must reach each of them before the counters are read, so their delivery is counted),
# ALLOCATIONS (1; 0 skips the allocation count: "n/a"). The server's own settings pass through:
# TODO_DATA_DIR=<a fresh folder> measures the journaled store (Benchmarks/stores/callgrind.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
N=${N:-2000} SERVERS=${SERVERS:-"todo c hummingbird"} INSTRUCTIONS=${INSTRUCTIONS:-1}
SUBSCRIBERS=${SUBSCRIBERS:-0} ALLOCATIONS=${ALLOCATIONS:-1}
work=$(mktemp -d)
followers=() pid=""
# On any exit: the feed streams and a server still running (a failed drive or wait) go too.
cleanup() {
  [ ${#followers[@]} -eq 0 ] || kill "${followers[@]}" 2>/dev/null || true
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# Ports from a base of this run's own, skipping any a server listens on: several runs (or other
# benchmarks) may share the machine, and a drive against someone else's server counts nothing.
port=$((19180 + ($$ % 400) * 20))
next_port() {
  port=$((port + 1))
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  export TODO_PORT=$port
}
export TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1

staged=.build/staging
if [ -n "${TODO_BINARY:-}" ]; then
  staged=$(dirname "$TODO_BINARY")
elif [[ " $SERVERS " == *" todo "* ]]; then
  scripts/build-release.sh .build/staging >/dev/null
fi
[[ " $SERVERS " == *" c "* ]] && make -s -C Benchmarks/Peers/C
make -s -C Benchmarks/wire/malloc-count
preload="$PWD/Benchmarks/wire/malloc-count/libmalloccount.so"
if [[ " $SERVERS " == *" todo "* ]]; then
  cp -R "$staged/." "$work/todo"
  objcopy --strip-debug "$work/todo/todo-server"
fi
hb="$work/TodoHummingbird"
if [[ " $SERVERS " == *" hummingbird "* ]]; then
  Benchmarks/Peers/build.sh TodoHummingbird >/dev/null
  objcopy --strip-debug Benchmarks/Peers/TodoHummingbird/.build/release/TodoHummingbird "$hb"
fi

command_for() {
  case "$1" in
    todo) echo "$work/todo/todo-server" ;;
    c) echo "$root/Benchmarks/Peers/C/todo_c_server $port 1" ;;
    hummingbird) echo "$hb $port 1" ;;
  esac
}

# Waits for this run's server (pid) to answer, for at most 300 s (a Swift binary starting under
# valgrind on a loaded machine); fails at once if it has exited.
wait_up() {
  local deadline=$((SECONDS + 300))
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$pid" 2>/dev/null || return 1
    curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# follow: starts SUBSCRIBERS feed streams and waits (at most 120 s) until each is on.
follow() {
  local index deadline=$((SECONDS + 120))
  followers=()
  for index in $(seq 1 "$SUBSCRIBERS"); do
    python3 Benchmarks/wire/subscriber.py $port "$work/events.$index" &
    followers+=($!)
  done
  for index in $(seq 1 "$SUBSCRIBERS"); do
    until [ -s "$work/events.$index" ]; do
      [ $SECONDS -lt $deadline ] || { echo "feed stream $index did not start" >&2; exit 1; }
      sleep 0.05
    done
  done
}

# delivered COUNT: waits (at most 300 s) until every feed stream has been sent COUNT events.
delivered() {
  local index deadline=$((SECONDS + 300))
  for index in $(seq 1 "$SUBSCRIBERS"); do
    until [ "$(cat "$work/events.$index")" -ge "$1" ]; do
      [ $SECONDS -lt $deadline ] || { echo "feed stream $index got $(cat "$work/events.$index") of $1 events" >&2; exit 1; }
      sleep 0.05
    done
  done
}

# unfollow: ends the feed streams.
unfollow() {
  [ ${#followers[@]} -eq 0 ] || { kill "${followers[@]}" 2>/dev/null || true; wait "${followers[@]}" 2>/dev/null || true; }
  followers=()
  rm -f "$work"/events.*
}

workloads=("get-one GET /todos/ID" "list20 GET /todos" "post POST /todos {\"title\":\"a thirty character title here!\"}" "patch PATCH /todos/ID {\"completed\":true}")

WORKLOADS=${WORKLOADS:-"get-one list20 post patch"}

printf "| server | workload | instructions/request | allocations/request |\n|---|---|---|---|\n"
for server in $SERVERS; do
  for spec in "${workloads[@]}"; do
    read -r name method target body <<<"$spec"
    [[ " $WORKLOADS " == *" $name "* ]] || continue
    # Instructions.
    # (Hummingbird's SwiftNIO binary does not start under valgrind 3.19 here: "n/a".)
    instructions="n/a"
    next_port
    if [ "$INSTRUCTIONS" = 1 ]; then
      (cd "$work" && exec valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" $(command_for "$server")) >/dev/null 2>&1 &
      pid=$!
    fi
    if [ "$INSTRUCTIONS" = 1 ] && wait_up; then
      ids=$(python3 Benchmarks/seed.py $port 20 1)
      path=${target/ID/${ids%%,*}}
      # Each write is one change every feed stream is sent.
      changes=0
      [ "$method" = GET ] || changes=1
      follow
      python3 Benchmarks/wire/drive.py $port "$method" "$path" 200 ${body:+"$body"}
      delivered $((changes * 200))
      callgrind_control -z $pid >/dev/null
      python3 Benchmarks/wire/drive.py $port "$method" "$path" "$N" ${body:+"$body"}
      delivered $((changes * (200 + N)))
      callgrind_control -d $pid >/dev/null
      unfollow
      total=$(cat "$work"/cg.out.* 2>/dev/null | grep '^summary:' | tail -1 | awk '{print $2}' || true)
      [ -n "$total" ] && instructions=$((total / N))
      if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cat "$work"/cg.out.* > "$KEEP/$server-$name.out" 2>/dev/null || true; fi
    fi
    if [ "$INSTRUCTIONS" = 1 ]; then
      kill $pid 2>/dev/null || true
      wait $pid 2>/dev/null || true
    fi
    rm -f "$work"/cg.out*
    # Allocations.
    if [ "$ALLOCATIONS" != 1 ]; then
      printf "| %s | %s | %s | n/a |\n" "$server" "$name" "$instructions"
      continue
    fi
    counts="$work/malloc.txt"
    next_port
    (cd "$work" && MALLOC_COUNT_FILE="$counts" LD_PRELOAD="$preload" exec $(command_for "$server")) >/dev/null 2>&1 &
    pid=$!
    wait_up || { echo "$server did not start" >&2; exit 1; }
    ids=$(python3 Benchmarks/seed.py $port 20 1)
    path=${target/ID/${ids%%,*}}
    python3 Benchmarks/wire/drive.py $port "$method" "$path" 200 ${body:+"$body"}
    kill -URG $pid; sleep 0.2; before=$(cat "$counts")
    python3 Benchmarks/wire/drive.py $port "$method" "$path" "$N" ${body:+"$body"}
    kill -URG $pid; sleep 0.2; after=$(cat "$counts")
    kill $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    printf "| %s | %s | %s | %s |\n" "$server" "$name" "$instructions" \
      "$(python3 -c "print(f'{($after - $before) / $N:.1f}')")"
  done
done
