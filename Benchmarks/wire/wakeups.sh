#!/usr/bin/env bash
# How often each server's answers wake the load generator, pinned as run.sh's PIN=1 runs are: the
# server (one loop thread) on CPU 0, `wrk -t1 -c64` on CPU 1, DURATION seconds per server and
# workload. Prints per request: wrk's voluntary context switches (each one a sleep that a write of
# the server's ended, paying a cross-core wake-up in the kernel, `sock_def_readable`) and the
# server's CPU time. "todo" runs with the defaults (writeAtTurnEnd on), "todo-at-once" with
# TODO_WRITE_AT_TURN_END=false (each answer written as soon as it is made), "c" is the raw C peer.
#
# Environment: DURATION (5), SERVERS ("todo todo-at-once c"), WORKLOADS ("get-one post"),
# ROUNDS (2; the servers take turns within a round). Uses the staged binary and the built C peer.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-5} SERVERS=${SERVERS:-"todo todo-at-once c"} WORKLOADS=${WORKLOADS:-"get-one post"} ROUNDS=${ROUNDS:-2}
port=19343
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| round | server | workload | req/s | wrk sleeps/request | server CPU µs/request |"
echo "|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
  for workload in $WORKLOADS; do
    for server in $SERVERS; do
      case "$server" in
        todo) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1 exec taskset -c 0 ./todo-server) >/dev/null 2>&1 & ;;
        todo-at-once) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1 TODO_WRITE_AT_TURN_END=false exec taskset -c 0 ./todo-server) >/dev/null 2>&1 & ;;
        c) taskset -c 0 Benchmarks/Peers/C/todo_c_server $port 1 >/dev/null 2>&1 & ;;
      esac
      pid=$!
      for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && break; sleep 0.05; done
      ids=$(python3 Benchmarks/seed.py $port 20 1)
      script=() url="http://127.0.0.1:$port/todos/${ids%%,*}"
      [ "$workload" = post ] && script=(-s Benchmarks/wrk/post.lua) url="http://127.0.0.1:$port/todos"
      before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      out=$(/usr/bin/time -f "WRK_VOLUNTARY %w" taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" "${script[@]}" \
        -H "Origin: http://localhost:3000" "$url" 2>&1)
      after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      kill "$pid"; wait "$pid" 2>/dev/null || true
      requests=$(awk '/requests in/ {print $1}' <<<"$out")
      sleeps=$(awk '/WRK_VOLUNTARY/ {print $2}' <<<"$out")
      python3 -c "r, s, t, hz, d = $requests, $sleeps, $((after - before)), $(getconf CLK_TCK), $DURATION
print(f'| $round | $server | $workload | {r / d:,.0f} | {s / r:.3f} | {t / hz * 1e6 / r:.1f} |')"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
