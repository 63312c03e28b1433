#!/usr/bin/env bash
# Side-by-side benchmark of TodoServer, the raw C evhttp server and Hummingbird 2, in one run.
#
# Builds all three in release mode, then for each round runs the servers in turn (A B C, A B C…),
# each fresh, with the same loop-thread count and the same 20 seeded to-dos, through the same wrk
# workloads; then, once per server, loads 1,000,000 to-dos for memory and the deep-page workload.
# Prints a table of medians (req/s, p50, p99, server CPU per request) with each server's ratio to
# TodoServer from the same rounds. Raw results go to Benchmarks/results/.
#
# Environment: ROUNDS (3), DURATION seconds per workload (10), THREADS per server (2),
# CONNECTIONS (64), MILLION (1000000; 0 skips that phase), SERVERS ("todo c hummingbird"; also
# "todo-at-once": the same TodoServer binary with TODO_WRITE_AT_TURN_END=false),
# ORIGIN sent on every request as a browser front end does ("http://localhost:3000"; empty: none),
# so that CORS middleware that acts only on requests with an Origin does its work.
# WORKLOADS: only these (e.g. "list20 get-one post"; default all). BUILD=0 uses the binaries built.
#
# PIN=1 (issue 38 item 4): per-core efficiency. Each server runs one loop thread (THREADS=1) pinned
# to CPU SERVER_CPU (0) with taskset, and wrk to CPU CLIENT_CPU (1), so that a server's req/s is
# what one core of it gives and its CPU per request is not shared with the load generator's. Every
# server is pinned the same way (raw C and Hummingbird included); nothing else about them changes.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10} THREADS=${THREADS:-2} CONNECTIONS=${CONNECTIONS:-64}
PIN=${PIN:-0} SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} WORKLOADS=${WORKLOADS:-}
server_pin=() client_pin=()
if [ "$PIN" = 1 ]; then
  THREADS=1 server_pin=(taskset -c "$SERVER_CPU") client_pin=(taskset -c "$CLIENT_CPU")
fi
MILLION=${MILLION:-1000000} SERVERS=${SERVERS:-"todo c hummingbird"} ORIGIN=${ORIGIN-http://localhost:3000}
results="Benchmarks/results/$([ "$PIN" = 1 ] && echo pinned-)$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

if [ "${BUILD:-1}" = 1 ]; then
  echo "== building (release)" >&2
  scripts/build-release.sh .build/staging >/dev/null
  make -s -C Benchmarks/Peers/C
  case " $SERVERS " in *" hummingbird "*) Benchmarks/Peers/build.sh TodoHummingbird >/dev/null ;; esac
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), pinned: $PIN, threads: $THREADS" | tee "$results/conditions.txt" >&2

port=19080
start_server() { # NAME → sets pid
  case "$1" in
    todo) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS exec "${server_pin[@]}" ./todo-server) >/dev/null 2>&1 & ;;
    # The same binary writing each answer as soon as it is made (docs/wire.md, writes at the end of the turn).
    todo-at-once) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS TODO_WRITE_AT_TURN_END=false exec "${server_pin[@]}" ./todo-server) >/dev/null 2>&1 & ;;
    c) "${server_pin[@]}" Benchmarks/Peers/C/todo_c_server $port "$THREADS" >/dev/null 2>&1 & ;;
    hummingbird) "${server_pin[@]}" Benchmarks/Peers/TodoHummingbird/.build/release/TodoHummingbird $port "$THREADS" >/dev/null 2>&1 & ;;
  esac
  pid=$!
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}
stop_server() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }

# run_wrk SERVER ROUND WORKLOAD [wrk arguments…]: one line of results per run.
run_wrk() {
  local server=$1 round=$2 workload=$3; shift 3
  [ -z "$WORKLOADS" ] || [[ " $WORKLOADS " == *" $workload "* ]] || return 0
  local before after
  before=$(cpu_ticks)
  local line
  local origin=()
  [ -n "$ORIGIN" ] && origin=(-H "Origin: $ORIGIN")
  line=$("${client_pin[@]}" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${origin[@]}" -s Benchmarks/wrk/report.lua "$@" | grep '^RESULT' || true)
  after=$(cpu_ticks)
  local ticks_per_second
  ticks_per_second=$(getconf CLK_TCK)
  echo "$server $round $workload $line cpu_ticks=$((after - before)) hz=$ticks_per_second" | tee -a "$results/raw.txt" >&2
}

# wrk loads one script; report.lua is prepended to the workload's own so both run.
combined() { cat Benchmarks/wrk/report.lua "Benchmarks/wrk/$1"; }

for round in $(seq 1 "$ROUNDS"); do
  for server in $SERVERS; do
    echo "== round $round: $server" >&2
    start_server "$server"
    ids=$(python3 Benchmarks/seed.py $port 20 1)
    first=${ids%%,*}
    url="http://127.0.0.1:$port"
    run_wrk "$server" "$round" list20 "$url/todos"
    run_wrk "$server" "$round" get-one "$url/todos/$first"
    combined patch.lua >"$results/patch.lua"; TODO_ID=$first run_wrk "$server" "$round" patch -s "$results/patch.lua" "$url"
    combined mixed.lua >"$results/mixed.lua"; TODO_IDS=$ids run_wrk "$server" "$round" mixed -s "$results/mixed.lua" "$url"
    # Before post, which adds to-dos: the list stays 20 long.
    combined pipeline16.lua >"$results/pipeline16.lua"; run_wrk "$server" "$round" pipeline16 -s "$results/pipeline16.lua" "$url"
    CONNECTIONS=256 run_wrk "$server" "$round" list20-c256 "$url/todos?limit=20"
    combined post.lua >"$results/post.lua"; run_wrk "$server" "$round" post -s "$results/post.lua" "$url/todos"
    stop_server
  done
done

if [ "$MILLION" -gt 0 ]; then
  for server in $SERVERS; do
    echo "== $MILLION to-dos: $server" >&2
    start_server "$server"
    sleep 1
    idle=$(rss_kib)
    python3 Benchmarks/seed.py $port 1000 4 >/dev/null
    run_wrk "$server" 1 page50-1k "http://127.0.0.1:$port/todos?limit=50"
    python3 Benchmarks/seed.py $port $((MILLION - 1000)) 4 >/dev/null
    loaded=$(rss_kib)
    run_wrk "$server" 1 page50-1m "http://127.0.0.1:$port/todos?limit=50"
    echo "$server memory idle_kib=$idle loaded_kib=$loaded todos=$MILLION" | tee -a "$results/raw.txt" >&2
    stop_server
  done
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results/conditions.txt" >&2
python3 Benchmarks/report.py "$results/raw.txt" | tee "$results/table.md"
