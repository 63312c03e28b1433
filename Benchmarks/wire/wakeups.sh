#!/usr/bin/env bash
# How often each server's answers wake the load generator, pinned as run.sh's PIN=1 runs are: the
# server (one loop thread) on CPU 0, `wrk -t1 -c64` on CPU 1, DURATION seconds per server and
# workload. Prints per request: wrk's voluntary context switches (each one a sleep that a write of
# the server's ended, paying a cross-core wake-up in the kernel, `sock_def_readable`) and the
# server's CPU time. "todo" runs with the defaults (writeAtTurnEnd on), "todo-at-once" with
# TODO_WRITE_AT_TURN_END=false (each answer written as soon as it is made), "c" is the raw C peer.
# The table also lands in Benchmarks/results/wakeups-<time>/table.md.
#
# Environment: DURATION (5), SERVERS ("todo todo-at-once c"), WORKLOADS ("get-one post"; only these
# two), ROUNDS (2; the servers take turns within a round). Uses the staged binary and the built C peer.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-5} SERVERS=${SERVERS:-"todo todo-at-once c"} WORKLOADS=${WORKLOADS:-"get-one post"} ROUNDS=${ROUNDS:-2}
for workload in $WORKLOADS; do
  case "$workload" in get-one | post) ;; *) echo "wakeups: no workload $workload (get-one, post)" >&2; exit 1 ;; esac
done
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
results="Benchmarks/results/wakeups-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
port=19343
{
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD)"
echo "| round | server | workload | req/s | wrk sleeps/request | server CPU µs/request |"
echo "|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
  for workload in $WORKLOADS; do
    for server in $SERVERS; do
      case "$server" in
        todo) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1 exec taskset -c 0 ./todo-server) >/dev/null 2>&1 & ;;
        todo-at-once) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1 TODO_WRITE_AT_TURN_END=false exec taskset -c 0 ./todo-server) >/dev/null 2>&1 & ;;
        c) taskset -c 0 Benchmarks/Peers/C/todo_c_server $port 1 >/dev/null 2>&1 & ;;
        *) echo "wakeups: no server $server" >&2; exit 1 ;;
      esac
      pid=$!
      up=0
      for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && { up=1; break; }; sleep 0.05; done
      [ "$up" = 1 ] || { echo "wakeups: server $server did not start" >&2; kill "$pid" 2>/dev/null; exit 1; }
      ids=$(python3 Benchmarks/seed.py $port 20 1)
      script=() url="http://127.0.0.1:$port/todos/${ids%%,*}"
      [ "$workload" = post ] && script=(-s Benchmarks/wrk/post.lua) url="http://127.0.0.1:$port/todos"
      before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      out=$(/usr/bin/time -f "WRK_VOLUNTARY %w" taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" "${script[@]}" \
        -H "Origin: http://localhost:3000" "$url" 2>&1)
      after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      kill "$pid"; wait "$pid" 2>/dev/null || true
      if grep -qE "Non-2xx|Socket errors" <<<"$out"; then echo "wakeups: $server $workload had errors: $out" >&2; exit 1; fi
      requests=$(awk '/requests in/ {print $1}' <<<"$out")
      seconds=$(awk '/requests in/ {sub(/s,$/, "", $4); print $4}' <<<"$out")
      sleeps=$(awk '/WRK_VOLUNTARY/ {print $2}' <<<"$out")
      python3 -c "r, sec, s, t, hz = $requests, $seconds, $sleeps, $((after - before)), $(getconf CLK_TCK)
print(f'| $round | $server | $workload | {r / sec:,.0f} | {s / r:.3f} | {t / hz * 1e6 / r:.1f} |')"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$results/table.md"
