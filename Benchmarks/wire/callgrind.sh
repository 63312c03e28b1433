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
# WORKLOADS (the workloads to run, by name: "get-one list20 post patch"). The server's own settings
# pass through: TODO_DATA_DIR=<a fresh folder> measures the journaled store (Benchmarks/stores/callgrind.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
N=${N:-2000} SERVERS=${SERVERS:-"todo c hummingbird"} INSTRUCTIONS=${INSTRUCTIONS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
  swift build -c release --package-path Benchmarks/Peers/TodoHummingbird >/dev/null
  objcopy --strip-debug Benchmarks/Peers/TodoHummingbird/.build/release/TodoHummingbird "$hb"
fi

command_for() {
  case "$1" in
    todo) echo "$work/todo/todo-server" ;;
    c) echo "$root/Benchmarks/Peers/C/todo_c_server $port 1" ;;
    hummingbird) echo "$hb $port 1" ;;
  esac
}

# Waits for this run's server (pid) to answer; fails at once if it has exited.
wait_up() { for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || return 1; curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }

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
      python3 Benchmarks/wire/drive.py $port "$method" "$path" 200 ${body:+"$body"}
      callgrind_control -z $pid >/dev/null
      python3 Benchmarks/wire/drive.py $port "$method" "$path" "$N" ${body:+"$body"}
      callgrind_control -d $pid >/dev/null
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
