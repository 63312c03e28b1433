#!/usr/bin/env bash
# System calls per keep-alive request, TodoServer beside the raw C server on evhttp, in one run:
# `strace -c -f` on each server (every thread) while `wrk -t1 -c8` runs GET of one to-do and GET of
# a list of 20 for DURATION seconds; calls divided by the requests wrk completed. strace slows the
# servers down: the counts per request are the figure, not the rate. "todo" runs with the defaults
# (the access log on, written to /dev/null here as in run.sh); "todo-quiet" with TODO_LOG_LEVEL=warning
# (no access lines), to show what the log costs in calls.
#
# Environment: DURATION seconds per workload (3), THREADS loops per server (2), SERVERS
# ("todo todo-quiet c"), SKIP_BUILD=1 uses the staged binary as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-3} THREADS=${THREADS:-2} SERVERS=${SERVERS:-"todo todo-quiet c"}
for tool in strace wrk; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done
if [ "${SKIP_BUILD:-0}" != 1 ]; then scripts/build-release.sh .build/staging >/dev/null; fi
make -s -C Benchmarks/Peers/C

port=19180
start_server() { # NAME → sets pid
  case "$1" in
    todo) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS exec ./todo-server) >/dev/null 2>&1 & ;;
    todo-quiet) (cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS TODO_LOG_LEVEL=warning exec ./todo-server) \
      >/dev/null 2>&1 & ;;
    c) Benchmarks/Peers/C/todo_c_server $port "$THREADS" >/dev/null 2>&1 & ;;
  esac
  pid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}
stop_server() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }

printf '| server | workload | requests | system calls | per request | the calls (per request) |\n|---|---|---|---|---|---|\n'
for server in $SERVERS; do
  start_server "$server"
  ids=$(python3 Benchmarks/seed.py $port 20 1)
  first=${ids%%,*}
  for workload in get-one list20; do
    url="http://127.0.0.1:$port/todos"
    [ "$workload" = get-one ] && url="$url/$first"
    trace=$(mktemp)
    strace -c -f -q -p "$pid" -o "$trace" &
    tracer=$!
    # strace attaches before wrk starts: wait until it reports the server's threads as attached.
    for _ in $(seq 1 100); do [ -n "$(awk '/TracerPid/ && $2 != 0' "/proc/$pid/status")" ] && break; sleep 0.05; done
    requests=$(wrk -t1 -c8 -d"${DURATION}s" "$url" | awk '/requests in/ {print $1}')
    kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true
    # strace -c: % time, seconds, usecs/call, calls, [errors], syscall.
    total=$(awk '$1 ~ /^[0-9.]+$/ && $NF != "total" {calls += $4} END {print calls}' "$trace")
    calls=$(awk -v n="$requests" '$1 ~ /^[0-9.]+$/ && $NF != "total" && $4 / n >= 0.01 { printf "%s %.2f, ", $NF, $4 / n }' "$trace")
    printf '| %s | %s | %s | %s | %.2f | %s |\n' "$server" "$workload" "$requests" "$total" \
      "$(awk -v t="$total" -v n="$requests" 'BEGIN {print t / n}')" "${calls%, }"
    rm -f "$trace"
  done
  stop_server
done
