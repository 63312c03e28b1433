#!/usr/bin/env bash
# The live feed's figures (issue 19), on one machine, release build:
#   memory      RSS per subscriber with MEMORY_SUBSCRIBERS (10,000) streams open on one instance;
#   fanout      RATE (1,000) changes/s fanned out to SUBSCRIBERS (1,000): latency from the write's
#               answer to the event read, every subscriber seeing every change once and in order,
#               server CPU per delivered event (in memory);
#   throughput  POST req/s (wrk, 64 connections) with SUBSCRIBERS reading the feed beside no
#               subscriber, alternately in each round;
#   postgres    as fanout, across two instances on one throwaway PostgreSQL cluster: writes to
#               the first, every subscriber on the second.
# Each part runs ROUNDS (2) times on a fresh server; medians are printed by report.py. Raw lines
# land in Benchmarks/results/feed-<time>/raw.txt. The load generator is fanout.c (one thread, epoll):
# it shares the machine's cores with the server, as wrk does in the other benchmarks.
#
# Environment: ROUNDS, PARTS ("memory fanout throughput postgres"), RUN_SECONDS (10) per fan-out run,
# DURATION (8) per wrk run, THREADS (2) loops per server, RATE, SUBSCRIBERS, MEMORY_SUBSCRIBERS, BUILD
# (1; 0 reuses .build/staging-feed), PG_BIN, PG_PORT.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-2} PARTS=${PARTS:-"memory fanout throughput postgres"} RUN_SECONDS=${RUN_SECONDS:-10}
DURATION=${DURATION:-8} THREADS=${THREADS:-2} RATE=${RATE:-1000} SUBSCRIBERS=${SUBSCRIBERS:-1000}
MEMORY_SUBSCRIBERS=${MEMORY_SUBSCRIBERS:-10000}
results="Benchmarks/results/feed-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
ulimit -n "$(ulimit -Hn)"  # the server and the client each hold MEMORY_SUBSCRIBERS sockets

if [ "${BUILD:-1}" = 1 ]; then
  echo "== building (release)" >&2
  scripts/build-release.sh .build/staging-feed >/dev/null
fi
fanout="$results/fanout"
cc -O2 -Wall -Wextra -o "$fanout" Benchmarks/feed/fanout.c

servers=()
# start_server PORT [VAR=VALUE…]: a fresh TodoServer; appends its pid to `servers`, sets pid.
start_server() {
  local port=$1; shift
  (cd .build/staging-feed && env TODO_HOST=127.0.0.1 TODO_PORT="$port" TODO_THREADS="$THREADS" \
    TODO_EVENTS_MAX_SUBSCRIBERS=20000 TODO_MAX_CONNECTIONS=30000 TODO_LOG_LEVEL=warning "$@" \
    ./todo-server) >"$results/server-$port.log" 2>&1 &
  pid=$!
  servers+=("$pid")
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server on $port did not start" >&2; cat "$results/server-$port.log" >&2; exit 1
}
stop_servers() {
  for p in "${servers[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${servers[@]}"; do wait "$p" 2>/dev/null || true; done
  servers=()
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
record() { echo "$*" | tee -a "$results/raw.txt" >&2; }
trap 'stop_servers; [ -n "${PG_STARTED:-}" ] && pg_cluster_stop' EXIT

part_memory() { # ROUND
  start_server 19180
  local before open
  before=$(rss_kib "$pid")
  "$fanout" --sub-ports 19180 --subscribers "$MEMORY_SUBSCRIBERS" --rate 0 --hold 6 >"$results/hold.out" &
  local client=$!
  # The figure is read once every stream is open and the loops have settled (3 s later).
  for _ in $(seq 1 600); do grep -q '^streaming' "$results/hold.out" 2>/dev/null && break; sleep 0.05; done
  grep -q "^streaming subscribers=$MEMORY_SUBSCRIBERS refused=0" "$results/hold.out" || { cat "$results/hold.out" >&2; exit 1; }
  sleep 3
  open=$(rss_kib "$pid")
  wait "$client"
  record "memory $1 subscribers=$MEMORY_SUBSCRIBERS rss_before_kib=$before rss_open_kib=$open" \
    "bytes_per_subscriber=$(((open - before) * 1024 / MEMORY_SUBSCRIBERS))"
  stop_servers
}

# fan_out LABEL ROUND WRITE_PORT SUB_PORT PIDS…: one fan-out run; CPU is summed over PIDS.
fan_out() {
  local label=$1 round=$2 write_port=$3 sub_port=$4; shift 4
  local before=0 after=0 p line
  for p in "$@"; do before=$((before + $(cpu_ticks "$p"))); done
  line=$("$fanout" --sub-ports "$sub_port" --write-port "$write_port" --subscribers "$SUBSCRIBERS" \
    --rate "$RATE" --seconds "$RUN_SECONDS" | tail -1)
  for p in "$@"; do after=$((after + $(cpu_ticks "$p"))); done
  record "$label $round $line cpu_ticks=$((after - before)) hz=$(getconf CLK_TCK)"
}

part_fanout() {
  start_server 19180
  fan_out fanout "$1" 19180 19180 "$pid"
  stop_servers
}

part_throughput() {
  local with
  for with in 0 "$SUBSCRIBERS"; do
    start_server 19180
    local client=""
    if [ "$with" -gt 0 ]; then
      "$fanout" --sub-ports 19180 --subscribers "$with" --rate 0 --hold $((DURATION + 4)) >"$results/drain.out" &
      client=$!
      for _ in $(seq 1 600); do grep -q '^streaming' "$results/drain.out" 2>/dev/null && break; sleep 0.05; done
    fi
    local before line
    before=$(cpu_ticks "$pid")
    # wrk reads its script from a file (not from a pipe: it would silently send GETs).
    cat Benchmarks/wrk/report.lua Benchmarks/wrk/post.lua >"$results/post.lua"
    line=$(wrk -t1 -c64 -d"${DURATION}s" --latency -s "$results/post.lua" http://127.0.0.1:19180/todos | grep '^RESULT' || true)
    record "throughput $1 subscribers=$with $line cpu_ticks=$(($(cpu_ticks "$pid") - before)) hz=$(getconf CLK_TCK)"
    if [ -n "$client" ]; then
      wait "$client" || true
      echo "drain $1 $(tail -1 "$results/drain.out")" >>"$results/raw.txt"
    fi
    stop_servers
  done
}

part_postgres() {
  if [ -z "${PG_STARTED:-}" ]; then
    # shellcheck source=../pg-cluster.sh
    source Benchmarks/pg-cluster.sh
    pg_cluster_start feedbench 200
    PG_STARTED=1
  fi
  local db="feed$1"
  psql_run "CREATE DATABASE $db"
  local url="host=$D port=$PG_PORT dbname=$db user=postgres"
  start_server 19181 TODO_DATABASE_URL="$url"
  local first=$pid
  start_server 19182 TODO_DATABASE_URL="$url"
  fan_out postgres "$1" 19181 19182 "$first" "$pid"
  stop_servers
}

for round in $(seq 1 "$ROUNDS"); do
  for part in $PARTS; do
    echo "== round $round: $part" >&2
    "part_$part" "$round"
  done
done
python3 Benchmarks/feed/report.py "$results/raw.txt" | tee "$results/table.md"
